// SPDX-License-Identifier: Apache-2.0
// ChunkedArray<T, Backend>: a lazy N-dimensional array split into chunks.
#pragma once

#include <chunked/core/backend_tags.hpp>
#include <chunked/core/chunk_grid.hpp>
#include <chunked/core/chunks.hpp>
#include <chunked/core/ndarray.hpp>
#include <chunked/core/slice.hpp>
#include <chunked/detail/engine.hpp>
#include <chunked/detail/promotion.hpp>
#include <chunked/graph/node.hpp>
#include <chunked/runtime/compute_options.hpp>
#include <chunked/runtime/job.hpp>

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace chunked {

/// Axes to reduce over. `Axes{0, 2}`; negative axes count from the end; `Axes{}` means all axes.
class Axes {
public:
  Axes() = default;
  Axes(std::initializer_list<index_t> axes) : axes_(axes) {}
  explicit Axes(std::vector<index_t> axes) : axes_(std::move(axes)) {}
  const std::vector<index_t>& values() const { return axes_; }
  bool all() const { return axes_.empty(); }

private:
  std::vector<index_t> axes_;
};

namespace detail {
using IndexArg = std::variant<index_t, Slice>;
/// x(i, slice(...), ...): integers drop their axis, slices keep it, missing trailing axes stay
/// whole.
graph::NodePtr index_view(const graph::NodePtr& node, const std::vector<IndexArg>& args);
graph::NodePtr reduce(const graph::NodePtr& node, ops::ReduceOp op, const Axes& axes, bool keepdims,
                      index_t ddof = 0);
graph::NodePtr arg_reduce(const graph::NodePtr& node, ops::ReduceOp op, std::optional<int> axis);
graph::NodePtr rechunk(const graph::NodePtr& node, const Chunks& chunks);
/// x.transpose(): the axes in the order `axes` gives (reversed without it); see shape_ops.hpp.
graph::NodePtr transpose(const graph::NodePtr& node,
                         const std::optional<std::vector<index_t>>& axes);
graph::NodePtr empty_array(DType dtype);
/// x.reshape(shape[, chunks]): see chunked::reshape (reshape.hpp); `chunks` may be null.
graph::NodePtr reshape(const graph::NodePtr& node, const std::vector<index_t>& shape,
                       const Chunks* chunks);

/// x.cumsum(axis), x.cumprod(axis): the input cast to its accumulation dtype, then scanned
/// (scans.hpp).
graph::NodePtr scan(const graph::NodePtr& node, graph::ScanParams::Op op, index_t axis);
} // namespace detail

/// A lazy N-dimensional array of T split into chunks, computed on `Backend` (Cpu, Cuda or Auto).
///
/// Every operation builds a node of an immutable graph and checks its arguments at once; nothing
/// is computed until compute(), item(), to_host() or persist(). Copies are cheap (shared graph).
///
/// @code
/// chunked::Generator rng(42);
/// auto x = rng.normal<double>(chunked::Shape{1000, 1000}, chunked::Chunks{100, 100});
/// double s = (x + 1.0)(chunked::slice(chunked::none, chunked::none, 2)).sum().item();
/// @endcode
template <class T, class Backend = Cpu> class ChunkedArray {
  static_assert(is_element_type_v<T>,
                "ChunkedArray<T>: T must be bool, std::int32_t, std::int64_t, float or double");
  static_assert(
      is_backend_v<Backend>,
      "ChunkedArray<T, Backend>: Backend must be chunked::Cpu, chunked::Cuda or chunked::Auto");

public:
  using value_type = T;
  using backend_type = Backend;

  /// An empty one-dimensional array (shape (0,)), so that arrays can be declared before they are
  /// assigned.
  ChunkedArray() : node_(detail::empty_array(dtype_v<T>)) {}

  /// Wraps a graph node (for extensions); the node's dtype must be T's.
  explicit ChunkedArray(graph::NodePtr node) : node_(std::move(node)) {
    if (node_->dtype != dtype_v<T>)
      throw ValueError("ChunkedArray<" + std::string(dtype_name(dtype_v<T>)) +
                       "> given a node of dtype " + std::string(dtype_name(node_->dtype)));
  }

  const Shape& shape() const { return node_->shape; }
  index_t ndim() const { return node_->shape.ndim(); }
  index_t size() const { return node_->shape.size(); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * sizeof(T); }
  /// Per-axis chunk lengths of the array.
  const ChunkGrid& chunks() const { return node_->grid; }
  index_t numblocks() const { return node_->grid.numblocks(); }
  DType dtype() const { return node_->dtype; }
  const graph::NodePtr& node() const { return node_; }

  /// A lazy view, NumPy-style: an integer drops its axis (negative counts from the end; out of
  /// range is an IndexError now), a Slice keeps it; axes not given stay whole.
  template <class... I> ChunkedArray operator()(I... index) const {
    static_assert(((std::is_integral_v<I> || std::is_same_v<I, Slice>)&&...),
                  "ChunkedArray::operator(): arguments must be integers or chunked::Slice");
    return ChunkedArray(detail::index_view(node_, {to_index_arg(index)...}));
  }

  // Reductions (lazy). Axes{} = all axes.
  auto sum(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<detail::sum_t<T>>(ops::ReduceOp::sum, axes, keepdims);
  }
  auto prod(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<detail::sum_t<T>>(ops::ReduceOp::prod, axes, keepdims);
  }
  auto min(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<T>(ops::ReduceOp::min, axes, keepdims);
  }
  auto max(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<T>(ops::ReduceOp::max, axes, keepdims);
  }
  /// The sum divided by the count. Computed in one program with var() or std() of the same array
  /// over the same axes (standardising, say), all of them come from one pass that keeps
  /// (count, mean, M2): the mean is then the running mean, equal to the sum's within rounding.
  /// Where the data hold infinities or NaN, either way the mean is NumPy's (+inf or -inf for
  /// infinities of one sign, else NaN) and var() and std() are NaN, on every chunking.
  auto mean(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<detail::mean_t<T>>(ops::ReduceOp::mean, axes, keepdims);
  }
  auto any(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<bool>(ops::ReduceOp::any, axes, keepdims);
  }
  auto all(const Axes& axes = {}, bool keepdims = false) const {
    return reduce<bool>(ops::ReduceOp::all, axes, keepdims);
  }
  /// Variance with `ddof` delta degrees of freedom: divides by max(N - ddof, 0) for any ddof,
  /// negative ones too, as NumPy (so N - ddof <= 0 gives inf, or NaN where the data do not vary).
  auto var(const Axes& axes = {}, index_t ddof = 0, bool keepdims = false) const {
    return ChunkedArray<detail::mean_t<T>, Backend>(
        detail::reduce(node_, ops::ReduceOp::var, axes, keepdims, ddof));
  }
  auto std(const Axes& axes = {}, index_t ddof = 0, bool keepdims = false) const {
    return ChunkedArray<detail::mean_t<T>, Backend>(
        detail::reduce(node_, ops::ReduceOp::std, axes, keepdims, ddof));
  }
  /// Index of the smallest element: a C-order flat index (int64) when axis is none, else the
  /// position along `axis`. NaN counts as smallest; ties give the first occurrence.
  auto argmin(std::optional<int> axis = {}) const {
    return ChunkedArray<std::int64_t, Backend>(
        detail::arg_reduce(node_, ops::ReduceOp::argmin, axis));
  }
  auto argmax(std::optional<int> axis = {}) const {
    return ChunkedArray<std::int64_t, Backend>(
        detail::arg_reduce(node_, ops::ReduceOp::argmax, axis));
  }

  /// The axes reversed: a lazy view whose element (i, j, k) is this array's (k, j, i). As
  /// chunked::transpose (shape_ops.hpp): no data moves until a block program reads it, and the
  /// chunk grid is this one's, reversed.
  ChunkedArray transpose() const { return ChunkedArray(detail::transpose(node_, std::nullopt)); }
  /// The axes permuted: output axis k is axis `axes[k]` of this array (negative counts from the
  /// end), as NumPy's `x.transpose(axes)`. A list of the wrong length or a repeated axis is a
  /// ValueError; an axis out of range an IndexError.
  ChunkedArray transpose(const std::vector<index_t>& axes) const {
    return ChunkedArray(detail::transpose(node_, axes));
  }

  /// The same elements in C order in another shape, as chunked::reshape (reshape.hpp):
  /// `x.reshape({1000, -1})` infers the -1. Also from a Shape or a std::vector<index_t>, and with
  /// the chunks the result should have.
  ChunkedArray reshape(std::initializer_list<index_t> shape) const {
    return ChunkedArray(detail::reshape(node_, std::vector<index_t>(shape), nullptr));
  }
  ChunkedArray reshape(const std::vector<index_t>& shape) const {
    return ChunkedArray(detail::reshape(node_, shape, nullptr));
  }
  ChunkedArray reshape(const Shape& shape) const {
    return ChunkedArray(detail::reshape(node_, shape.extents(), nullptr));
  }
  ChunkedArray reshape(std::initializer_list<index_t> shape, const Chunks& chunks) const {
    return ChunkedArray(detail::reshape(node_, std::vector<index_t>(shape), &chunks));
  }
  ChunkedArray reshape(const std::vector<index_t>& shape, const Chunks& chunks) const {
    return ChunkedArray(detail::reshape(node_, shape, &chunks));
  }
  ChunkedArray reshape(const Shape& shape, const Chunks& chunks) const {
    return ChunkedArray(detail::reshape(node_, shape.extents(), &chunks));
  }
  /// The cumulative sum along `axis` (negative counts from the end), as chunked::cumsum
  /// (scans.hpp): the same shape and chunks; bool and integers accumulate in int64. IndexError
  /// for an axis out of range.
  auto cumsum(index_t axis) const {
    return ChunkedArray<detail::sum_t<T>, Backend>(
        detail::scan(node_, graph::ScanParams::Op::sum, axis));
  }
  /// The cumulative product along `axis`, as chunked::cumprod (scans.hpp).
  auto cumprod(index_t axis) const {
    return ChunkedArray<detail::sum_t<T>, Backend>(
        detail::scan(node_, graph::ScanParams::Op::prod, axis));
  }

  /// The same values with other chunk lengths (aligned lazily by the planner).
  ChunkedArray rechunk(const Chunks& chunks) const {
    return ChunkedArray(detail::rechunk(node_, chunks));
  }
  /// Elementwise conversion (C++ static_cast semantics; to bool is `!= 0`).
  template <class U> ChunkedArray<U, Backend> astype() const {
    return ChunkedArray<U, Backend>(graph::cast(node_, dtype_v<U>));
  }
  /// The same array computed on backend B2; stored blocks move when it is computed.
  template <class B2> ChunkedArray<T, B2> to() const { return ChunkedArray<T, B2>(node_); }

  /// Computes the whole array into a dense host array (C order). An empty array checks `options`
  /// and the backend as any other does (ValueError, BackendError) and computes nothing.
  NDArray<T> compute(const ComputeOptions& options = {}) const {
    auto out = NDArray<T>::uninitialized(shape());
    detail::compute_into({{node_, out.data()}}, backend_traits<Backend>::kind, options);
    return out;
  }
  /// The only element; ShapeError (before computing anything) unless size() == 1.
  T item(const ComputeOptions& options = {}) const {
    if (size() != 1)
      throw ShapeError("item(): the array has shape " + shape().to_string() + " (" +
                       std::to_string(size()) + " elements); expected exactly one element");
    T value{};
    detail::compute_into({{node_, &value}}, backend_traits<Backend>::kind, options);
    return value;
  }
  /// Computes every block and keeps it in the backend's memory; the result reads from there.
  ChunkedArray persist(const ComputeOptions& options = {}) const {
    return ChunkedArray(detail::persist(node_, backend_traits<Backend>::kind, options));
  }
  /// Computes into caller memory, C order; `out.size()` must equal size() (ShapeError).
  void to_host(std::span<T> out, const ComputeOptions& options = {}) const {
    if (static_cast<index_t>(out.size()) != size())
      throw ShapeError("to_host: the output span holds " + std::to_string(out.size()) +
                       " elements but the array " + shape().to_string() + " has " +
                       std::to_string(size()));
    detail::compute_into({{node_, out.data()}}, backend_traits<Backend>::kind, options);
  }

  // ---- Views (interop): results written into caller device memory
  /// Computes the whole array straight into CUDA device memory at `dev_out` on `device` (dense, C
  /// order, size() elements): kernels on `device` write into it, with no copy through the host.
  /// Without ComputeOptions::devices the computation runs on `device`; with them, blocks computed
  /// on other devices arrive by peer copies. Returns when the values are there.
  ///
  /// BackendError in a build without CUDA or for a device that does not exist; ValueError for a
  /// Cpu array (compute it as `.to<Cuda>()` or `.to<Auto>()`), and for a null pointer with
  /// elements, one not aligned for T, or one that is not memory of `device`.
  void to_device(T* dev_out, int device, const ComputeOptions& options = {}) const {
    detail::compute_to_device(node_, dev_out, alignof(T), device, backend_traits<Backend>::kind,
                              options);
  }

  // ---- Diagnostics ----

  /// The plan compute() would run, in words; nothing runs. It is planned for the backend this
  /// array computes on (Auto: the one it would pick here; a Cuda array is explained where no GPU
  /// is, too) and gives: each block program with its leaves named by the API that made them
  /// ("normal", "arange", "stored", "from_zarr", ...), their index maps and the slices pushed
  /// into them, its operations and its sink ("sum", "store"), grid and task count; the other
  /// stages (combines, gathers, loads, ...); each intermediate stored (materialised) and why;
  /// tasks by kind, blocks, and the bytes read and written.
  ///
  /// @code
  /// chunked::Generator rng(42);
  /// auto s = rng.normal<double>(Shape{1000, 1000}, Chunks{250, 250})(
  ///     slice(none, none, 2), slice(none, none, 2)).sum();
  /// std::string e = s.explain();
  /// // explain: float64 array of shape () in 1 block, planned for the Cpu backend
  /// // 20 tasks: 17 program, 3 combine
  /// // ...
  /// // program 0: 16 tasks over (500, 500) in 4x4 = 16 blocks of (125, 125)
  /// //   v0 = normal float64 (mean 0, stddev 1, seed 42, stream 0) of shape (1000, 1000), ...
  /// //        slice pushed into leaf: reads normal[::2, ::2] (every 2nd element along axis 0, ...)
  /// //   operations: none
  /// //   sink: sum over axes (0, 1) into partial states, read by combine 0 (sum)
  /// @endcode
  std::string explain() const { return detail::explain(node_, backend_traits<Backend>::kind); }

  /// The same plan as a Graphviz digraph (`dot -Tsvg`): a node per stage (a program's tasks, a
  /// reduction's combines, the gathers of one array, ...) and per stored array read, edges
  /// labelled with the reads between them. Its size depends on the stages, not on the blocks.
  ///
  /// @code
  /// std::string g = s.to_dot();
  /// // digraph chunked {
  /// //   g0 [label="program 0\l16 tasks over (500, 500) ...\lnormal[::2, ::2]\l...", shape=box];
  /// //   g1 [label="combine 0 (sum)\l3 tasks, 1 block, 8 B\l", shape=ellipse];
  /// //   g0 -> g1 [label="16"];
  /// //   ...
  /// @endcode
  std::string to_dot() const { return detail::to_dot(node_, backend_traits<Backend>::kind); }

  // ---- Asynchronous compute (runtime/job.hpp) ----

  /// compute(options) on a thread of its own: returns at once with a Job whose get() gives the
  /// NDArray (bitwise the one compute() gives). Bad options (ValueError) and an unusable backend
  /// (BackendError) throw here; every other error comes from get(). See chunked::Job.
  Job<NDArray<T>> compute_async(const ComputeOptions& options = {}) const {
    detail::check_compute(backend_traits<Backend>::kind, options);
    return Job<NDArray<T>>::start([x = *this, options] { return x.compute(options); });
  }
  /// persist(options) on a thread of its own, as compute_async().
  Job<ChunkedArray> persist_async(const ComputeOptions& options = {}) const {
    detail::check_compute(backend_traits<Backend>::kind, options);
    return Job<ChunkedArray>::start([x = *this, options] { return x.persist(options); });
  }

private:
  template <class I> static detail::IndexArg to_index_arg(I i) {
    if constexpr (std::is_same_v<I, Slice>)
      return i;
    else
      return static_cast<index_t>(i);
  }
  template <class U>
  ChunkedArray<U, Backend> reduce(ops::ReduceOp op, const Axes& axes, bool keepdims) const {
    return ChunkedArray<U, Backend>(detail::reduce(node_, op, axes, keepdims));
  }

  graph::NodePtr node_;
};

template <class T> inline constexpr bool is_chunked_array_v = false;
template <class T, class B> inline constexpr bool is_chunked_array_v<ChunkedArray<T, B>> = true;

/// Computes several arrays in one pass over shared work: intermediates they have in common are
/// computed once. Returns a std::tuple of NDArray. All arrays must use the same backend.
template <class... A> auto compute(const ComputeOptions& options, const A&... arrays) {
  static_assert(sizeof...(A) > 0, "chunked::compute needs at least one array");
  using First = std::tuple_element_t<0, std::tuple<A...>>;
  using B = typename First::backend_type;
  static_assert((std::is_same_v<typename A::backend_type, B> && ...),
                "chunked::compute: all arrays must use the same backend (use .to<B>())");
  std::tuple<NDArray<typename A::value_type>...> out{
      NDArray<typename A::value_type>::uninitialized(arrays.shape())...};
  std::vector<detail::HostTarget> targets;
  std::apply([&](auto&... nd) { (targets.push_back({arrays.node(), nd.data()}), ...); }, out);
  detail::compute_into(targets, backend_traits<B>::kind, options);
  return out;
}

/// chunked::compute(options, arrays...) on a thread of its own (one plan; shared intermediates
/// computed once): returns at once with a Job whose get() gives the std::tuple of NDArray. Bad
/// options and an unusable backend throw here, everything else from get(); see chunked::Job.
/// The job holds its own references to the arrays' graphs.
template <class... A> auto submit(const ComputeOptions& options, const A&... arrays) {
  static_assert(sizeof...(A) > 0, "chunked::submit needs at least one array");
  static_assert((is_chunked_array_v<A> && ...),
                "chunked::submit: the arrays must be ChunkedArrays");
  using B = typename std::tuple_element_t<0, std::tuple<A...>>::backend_type;
  static_assert((std::is_same_v<typename A::backend_type, B> && ...),
                "chunked::submit: all arrays must use the same backend (use .to<B>())");
  detail::check_compute(backend_traits<B>::kind, options);
  using Result = std::tuple<NDArray<typename A::value_type>...>;
  return Job<Result>::start([options, arrays...] { return chunked::compute(options, arrays...); });
}

} // namespace chunked
