// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter: evaluates a BlockProgram tile by tile with one tight loop per
// operation.
#include <chunked/backend/cpu/elementwise.hpp>
#include <chunked/backend/cpu/interpreter.hpp>
#include <chunked/backend/cpu/partials.hpp>
#include <chunked/backend/cpu/random_leaves.hpp>
#include <chunked/backend/cpu/tile_reduce.hpp>
#include <chunked/plan/partial.hpp>

#include "interpreter_simd.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace chunked::cpu {

using plan::AffineMap;
using plan::BlockProgram;
using plan::Instr;
using plan::Leaf;
using plan::LeafKind;
using plan::OpCode;
using plan::PartialWord;
using plan::Sink;

namespace {

constexpr std::size_t slot_bytes = static_cast<std::size_t>(tile_elements) * 8;
/// Store blocks from this size on bypass the caches (run_program): well past a core's L2, so the
/// lines written would be evicted before anything read them again.
constexpr index_t stream_from_bytes = index_t{4} << 20;

// ---------------------------------------------------------------------------------------------
// Instruction kernels: one loop per (op, dtype), chosen once per program.

#include "instr_loops.inc"

/// The index of add, sub, mul and div in the wide loop tables (InterpreterKernels); -1 for other
/// opcodes.
int arithmetic_index(OpCode op) {
  switch (op) {
  case OpCode::add:
    return 0;
  case OpCode::sub:
    return 1;
  case OpCode::mul:
    return 2;
  case OpCode::div:
    return 3;
  default:
    return -1;
  }
}

/// Instructions whose loops call the C library's math functions: a wider build gains nothing
/// there (the calls stay scalar), so they keep the baseline loops.
bool calls_libm(OpCode op, DType operand) { return ops::op_calls_library(op, operand); }

/// The loop of an instruction: the widest this CPU has; `scalars` (detail::scalar_operands)
/// names the operands that are constants, which the wide arithmetic loops read as one value.
InstrKernel select_kernel(OpCode op, DType operand, DType result,
                          const detail::InterpreterKernels* wide, unsigned scalars) {
  if (const int a = arithmetic_index(op);
      wide && a >= 0 && (operand == DType::float64 || operand == DType::float32))
    return (operand == DType::float64 ? wide->binary_f64 : wide->binary_f32)[a * 4 + scalars];
  return wide && !calls_libm(op, operand) ? wide->instr(op, operand, result)
                                          : instr_loop(op, operand, result);
}

// ---------------------------------------------------------------------------------------------
// Iteration geometry.

/// The iteration box after dropping unit axes and merging axes that every map walks
/// contiguously: it visits the same elements in the same C order, in longer rows.
struct Geometry {
  int ndim = 1;
  std::array<index_t, plan::max_ndim> extent{};
};

void normalize(const BlockProgram& p, Geometry& g, std::vector<AffineMap*>& maps) {
  int nd = 0;
  for (int k = 0; k < p.ndim; ++k) {
    if (p.extent[k] == 1)
      continue;
    g.extent[nd] = p.extent[k];
    for (AffineMap* m : maps)
      m->coef[nd] = m->coef[k];
    ++nd;
  }
  for (AffineMap* m : maps)
    for (int k = nd; k < plan::max_ndim; ++k)
      m->coef[k] = 0;
  if (nd == 0) {
    g.ndim = 1;
    g.extent[0] = 1;
    return;
  }
  int out = 0;
  for (int k = 1; k < nd; ++k) {
    bool mergeable = true;
    for (const AffineMap* m : maps) {
      index_t walked = 0;
      if (__builtin_mul_overflow(m->coef[k], g.extent[k], &walked) || walked != m->coef[out]) {
        mergeable = false;
        break;
      }
    }
    if (mergeable) {
      g.extent[out] *= g.extent[k];
      for (AffineMap* m : maps)
        m->coef[out] = m->coef[k];
    } else {
      ++out;
      g.extent[out] = g.extent[k];
      for (AffineMap* m : maps)
        m->coef[out] = m->coef[k];
    }
  }
  for (AffineMap* m : maps)
    for (int k = out + 1; k < plan::max_ndim; ++k)
      m->coef[k] = 0;
  g.ndim = out + 1;
}

/// One row segment of a tile: tile positions j .. j+len-1 are box positions idx, idx + e_last, ...
struct Run {
  index_t j = 0, len = 0;
  index_t idx[plan::max_ndim];
};

/// The row segments of the tile that starts at box position t0 and holds n positions. Computed
/// once per tile and shared by every map the tile reads or writes.
class TileRuns {
public:
  void cut(const Geometry& g, index_t t0, index_t n) {
    ndim_ = g.ndim;
    last_ = g.ndim - 1;
    runs_.clear();
    Run r;
    for (int k = last_; k >= 0; --k) {
      r.idx[k] = t0 % g.extent[k];
      t0 /= g.extent[k];
    }
    for (index_t j = 0;;) {
      r.j = j;
      r.len = std::min(n - j, g.extent[last_] - r.idx[last_]);
      runs_.push_back(r);
      j += r.len;
      if (j >= n)
        return;
      r.idx[last_] = 0;
      for (int k = last_ - 1; k >= 0 && ++r.idx[k] == g.extent[k]; --k)
        r.idx[k] = 0;
    }
  }
  bool single() const { return runs_.size() == 1; }
  /// Calls f(j, offset, step, len) for each run: positions j .. j+len-1 of the tile map to
  /// offset + step * k under `m`.
  template <class F> void each(const AffineMap& m, F&& f) const {
    const index_t step = m.coef[last_];
    for (const Run& r : runs_)
      f(r.j, m.at(r.idx, ndim_), step, r.len);
  }
  index_t first_offset(const AffineMap& m) const { return m.at(runs_.front().idx, ndim_); }
  /// each() of two maps at once: f(offset under a, step under a, offset under b, len) per run.
  template <class F> void each_pair(const AffineMap& a, const AffineMap& b, F&& f) const {
    for (const Run& r : runs_)
      f(a.at(r.idx, ndim_), a.coef[last_], b.at(r.idx, ndim_), r.len);
  }

private:
  int ndim_ = 1, last_ = 0;
  std::vector<Run> runs_;
};

/// dst[k * dstep] = src[k * sstep] for k < len, with the common layouts as loops the compiler
/// vectorises (contiguous, reversed, every other element, broadcast).
template <class T>
void strided_copy(const T* __restrict src, index_t sstep, T* __restrict dst, index_t dstep,
                  index_t len) {
  if (dstep == 1) {
    if (sstep == 1)
      std::memcpy(dst, src, static_cast<std::size_t>(len) * sizeof(T));
    else if (sstep == 0)
      std::fill_n(dst, len, *src);
    else if (sstep == -1)
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[-k];
    else if (sstep == 2)
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[2 * k];
    else
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[k * sstep];
  } else if (sstep == 1 && dstep == -1) {
    for (index_t k = 0; k < len; ++k)
      dst[-k] = src[k];
  } else {
    for (index_t k = 0; k < len; ++k)
      dst[k * dstep] = src[k * sstep];
  }
}

// ---------------------------------------------------------------------------------------------
// Leaves.

using LeafFill = void (*)(const Leaf& leaf, const void* input, index_t offset, index_t step,
                          index_t len, void* out);

template <class T>
void fill_stored(const Leaf&, const void* input, index_t offset, index_t step, index_t len,
                 void* out) {
  if constexpr (sizeof(T) == 8)
    if (step == -1 || step == 2)
      if (const detail::InterpreterKernels* wide = detail::interpreter_kernels()) {
        wide->gather8[step == 2](static_cast<const T*>(input) + offset, out, len);
        return;
      }
  strided_copy(static_cast<const T*>(input) + offset, step, static_cast<T*>(out), 1, len);
}

template <class T>
void fill_arange(const Leaf& leaf, const void*, index_t offset, index_t step, index_t len,
                 void* out) {
  T* dst = static_cast<T*>(out);
  if constexpr (std::is_floating_point_v<T>) {
    // NumPy's fill: start + i * delta in T, rounded twice (this file is never built with fma).
    const T start = static_cast<T>(leaf.a.f), delta = static_cast<T>(leaf.b.f);
    for (index_t k = 0; k < len; ++k)
      dst[k] = start + static_cast<T>(offset + k * step) * delta;
  } else {
    for (index_t k = 0; k < len; ++k)
      dst[k] = cast_value<T>(wrap_add(leaf.a.i, wrap_mul(offset + k * step, leaf.b.i)));
  }
}

template <class T>
void fill_random(const Leaf& leaf, const void*, index_t offset, index_t step, index_t len,
                 void* out) {
  fill_random_leaf(leaf, offset, step, len, static_cast<T*>(out));
}

LeafFill select_fill(LeafKind kind, DType t) {
  return visit_dtype(t, [&](auto tag) -> LeafFill {
    using T = decltype(tag);
    switch (kind) {
    case LeafKind::stored:
      return &fill_stored<T>;
    case LeafKind::arange:
      return &fill_arange<T>;
    case LeafKind::normal:
    case LeafKind::uniform:
    case LeafKind::integers:
      return &fill_random<T>;
    case LeafKind::constant:
      return nullptr; // filled once per program
    }
    return nullptr;
  });
}

void fill_constant(const Leaf& leaf, void* out, index_t n) {
  visit_dtype(leaf.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = std::is_floating_point_v<T> ? cast_value<T>(leaf.a.f) : cast_value<T>(leaf.a.i);
    std::fill_n(static_cast<T*>(out), n, v);
  });
}

/// The values a leaf gives every tile when it reads the same values in every tile: it varies only
/// along the axes from `from` on, whose extents multiply to `period`, and tiles hold a whole
/// number of periods (x - x.mean(Axes{0}) over column blocks: the mean's row repeats down the
/// block). Stored once per program: filled run by run, each tile of a block 64 columns wide cost
/// two fills of 64 values for every 64 positions computed (on machine A the standardize's
/// result pass over 64-column blocks took 150 ms where 4096-column blocks took 31).
struct InvariantLeaf {
  int from = 0;
  index_t period = 0;
};

/// The smallest period of leaf `l` over the box of `p`, as InvariantLeaf; period 0 when the leaf
/// changes along the outermost axis (or is a constant, which has its own path).
InvariantLeaf invariant_period(const BlockProgram& p, const Leaf& leaf) {
  if (leaf.kind == LeafKind::constant)
    return {};
  int from = 0;
  while (from < p.ndim && (leaf.map.coef[from] == 0 || p.extent[from] == 1))
    ++from;
  if (from == 0)
    return {};
  index_t period = 1;
  for (int k = from; k < p.ndim; ++k)
    period *= p.extent[k];
  return {from, period};
}

/// Fills `tile` positions of `out` with the leaf's values over one period, repeated.
void fill_invariant(const BlockProgram& p, const Leaf& leaf, InvariantLeaf inv, LeafFill fill,
                    const void* input, std::byte* out, std::size_t elem_size, index_t tile) {
  const int last = p.ndim - 1;
  const index_t row = inv.from <= last ? p.extent[last] : 1;
  index_t idx[plan::max_ndim] = {};
  for (index_t done = 0; done < inv.period; done += row) {
    fill(leaf, input, leaf.map.at(idx, p.ndim), inv.from <= last ? leaf.map.coef[last] : 0, row,
         out + static_cast<std::size_t>(done) * elem_size);
    for (int k = last - 1; k >= inv.from && ++idx[k] == p.extent[k]; --k)
      idx[k] = 0;
  }
  const std::size_t period_bytes = static_cast<std::size_t>(inv.period) * elem_size;
  for (std::size_t have = period_bytes, want = static_cast<std::size_t>(tile) * elem_size;
       have < want;) {
    const std::size_t n = std::min(have, want - have);
    std::memcpy(out + have, out, n);
    have += n;
  }
}

// ---------------------------------------------------------------------------------------------
// Sinks.

template <class T>
void store_tile(const TileRuns& runs, const AffineMap& map, const void* values, void* output) {
  const T* src = static_cast<const T*>(values);
  T* dst = static_cast<T*>(output);
  runs.each(map, [&](index_t j, index_t offset, index_t step, index_t len) {
    strided_copy(src + j, 1, dst + offset, step, len);
  });
}

using StoreTile = void (*)(const TileRuns&, const AffineMap&, const void*, void*);

/// Accumulates one tile into the partial entries: the whole tile into one entry when every axis is
/// reduced, else row segment by row segment (one entry per segment when the last axis is reduced,
/// one entry per element when it is kept).
template <class Acc>
void reduce_tile(const TileRuns& runs, const AffineMap& map, bool all_reduced, index_t n,
                 const void* values, const index_t* index, PartialWord* partials) {
  using T = typename Acc::value_type;
  constexpr int w = Acc::words;
  const T* x = static_cast<const T*>(values);
  if (all_reduced) {
    Acc::segment(x, index, n, partials + map.base * w);
    return;
  }
  runs.each(map, [&](index_t j, index_t offset, index_t step, index_t len) {
    const index_t* ix = index ? index + j : nullptr;
    if (step == 0) {
      Acc::segment(x + j, ix, len, partials + offset * w);
    } else if (step == 1) {
      Acc::row(x + j, ix, len, partials + offset * w);
    } else {
      for (index_t k = 0; k < len; ++k)
        Acc::element(x[j + k], ix ? ix[k] : 0, partials + (offset + k * step) * w);
    }
  });
}

using ReduceTile = void (*)(const TileRuns&, const AffineMap&, bool, index_t, const void*,
                            const index_t*, PartialWord*);

using MomentRow = void (*)(const void* x, index_t n, const MomentColumns& s);

template <class T> void moment_row(const void* x, index_t n, const MomentColumns& s) {
  moments_row(static_cast<const T*>(x), n, s);
}

/// MinMaxAcc<double, Max> through the wide loops, which leave results that depend on the order
/// of the values (a NaN, a zero) to it: the same results, as fast as the sums.
template <bool Max> struct WideExtremeAcc {
  using value_type = double;
  using Base = MinMaxAcc<double, Max>;
  static constexpr int words = 1;
  static void segment(const double* x, const index_t* index, index_t n, PartialWord* e) {
    double m;
    if (detail::interpreter_kernels()->extreme_f64[Max](x, n, &m))
      e->f = Max ? detail::nan_max(e->f, m) : detail::nan_min(e->f, m);
    else
      Base::segment(x, index, n, e);
  }
  static void row(const double* x, const index_t*, index_t n, PartialWord* e) {
    detail::interpreter_kernels()->extreme_row_f64[Max](x, n, &e->f);
  }
  static void element(double x, index_t index, PartialWord* e) { Base::element(x, index, e); }
};

/// The tile accumulator (tile_reduce.hpp) of each kind of partial state over T values.
template <ops::Accumulator A, class T> ReduceTile tile_reducer() {
  using ops::Accumulator;
  if constexpr (A == Accumulator::sum)
    return &reduce_tile<SumAcc<T>>;
  else if constexpr (A == Accumulator::prod)
    return &reduce_tile<ProdAcc<T>>;
  else if constexpr (A == Accumulator::min || A == Accumulator::max)
    return &reduce_tile<MinMaxAcc<T, A == Accumulator::max>>;
  else if constexpr (A == Accumulator::any || A == Accumulator::all)
    return &reduce_tile<AnyAllAcc<T, A == Accumulator::all>>;
  else if constexpr (A == Accumulator::mean)
    return &reduce_tile<MeanAcc<T>>;
  else if constexpr (A == Accumulator::moments)
    return &reduce_tile<MomentsAcc<T>>;
  else
    return &reduce_tile<ArgAcc<T, A == Accumulator::argmax>>;
}

ReduceTile select_reduce(plan::ReduceOp op, DType t, const detail::InterpreterKernels* wide) {
  if (wide && t == DType::float64 && (op == plan::ReduceOp::min || op == plan::ReduceOp::max))
    return op == plan::ReduceOp::max ? &reduce_tile<WideExtremeAcc<true>>
                                     : &reduce_tile<WideExtremeAcc<false>>;
  return ops::visit_accumulator(op, [&](auto kind) {
    using Kind = decltype(kind);
    return visit_dtype(
        t, [](auto tag) -> ReduceTile { return tile_reducer<Kind::value, decltype(tag)>(); });
  });
}

// ---------------------------------------------------------------------------------------------
// Validation.

[[noreturn]] void malformed(const BlockProgram& p, const std::string& what) {
  throw ValueError("cpu::run_program: malformed block program (" + what + "):\n" + p.describe());
}

/// Smallest and largest value of `m` over the box (extents all > 0).
std::pair<index_t, index_t> map_range(const AffineMap& m, const BlockProgram& p) {
  index_t lo = m.base, hi = m.base;
  for (int k = 0; k < p.ndim; ++k) {
    const index_t reach = m.coef[k] * (p.extent[k] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

void validate(const BlockProgram& p, std::span<const void* const> inputs) {
  if (p.ndim < 0 || p.ndim > plan::max_ndim)
    malformed(p, "rank out of range");
  for (int k = 0; k < p.ndim; ++k)
    if (p.extent[k] < 0)
      malformed(p, "negative extent");
  if (p.leaves.empty())
    malformed(p, "no leaves");
  for (const Leaf& leaf : p.leaves) {
    if (leaf.kind == LeafKind::stored &&
        (leaf.input < 0 || static_cast<std::size_t>(leaf.input) >= inputs.size()))
      malformed(p, "stored leaf input " + std::to_string(leaf.input) + " is not among the " +
                       std::to_string(inputs.size()) + " inputs");
  }
  const int nl = static_cast<int>(p.leaves.size());
  for (std::size_t j = 0; j < p.instrs.size(); ++j) {
    const Instr& in = p.instrs[j];
    const int self = nl + static_cast<int>(j);
    if (static_cast<std::size_t>(in.op) >= num_opcodes)
      malformed(p, "unknown opcode");
    const int arity = plan::opcode_arity(in.op);
    for (int a = 0; a < arity; ++a)
      if (in.args[a] < 0 || in.args[a] >= self)
        malformed(p, "instruction " + std::to_string(j) + " reads an undefined value");
    const DType t = p.value_dtype(in.args[arity == 3 ? 1 : 0]);
    bool ok =
        in.op == OpCode::cast || (op_accepts(in.op, t) && in.dtype == op_result_dtype(in.op, t));
    if (arity >= 2)
      ok = ok && p.value_dtype(in.args[1]) == t;
    if (arity == 3)
      ok = ok && p.value_dtype(in.args[0]) == DType::bool_ && p.value_dtype(in.args[2]) == t;
    if (!ok)
      malformed(p, "instruction " + std::to_string(j) + " (" +
                       std::string(plan::opcode_name(in.op)) +
                       ") has operand or result dtypes it does not accept");
  }
  if (p.sink.kind == Sink::Kind::reduce) {
    if (static_cast<int>(p.sink.op) > static_cast<int>(plan::ReduceOp::argmax))
      malformed(p, "unknown reduce op");
    if (p.sink.num_partials < 0)
      malformed(p, "negative num_partials");
    if (p.size() > 0) {
      const auto [lo, hi] = map_range(p.sink.map, p);
      if (lo < 0 || hi >= p.sink.num_partials)
        malformed(p, "reduce map outside the partials");
    }
  } else if (p.sink.kind != Sink::Kind::store) {
    malformed(p, "unknown sink kind");
  }
}

// ---------------------------------------------------------------------------------------------
// Execution plan of one program: which buffers hold which values, and the loops to run.

struct alignas(64) CacheLine {
  std::byte bytes[64];
};

/// Tile buffers, reused by every program the thread runs: no allocation per tile, and none per
/// program once the thread has seen its largest program.
std::byte* scratch(std::size_t slots) {
  thread_local std::vector<CacheLine> buffer;
  const std::size_t lines = slots * (slot_bytes / sizeof(CacheLine));
  if (buffer.size() < lines)
    buffer.resize(lines);
  return buffer.data()->bytes;
}

struct LeafStep {
  LeafFill fill;
  const Leaf* leaf;
  const void* input;
  const AffineMap* map;
  std::byte* out;
  std::size_t elem_size;
  int value;
  /// A stored leaf read contiguously: a tile that is one run is read from the input itself. Only
  /// for the program's result or with the wide loops: measured, the baseline (SSE2) loops stream
  /// from memory slower than memcpy, (a * b + c).sum(Axes{0}) took 20 ms reading a, b and c in
  /// place against 17.5 ms copying each into its tile buffer first.
  bool in_place;
  /// in_place, and the map lays the box out in C order: every tile, of however many runs, is
  /// then one stretch of the input (x.sum(Axes{1}) of a stored block, whose sink cuts each tile
  /// into rows, reads its rows where they are instead of copying them into the tile buffer).
  bool dense;
};

/// Whether m maps box position t (in C order) to m.base + t.
bool c_order(const AffineMap& m, const Geometry& g) {
  index_t stride = 1;
  for (int k = g.ndim - 1; k >= 0; --k) {
    if (m.coef[k] != stride)
      return false;
    stride *= g.extent[k];
  }
  return true;
}

struct InstrStep {
  InstrKernel kernel;
  int args[3];
  void* out;
  int value;
  /// The same loop writing to memory with non-temporal stores, for the float64 add, sub, mul and
  /// div of the wide loops and their fused pairs; null for the others.
  InstrKernel stream = nullptr;
};

} // namespace

namespace detail {

const InterpreterKernels* interpreter_kernels() noexcept {
  static const InterpreterKernels* const chosen = []() -> const InterpreterKernels* {
    const char* isa = std::getenv("CHUNKED_SIMD");
    if (isa && std::strcmp(isa, "scalar") == 0)
      return nullptr;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    const bool avx2_only = isa && std::strcmp(isa, "avx2") == 0;
    if (!avx2_only && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        avx512_interpreter_kernels())
      return avx512_interpreter_kernels();
    if (__builtin_cpu_supports("avx2"))
      return avx2_interpreter_kernels();
#endif
    return nullptr;
  }();
  return chosen;
}

} // namespace detail

void run_program(const BlockProgram& p, std::span<const void* const> inputs, void* output) {
  validate(p, inputs);
  const DType result_dtype = p.result_dtype();
  const bool reduce = p.sink.kind == Sink::Kind::reduce;
  auto* partials = static_cast<PartialWord*>(output);
  if (reduce)
    init_partials(p.sink.op, result_dtype, partials, p.sink.num_partials);
  const index_t size = p.size();
  if (size == 0)
    return;

  const int nl = static_cast<int>(p.leaves.size());
  const int nv = p.num_values();
  const int result = nv - 1;
  const bool want_index =
      reduce && (p.sink.op == plan::ReduceOp::argmin || p.sink.op == plan::ReduceOp::argmax);
  const detail::InterpreterKernels* wide = detail::interpreter_kernels();

  // Leaves that read the same values in every tile, when tiles hold whole periods: tiles are
  // then made a multiple of the longest period (periods are products of inner extents, so each
  // divides the longer ones).
  std::vector<InvariantLeaf> invariant(nl);
  index_t tile = tile_elements, longest_period = 0;
  for (int l = 0; l < nl; ++l) {
    const InvariantLeaf inv = invariant_period(p, p.leaves[l]);
    if (inv.period > 0 && inv.period <= tile_elements && inv.period < size) {
      invariant[l] = inv;
      longest_period = std::max(longest_period, inv.period);
    }
  }
  if (longest_period > 0)
    tile = tile_elements / longest_period * longest_period;

  // Normalized copies of every map the tile loop reads (not those of invariant leaves, which it
  // never reads: without them the other maps often merge into one contiguous row).
  std::vector<AffineMap> leaf_maps(nl);
  for (int l = 0; l < nl; ++l)
    leaf_maps[l] = p.leaves[l].map;
  AffineMap sink_map = p.sink.map, index_map = p.sink.index_map;
  std::vector<AffineMap*> maps{&sink_map};
  if (want_index)
    maps.push_back(&index_map);
  for (int l = 0; l < nl; ++l)
    if (p.leaves[l].kind != LeafKind::constant && invariant[l].period == 0)
      maps.push_back(&leaf_maps[l]);
  Geometry g;
  normalize(p, g, maps);

  // Liveness: only values that reach the result are computed; a value's buffer is free again
  // after its last reader (constants keep theirs: they are filled once).
  constexpr int forever = INT_MAX;
  std::vector<int> last_use(nv, -1);
  last_use[result] = forever;
  for (int v = nv - 1; v >= nl; --v) {
    if (last_use[v] < 0)
      continue;
    const Instr& in = p.instrs[v - nl];
    for (int a = 0; a < plan::opcode_arity(in.op); ++a)
      last_use[in.args[a]] = std::max(last_use[in.args[a]], v);
  }
  for (int l = 0; l < nl; ++l)
    if (last_use[l] >= 0 && (p.leaves[l].kind == LeafKind::constant || invariant[l].period > 0))
      last_use[l] = forever;

  std::vector<int> slot(nv, -1), free_slots;
  int num_slots = 0;
  auto take = [&] {
    if (free_slots.empty())
      return num_slots++;
    const int s = free_slots.back();
    free_slots.pop_back();
    return s;
  };
  for (int l = 0; l < nl; ++l)
    if (last_use[l] >= 0)
      slot[l] = take();
  for (int v = nl; v < nv; ++v) {
    if (last_use[v] < 0)
      continue;
    slot[v] = take();
    const Instr& in = p.instrs[v - nl];
    for (int a = 0; a < plan::opcode_arity(in.op); ++a) {
      const int arg = in.args[a];
      if (last_use[arg] == v && slot[arg] >= 0 &&
          std::find(free_slots.begin(), free_slots.end(), slot[arg]) == free_slots.end())
        free_slots.push_back(slot[arg]);
    }
  }
  const int index_slot = want_index ? num_slots++ : -1;
  std::byte* base = scratch(static_cast<std::size_t>(num_slots));
  auto slot_ptr = [&](int s) { return base + static_cast<std::size_t>(s) * slot_bytes; };

  // Where each value's tile lies: its tile buffer, or the input itself for leaves read in place.
  std::vector<const void*> where(nv, nullptr);
  std::vector<LeafStep> leaf_steps;
  for (int l = 0; l < nl; ++l) {
    if (last_use[l] < 0)
      continue;
    const Leaf& leaf = p.leaves[l];
    where[l] = slot_ptr(slot[l]);
    if (leaf.kind == LeafKind::constant) {
      fill_constant(leaf, slot_ptr(slot[l]), tile_elements);
      continue;
    }
    if (leaf.kind == LeafKind::stored && inputs[leaf.input] == nullptr)
      malformed(p, "stored leaf input " + std::to_string(leaf.input) + " is a null pointer");
    const bool stored = leaf.kind == LeafKind::stored;
    if (invariant[l].period > 0) {
      fill_invariant(p, leaf, invariant[l], select_fill(leaf.kind, leaf.dtype),
                     stored ? inputs[leaf.input] : nullptr, slot_ptr(slot[l]),
                     dtype_size(leaf.dtype), std::min(tile, size));
      continue;
    }
    const bool in_place = stored && (l == result || wide) && leaf_maps[l].coef[g.ndim - 1] == 1;
    leaf_steps.push_back({select_fill(leaf.kind, leaf.dtype), &leaf,
                          stored ? inputs[leaf.input] : nullptr, &leaf_maps[l], slot_ptr(slot[l]),
                          dtype_size(leaf.dtype), l, in_place,
                          in_place && c_order(leaf_maps[l], g)});
  }
  auto is_constant = [&](int v) { return v < nl && p.leaves[v].kind == LeafKind::constant; };
  std::vector<InstrStep> instr_steps;
  for (int v = nl; v < nv; ++v) {
    if (last_use[v] < 0)
      continue;
    const Instr& in = p.instrs[v - nl];
    const int arity = plan::opcode_arity(in.op);
    const unsigned scalars =
        arity == 2 ? detail::scalar_operands(is_constant(in.args[0]), is_constant(in.args[1])) : 0;
    InstrStep step{
        select_kernel(in.op, p.value_dtype(in.args[arity == 3 ? 1 : 0]), in.dtype, wide, scalars),
        {0, 0, 0},
        slot_ptr(slot[v]),
        v};
    for (int a = 0; a < arity; ++a)
      step.args[a] = in.args[a];
    if (const int a = arithmetic_index(in.op);
        wide && a >= 0 && p.value_dtype(in.args[0]) == DType::float64)
      step.stream = wide->binary_stream_f64[a * 4 + scalars];
    where[v] = step.out;
    instr_steps.push_back(step);
  }

  // Two float64 add/sub/mul/div in a row, the first's value read by the second alone: one pass
  // of the wide loops, the intermediate kept in registers rather than written to a tile buffer
  // and read back (on machine A, (x - m) / s streamed 30 ms as two loops, 20-25 ms as one). A
  // reduction's last instruction is left for the sum rows below, which fold it themselves.
  if (wide) {
    auto is_f64 = [&](int v) { return p.value_dtype(v) == DType::float64; };
    for (std::size_t k = 0; k + 1 < instr_steps.size(); ++k) {
      const InstrStep& first = instr_steps[k];
      const InstrStep& second = instr_steps[k + 1];
      const Instr& i1 = p.instrs[static_cast<std::size_t>(first.value - nl)];
      const Instr& i2 = p.instrs[static_cast<std::size_t>(second.value - nl)];
      const int a1 = arithmetic_index(i1.op), a2 = arithmetic_index(i2.op);
      const bool left = i2.args[0] == first.value;
      if (a1 < 0 || a2 < 0 || last_use[first.value] != second.value ||
          left == (i2.args[1] == first.value) || (reduce && second.value == result) ||
          !is_f64(first.value) || !is_f64(second.value) || !is_f64(i1.args[0]) ||
          !is_f64(i1.args[1]) || !is_f64(i2.args[left ? 1 : 0]))
        continue;
      const int c = i2.args[left ? 1 : 0];
      const int entry = (a1 * 8 + a2 * 2 + (left ? 1 : 0)) * 8 +
                        static_cast<int>(detail::scalar_operands(
                            is_constant(i1.args[0]), is_constant(i1.args[1]), is_constant(c)));
      const InstrStep pair{wide->binary_pair_f64[entry],
                           {i1.args[0], i1.args[1], c},
                           second.out,
                           second.value,
                           wide->binary_pair_stream_f64[entry]};
      // The loop then moves past the pair, which is never fused again: its args are not
      // those of the instruction whose value it gives.
      instr_steps[k] = pair;
      instr_steps.erase(instr_steps.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    }
  }

  auto* index = want_index ? reinterpret_cast<index_t*>(slot_ptr(index_slot)) : nullptr;
  StoreTile store = nullptr;
  ReduceTile reduce_fn = nullptr;
  bool all_reduced = true;
  if (reduce) {
    reduce_fn = select_reduce(p.sink.op, result_dtype, wide);
    for (int k = 0; k < g.ndim; ++k)
      all_reduced = all_reduced && sink_map.coef[k] == 0;
  } else {
    store =
        visit_dtype(result_dtype, [](auto tag) -> StoreTile { return &store_tile<decltype(tag)>; });
  }

  // A contiguous store of a block larger than the caches goes out with non-temporal stores
  // (stream_copy), from the tile buffer where it is computed: ordinary stores would first read
  // every output line from memory. On machine A a copy of 2 x 128 MiB blocks (a.persist()) went
  // from 0.6 to 0.8 of memcpy's rate this way.
  const bool stream_output =
      !reduce && wide != nullptr && sink_map.coef[g.ndim - 1] == 1 &&
      size * static_cast<index_t>(dtype_size(result_dtype)) >= stream_from_bytes;
  // Else a contiguous store of an instruction's result: a tile that is one run is computed
  // straight into the output instead of its tile buffer.
  InstrStep* direct = !stream_output && !reduce && result >= nl && sink_map.coef[g.ndim - 1] == 1 &&
                              !instr_steps.empty() && instr_steps.back().value == result
                          ? &instr_steps.back()
                          : nullptr;
  void* const result_slot = direct ? direct->out : nullptr;
  const std::size_t result_size = dtype_size(result_dtype);
  // A streamed store whose result is a float64 add/sub/mul/div or fused pair: where a tile is one
  // run, that loop writes the output itself with non-temporal stores, so that loads, arithmetic
  // and stores overlap in one pass (on machine A the result pass of a standardize, (x - m) / s
  // over 8192 x 4096, went from two passes of 22.7 ms to one of 15.7 ms in a standalone loop).
  const InstrKernel stream_result =
      stream_output && result >= nl && !instr_steps.empty() && instr_steps.back().value == result
          ? instr_steps.back().stream
          : nullptr;

  // var/std folding whole rows into consecutive entries: the entries the program touches are
  // kept as columns while it runs (see MomentColumns).
  MomentRow moment_rows = nullptr;
  index_t moment_lo = 0, moment_span = 0;
  thread_local std::vector<double> moment_scratch;
  MomentColumns columns{};
  bool uniform_counts = false;
  double uniform_count = 0;
  if (reduce && !all_reduced && sink_map.coef[g.ndim - 1] == 1 &&
      (p.sink.op == plan::ReduceOp::var || p.sink.op == plan::ReduceOp::std)) {
    moment_rows =
        visit_dtype(result_dtype, [](auto tag) -> MomentRow { return &moment_row<decltype(tag)>; });
    index_t hi = sink_map.base;
    moment_lo = sink_map.base;
    for (int k = 0; k < g.ndim; ++k) {
      const index_t reach = sink_map.coef[k] * (g.extent[k] - 1);
      (reach < 0 ? moment_lo : hi) += reach;
    }
    moment_span = hi - moment_lo + 1;
  }
  // Kept-axis sums and means of float64 rows into consecutive entries, with the wide loops.
  auto* const sum_row =
      wide && reduce && !all_reduced && sink_map.coef[g.ndim - 1] == 1 &&
              result_dtype == DType::float64 &&
              (p.sink.op == plan::ReduceOp::sum || p.sink.op == plan::ReduceOp::mean)
          ? wide->sum_row_f64
          : nullptr;
  // A float64 add, sub, mul or div giving the result of such a sum folds straight into its rows.
  detail::InterpreterKernels::SumBinaryRow sum_binary_row = nullptr;
  int sum_operands[2] = {0, 0};
  if (sum_row && result >= nl && !instr_steps.empty() && instr_steps.back().value == result) {
    const Instr& last = p.instrs[static_cast<std::size_t>(result - nl)];
    const int a = arithmetic_index(last.op);
    if (a >= 0 && p.value_dtype(last.args[0]) == DType::float64 &&
        p.value_dtype(last.args[1]) == DType::float64) {
      sum_binary_row = wide->sum_binary_row_f64[a];
      sum_operands[0] = last.args[0];
      sum_operands[1] = last.args[1];
      instr_steps.pop_back();
    }
  }
  auto* const wide_moments =
      wide && result_dtype == DType::float64 ? wide->moments_row_f64 : nullptr;
  // Entries far apart would make the columns larger than the work: fold in place then.
  if (moment_rows && moment_span > size)
    moment_rows = nullptr;
  if (moment_rows) {
    // Columns a multiple of 4 KiB apart would make every store to one look like a dependency of
    // the loads from the next (4K aliasing): shift each by 136 bytes more.
    const index_t pitch = moment_span + 17;
    moment_scratch.resize(static_cast<std::size_t>(3 * pitch));
    uniform_counts = wide_moments != nullptr && moment_span > 0;
    columns = {moment_scratch.data(), moment_scratch.data() + pitch,
               moment_scratch.data() + 2 * pitch};
    const PartialWord* e = partials + moment_lo * 3;
    for (index_t k = 0; k < moment_span; ++k) {
      columns.count[k] = e[3 * k].f;
      columns.mean[k] = e[3 * k + 1].f;
      columns.m2[k] = e[3 * k + 2].f;
      uniform_counts = uniform_counts && columns.count[k] == columns.count[0];
    }
    uniform_count = columns.count[0];
  }
  // While the rows fold into the entries in order (each row, or its consecutive runs, covering
  // all of them, as when whole rows of a block fold into one row of entries), the counts are
  // uniform_count + 1 before `frontier` and uniform_count from there: the wide loop then neither
  // reads nor writes the count column, which is written once, at the end or when a run breaks
  // the order.
  index_t frontier = 0;
  auto spread_count = [&] {
    if (!uniform_counts)
      return;
    std::fill(columns.count, columns.count + frontier, uniform_count + 1.0);
    std::fill(columns.count + frontier, columns.count + moment_span, uniform_count);
    uniform_counts = false;
  };

  // Values j .. j+len-1 of a run fold into entries at .. at+len-1, each with its own count.
  auto fold_counted = [&](const void* values, index_t j, index_t len, index_t at) {
    if (wide_moments && len > 0) {
      const index_t done = wide_moments(static_cast<const double*>(values) + j, len, 0.0,
                                        columns.count + at, columns.mean + at, columns.m2 + at);
      j += done;
      at += done;
      len -= done;
    }
    if (len > 0)
      moment_rows(static_cast<const std::byte*>(values) + static_cast<std::size_t>(j) * result_size,
                  len, {columns.count + at, columns.mean + at, columns.m2 + at});
  };

  // Sums, means, maxima, minima, vars and stds over every axis but the last of a float64 block
  // read in place (x.mean(Axes{0}), the moments pass of a standardize): rows fold into the
  // entries rows_at_once at a time, each entry's state kept in registers across them instead of
  // stored and reloaded per row; every entry takes its rows in order with the same operations,
  // so the bits are the same. On machine A, 8192 x 4096: x.std(Axes{0}) 28-34 ms -> 16-21 ms.
  // The tile loop below takes the rows left over.
  index_t first_position = 0;
  const int last = g.ndim - 1;
  const bool moments_at_once = moment_rows && uniform_counts && moment_span == g.extent[last];
  const bool sums_at_once = sum_row != nullptr && sum_binary_row == nullptr;
  auto* const extreme_rows =
      wide && reduce && result_dtype == DType::float64 &&
              (p.sink.op == plan::ReduceOp::min || p.sink.op == plan::ReduceOp::max)
          ? wide->extreme_rows_f64[p.sink.op == plan::ReduceOp::max]
          : nullptr;
  bool rows_fold_into_entries = (moments_at_once || sums_at_once || extreme_rows) && wide &&
                                result < nl && sink_map.coef[last] == 1;
  for (int k = 0; k < last; ++k)
    rows_fold_into_entries = rows_fold_into_entries && sink_map.coef[k] == 0;
  const auto direct_leaf = std::find_if(leaf_steps.begin(), leaf_steps.end(),
                                        [&](const LeafStep& s) { return s.value == result; });
  if (rows_fold_into_entries && direct_leaf != leaf_steps.end() && direct_leaf->in_place) {
    constexpr int R = detail::rows_at_once;
    const index_t row_length = g.extent[last];
    const index_t rows = size / row_length;
    const auto* input = static_cast<const double*>(direct_leaf->input);
    index_t row = 0;
    for (; row + R <= rows && (sums_at_once || extreme_rows || uniform_counts); row += R) {
      const double* at_rows[R];
      if (g.ndim == 2) {
        // Rows of a matrix are a stride apart: no index arithmetic per row (ten divisions for
        // every eight rows of ten values were a fifth of x.std(Axes{0}) over ten columns).
        const double* first_row = input + direct_leaf->map->base + direct_leaf->map->coef[0] * row;
        for (int r = 0; r < R; ++r)
          at_rows[r] = first_row + direct_leaf->map->coef[0] * r;
      } else {
        for (int r = 0; r < R; ++r) {
          index_t idx[plan::max_ndim] = {};
          for (index_t rest = row + r, k = last; k-- > 0;) {
            idx[k] = rest % g.extent[k];
            rest /= g.extent[k];
          }
          at_rows[r] = input + direct_leaf->map->at(idx, g.ndim);
        }
      }
      if (sums_at_once) {
        wide->sum_rows_f64(at_rows, row_length, &partials[sink_map.base].f);
        continue;
      }
      if (extreme_rows) {
        extreme_rows(at_rows, row_length, &partials[sink_map.base].f);
        continue;
      }
      const index_t done =
          wide->moments_rows_f64(at_rows, row_length, uniform_count, columns.mean, columns.m2);
      if (done == row_length) {
        uniform_count += R;
        continue;
      }
      // A block with a value or state that is not finite: the entries before it took all R
      // rows; the rows fold into the others one at a time, each entry with its own count.
      std::fill(columns.count, columns.count + done, uniform_count + R);
      std::fill(columns.count + done, columns.count + moment_span, uniform_count);
      uniform_counts = false;
      for (int r = 0; r < R; ++r)
        fold_counted(at_rows[r], done, row_length - done, done);
    }
    first_position = row * row_length;
  }

  // A store whose result is a stored leaf (a slice, a rechunk, a persist) copies each run from
  // the input to the output, rather than into the tile buffer and from there to the output.
  const LeafStep* const copied = !reduce && sink_map.coef[last] == 1 &&
                                         direct_leaf != leaf_steps.end() &&
                                         direct_leaf->leaf->kind == LeafKind::stored
                                     ? &*direct_leaf
                                     : nullptr;

  thread_local TileRuns runs;
  for (index_t t0 = first_position; t0 < size; t0 += tile) {
    const index_t n = std::min(tile, size - t0);
    runs.cut(g, t0, n);
    if (copied) {
      auto* const out = static_cast<std::byte*>(output);
      const auto* const in = static_cast<const std::byte*>(copied->input);
      runs.each_pair(*copied->map, sink_map,
                     [&](index_t from, index_t step, index_t to, index_t len) {
                       if (stream_output && step == 1)
                         wide->stream_copy(out + static_cast<std::size_t>(to) * result_size,
                                           in + static_cast<std::size_t>(from) * result_size,
                                           static_cast<std::size_t>(len) * result_size);
                       else
                         copied->fill(*copied->leaf, in, from, step, len,
                                      out + static_cast<std::size_t>(to) * result_size);
                     });
      continue;
    }
    for (const LeafStep& s : leaf_steps) {
      if (s.dense || (s.in_place && runs.single())) {
        where[s.value] = static_cast<const std::byte*>(s.input) +
                         static_cast<std::size_t>(runs.first_offset(*s.map)) * s.elem_size;
        continue;
      }
      where[s.value] = s.out;
      runs.each(*s.map, [&](index_t j, index_t offset, index_t step, index_t len) {
        s.fill(*s.leaf, s.input, offset, step, len,
               s.out + static_cast<std::size_t>(j) * s.elem_size);
      });
    }
    const bool to_output = direct && runs.single();
    if (direct)
      direct->out = to_output
                        ? static_cast<std::byte*>(output) +
                              static_cast<std::size_t>(runs.first_offset(sink_map)) * result_size
                        : result_slot;
    const bool stream_to_output = stream_result && runs.single();
    for (const InstrStep& s : instr_steps) {
      const void* args[3] = {where[s.args[0]], where[s.args[1]], where[s.args[2]]};
      if (stream_to_output && &s == &instr_steps.back())
        stream_result(args,
                      static_cast<std::byte*>(output) +
                          static_cast<std::size_t>(runs.first_offset(sink_map)) * result_size,
                      n);
      else
        s.kernel(args, s.out, n);
    }
    if (to_output || stream_to_output)
      continue;
    const void* values = where[result];
    if (reduce) {
      if (index) {
        runs.each(index_map, [&](index_t j, index_t offset, index_t step, index_t len) {
          for (index_t k = 0; k < len; ++k)
            index[j + k] = offset + k * step;
        });
      }
      if (moment_rows) {
        runs.each(sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
          index_t at = offset - moment_lo;
          if (uniform_counts && at == frontier && len > 0 && at + len <= moment_span) {
            const index_t done =
                wide_moments(static_cast<const double*>(values) + j, len, uniform_count, nullptr,
                             columns.mean + at, columns.m2 + at);
            frontier += done;
            if (frontier == moment_span) {
              uniform_count += 1.0;
              frontier = 0;
            }
            if (done == len)
              return;
            // The rest goes element by element: give each entry its own count again.
            spread_count();
            j += done;
            at += done;
            len -= done;
          } else {
            spread_count();
          }
          fold_counted(values, j, len, at);
        });
      } else if (sum_binary_row) {
        const auto* a = static_cast<const double*>(where[sum_operands[0]]);
        const auto* b = static_cast<const double*>(where[sum_operands[1]]);
        runs.each(sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
          sum_binary_row(a + j, b + j, len, &partials[offset].f);
        });
      } else if (sum_row) {
        runs.each(sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
          sum_row(static_cast<const double*>(values) + j, len, &partials[offset].f);
        });
      } else {
        reduce_fn(runs, sink_map, all_reduced, n, values, index, partials);
      }
    } else if (stream_output) {
      auto* const out = static_cast<std::byte*>(output);
      const auto* const in = static_cast<const std::byte*>(values);
      runs.each(sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
        wide->stream_copy(out + static_cast<std::size_t>(offset) * result_size,
                          in + static_cast<std::size_t>(j) * result_size,
                          static_cast<std::size_t>(len) * result_size);
      });
    } else {
      store(runs, sink_map, values, output);
    }
  }
  if (moment_rows) {
    spread_count();
    PartialWord* e = partials + moment_lo * 3;
    for (index_t k = 0; k < moment_span; ++k) {
      e[3 * k].f = columns.count[k];
      e[3 * k + 1].f = columns.mean[k];
      e[3 * k + 2].f = columns.m2[k];
    }
  }
}

} // namespace chunked::cpu
