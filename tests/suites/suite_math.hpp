// SPDX-License-Identifier: Apache-2.0
// Math suite: the functions of chunked/math.hpp on every dtype against naive std:: references, on
// NaN, infinities, signed zeros, ties and integer extremes, broadcast, with scalars, under several
// chunkings.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"
#include "support/ulp.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Math = BackendTest;

template <class T> class MathTyped : public TypedBackendTest<T> {};
using MathTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(MathTyped, MathTypes);

template <class X> using elem_t = typename std::remove_cvref_t<X>::value_type;
/// The type floating functions compute T in: T itself for floats, else double.
template <class T> using fl_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

/// Edge values of T (signed zeros, ties of rounding, extremes, NaNs of both signs, infinities,
/// subnormals), then random ones.
template <class T> Dense<T> math_values(std::mt19937_64& rng) {
  std::vector<T> v;
  if constexpr (std::is_same_v<T, bool>) {
    v = {false, true, true, false};
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    v = {T(0), T(1), T(-1), T(2), T(-2), T(3), T(-7), T(100), L::max(), L::min(), T(L::min() + 1)};
  } else {
    using L = std::numeric_limits<T>;
    v = {T(0),
         T(-0.0),
         T(0.5),
         T(-0.5),
         T(1.5),
         T(2.5),
         T(-2.5),
         T(1),
         T(-1),
         T(0.3),
         T(-0.7),
         T(1e30),
         L::max(),
         L::lowest(),
         L::min(),
         L::denorm_min(),
         L::infinity(),
         -L::infinity(),
         L::quiet_NaN(),
         -L::quiet_NaN(),
         T(4503599627370497.0)};
  }
  const auto r = random_dense<T>({9}, rng);
  v.insert(v.end(), r.values().begin(), r.values().end());
  // The count is read before v is moved: the order of evaluating arguments is unspecified.
  const auto n = static_cast<index_t>(v.size());
  return Dense<T>({n}, std::move(v));
}

/// Units in the last place between two values of T (signed zeros equal).
template <class T> std::uint64_t ulps(T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    auto ordered = [](float x) {
      const auto bits = std::bit_cast<std::int32_t>(x);
      return bits < 0 ? std::int64_t{INT32_MIN} - bits : std::int64_t{bits};
    };
    const std::int64_t d = ordered(a) - ordered(b);
    return static_cast<std::uint64_t>(d < 0 ? -d : d);
  } else {
    return ulp_distance(a, b);
  }
}

/// The distance the library's math functions may have from the C library's: CUDA's documented
/// bounds (up to 3 ulp for float sinh, hypot and atan2, 2 for double asin, acos, atan, sinh,
/// atan2 and hypot) on top of the C library's rounding. Exact functions are checked with 0.
template <class R> constexpr int library_ulps = std::is_same_v<R, float> ? 4 : 2;

/// got is want: NaN for NaN; else, with max_ulp 0, the same value with the same sign (a zero's
/// sign counts); else within max_ulp units in the last place.
template <class R> bool same(R got, R want, int max_ulp) {
  if constexpr (std::is_floating_point_v<R>) {
    if (std::isnan(got) || std::isnan(want))
      return std::isnan(got) && std::isnan(want);
    if (max_ulp == 0 || std::isinf(got) || std::isinf(want))
      return got == want && std::signbit(got) == std::signbit(want);
    return ulps(got, want) <= static_cast<std::uint64_t>(max_ulp);
  } else {
    return got == want;
  }
}

template <class R>
void expect_same(const NDArray<R>& got, const Dense<R>& want, int max_ulp,
                 const std::string& what) {
  ASSERT_EQ(got.shape().extents(), want.shape()) << what;
  int bad = 0;
  for (index_t i = 0; i < want.size(); ++i)
    if (!same(got.data()[i], want[i], max_ulp) && bad++ < 4)
      ADD_FAILURE() << what << " at " << i << ": got " << value_string(got.data()[i]) << ", want "
                    << value_string(want[i]);
  EXPECT_EQ(bad, 0) << what;
}

/// f on chunked copies of `a` (under every chunking) against ref on each element.
template <class A, class F, class Ref>
void check_unary(const std::string& name, const Dense<A>& a, F f, Ref ref, int max_ulp = 0) {
  using Want = decltype(ref(A{}));
  const Dense<Want> want = map(a, ref);
  for (const auto& c : chunkings_for(a.shape())) {
    const auto got = f(make_array<Backend>(a, c));
    static_assert(std::is_same_v<elem_t<decltype(got)>, Want>, "result type differs");
    expect_same(got.compute(), want, max_ulp, name + " " + label(c));
  }
}

/// f on every pair of values of `a` (broadcast: a column against a row), chunked several ways,
/// against ref.
template <class A, class F, class Ref>
void check_binary(const std::string& name, const Dense<A>& a, F f, Ref ref, int max_ulp = 0) {
  const Dense<A> col({a.size(), 1}, a.values());
  const Dense<A> row({1, a.size()}, a.values());
  using Want = decltype(ref(A{}, A{}));
  const Dense<Want> want = zip(col, row, ref);
  const auto ccol = chunkings_for(col.shape());
  const auto crow = chunkings_for(row.shape());
  for (std::size_t k = 0; k < ccol.size() && k < crow.size(); ++k) {
    const auto got = f(make_array<Backend>(col, ccol[k]), make_array<Backend>(row, crow[k]));
    static_assert(std::is_same_v<elem_t<decltype(got)>, Want>, "result type differs");
    expect_same(got.compute(), want, max_ulp, name + " " + label(ccol[k]) + " x " + label(crow[k]));
  }
}

// ---- Result types (compile time) ---------------------------------------------------------------

template <class T> using Arr = ChunkedArray<T, Backend>;
template <class X, class T> inline constexpr bool is_ = std::is_same_v<elem_t<X>, T>;
using std::declval;
using I32 = std::int32_t;
using I64 = std::int64_t;

static_assert(is_<decltype(floor(declval<Arr<I32>>())), double>);
static_assert(is_<decltype(ceil(declval<Arr<bool>>())), double>);
static_assert(is_<decltype(trunc(declval<Arr<float>>())), float>);
static_assert(is_<decltype(round(declval<Arr<I32>>())), I32>);
static_assert(is_<decltype(round(declval<Arr<float>>())), float>);
static_assert(is_<decltype(sign(declval<Arr<I64>>())), I64>);
static_assert(is_<decltype(square(declval<Arr<I32>>())), I32>);
static_assert(is_<decltype(reciprocal(declval<Arr<I64>>())), I64>);
static_assert(is_<decltype(log2(declval<Arr<I64>>())), double>);
static_assert(is_<decltype(arcsin(declval<Arr<float>>())), float>);
static_assert(is_<decltype(arctan2(declval<Arr<I32>>(), declval<Arr<I32>>())), double>);
static_assert(is_<decltype(arctan2(declval<Arr<float>>(), 2)), float>);
static_assert(is_<decltype(hypot(declval<Arr<float>>(), declval<Arr<double>>())), double>);
static_assert(is_<decltype(copysign(declval<Arr<I32>>(), declval<Arr<float>>())), double>);
static_assert(is_<decltype(fmod(declval<Arr<I32>>(), declval<Arr<I64>>())), I64>);
static_assert(is_<decltype(fmod(declval<Arr<float>>(), 2.5)), float>);
static_assert(is_<decltype(fmod(7, declval<Arr<I32>>())), I32>);
static_assert(is_<decltype(logical_and(declval<Arr<I32>>(), declval<Arr<float>>())), bool>);
static_assert(is_<decltype(logical_xor(declval<Arr<double>>(), 1)), bool>);
static_assert(is_<decltype(logical_not(declval<Arr<float>>())), bool>);
static_assert(is_<decltype(isinf(declval<Arr<I32>>())), bool>);
static_assert(is_<decltype(signbit(declval<Arr<I64>>())), bool>);

// ---- Unary functions ---------------------------------------------------------------------------

TYPED_TEST(MathTyped, RoundingAndSignAreExact) {
  using T = TypeParam;
  using F = fl_t<T>;
  std::mt19937_64 rng(41);
  const auto a = math_values<T>(rng);
  check_unary(
      "floor", a, [](auto x) { return floor(x); }, [](T x) -> F { return std::floor(F(x)); });
  check_unary(
      "ceil", a, [](auto x) { return ceil(x); }, [](T x) -> F { return std::ceil(F(x)); });
  check_unary(
      "trunc", a, [](auto x) { return trunc(x); }, [](T x) -> F { return std::trunc(F(x)); });
  if constexpr (std::is_same_v<T, bool>) {
    const auto b = make_array<Backend>(a, Chunks{3});
    for (const auto& [name, fn] : std::vector<std::pair<std::string, std::function<void()>>>{
             {"round", [&] { (void)round(b); }},
             {"sign", [&] { (void)sign(b); }},
             {"square", [&] { (void)square(b); }},
             {"reciprocal", [&] { (void)reciprocal(b); }},
             {"fmod", [&] { (void)fmod(b, b); }}}) {
      try {
        fn();
        ADD_FAILURE() << name << " of bool arrays must be a ValueError";
      } catch (const ValueError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(name), std::string::npos) << what;
        EXPECT_NE(what.find("bool"), std::string::npos) << what;
      }
    }
  } else {
    // Ties go to even (half to even, NumPy's round), and -0.4 rounds to -0.0.
    check_unary(
        "round", a, [](auto x) { return round(x); },
        [](T x) -> T {
          if constexpr (std::is_floating_point_v<T>)
            return std::nearbyint(x);
          else
            return x;
        });
    check_unary(
        "sign", a, [](auto x) { return sign(x); },
        [](T x) -> T {
          if constexpr (std::is_floating_point_v<T>)
            if (std::isnan(x))
              return x;
          return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
        });
    check_unary(
        "square", a, [](auto x) { return square(x); }, [](T x) -> T { return np_mul(x, x); });
    check_unary(
        "reciprocal", a, [](auto x) { return reciprocal(x); },
        [](T x) -> T {
          if constexpr (std::is_floating_point_v<T>)
            return T(1) / x;
          else
            return x == 0 ? std::numeric_limits<T>::min() : static_cast<T>(1 / x);
        });
  }
}

TYPED_TEST(MathTyped, PredicatesAndLogicalNotGiveBool) {
  using T = TypeParam;
  std::mt19937_64 rng(42);
  const auto a = math_values<T>(rng);
  check_unary(
      "isinf", a, [](auto x) { return isinf(x); },
      [](T x) {
        if constexpr (std::is_floating_point_v<T>)
          return static_cast<bool>(std::isinf(x));
        else
          return false;
      });
  check_unary(
      "signbit", a, [](auto x) { return signbit(x); },
      [](T x) {
        if constexpr (std::is_floating_point_v<T>)
          return static_cast<bool>(std::signbit(x));
        else
          return x < T(0);
      });
  check_unary(
      "logical_not", a, [](auto x) { return logical_not(x); }, [](T x) { return x == T(0); });
}

TYPED_TEST(MathTyped, LogarithmsExponentialsAndInverseTrigonometry) {
  using T = TypeParam;
  using F = fl_t<T>;
  std::mt19937_64 rng(43);
  const auto a = math_values<T>(rng);
  // Values in [-1, 1], where the inverse sine and cosine are defined, for floating types.
  const auto unit = map(a, [](T x) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return std::isfinite(x) && std::fabs(x) > 1 ? T(x / 1e38) : x;
    else
      return x;
  });
  constexpr int tol = library_ulps<F>;
#define CHUNKED_CHECK_MATH(NAME, STD, VALUES)                                                      \
  check_unary(                                                                                     \
      #NAME, VALUES, [](auto x) { return NAME(x); },                                               \
      [](T x) -> F { return static_cast<F>(std::STD(F(x))); }, tol)
  CHUNKED_CHECK_MATH(log2, log2, a);
  CHUNKED_CHECK_MATH(log10, log10, a);
  CHUNKED_CHECK_MATH(exp2, exp2, a);
  CHUNKED_CHECK_MATH(arcsin, asin, unit);
  CHUNKED_CHECK_MATH(arccos, acos, unit);
  CHUNKED_CHECK_MATH(arctan, atan, a);
  CHUNKED_CHECK_MATH(sinh, sinh, a);
  CHUNKED_CHECK_MATH(cosh, cosh, a);
#undef CHUNKED_CHECK_MATH
}

// ---- Binary functions --------------------------------------------------------------------------

TYPED_TEST(MathTyped, BinaryFunctionsOnEveryPairOfValues) {
  using T = TypeParam;
  using F = fl_t<T>;
  std::mt19937_64 rng(44);
  const auto a = math_values<T>(rng);
  constexpr int tol = library_ulps<F>;
  check_binary(
      "arctan2", a, [](auto x, auto y) { return arctan2(x, y); },
      [](T x, T y) -> F { return std::atan2(F(x), F(y)); }, tol);
  check_binary(
      "hypot", a, [](auto x, auto y) { return hypot(x, y); },
      [](T x, T y) -> F { return std::hypot(F(x), F(y)); }, tol);
  check_binary(
      "copysign", a, [](auto x, auto y) { return copysign(x, y); },
      [](T x, T y) -> F { return std::copysign(F(x), F(y)); });
  check_binary(
      "logical_and", a, [](auto x, auto y) { return logical_and(x, y); },
      [](T x, T y) { return x != T(0) && y != T(0); });
  check_binary(
      "logical_or", a, [](auto x, auto y) { return logical_or(x, y); },
      [](T x, T y) { return x != T(0) || y != T(0); });
  check_binary(
      "logical_xor", a, [](auto x, auto y) { return logical_xor(x, y); },
      [](T x, T y) { return (x != T(0)) != (y != T(0)); });
  if constexpr (!std::is_same_v<T, bool>) {
    // C's fmod: the sign of the dividend; integers give 0 for a zero divisor. long double holds
    // every int64 exactly, so its fmod is the exact remainder.
    check_binary(
        "fmod", a, [](auto x, auto y) { return fmod(x, y); },
        [](T x, T y) -> T {
          if constexpr (std::is_floating_point_v<T>)
            return std::fmod(x, y);
          else
            return y == 0 ? T(0)
                          : static_cast<T>(std::fmod(static_cast<long double>(x),
                                                     static_cast<long double>(y)));
        });
  }
}

TYPED_TEST(MathTyped, ScalarsOnEitherSide) {
  using T = TypeParam;
  using F = fl_t<T>;
  std::mt19937_64 rng(45);
  const auto a = math_values<T>(rng);
  constexpr int tol = library_ulps<F>;
  check_unary(
      "arctan2(x, 2)", a, [](auto x) { return arctan2(x, 2); },
      [](T x) -> F { return std::atan2(F(x), F(2)); }, tol);
  check_unary(
      "hypot(3.0, x)", a, [](auto x) { return hypot(F(3), x); },
      [](T x) -> F { return std::hypot(F(3), F(x)); }, tol);
  check_unary(
      "copysign(x, -1.0)", a, [](auto x) { return copysign(x, F(-1)); },
      [](T x) -> F { return std::copysign(F(x), F(-1)); });
  check_unary(
      "logical_or(false, x)", a, [](auto x) { return logical_or(false, x); },
      [](T x) { return x != T(0); });
  if constexpr (!std::is_same_v<T, bool>) {
    check_unary(
        "fmod(x, 3)", a, [](auto x) { return fmod(x, 3); },
        [](T x) -> T {
          if constexpr (std::is_floating_point_v<T>)
            return std::fmod(x, T(3));
          else
            return static_cast<T>(x % 3);
        });
    check_unary(
        "fmod(7, x)", a, [](auto x) { return fmod(7, x); },
        [](T x) -> T {
          if constexpr (std::is_floating_point_v<T>)
            return std::fmod(T(7), x);
          else
            return x == 0 ? T(0) : static_cast<T>(7 % static_cast<std::int64_t>(x));
        });
  }
}

// ---- Hand-checked values (NumPy 1.24)
// ------------------------------------------------------------

TEST_F(Math, ValuesNumPyGives) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Dense<double> x({8}, {-0.0, 0.5, 1.5, 2.5, -0.5, -2.5, nan, -inf});
  const auto X = make_array<Backend>(x, Chunks{3});
  expect_same(round(X).compute(), Dense<double>({8}, {-0.0, 0.0, 2.0, 2.0, -0.0, -2.0, nan, -inf}),
              0, "round");
  expect_same(sign(X).compute(), Dense<double>({8}, {0.0, 1, 1, 1, -1, -1, nan, -1}), 0, "sign");
  expect_same(reciprocal(X).compute(),
              Dense<double>({8}, {-inf, 2.0, 1 / 1.5, 0.4, -2.0, -0.4, nan, -0.0}), 0,
              "reciprocal");
  const Dense<std::int64_t> k({5}, {0, 1, -1, 2, -2});
  expect_same(reciprocal(make_array<Backend>(k, Chunks{2})).compute(),
              Dense<std::int64_t>({5}, {std::numeric_limits<std::int64_t>::min(), 1, -1, 0, 0}), 0,
              "integer reciprocal");
  const Dense<std::int64_t> n({4}, {7, -7, 5, std::numeric_limits<std::int64_t>::min()});
  const Dense<std::int64_t> d({4}, {3, 3, 0, -1});
  expect_same(fmod(make_array<Backend>(n, Chunks{1}), make_array<Backend>(d, Chunks{3})).compute(),
              Dense<std::int64_t>({4}, {1, -1, 0, 0}), 0, "integer fmod");
  expect_same(
      arctan2(make_array<Backend>(Dense<double>({2}, {0.0, -0.0}), Chunks{1}), -0.0).compute(),
      Dense<double>({2}, {std::numbers::pi, -std::numbers::pi}), 0, "arctan2 of signed zeros");
  expect_same(hypot(make_array<Backend>(Dense<double>({2}, {inf, nan}), Chunks{1}), nan).compute(),
              Dense<double>({2}, {inf, nan}), 0, "hypot with inf and NaN");
  const auto z = square(make_array<Backend>(
      Dense<std::int32_t>({1}, {std::numeric_limits<std::int32_t>::max()}), Chunks{1}));
  EXPECT_EQ(z.compute()(0), 1) << "int32 square wraps";
}

} // namespace
} // namespace chunked::test
