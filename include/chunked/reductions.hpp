// SPDX-License-Identifier: Apache-2.0
// Free-function reductions: sum(x, Axes{0}), mean(x), ... mirror ChunkedArray's members.
#pragma once

#include <chunked/array.hpp>

namespace chunked {

// Free-function reductions mirror the members. There is no free `all(x)`: the name is taken by
// the slice constant `chunked::all` (':'); use `x.all()`.
template <class T, class B>
auto sum(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.sum(a, k);
}
template <class T, class B>
auto prod(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.prod(a, k);
}
template <class T, class B>
auto min(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.min(a, k);
}
template <class T, class B>
auto max(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.max(a, k);
}
template <class T, class B>
auto mean(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.mean(a, k);
}
template <class T, class B>
auto any(const ChunkedArray<T, B>& x, const Axes& a = {}, bool k = false) {
  return x.any(a, k);
}
template <class T, class B>
auto var(const ChunkedArray<T, B>& x, const Axes& a = {}, index_t ddof = 0, bool k = false) {
  return x.var(a, ddof, k);
}
template <class T, class B>
auto std(const ChunkedArray<T, B>& x, const Axes& a = {}, index_t ddof = 0, bool k = false) {
  return x.std(a, ddof, k);
}
template <class T, class B> auto argmin(const ChunkedArray<T, B>& x, std::optional<int> axis = {}) {
  return x.argmin(axis);
}
template <class T, class B> auto argmax(const ChunkedArray<T, B>& x, std::optional<int> axis = {}) {
  return x.argmax(axis);
}

} // namespace chunked
