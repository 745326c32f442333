// SPDX-License-Identifier: Apache-2.0
// The interpreter of block programs on the GPU: a program struct for the kernel skeletons of
// program.hpp that reads the program's structure from its argument block (interp_code.hpp)
// instead of having it compiled in. nvcc compiles it into the library, so a program runs before
// its generated kernel is compiled; the skeletons, the scalar functions and the launch shapes are
// the generated kernels', so the results are bitwise theirs.
#pragma once

#define CHUNKED_KERNEL_RANDOM 1
#include "backend/cuda/kernel/interp_code.hpp"
#include "backend/cuda/kernel/program.hpp"

#include <chunked/core/dtype.hpp>
#include <chunked/ops/op_code.hpp>
#include <chunked/ops/scalar_value.hpp>

namespace chunked::cuda::kernel {

/// One value of a program, of the dtype its InterpValue names.
union Value {
  bool b;
  int i;
  i64 l;
  float f;
  double d;
};

template <class T> CHUNKED_KD T get(const Value& v) {
  if constexpr (is_same<T, bool>::value)
    return v.b;
  else if constexpr (is_same<T, int>::value)
    return v.i;
  else if constexpr (is_same<T, i64>::value)
    return v.l;
  else if constexpr (is_same<T, float>::value)
    return v.f;
  else
    return v.d;
}

template <class T> CHUNKED_KD Value put(T x) {
  Value v;
  if constexpr (is_same<T, bool>::value)
    v.b = x;
  else if constexpr (is_same<T, int>::value)
    v.i = x;
  else if constexpr (is_same<T, i64>::value)
    v.l = x;
  else if constexpr (is_same<T, float>::value)
    v.f = x;
  else
    v.d = x;
  return v;
}

template <class T> constexpr DType tag_dtype() {
  if constexpr (is_same<T, bool>::value)
    return DType::bool_;
  else if constexpr (is_same<T, int>::value)
    return DType::int32;
  else if constexpr (is_same<T, i64>::value)
    return DType::int64;
  else if constexpr (is_same<T, float>::value)
    return DType::float32;
  else
    return DType::float64;
}

/// Calls f(T{}) with the kernel type of DType `t` (the types generated kernels spell).
template <class F> CHUNKED_KD auto visit_type(unsigned char t, F&& f) {
  switch (static_cast<DType>(t)) {
  case DType::bool_:
    return f(bool{});
  case DType::int32:
    return f(int{});
  case DType::int64:
    return f(i64{});
  case DType::float32:
    return f(float{});
  default:
    return f(double{});
  }
}

/// Leaf `l` at offset `off`, as codegen's load() reads it.
CHUNKED_KD Value leaf_value(const InterpValue& leaf, const LeafArgs& l, i64 off) {
  return visit_type(leaf.dtype, [&](auto tag) -> Value {
    using T = decltype(tag);
    switch (static_cast<ops::LeafKind>(leaf.op)) {
    case ops::LeafKind::stored:
      return put<T>(static_cast<const T*>(l.data)[off]);
    case ops::LeafKind::constant:
      if constexpr (is_float<T>::value)
        return put<T>(cast_value<T>(l.af));
      else
        return put<T>(cast_value<T>(l.ai));
    case ops::LeafKind::arange:
      return put<T>(arange_value<T>(l, off));
    case ops::LeafKind::normal:
      return put<T>(cast_value<T>(normal_sample(l, off)));
    case ops::LeafKind::uniform:
      return put<T>(cast_value<T>(uniform_sample(l, off)));
    default:
      return put<T>(cast_value<T>(integers_sample(l, off)));
    }
  });
}

/// The type of an instruction's result: bool, or its operands' type.
template <bool Boolean, class T> struct result_of { using type = T; };
template <class T> struct result_of<true, T> { using type = bool; };

/// Instruction `in` of operation Op on the values `v`: scalar::op_<name> on its operand type,
/// its result converted to the instruction's type, as a generated kernel's statement
/// `const R vX = op_name<T>(...)` does.
template <ops::OpCode Op> CHUNKED_KD Value apply_op(const InterpValue& in, const Value* v) {
  if constexpr (Op == ops::OpCode::cast) {
    return visit_type(in.dtype, [&](auto to) -> Value {
      using R = decltype(to);
      return visit_type(in.operand, [&](auto from) -> Value {
        return put<R>(cast_value<R>(get<decltype(from)>(v[in.args[0]])));
      });
    });
  } else {
    return visit_type(in.operand, [&](auto tag) -> Value {
      using T = decltype(tag);
      if constexpr (!ops::op_accepts(Op, tag_dtype<T>())) {
        return Value{}; // the planner's checks let no such instruction through
      } else {
        using R =
            typename result_of<ops::op_result_dtype(Op, tag_dtype<T>()) == DType::bool_, T>::type;
        if constexpr (Op == ops::OpCode::where) {
          const R r = scalar::apply<Op>(get<bool>(v[in.args[0]]), get<T>(v[in.args[1]]),
                                        get<T>(v[in.args[2]]));
          return put<R>(r);
        } else if constexpr (ops::op_arity(Op) == 1) {
          const R r = scalar::apply<Op>(get<T>(v[in.args[0]]));
          return put<R>(r);
        } else {
          const R r = scalar::apply<Op>(get<T>(v[in.args[0]]), get<T>(v[in.args[1]]));
          return put<R>(r);
        }
      }
    });
  }
}

/// Runs the instructions of `code` on values whose leaves are filled; returns the last value.
/// Not inlined: one copy of the dispatch serves every kernel of a rank.
static __device__ __noinline__ Value run_instructions(const InterpCode& code, Value* v) {
  for (int j = code.leaves; j < code.values; ++j) {
    const InterpValue& in = code.v[j];
    switch (static_cast<ops::OpCode>(in.op)) {
#define CHUNKED_INTERP_CASE(name, ...)                                                             \
  case ops::OpCode::name:                                                                          \
    v[j] = apply_op<ops::OpCode::name>(in, v);                                                     \
    break;
      CHUNKED_ELEMENTWISE_OPS(CHUNKED_INTERP_CASE)
#undef CHUNKED_INTERP_CASE
    }
  }
  return v[code.values - 1];
}

/// The program struct of program.hpp, interpreted: rank ND (the box padded to it), values
/// handed to the skeleton as V (the result's type for stores; for reductions the accumulator's
/// value type, to which every accumulator converts what it adds).
template <int ND, class V> struct Interp {
  using result_type = V;
  static constexpr int nd = ND;
  static constexpr int batch = 1;
  static constexpr bool loads_first = false;
  static constexpr int leaves = 0;
  struct Leaves {};
  static CHUNKED_KD const InterpCode& code(const ProgramArgs& a) {
    return static_cast<const InterpArgs&>(a).code;
  }
  static constexpr bool masks_at_run_time = true; // reduced_mask, not a constant `reduced`
  static CHUNKED_KD unsigned reduced_mask(const ProgramArgs& a) { return code(a).reduced; }
  static CHUNKED_KD i64 index(const ProgramArgs& a, const i64* i) { return at<ND>(a.index, i); }
  static CHUNKED_KD V eval(const ProgramArgs& a, const i64* i) {
    const InterpCode& c = code(a);
    Value v[interp_max_values];
    for (int l = 0; l < c.leaves; ++l)
      v[l] = leaf_value(c.v[l], a.leaf[l], at<ND>(a.leaf[l].map, i));
    const Value r = c.values > c.leaves ? run_instructions(c, v) : v[c.leaves - 1];
    return visit_type(c.v[c.values - 1].dtype,
                      [&](auto tag) -> V { return static_cast<V>(get<decltype(tag)>(r)); });
  }
};

} // namespace chunked::cuda::kernel
