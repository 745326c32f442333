// SPDX-License-Identifier: Apache-2.0
// ops::UserFunction: a user's elementwise function as the graph, the planner and the backends see
// it (the typed front end is chunked::ElementwiseFunction, chunked/elementwise_function.hpp).
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include <functional>
#include <string>
#include <vector>

namespace chunked::ops {

/// Most arguments a user function takes: a block program's instruction has three operand slots.
inline constexpr int max_user_function_args = 3;

/// A user elementwise function, called inside block programs like the table's operations.
struct UserFunction {
  std::string name;      ///< for messages, programs' text and the kernel cache
  std::string cuda_body; ///< the body of a CUDA function of arguments a, b, c (empty: none)
  DType result = DType::float64;
  std::vector<DType> params; ///< one dtype per argument, 1 to max_user_function_args
  /// The CPU loop: out[j] = f(in[0][j], in[1][j], ...) for j < n, n >= 1; empty when the
  /// function has no CPU form.
  std::function<void(void* out, const void* const* in, index_t n)> cpu;
  /// Equal for functions that compile to the same kernel: the name, the body and the dtypes
  /// (set by make_user_function).
  std::string key;
};

/// A UserFunction with its key. ValueError for an empty name, no or too many parameters, or a
/// name that is not a C identifier (it names generated code).
UserFunction make_user_function(std::string name, std::string cuda_body, DType result,
                                std::vector<DType> params,
                                std::function<void(void*, const void* const*, index_t)> cpu);

} // namespace chunked::ops
