// SPDX-License-Identifier: Apache-2.0
// Naive references of NumPy's concatenate and stack on Dense arrays (reshape's is with_shape in
// reference_shape.hpp), written from NumPy's documentation, not from the library's code.
#pragma once

#include "support/reference.hpp"

#include <vector>

namespace chunked::test {

/// np.concatenate(arrays, axis) for arrays that agree off `axis` (axis in [0, ndim)): element idx
/// of the result is element idx of the operand holding idx[axis], shifted along the axis.
template <class T> Dense<T> ref_concatenate(const std::vector<Dense<T>>& arrays, index_t axis) {
  const auto a = static_cast<std::size_t>(axis);
  Extents shape = arrays.at(0).shape();
  shape[a] = 0;
  for (const auto& x : arrays)
    shape[a] += x.shape()[a];
  return generate<T>(shape, [&](index_t i) {
    Extents idx = unravel(i, shape);
    std::size_t op = 0;
    while (idx[a] >= arrays[op].shape()[a]) {
      idx[a] -= arrays[op].shape()[a];
      ++op;
    }
    return arrays[op].at(idx);
  });
}

/// np.stack(arrays, axis) for arrays of one shape (axis in [0, ndim]): each array given an axis
/// of length 1 at `axis`, then concatenated along it.
template <class T> Dense<T> ref_stack(const std::vector<Dense<T>>& arrays, index_t axis) {
  std::vector<Dense<T>> expanded;
  for (const auto& x : arrays) {
    Extents shape = x.shape();
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(Dense<T>(shape, x.values()));
  }
  return ref_concatenate(expanded, axis);
}

} // namespace chunked::test
