// SPDX-License-Identifier: Apache-2.0
// The CPU's exact cumsum (exact_scan.hpp): a tile of lines at a time, each with its running
// exact sum, walked down the axis row by row so that the reads and writes stay contiguous.
#include "backend/cpu/exact_scan.hpp"

#include "backend/common/exact_running.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace chunked::cpu {

namespace {

namespace exact = scalar::exact;

/// Lines walked together: their running sums (about 560 bytes each) stay in L1 and L2.
constexpr index_t tile_lines = 32;

/// The lines' exact sums after `values` values of `dtype` in `block` (B: std::byte or const
/// std::byte).
template <class B> auto states_of(B* block, index_t values, DType dtype) {
  using W = std::conditional_t<std::is_const_v<B>, const std::int64_t, std::int64_t>;
  return reinterpret_cast<W*>(block + plan::exact_state_offset(values, dtype));
}

template <class T>
void exact_scan(const plan::ScanBlock& b, const T* in, const void* carry, T* out) {
  constexpr DType dtype = dtype_v<T>;
  std::int64_t* states = states_of(reinterpret_cast<std::byte*>(out), b.size(), dtype);
  const std::int64_t* carried = b.carry_length > 0
                                    ? states_of(static_cast<const std::byte*>(carry),
                                                b.outer * b.carry_length * b.inner, dtype)
                                    : nullptr;
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
