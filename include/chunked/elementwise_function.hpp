// SPDX-License-Identifier: Apache-2.0
// ElementwiseFunction: a user's elementwise function, fused into block programs like +, exp or
// where (DESIGN section 8.3).
#pragma once

#include <chunked/core/backend_tags.hpp>
#include <chunked/core/dtype.hpp>
#include <chunked/ops.hpp>
#include <chunked/ops/user_function.hpp>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// @file
/// An ElementwiseFunction<R(Args...)> computes R from one value of each argument. Calling it on
/// arrays (and scalars) makes a lazy array like any arithmetic: no block is stored for it, the
/// call is an instruction of the block program that reads its arguments.
///
/// - On the GPU its CUDA body is compiled by NVRTC into the generated kernel: the body of a
///   device function `R f(A0 a, A1 b, A2 c)` (arguments named a, b, c in order), which may call
///   CUDA's math functions (exp, log1p, fma, ...).
/// - On the CPU its callable is called per tile inside the interpreter:
///   `void(R* out, const Args*... in, index_t n)` with n >= 1 contiguous values of each argument,
///   to write n results. Each element is computed once; the callable may run on several worker
///   threads at once (on different tiles), so it must not mutate shared state without care.
/// - Arguments are converted to the declared parameter types and broadcast together as for
///   operators (NumPy's rules); at least one argument is an array, and all arrays share a backend.
/// - 1 to 3 parameters (a block program's instruction has three operand slots).
/// - The name (an identifier) names the function in programs and the kernel cache: functions of
///   one name, body and signature share compiled kernels.
/// - On Cpu the callable is required, on Cuda the body, on Auto both (ValueError at the call);
///   an NVRTC compile error of the body surfaces from compute() as a BackendError with NVRTC's log.
///   An exception the callable throws surfaces from compute() (the runtime stays usable).
///
/// @code
/// chunked::ElementwiseFunction<double(double, double)> smooth_max{
///     "smooth_max",
///     "return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));",
///     [](double* out, const double* a, const double* b, chunked::index_t n) {
///       for (chunked::index_t j = 0; j < n; ++j)
///         out[j] = a[j] > b[j] ? a[j] + std::log1p(std::exp(b[j] - a[j]))
///                              : b[j] + std::log1p(std::exp(a[j] - b[j]));
///     }};
/// auto h = smooth_max(x, y);        // also smooth_max(x, 0.0)
/// @endcode

namespace chunked {

namespace detail {

/// The call of `fn` on `args` (arrays or rank-0 constants), each cast to its parameter dtype,
/// broadcast together; ValueError when `fn` lacks the form `backend` runs (Auto: either).
graph::NodePtr call_function(std::shared_ptr<const ops::UserFunction> fn,
                             std::vector<graph::NodePtr> args, BackendKind backend);

template <class X> struct call_arg_backend { using type = void; };
template <class T, class B> struct call_arg_backend<ChunkedArray<T, B>> { using type = B; };

/// The backend of the first array among Xs (void when none is an array).
template <class... Xs> struct first_backend { using type = void; };
template <class X, class... Rest> struct first_backend<X, Rest...> {
  using own = typename call_arg_backend<X>::type;
  using type = std::conditional_t<std::is_void_v<own>, typename first_backend<Rest...>::type, own>;
};

} // namespace detail

template <class Signature> class ElementwiseFunction;

/// A user elementwise function of signature R(Args...) (see the file's documentation).
template <class R, class... Args> class ElementwiseFunction<R(Args...)> {
  static_assert(is_element_type_v<R> && (is_element_type_v<Args> && ...),
                "ElementwiseFunction<R(Args...)>: R and Args must be bool, std::int32_t, "
                "std::int64_t, float or double");
  static_assert(sizeof...(Args) >= 1 && sizeof...(Args) <= ops::max_user_function_args,
                "ElementwiseFunction<R(Args...)>: 1 to 3 arguments");

public:
  /// The CPU form: out[j] = f(in[j]...) for j < n.
  using cpu_function = std::function<void(R* out, const Args*... in, index_t n)>;

  /// A function with a CUDA body (empty: none) and a CPU callable (empty: none); at least one.
  ElementwiseFunction(std::string name, std::string cuda_body, cpu_function cpu = {})
      : fn_(std::make_shared<const ops::UserFunction>(
            ops::make_user_function(std::move(name), std::move(cuda_body), dtype_v<R>,
                                    {dtype_v<Args>...}, erase(std::move(cpu))))) {}
  /// A function for the CPU only.
  ElementwiseFunction(std::string name, cpu_function cpu)
      : ElementwiseFunction(std::move(name), std::string(), std::move(cpu)) {}

  const std::string& name() const { return fn_->name; }

  /// The lazy array f(xs...): arrays and scalars, one per parameter, at least one array.
  template <class... Xs> auto operator()(const Xs&... xs) const {
    static_assert(sizeof...(Xs) == sizeof...(Args),
                  "ElementwiseFunction: give one argument per parameter");
    using B = typename detail::first_backend<Xs...>::type;
    static_assert(!std::is_void_v<B>, "ElementwiseFunction: at least one argument is an array");
    static_assert(((std::is_same_v<typename detail::call_arg_backend<Xs>::type, B> ||
                    detail::is_scalar_v<Xs>)&&...),
                  "ElementwiseFunction: arrays of one backend, or scalars");
    return ChunkedArray<R, B>(
        detail::call_function(fn_, {to_node<Args>(xs)...}, backend_traits<B>::kind));
  }

private:
  static std::function<void(void*, const void* const*, index_t)> erase(cpu_function cpu) {
    if (!cpu)
      return {};
    return [f = std::move(cpu)](void* out, const void* const* in, index_t n) {
      call(f, static_cast<R*>(out), in, n, std::index_sequence_for<Args...>{});
    };
  }
  template <std::size_t... I>
  static void call(const cpu_function& f, R* out, const void* const* in, index_t n,
                   std::index_sequence<I...>) {
    f(out, static_cast<const Args*>(in[I])..., n);
  }

  template <class P, class X> static graph::NodePtr to_node(const X& x) {
    if constexpr (is_chunked_array_v<X>)
      return x.node();
    else
      return detail::scalar_node(dtype_v<P>, x);
  }

  std::shared_ptr<const ops::UserFunction> fn_;
};

} // namespace chunked
