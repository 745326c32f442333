// SPDX-License-Identifier: Apache-2.0
// The CPU's exact cumsum (exact_scan.hpp): a tile of lines at a time, each with its running
// exact sum, walked down the axis row by row so that the reads and writes stay contiguous.
#include "backend/cpu/exact_scan.hpp"

#include "backend/common/exact_running.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace chunked::cpu {

namespace {

namespace exact = scalar::exact;

/// Lines walked together: their running sums (about 560 bytes each) stay in L1 and L2.
constexpr index_t tile_lines = 32;

template <class T>
void exact_scan(const plan::ScanBlock& b, const T* in, const void* carry, T* out) {
  std::int64_t* states = plan::exact_states(out, b, dtype_v<T>);
  const std::int64_t* carried = plan::exact_carried_states(carry, b, dtype_v<T>);
  constexpr auto words = plan::exact_state_words;
  std::vector<exact::Running> run(static_cast<std::size_t>(std::min(tile_lines, b.inner)));
  for (index_t o = 0; o < b.outer; ++o)
    for (index_t j0 = 0; j0 < b.inner; j0 += tile_lines) {
      const index_t w = std::min(tile_lines, b.inner - j0);
      const index_t line0 = o * b.inner + j0;
      for (index_t j = 0; j < w; ++j) {
        exact::Running& r = run[static_cast<std::size_t>(j)];
        if (carried)
          exact::load(r, carried + (line0 + j) * words);
        else
          exact::start(r);
      }
      for (index_t i = 0; i < b.length; ++i) {
        const index_t at = (o * b.length + i) * b.inner + j0;
        for (index_t j = 0; j < w; ++j) {
          exact::Running& r = run[static_cast<std::size_t>(j)];
          exact::add(r, static_cast<double>(in[at + j]));
          out[at + j] = exact::running_value<T>(r);
        }
      }
      for (index_t j = 0; j < w; ++j)
        exact::store(run[static_cast<std::size_t>(j)], states + (line0 + j) * words);
    }
}

} // namespace

void exact_scan_block(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                      void* out) {
  static_assert(plan::exact_state_words == exact::words);
  switch (dtype) {
  case DType::float32:
    return exact_scan(b, static_cast<const float*>(in), carry, static_cast<float*>(out));
  case DType::float64:
    return exact_scan(b, static_cast<const double*>(in), carry, static_cast<double*>(out));
  default:
    throw ValueError("internal: an exact cumsum of " + std::string(dtype_name(dtype)) +
                     " values; exact cumsums take float or double");
  }
}

} // namespace chunked::cpu
