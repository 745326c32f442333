// SPDX-License-Identifier: Apache-2.0
// Elementwise suite: operators and functions, broadcasting, NEP 50 result types, edge values.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include "plan/block_program.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Elementwise = BackendTest;

template <class T> class ElementwiseNumeric : public TypedBackendTest<T> {};
using NumericTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ElementwiseNumeric, NumericTypes);

template <class T> class ElementwiseFloating : public TypedBackendTest<T> {};
using FloatingTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ElementwiseFloating, FloatingTypes);

template <class T> class ElementwiseBitwise : public TypedBackendTest<T> {};
using BitwiseTypes = ::testing::Types<bool, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(ElementwiseBitwise, BitwiseTypes);

template <class T> using Arr = ChunkedArray<T, Backend>;
template <class X> using value_t = typename std::remove_cvref_t<X>::value_type;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

/// Operand shapes that broadcast: equal, outer product, leading axis added, rank 0, three axes
/// with a missing one, and an empty axis.
const std::vector<std::pair<Extents, Extents>> shape_pairs = {
    {{4, 5}, {4, 5}}, {{4, 1}, {1, 5}},    {{5}, {3, 5}},
    {{}, {2, 3}},     {{3, 1, 4}, {2, 1}}, {{0, 3}, {1, 3}},
};

/// op on chunked arrays against ref on the dense reference, for every pair of chunkings of the
/// two operands (so the operands' grids differ), checking the result type too.
template <class A, class B, class Op, class Ref>
void check_binary(const Dense<A>& a, const Dense<B>& b, Op op, Ref ref, Tolerance tol = {}) {
  const auto want = zip(a, b, ref);
  using Want = typename decltype(want)::value_type;
  for (const auto& ca : chunkings_for(a.shape()))
    for (const auto& cb : chunkings_for(b.shape())) {
      const auto got = op(make_array<Backend>(a, ca), make_array<Backend>(b, cb));
      static_assert(std::is_same_v<value_t<decltype(got)>, Want>,
                    "result type differs from the reference's");
      EXPECT_TRUE(matches(got.compute(), want, tol))
          << extents_string(a.shape()) << " " << ca.to_string() << " with "
          << extents_string(b.shape()) << " " << cb.to_string();
    }
}

/// op on one chunked array against ref, under every chunking.
template <class A, class Op, class Ref>
void check_unary(const Dense<A>& a, Op op, Ref ref, Tolerance tol = {}) {
  const auto want = map(a, ref);
  using Want = typename decltype(want)::value_type;
  for (const auto& ca : chunkings_for(a.shape())) {
    const auto got = op(make_array<Backend>(a, ca));
    static_assert(std::is_same_v<value_t<decltype(got)>, Want>,
                  "result type differs from the reference's");
    EXPECT_TRUE(matches(got.compute(), want, tol))
        << extents_string(a.shape()) << " " << ca.to_string();
  }
}

// ---- Result types (compile time) ---------------------------------------------------------------

template <class X, class T> inline constexpr bool is_ = std::is_same_v<value_t<X>, T>;
using std::declval;

// NEP 50: a Python-like scalar never widens an array of its own kind.
static_assert(is_<decltype(declval<Arr<std::int32_t>>() + 1), std::int32_t>);
static_assert(is_<decltype(1 + declval<Arr<std::int32_t>>()), std::int32_t>);
static_assert(is_<decltype(declval<Arr<std::int32_t>>() + std::int64_t{1}), std::int32_t>);
static_assert(is_<decltype(declval<Arr<std::int32_t>>() + 1.5), double>);
static_assert(is_<decltype(declval<Arr<float>>() + 1.0), float>);
static_assert(is_<decltype(2.0 * declval<Arr<float>>()), float>);
static_assert(is_<decltype(declval<Arr<float>>() + 1), float>);
static_assert(is_<decltype(declval<Arr<bool>>() + 1), std::int64_t>);
static_assert(is_<decltype(declval<Arr<bool>>() + true), bool>);
static_assert(is_<decltype(declval<Arr<std::int64_t>>() % 3), std::int64_t>);
// Array with array: NumPy's table.
static_assert(
    is_<decltype(declval<Arr<std::int32_t>>() + declval<Arr<std::int64_t>>()), std::int64_t>);
static_assert(is_<decltype(declval<Arr<std::int32_t>>() + declval<Arr<float>>()), double>);
static_assert(is_<decltype(declval<Arr<float>>() + declval<Arr<double>>()), double>);
static_assert(is_<decltype(declval<Arr<bool>>() + declval<Arr<bool>>()), bool>);
static_assert(is_<decltype(declval<Arr<bool>>() * declval<Arr<std::int32_t>>()), std::int32_t>);
// True division of integers is double; of floats keeps the type.
static_assert(is_<decltype(declval<Arr<std::int32_t>>() / declval<Arr<std::int32_t>>()), double>);
static_assert(is_<decltype(declval<Arr<std::int64_t>>() / 2), double>);
static_assert(is_<decltype(declval<Arr<float>>() / 2), float>);
static_assert(is_<decltype(declval<Arr<bool>>() / declval<Arr<bool>>()), double>);
// Comparisons and predicates are bool.
static_assert(is_<decltype(declval<Arr<std::int32_t>>() < 1.5), bool>);
static_assert(is_<decltype(declval<Arr<float>>() == declval<Arr<double>>()), bool>);
static_assert(is_<decltype(isnan(declval<Arr<float>>())), bool>);
static_assert(is_<decltype(isfinite(declval<Arr<std::int32_t>>())), bool>);
// Bitwise on bool and integers.
static_assert(is_<decltype(declval<Arr<bool>>() & declval<Arr<bool>>()), bool>);
static_assert(is_<decltype(declval<Arr<std::int32_t>>() ^ 1), std::int32_t>);
static_assert(is_<decltype(~declval<Arr<std::int64_t>>()), std::int64_t>);
// Functions.
static_assert(is_<decltype(-declval<Arr<std::int32_t>>()), std::int32_t>);
static_assert(is_<decltype(abs(declval<Arr<bool>>())), bool>);
static_assert(is_<decltype(sqrt(declval<Arr<std::int32_t>>())), double>);
static_assert(is_<decltype(exp(declval<Arr<float>>())), float>);
static_assert(is_<decltype(pow(declval<Arr<std::int32_t>>(), 2)), std::int32_t>);
static_assert(is_<decltype(pow(declval<Arr<float>>(), 2.0)), float>);
static_assert(is_<decltype(minimum(declval<Arr<std::int32_t>>(), declval<Arr<std::int64_t>>())),
                  std::int64_t>);
static_assert(is_<decltype(clip(declval<Arr<std::int32_t>>(), 0, 5)), std::int32_t>);
static_assert(
    is_<decltype(where(declval<Arr<bool>>(), declval<Arr<std::int32_t>>(), 2.5)), double>);
static_assert(is_<decltype(where(declval<Arr<bool>>(), declval<Arr<float>>(), 1)), float>);
static_assert(
    is_<decltype(where(declval<Arr<bool>>(), 1, declval<Arr<std::int64_t>>())), std::int64_t>);

// ---- Arithmetic and comparisons ----------------------------------------------------------------

TYPED_TEST(ElementwiseNumeric, ArithmeticOperatorsBroadcastUnderEveryChunking) {
  using T = TypeParam;
  using Q = detail::true_div_t<T>;
  std::mt19937_64 rng(21);
  for (const auto& [sa, sb] : shape_pairs) {
    SCOPED_TRACE(extents_string(sa) + " with " + extents_string(sb));
    const auto a = random_dense<T>(sa, rng, true);
    const auto b = random_dense<T>(sb, rng, true);
    check_binary(
        a, b, [](auto x, auto y) { return x + y; }, [](T x, T y) -> T { return np_add(x, y); });
    check_binary(
        a, b, [](auto x, auto y) { return x - y; }, [](T x, T y) -> T { return np_sub(x, y); });
    check_binary(
        a, b, [](auto x, auto y) { return x * y; }, [](T x, T y) -> T { return np_mul(x, y); });
    check_binary(
        a, b, [](auto x, auto y) { return x / y; },
        [](T x, T y) -> Q { return static_cast<Q>(x) / static_cast<Q>(y); });
    check_binary(
        a, b, [](auto x, auto y) { return x % y; }, [](T x, T y) -> T { return np_mod(x, y); });
  }
}

TYPED_TEST(ElementwiseNumeric, ComparisonsGiveBool) {
  using T = TypeParam;
  std::mt19937_64 rng(22);
  for (const auto& [sa, sb] : shape_pairs) {
    SCOPED_TRACE(extents_string(sa) + " with " + extents_string(sb));
    // Few distinct values, so that equality is common.
    const auto a = map(random_dense<std::int32_t>(sa, rng),
                       [](std::int32_t v) { return static_cast<T>(v % 3); });
    const auto b = map(random_dense<std::int32_t>(sb, rng),
                       [](std::int32_t v) { return static_cast<T>(v % 3); });
    check_binary(
        a, b, [](auto x, auto y) { return x == y; }, [](T x, T y) { return x == y; });
    check_binary(
        a, b, [](auto x, auto y) { return x != y; }, [](T x, T y) { return x != y; });
    check_binary(
        a, b, [](auto x, auto y) { return x < y; }, [](T x, T y) { return x < y; });
    check_binary(
        a, b, [](auto x, auto y) { return x <= y; }, [](T x, T y) { return x <= y; });
    check_binary(
        a, b, [](auto x, auto y) { return x > y; }, [](T x, T y) { return x > y; });
    check_binary(
        a, b, [](auto x, auto y) { return x >= y; }, [](T x, T y) { return x >= y; });
  }
}

TYPED_TEST(ElementwiseNumeric, MinimumMaximumPowAndUnaryMinus) {
  using T = TypeParam;
  std::mt19937_64 rng(23);
  for (const auto& [sa, sb] : shape_pairs) {
    SCOPED_TRACE(extents_string(sa) + " with " + extents_string(sb));
    const auto a = random_dense<T>(sa, rng, true);
    const auto b = random_dense<T>(sb, rng, true);
    check_binary(
        a, b, [](auto x, auto y) { return minimum(x, y); },
        [](T x, T y) -> T { return np_minimum(x, y); });
    check_binary(
        a, b, [](auto x, auto y) { return maximum(x, y); },
        [](T x, T y) -> T { return np_maximum(x, y); });
    // Small exponents keep float powers finite; integer powers wrap past the type's range.
    const auto e = map(b, [](T v) { return static_cast<T>(static_cast<std::int64_t>(v) % 7); });
    check_binary(
        a, e, [](auto x, auto y) { return pow(x, y); }, [](T x, T y) -> T { return np_pow(x, y); },
        tight<T>());
    check_unary(
        a, [](auto x) { return -x; }, [](T x) -> T { return np_sub(T(0), x); });
    check_unary(
        a, [](auto x) { return abs(x); }, [](T x) -> T { return x < 0 ? np_sub(T(0), x) : x; });
  }
}

TYPED_TEST(ElementwiseNumeric, ScalarsOnEitherSideFollowNep50) {
  using T = TypeParam;
  using F = std::conditional_t<std::is_floating_point_v<T>, T, double>; // T (op) 2.5
  std::mt19937_64 rng(24);
  const auto a = random_dense<T>({3, 4}, rng, true);
  const auto ai = map(a, [](T v) { return v; });
  check_unary(
      a, [](auto x) { return x + 3; }, [](T x) -> T { return np_add(x, T(3)); });
  check_unary(
      a, [](auto x) { return 3 - x; }, [](T x) -> T { return np_sub(T(3), x); });
  check_unary(
      a, [](auto x) { return x * -2; }, [](T x) -> T { return np_mul(x, T(-2)); });
  check_unary(
      a, [](auto x) { return x % 3; }, [](T x) -> T { return np_mod(x, T(3)); });
  check_unary(
      a, [](auto x) { return 7 % x; }, [](T x) -> T { return np_mod(T(7), x); });
  check_unary(
      a, [](auto x) { return x + 2.5; }, [](T x) -> F { return static_cast<F>(x) + F(2.5); });
  check_unary(
      a, [](auto x) { return 2.5 * x; }, [](T x) -> F { return F(2.5) * static_cast<F>(x); });
  check_unary(
      a, [](auto x) { return x / 4; }, [](T x) -> F { return static_cast<F>(x) / F(4); });
  check_unary(
      ai, [](auto x) { return 1 / x; }, [](T x) -> F { return F(1) / static_cast<F>(x); });
  check_unary(
      a, [](auto x) { return x < 1.5; }, [](T x) { return static_cast<double>(x) < 1.5; });
  check_unary(
      a, [](auto x) { return 0 == x; }, [](T x) { return x == T(0); });
  check_unary(
      a, [](auto x) { return minimum(x, 2); }, [](T x) -> T { return np_minimum(x, T(2)); });
  check_unary(
      a, [](auto x) { return maximum(-1, x); }, [](T x) -> T { return np_maximum(T(-1), x); });
  // pow is not correctly rounded everywhere (CUDA's double pow is within 2 ulp, even where x * x
  // is exact), so floating results get the rounding tolerance.
  check_unary(
      a, [](auto x) { return pow(x, 2); }, [](T x) -> T { return np_mul(x, x); }, tight<T>());
  check_unary(
      a, [](auto x) { return clip(x, -2, 3); },
      [](T x) -> T { return np_minimum(np_maximum(x, T(-2)), T(3)); });
}

// Chains of scalar operations: with a new constant per operation (one leaf each, up to the
// planner's leaf cap and past it, where the chain is split) and with a few constants repeated
// (which share leaves), against the same operations applied one by one.
TYPED_TEST(ElementwiseNumeric, LongChainsOfScalarOperations) {
  using T = TypeParam;
  std::mt19937_64 rng(27);
  const auto a = random_dense<T>({5, 7}, rng, true);
  for (const int ops : {plan::max_program_leaves - 1, 2 * plan::max_program_leaves})
    for (const int distinct : {ops, 3}) {
      // Operation k: adds, subtracts or negates by multiplying with a constant of -1; the
      // values stay small, so every dtype computes them exactly.
      const auto constant = [&](int k) { return T(k % distinct + 1); };
      const auto chain = [&](auto x) {
        for (int k = 0; k < ops; ++k)
          x = k % 3 == 0 ? x + constant(k) : k % 3 == 1 ? x - constant(k) : x * T(-1);
        return x;
      };
      const auto want = [&](T x) {
        for (int k = 0; k < ops; ++k)
          x = k % 3 == 0   ? np_add(x, constant(k))
              : k % 3 == 1 ? np_sub(x, constant(k))
                           : np_mul(x, T(-1));
        return x;
      };
      SCOPED_TRACE(::testing::Message() << ops << " operations, " << distinct << " constants");
      check_unary(a, chain, want);
    }
}

TYPED_TEST(ElementwiseNumeric, MixedDtypesPromoteLikeNumPy) {
  using T = TypeParam;
  std::mt19937_64 rng(25);
  const auto a = random_dense<T>({4, 1}, rng, true);
  const auto i32 = random_dense<std::int32_t>({1, 5}, rng);
  const auto f64 = random_dense<double>({5}, rng, true);
  const auto bo = random_dense<bool>({4, 5}, rng);
  using PI = detail::promote_t<T, std::int32_t>;
  using PD = double;
  check_binary(
      a, i32, [](auto x, auto y) { return x + y; },
      [](T x, std::int32_t y) -> PI { return np_add(static_cast<PI>(x), static_cast<PI>(y)); });
  check_binary(
      a, f64, [](auto x, auto y) { return x * y; },
      [](T x, double y) -> PD { return static_cast<PD>(x) * y; });
  check_binary(
      bo, a, [](auto x, auto y) { return x - y; },
      [](bool x, T y) -> T { return np_sub(static_cast<T>(x), y); });
  check_binary(
      a, i32, [](auto x, auto y) { return x < y; },
      [](T x, std::int32_t y) { return static_cast<PI>(x) < static_cast<PI>(y); });
}

TEST_F(Elementwise, BoolArithmeticIsLogical) {
  std::mt19937_64 rng(26);
  const auto a = random_dense<bool>({4, 1}, rng);
  const auto b = random_dense<bool>({1, 6}, rng);
  check_binary(
      a, b, [](auto x, auto y) { return x + y; }, [](bool x, bool y) { return x || y; });
  check_binary(
      a, b, [](auto x, auto y) { return x * y; }, [](bool x, bool y) { return x && y; });
  check_binary(
      a, b, [](auto x, auto y) { return x / y; },
      [](bool x, bool y) { return static_cast<double>(x) / static_cast<double>(y); });
  check_binary(
      a, b, [](auto x, auto y) { return x < y; }, [](bool x, bool y) { return x < y; });
  check_unary(
      a, [](auto x) { return x + 1; }, [](bool x) { return static_cast<std::int64_t>(x) + 1; });
}

// ---- Integer edge cases ------------------------------------------------------------------------

TEST_F(Elementwise, IntegerArithmeticWrapsAround) {
  using L32 = std::numeric_limits<std::int32_t>;
  using L64 = std::numeric_limits<std::int64_t>;
  const Dense<std::int32_t> a({5}, {L32::max(), L32::min(), 100000, -1, 0});
  check_unary(
      a, [](auto x) { return x + 1; },
      [](std::int32_t x) { return wrapping_add<std::int32_t>(x, 1); });
  check_unary(
      a, [](auto x) { return x - 1; },
      [](std::int32_t x) { return wrapping_sub<std::int32_t>(x, 1); });
  check_unary(
      a, [](auto x) { return x * 65536; },
      [](std::int32_t x) { return wrapping_mul<std::int32_t>(x, 65536); });
  check_unary(
      a, [](auto x) { return -x; },
      [](std::int32_t x) { return wrapping_sub<std::int32_t>(0, x); });
  check_unary(
      a, [](auto x) { return abs(x); },
      [](std::int32_t x) { return x < 0 ? wrapping_sub<std::int32_t>(0, x) : x; });
  const auto got = (make_array<Backend>(a, Chunks{2}) + 1).compute();
  EXPECT_EQ(got(0), L32::min()) << "int32 max + 1 must wrap and stay int32";
  const Dense<std::int64_t> b({3}, {L64::max(), L64::min(), 3});
  check_unary(
      b, [](auto x) { return x + 1; },
      [](std::int64_t x) { return wrapping_add<std::int64_t>(x, 1); });
  check_unary(
      b, [](auto x) { return x * x; }, [](std::int64_t x) { return wrapping_mul(x, x); });
  check_unary(
      b, [](auto x) { return x % -1; }, [](std::int64_t) { return std::int64_t{0}; });
  check_unary(
      b, [](auto x) { return pow(x, 3); },
      [](std::int64_t x) { return np_pow<std::int64_t>(x, 3); });
}

TEST_F(Elementwise, RemainderTakesTheSignOfTheDivisor) {
  const Dense<std::int64_t> a({7}, {-7, 7, -7, 7, 0, 5, -5});
  const Dense<std::int64_t> b({7}, {3, 3, -3, -3, 3, 0, 0});
  const Dense<std::int64_t> want({7}, {2, 1, -1, -2, 0, 0, 0});
  for (const auto& c : chunkings_for({7})) {
    EXPECT_TRUE(matches((make_array<Backend>(a, c) % make_array<Backend>(b, c)).compute(), want))
        << label(c);
    EXPECT_TRUE(matches((make_array<Backend>(cast<std::int32_t>(a), c) %
                         make_array<Backend>(cast<std::int32_t>(b), c))
                            .compute(),
                        cast<std::int32_t>(want)))
        << label(c);
  }
  const Dense<double> x({4}, {-7.5, 7.5, -7.5, 7.5});
  const Dense<double> y({4}, {2, 2, -2, -2});
  const Dense<double> fwant({4}, {0.5, 1.5, -1.5, -0.5});
  EXPECT_TRUE(matches(
      (make_array<Backend>(x, Chunks{3}) % make_array<Backend>(y, Chunks{1})).compute(), fwant));
  // A zero divisor gives NaN for floats; -0.0 % 3 keeps the divisor's sign (+0).
  const auto z = (make_array<Backend>(Dense<double>({2}, {1.0, -4.0}), Chunks{1}) % 0.0).compute();
  EXPECT_TRUE(std::isnan(z(0)) && std::isnan(z(1)));
  const auto s = (make_array<Backend>(Dense<double>({1}, {-6.0}), Chunks{1}) % 3.0).compute();
  EXPECT_EQ(s(0), 0.0);
  EXPECT_FALSE(std::signbit(s(0)));
}

// ---- Floating functions ------------------------------------------------------------------------

/// Tolerance for transcendental functions: a few ulp of the result, or of 1 near zeros.
template <class T> Tolerance math_tolerance() {
  if constexpr (std::is_same_v<T, float>)
    return {4e-6, 1e-6};
  else
    return {1e-14, 1e-15};
}

TYPED_TEST(ElementwiseFloating, MathFunctionsMatchTheStandardLibrary) {
  using T = TypeParam;
  std::mt19937_64 rng(27);
  const Extents shape{5, 6};
  const auto a = random_dense<T>(shape, rng);                                           // [-10, 10)
  const auto pos = map(a, [](T v) { return static_cast<T>(std::fabs(v) + T(0.125)); }); // > 0
  const auto small = map(a, [](T v) { return static_cast<T>(v / 8); }); // (-1.25, 1.25)
  const auto tol = math_tolerance<T>();
  auto in_double = [](double (*f)(double)) {
    return [f](T x) -> T { return static_cast<T>(f(static_cast<double>(x))); };
  };
  check_unary(
      pos, [](auto x) { return sqrt(x); }, in_double(std::sqrt), tol);
  check_unary(
      a, [](auto x) { return exp(x); }, in_double(std::exp), tol);
  check_unary(
      pos, [](auto x) { return log(x); }, in_double(std::log), tol);
  check_unary(
      map(small, [](T v) { return static_cast<T>(std::fabs(v) - T(0.5)); }),
      [](auto x) { return log1p(x); }, in_double(std::log1p), tol);
  check_unary(
      small, [](auto x) { return expm1(x); }, in_double(std::expm1), tol);
  check_unary(
      a, [](auto x) { return sin(x); }, in_double(std::sin), tol);
  check_unary(
      a, [](auto x) { return cos(x); }, in_double(std::cos), tol);
  check_unary(
      small, [](auto x) { return tan(x); }, in_double(std::tan), tol);
  check_unary(
      a, [](auto x) { return tanh(x); }, in_double(std::tanh), tol);
  check_unary(
      a, [](auto x) { return abs(x); }, [](T x) -> T { return std::fabs(x); });
  // Integer inputs compute in double.
  const auto ints = random_dense<std::int32_t>(shape, rng);
  check_unary(
      ints, [](auto x) { return exp(x); },
      [](std::int32_t x) { return std::exp(static_cast<double>(x)); }, math_tolerance<double>());
  check_unary(
      ints, [](auto x) { return sin(x); },
      [](std::int32_t x) { return std::sin(static_cast<double>(x)); }, math_tolerance<double>());
}

TYPED_TEST(ElementwiseFloating, SpecialValuesNanAndInfinity) {
  using T = TypeParam;
  const Dense<T> a({6}, {T(0), T(-1.5), T(inf), T(-inf), T(nan), T(2)});
  const Dense<T> b({6}, {T(nan), T(1), T(1), T(nan), T(3), T(-inf)});
  check_unary(
      a, [](auto x) { return isnan(x); }, [](T x) { return std::isnan(x); });
  check_unary(
      a, [](auto x) { return isfinite(x); }, [](T x) { return std::isfinite(x); });
  check_binary(
      a, b, [](auto x, auto y) { return minimum(x, y); },
      [](T x, T y) -> T { return np_minimum(x, y); });
  check_binary(
      a, b, [](auto x, auto y) { return maximum(x, y); },
      [](T x, T y) -> T { return np_maximum(x, y); });
  check_binary(
      a, b, [](auto x, auto y) { return x == y; }, [](T x, T y) { return x == y; });
  check_binary(
      a, b, [](auto x, auto y) { return x != y; }, [](T x, T y) { return x != y; });
  check_binary(
      a, b, [](auto x, auto y) { return x < y; }, [](T x, T y) { return x < y; });
  check_unary(
      a, [](auto x) { return sqrt(x); }, [](T x) -> T { return std::sqrt(x); });
  check_unary(
      a, [](auto x) { return log(x); }, [](T x) -> T { return std::log(x); }, math_tolerance<T>());
  check_unary(
      a, [](auto x) { return x / 0; }, [](T x) -> T { return x / T(0); });
  // NaN propagates through minimum/maximum whichever side it is on, and through clip.
  const auto m = minimum(make_array<Backend>(a, Chunks{4}), T(nan)).compute();
  for (T v : m)
    EXPECT_TRUE(std::isnan(v));
  const auto c = clip(make_array<Backend>(a, Chunks{4}), T(-1), T(1)).compute();
  EXPECT_TRUE(matches(c, Dense<T>({6}, {T(0), T(-1), T(1), T(-1), T(nan), T(1)})));
}

// ---- Bitwise ------------------------------------------------------------------------------------

TYPED_TEST(ElementwiseBitwise, BitwiseOperatorsOnBoolAndIntegers) {
  using T = TypeParam;
  std::mt19937_64 rng(28);
  for (const auto& [sa, sb] : shape_pairs) {
    SCOPED_TRACE(extents_string(sa) + " with " + extents_string(sb));
    const auto a = random_dense<T>(sa, rng);
    const auto b = random_dense<T>(sb, rng);
    check_binary(
        a, b, [](auto x, auto y) { return x & y; },
        [](T x, T y) -> T { return static_cast<T>(x & y); });
    check_binary(
        a, b, [](auto x, auto y) { return x | y; },
        [](T x, T y) -> T { return static_cast<T>(x | y); });
    check_binary(
        a, b, [](auto x, auto y) { return x ^ y; },
        [](T x, T y) -> T { return static_cast<T>(x ^ y); });
    if constexpr (std::is_same_v<T, bool>)
      check_unary(
          a, [](auto x) { return ~x; }, [](bool x) { return !x; });
    else
      check_unary(
          a, [](auto x) { return ~x; }, [](T x) -> T { return static_cast<T>(~x); });
  }
  const auto a = random_dense<T>({3, 3}, rng);
  check_unary(
      a, [](auto x) { return x & true; }, [](T x) -> T { return static_cast<T>(x & T(1)); });
  check_unary(
      a, [](auto x) { return false | x; }, [](T x) -> T { return x; });
}

// ---- where and clip -----------------------------------------------------------------------------

TEST_F(Elementwise, WhereBroadcastsArraysAndScalars) {
  std::mt19937_64 rng(29);
  const auto cond = random_dense<bool>({4, 1}, rng);
  const auto x = random_dense<double>({4, 5}, rng);
  const auto y = random_dense<double>({5}, rng);
  const auto k = random_dense<std::int32_t>({1, 5}, rng);
  const auto want_xy = zip3(cond, x, y, [](bool c, double a, double b) { return c ? a : b; });
  const auto want_ks =
      zip(cond, k, [](bool c, std::int32_t a) { return c ? static_cast<double>(a) : 2.5; });
  const auto want_sk =
      zip(cond, k, [](bool c, std::int32_t a) { return c ? std::int32_t{-1} : a; });
  for (const auto& cc : chunkings_for(cond.shape()))
    for (const auto& cx : chunkings_for(x.shape())) {
      SCOPED_TRACE(label(cc) + " / " + label(cx));
      const auto c = make_array<Backend>(cond, cc);
      EXPECT_TRUE(
          matches(where(c, make_array<Backend>(x, cx), make_array<Backend>(y, Chunks{2})).compute(),
                  want_xy));
      EXPECT_TRUE(matches(where(c, make_array<Backend>(k, Chunks{1, 3}), 2.5).compute(), want_ks));
      EXPECT_TRUE(matches(where(c, -1, make_array<Backend>(k, Chunks{1, 3})).compute(), want_sk));
    }
  // A non-bool condition means != 0.
  const auto ci = random_dense<std::int32_t>({6}, rng);
  const auto got = where(make_array<Backend>(ci, Chunks{4}), 1.0, 0.0).compute();
  EXPECT_TRUE(matches(got, map(ci, [](std::int32_t v) { return v != 0 ? 1.0 : 0.0; })));
}

TEST_F(Elementwise, ClipWithArrayBounds) {
  std::mt19937_64 rng(30);
  const auto x = random_dense<double>({4, 5}, rng);
  const auto lo = random_dense<double>({1, 5}, rng);
  const auto want =
      zip(x, lo, [](double v, double l) { return np_minimum(np_maximum(v, l), 2.0); });
  for (const auto& c : chunkings_for(x.shape()))
    EXPECT_TRUE(matches(
        clip(make_array<Backend>(x, c), make_array<Backend>(lo, Chunks{1, 2}), 2.0).compute(),
        want))
        << label(c);
}

// ---- Fused expressions --------------------------------------------------------------------------

TEST_F(Elementwise, LongExpressionsOverMixedGrids) {
  std::mt19937_64 rng(31);
  const auto x = random_dense<double>({6, 7}, rng);
  const auto y = random_dense<double>({7}, rng);
  const auto k = random_dense<std::int32_t>({6, 1}, rng);
  const auto xy = zip(x, y, [](double a, double b) {
    return (a * 2.0 + b) / (std::fabs(a) + 1.0) - std::exp(-a * a);
  });
  const auto want = zip(xy, k, [](double v, std::int32_t i) {
    return v * static_cast<double>(np_mod(i, 4)) + (v > 0 ? 1.0 : 0.0);
  });
  for (const auto& cx : chunkings_for(x.shape())) {
    SCOPED_TRACE(label(cx));
    const auto X = make_array<Backend>(x, cx);
    const auto Y = make_array<Backend>(y, Chunks{3});
    const auto K = make_array<Backend>(k, Chunks{4, 1});
    const auto v = (X * 2.0 + Y) / (abs(X) + 1.0) - exp(-X * X);
    const auto r = v * (K % 4) + (v > 0).astype<double>();
    EXPECT_TRUE(matches(r.compute(), want, tight<double>()));
  }
}

} // namespace
} // namespace chunked::test
