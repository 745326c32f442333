// SPDX-License-Identifier: Apache-2.0
// The `overlap` statement: map_overlap of a weighted box stencil over integer arrays, through
// chunked's public API (gen_shapes.py's op_overlap computes the same with NumPy's pad).
#include "values.hpp"

#if defined(CHUNKED_DIFFERENTIAL_CUDA)
#include <cuda_runtime.h>
#endif

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunked::differential {

namespace {

Boundary parse_boundary(const std::string& kind, const std::string& value) {
  if (kind == "none")
    return Boundary::none;
  if (kind == "periodic")
    return Boundary::periodic;
  if (kind == "reflect")
    return Boundary::reflect;
  if (kind == "nearest")
    return Boundary::nearest;
  if (kind == "constant")
    return Boundary::constant(std::strtod(value.c_str(), nullptr));
  throw ProgramError("unknown boundary " + kind);
}

#if defined(CHUNKED_DIFFERENTIAL_CUDA)
void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("overlap: ") + what + ": " + cudaGetErrorString(e));
}
#endif

/// out[i] = sum over the offsets o of the box [-depth, depth] of w(o) * in[i + lo + o], where
/// w(o) = 1 + o's C-order index in the box and lo is where the block starts in `in`; terms
/// outside `in` (the array's edges under Boundary::none) are left out. Wrapping arithmetic, as
/// NumPy's integers have. A host function: on a GPU (info.device >= 0) it copies its block and
/// halo to the host and its result back, on the block's stream, as a user's host code would.
template <class T> struct BoxStencil {
  std::vector<index_t> depth;
  bool none = false;

  void operator()(const BlockInfo& info, BlockView<T> out, BlockView<const T> in) const {
    if (info.device < 0) {
      apply(info, out.data, out.shape, in.data, in.shape);
      return;
    }
#if defined(CHUNKED_DIFFERENTIAL_CUDA)
    auto* stream = static_cast<cudaStream_t>(info.stream);
    std::vector<T> host_in(static_cast<std::size_t>(in.size()));
    std::vector<T> host_out(static_cast<std::size_t>(out.size()));
    cuda_check(cudaMemcpyAsync(host_in.data(), in.data, host_in.size() * sizeof(T),
                               cudaMemcpyDeviceToHost, stream),
               "copy to the host");
    cuda_check(cudaStreamSynchronize(stream), "copy to the host");
    apply(info, host_out.data(), out.shape, host_in.data(), in.shape);
    cuda_check(cudaMemcpyAsync(out.data, host_out.data(), host_out.size() * sizeof(T),
                               cudaMemcpyHostToDevice, stream),
               "copy to the device");
    cuda_check(cudaStreamSynchronize(stream), "copy to the device"); // host_out must outlive it
#else
    throw std::runtime_error("overlap: a block on a GPU in a runner built without CUDA");
#endif
  }

  void apply(const BlockInfo& info, T* out, const Shape& out_shape, const T* in,
             const Shape& in_shape) const {
    const auto nd = static_cast<index_t>(depth.size());
    std::vector<index_t> lo(depth.size()), box(depth.size());
    index_t terms = 1;
    for (index_t k = 0; k < nd; ++k) {
      lo[k] = none ? std::min(depth[k], info.offset[k]) : depth[k];
      box[k] = 2 * depth[k] + 1;
      terms *= box[k];
    }
    const std::vector<index_t> in_strides = in_shape.strides();
    const std::vector<index_t> out_strides = out_shape.strides();
    for (index_t p = 0; p < out_shape.size(); ++p) {
      std::uint64_t sum = 0;
      for (index_t t = 0; t < terms; ++t) {
        index_t at = 0, rest = t;
        bool inside = true;
        for (index_t k = nd - 1; k >= 0; --k) {
          const index_t o = rest % box[k] - depth[k];
          rest /= box[k];
          const index_t j = p / out_strides[k] % out_shape[k] + lo[k] + o;
          inside = inside && j >= 0 && j < in_shape[k];
          at += j * in_strides[k];
        }
        if (inside)
          sum += static_cast<std::uint64_t>(t + 1) * static_cast<std::uint64_t>(in[at]);
      }
      out[p] = static_cast<T>(sum);
    }
  }
};

} // namespace

template <class B> Value<B> evaluate_overlap(const Statement& s, const Values<B>& values) {
  // overlap VALUE DEPTHS BOUNDARY [VALUE]
  if (s.args.size() != 3 && s.args.size() != 4)
    throw ProgramError("overlap takes a value, depths, a boundary and its value: " + s.text);
  const std::vector<index_t> depth = parse_extents(s.args[1]);
  const Boundary boundary = parse_boundary(s.args[2], s.args.size() == 4 ? s.args[3] : "0");
  return std::visit(
      [&](const auto& x) -> Value<B> {
        using T = typename std::decay_t<decltype(x)>::value_type;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          const BoxStencil<T> fn{depth, boundary.kind == Boundary::Kind::none};
          return map_overlap<T>(fn, x, depth, boundary);
        } else {
          throw ProgramError("overlap of a non-integer array: " + s.text);
        }
      },
      lookup(values, s.args[0]));
}

template Value<Cpu> evaluate_overlap<Cpu>(const Statement&, const Values<Cpu>&);
template Value<Auto> evaluate_overlap<Auto>(const Statement&, const Values<Auto>&);

} // namespace chunked::differential
