// SPDX-License-Identifier: Apache-2.0
// Code generation for block programs: one struct per program plugged into the kernel skeletons.
#include "backend/cuda/codegen.hpp"
#include "backend/cuda/launch_geometry.hpp"
#include "plan/partial.hpp"
#include <chunked/core/error.hpp>
#include <chunked/ops/op_code.hpp>
#include <chunked/random/distributions.hpp>

#include <fmt/format.h>

#include <iterator>

namespace chunked::cuda {

using plan::BlockProgram;
using plan::LeafKind;
using plan::OpCode;
using plan::ReduceOp;

namespace {

const char* c_type(DType t) {
  switch (t) {
  case DType::bool_:
    return "bool";
  case DType::int32:
    return "int";
  case DType::int64:
    return "long long";
  case DType::float32:
    return "float";
  case DType::float64:
    return "double";
  }
  throw ValueError("cuda codegen: unknown dtype tag");
}

/// The device accumulator of `op` over `input` values, as kernel::accumulator_t names it.
std::string accumulator(ReduceOp op, DType input) {
  if (!ops::is_reduce_op(op))
    throw ValueError(fmt::format("cuda codegen: unknown reduce op {}", static_cast<int>(op)));
  return fmt::format("accumulator_t<chunked::ops::Accumulator::{}, {}>",
                     ops::accumulator_name(ops::reduce_accumulator(op)),
                     ops::reduce_state_floating(op, input));
}

static_assert(kernel::args_max_leaves >= plan::max_program_leaves,
              "every program the planner emits must fit a kernel's leaf slots");

void check_program(const BlockProgram& p) {
  if (p.ndim < 0 || p.ndim > kernel::args_max_ndim)
    throw ValueError(
        fmt::format("cuda codegen: rank {} is outside [0, {}]", p.ndim, kernel::args_max_ndim));
  if (p.leaves.empty() || p.leaves.size() > static_cast<std::size_t>(kernel::args_max_leaves))
    throw ValueError(fmt::format("cuda codegen: {} leaves; expected 1 to {}", p.leaves.size(),
                                 kernel::args_max_leaves));
}

/// The program's user functions as device functions chunked_user_<k> of arguments a, b, c, before
/// the kernel headers' namespace is opened, so that a body sees only its arguments and CUDA's
/// math functions. ValueError when a called function has no CUDA body.
void user_functions(const BlockProgram& p, std::string& s) {
  static constexpr const char* names[] = {"a", "b", "c"};
  static_assert(std::size(names) == ops::max_user_function_args);
  for (std::size_t k = 0; k < p.functions.size(); ++k) {
    const ops::UserFunction& f = *p.functions[k];
    if (f.cuda_body.empty())
      throw ValueError("ElementwiseFunction " + f.name +
                       " has no CUDA body; give one to run it on a GPU");
    if (f.params.size() > std::size(names))
      throw ValueError(fmt::format("cuda codegen: {} takes {} arguments", f.name, f.params.size()));
    auto out = std::back_inserter(s);
    fmt::format_to(
        out, "// ElementwiseFunction {}\nstatic __device__ __forceinline__ {} chunked_user_{}(",
        f.name, c_type(f.result), k);
    for (std::size_t j = 0; j < f.params.size(); ++j)
      fmt::format_to(out, "{}{} {}", j ? ", " : "", c_type(f.params[j]), names[j]);
    fmt::format_to(out, ") {{\n{}\n}}\n", f.cuda_body);
  }
}

} // namespace

// A slow path is a call the compiler does not hoist later loads above, so evaluating position by
// position would leave one load in flight per thread; plain arithmetic is evaluated position by
// position, which needs fewer registers.
bool loads_first(const BlockProgram& p) {
  for (const auto& in : p.instrs)
    if (in.call >= 0 || ops::op_has_slow_path(in.op))
      return true;
  return false;
}

int transposed_axis(const BlockProgram& p) {
  if (p.ndim < 2)
    return -1;
  const int last = p.ndim - 1;
  int axis = -1;
  for (const auto& leaf : p.leaves) {
    if (leaf.kind != LeafKind::stored)
      continue;
    if (leaf.map.coef[last] == 1 || leaf.map.coef[last] == -1)
      return -1;
    int unit = -1;
    for (int d = last - 1; d >= 0 && unit < 0; --d)
      if (leaf.map.coef[d] == 1)
        unit = d;
    if (unit < 0 || (axis >= 0 && unit != axis))
      return -1;
    axis = unit;
  }
  if (axis < 0 || p.extent[axis] < 2 || p.extent[last] < 2)
    return -1;
  return axis;
}

KernelSet kernel_set(const BlockProgram& p) {
  if (p.sink.kind != plan::Sink::Kind::reduce)
    return p.sink.map.coef[p.ndim > 0 ? p.ndim - 1 : 0] == 1 && transposed_axis(p) >= 0
               ? KernelSet::store_tiled
               : KernelSet::store;
  index_t kept = 1, reduced = 1;
  int innermost_reduced = -1;
  for (int d = 0; d < p.ndim; ++d) {
    const bool r = ((p.sink.reduced_axes >> d) & 1u) != 0;
    (r ? reduced : kept) *= p.extent[d];
    if (r)
      innermost_reduced = d;
  }
  if (kept == 1)
    return KernelSet::reduce_all;
  if (reduced >= 64 && innermost_reduced >= 0 && transposed_axis(p) == innermost_reduced)
    return KernelSet::reduce_axes_narrow;
  const bool innermost_kept = p.ndim > 0 && ((p.sink.reduced_axes >> (p.ndim - 1)) & 1u) == 0;
  return innermost_kept || reduced < 64 ? KernelSet::reduce_axes_wide
                                        : KernelSet::reduce_axes_narrow;
}

const char* kernel_set_name(KernelSet set) {
  switch (set) {
  case KernelSet::store:
    return "store";
  case KernelSet::store_tiled:
    return "store_tiled";
  case KernelSet::reduce_all:
    return "reduce_all";
  case KernelSet::reduce_axes_wide:
    return "reduce_axes_wide";
  case KernelSet::reduce_axes_narrow:
    return "reduce_axes_narrow";
  }
  return "unknown";
}

std::string module_key(const BlockProgram& p, KernelSet set) {
  return p.structure_key() + "/" + kernel_set_name(set);
}

std::string generate_source(const BlockProgram& p, KernelSet set) {
  check_program(p);
  const bool store_set = set == KernelSet::store || set == KernelSet::store_tiled;
  if (store_set != (p.sink.kind != plan::Sink::Kind::reduce))
    throw ValueError(fmt::format("cuda codegen: kernel set {} for a program with a {} sink",
                                 kernel_set_name(set),
                                 p.sink.kind == plan::Sink::Kind::reduce ? "reduce" : "store"));
  const bool random = draws_random(p);
  const DType result = p.result_dtype();
  const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
  const bool arg = reduce && (p.sink.op == ReduceOp::argmin || p.sink.op == ReduceOp::argmax);

  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "// {} {}\n", p.structure_key(), kernel_set_name(set));
  if (random)
    s += "#define CHUNKED_KERNEL_RANDOM 1\n";
  s += "#include <backend/cuda/kernel/program.hpp>\n";
  user_functions(p, s);
  s += "using namespace chunked::cuda::kernel;\n"
       "namespace {\nstruct P {\n";
  fmt::format_to(out, "  using result_type = {};\n  static constexpr int nd = {};\n",
                 c_type(result), p.ndim);
  fmt::format_to(out, "  static constexpr unsigned reduced = 0x{:x}u;\n",
                 reduce ? p.sink.reduced_axes : 0u);
  // Positions each thread evaluates before using them (program.hpp's store_kernel).
  fmt::format_to(out, "  static constexpr int batch = {};\n", random ? 1 : 4);
  fmt::format_to(out,
                 "  static CHUNKED_KD i64 index(const ProgramArgs& a, const i64* i) {{ {} }}\n",
                 arg ? "return at<nd>(a.index, i);" : "(void)a; (void)i; return 0;");
  // Leaves that vary by position are read by load(), the rest of the program is apply(): a
  // kernel then issues a batch's loads before any of its arithmetic (program.hpp).
  const int nl = static_cast<int>(p.leaves.size());
  std::string members, loads, uses;
  for (int l = 0; l < nl; ++l) {
    const auto& leaf = p.leaves[l];
    const char* t = c_type(leaf.dtype);
    const std::string m = fmt::format("off[{}]", l);
    std::string value;
    switch (leaf.kind) {
    case LeafKind::constant:
      fmt::format_to(std::back_inserter(uses),
                     "    const {} v{} = cast_value<{}>(a.leaf[{}].{});\n", t, l, t, l,
                     is_floating(leaf.dtype) ? "af" : "ai");
      continue;
    case LeafKind::stored:
      if (leaf.input < 0)
        throw ValueError("cuda codegen: stored leaf without an input");
      value = fmt::format("static_cast<const {}*>(a.leaf[{}].data)[{}]", t, l, m);
      break;
    case LeafKind::arange:
      value = fmt::format("arange_value<{}>(a.leaf[{}], {})", t, l, m);
      break;
    case LeafKind::normal:
      value = fmt::format("cast_value<{}>(normal_sample(a.leaf[{}], {}))", t, l, m);
      break;
    case LeafKind::uniform:
      value = fmt::format("cast_value<{}>(uniform_sample(a.leaf[{}], {}))", t, l, m);
      break;
    case LeafKind::integers:
      value = fmt::format("cast_value<{}>(integers_sample(a.leaf[{}], {}))", t, l, m);
      break;
    }
    fmt::format_to(std::back_inserter(members), " {} v{};", t, l);
    fmt::format_to(std::back_inserter(loads), "    r.v{} = {};\n", l, value);
    fmt::format_to(std::back_inserter(uses), "    const {} v{} = in.v{};\n", t, l, l);
  }
  fmt::format_to(out, "  static constexpr bool loads_first = {};\n", loads_first(p));
  fmt::format_to(out, "  static constexpr int leaves = {};\n", nl);
  fmt::format_to(out, "  struct Leaves {{{} }};\n", members);
  fmt::format_to(out,
                 "  static CHUNKED_KD Leaves load(const ProgramArgs& a, const i64* off) {{\n"
                 "    (void)a; (void)off;\n    Leaves r;\n{}    return r;\n  }}\n",
                 loads);
  fmt::format_to(
      out,
      "  static CHUNKED_KD result_type apply(const ProgramArgs& a, const Leaves& in) {{\n"
      "    (void)a; (void)in;\n{}",
      uses);
  for (std::size_t j = 0; j < p.instrs.size(); ++j) {
    const auto& in = p.instrs[j];
    const int self = nl + static_cast<int>(j);
    if (in.call < 0 && !ops::is_opcode(in.op))
      throw ValueError(fmt::format("cuda codegen: unknown opcode {}", static_cast<int>(in.op)));
    const int arity = in.arity();
    for (int k = 0; k < arity; ++k)
      if (in.args[k] < 0 || in.args[k] >= self)
        throw ValueError(fmt::format("cuda codegen: instruction {} reads an undefined value", j));
    const char* r = c_type(in.dtype);
    if (in.call >= 0) {
      fmt::format_to(out, "    const {} v{} = chunked_user_{}(", r, self,
                     static_cast<int>(in.call));
      for (int k = 0; k < arity; ++k)
        fmt::format_to(out, "{}v{}", k ? ", " : "", in.args[k]);
      s += ");\n";
      continue;
    }
    const DType operand = p.value_dtype(in.args[arity == 3 ? 1 : 0]);
    // Every operation is scalar::op_<its table name> on its operand type; a cast names its target.
    if (in.op == OpCode::cast) {
      fmt::format_to(out, "    const {} v{} = cast_value<{}>(v{});\n", r, self, r, in.args[0]);
      continue;
    }
    fmt::format_to(out, "    const {} v{} = op_{}<{}>(", r, self, ops::op_name(in.op),
                   c_type(operand));
    for (int k = 0; k < arity; ++k)
      fmt::format_to(out, "{}v{}", k ? ", " : "", in.args[k]);
    s += ");\n";
  }
  fmt::format_to(out,
                 "    return v{};\n  }}\n"
                 "  static CHUNKED_KD result_type eval(const ProgramArgs& a, const i64* i) {{\n"
                 "    i64 off[leaves];\n    leaf_offsets<P>(a, i, off);\n"
                 "    return apply(a, load(a, off));\n  }}\n}};\n}} // namespace\n",
                 p.num_values() - 1);

  if (set == KernelSet::store_tiled) {
    fmt::format_to(out,
                   "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
                   "const __grid_constant__ ProgramArgs a, int axis) {{ "
                   "store_tiled_kernel<P>(a, axis); }}\n",
                   kernel_store_tiled);
    return s;
  }
  if (!reduce) {
    fmt::format_to(out,
                   "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
                   "const __grid_constant__ ProgramArgs a) {{ store_kernel<P>(a); }}\n",
                   kernel_store);
    return s;
  }
  const std::string acc = accumulator(p.sink.op, result);
  fmt::format_to(out, "using Acc = {};\n", acc);
  if (set == KernelSet::reduce_all) {
    fmt::format_to(out,
                   "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
                   "const __grid_constant__ ProgramArgs a, long long rows_per_part) {{ "
                   "reduce_all_kernel<P, Acc>(a, rows_per_part); }}\n",
                   kernel_reduce_all);
    fmt::format_to(out,
                   "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
                   "const __grid_constant__ ProgramArgs a, int parts) {{ "
                   "reduce_final_kernel<Acc>(a, parts); }}\n",
                   kernel_reduce_final);
    return s;
  }
  const bool wide = set == KernelSet::reduce_axes_wide;
  fmt::format_to(
      out,
      "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
      "const __grid_constant__ ProgramArgs a) {{ reduce_axes_kernel<P, Acc, {}>(a); }}\n",
      wide ? kernel_reduce_axes_wide : kernel_reduce_axes_narrow, wide ? 32 : 1);
  fmt::format_to(out,
                 "extern \"C\" __global__ void __launch_bounds__(block_threads) {}("
                 "const __grid_constant__ ProgramArgs a, int segments) {{ "
                 "reduce_axes_final_kernel<P, Acc>(a, segments); }}\n",
                 kernel_reduce_axes_final);
  return s;
}

kernel::ProgramArgs make_args(const BlockProgram& p, const void* const* inputs, void* out,
                              void* scratch) {
  check_program(p);
  kernel::ProgramArgs a{};
  auto copy_map = [&](const plan::AffineMap& m, kernel::Map& k) {
    k.base = m.base;
    for (int d = 0; d < kernel::args_max_ndim; ++d)
      k.coef[d] = d < p.ndim ? m.coef[d] : 0;
  };
  a.size = 1;
  a.kept = 1;
  a.reduced = 1;
  const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
  for (int d = 0; d < p.ndim; ++d) {
    a.extent[d] = p.extent[d];
    a.size *= p.extent[d];
    if (reduce && ((p.sink.reduced_axes >> d) & 1u))
      a.reduced *= p.extent[d];
    else
      a.kept *= p.extent[d];
  }
  copy_map(p.sink.map, a.sink);
  copy_map(p.sink.index_map, a.index);
  a.out = out;
  a.scratch = scratch;
  for (std::size_t l = 0; l < p.leaves.size(); ++l) {
    const auto& leaf = p.leaves[l];
    auto& k = a.leaf[l];
    copy_map(leaf.map, k.map);
    k.af = leaf.a.f;
    k.bf = leaf.b.f;
    if (leaf.kind == LeafKind::uniform) {
      const random::UniformForm form = leaf.dtype == DType::float32
                                           ? random::uniform_form<float>(leaf.a.f, leaf.b.f)
                                           : random::uniform_form<double>(leaf.a.f, leaf.b.f);
      k.af = form.low;
      k.bf = form.half_width;
      k.cf = form.last;
    }
    k.ai = leaf.a.i;
    k.bi = leaf.b.i;
    k.seed = leaf.seed;
    k.stream = leaf.stream;
    k.data = leaf.kind == LeafKind::stored ? inputs[leaf.input] : nullptr;
  }
  return a;
}

} // namespace chunked::cuda
