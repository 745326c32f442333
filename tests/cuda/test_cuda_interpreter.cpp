// SPDX-License-Identifier: Apache-2.0
// The interpreter tier (backend/cuda/interpreter.hpp) gives the generated kernels' bits: every
// operation on every dtype, every cast, every leaf kind and every reduction over every kernel
// shape, each program run once by its generated kernels and once by the interpreter on one GPU.
#include "backend/cuda/background_compiles.hpp"
#include "backend/cuda/compiler.hpp"
#include "backend/cuda/interpreter.hpp"
#include "backend/cuda/jit.hpp"
#include "backend/cuda/launch_program.hpp"
#include "plan/op_types.hpp"
#include "plan/partial.hpp"
#include "runtime/parallel_for.hpp"
#include "support/cuda_test.hpp"
#include "support/program_builders.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace {

using namespace chunked;
using cuda::KernelTier;
using plan::OpCode;

constexpr DType all_dtypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                                DType::float64};

/// C-order strides of `extent` over its first `nd` axes.
std::array<index_t, plan::max_ndim> strides(const plan::BlockProgram& p) {
  std::array<index_t, plan::max_ndim> s{};
  index_t step = 1;
  for (int d = p.ndim - 1; d >= 0; --d) {
    s[static_cast<std::size_t>(d)] = step;
    step *= p.extent[static_cast<std::size_t>(d)];
  }
  return s;
}

using test::stored_leaf;

/// A program over a box of `extent` whose leaves read it in C order; stored, or reduced by `op`
/// over the axes of `reduced` (0: stored).
plan::BlockProgram program(std::vector<index_t> extent, std::vector<plan::Leaf> leaves,
                           std::vector<plan::Instr> instrs, unsigned reduced = 0,
                           plan::ReduceOp op = plan::ReduceOp::sum) {
  plan::BlockProgram p;
  p.ndim = static_cast<int>(extent.size());
  for (std::size_t d = 0; d < extent.size(); ++d)
    p.extent[d] = extent[d];
  const auto c = strides(p);
  p.leaves = std::move(leaves);
  for (auto& leaf : p.leaves)
    for (int d = 0; d < p.ndim; ++d)
      leaf.map.coef[static_cast<std::size_t>(d)] = c[static_cast<std::size_t>(d)];
  p.instrs = std::move(instrs);
  if (reduced == 0) {
    p.sink.kind = plan::Sink::Kind::store;
    for (int d = 0; d < p.ndim; ++d)
      p.sink.map.coef[static_cast<std::size_t>(d)] = c[static_cast<std::size_t>(d)];
    return p;
  }
  p.sink.kind = plan::Sink::Kind::reduce;
  p.sink.op = op;
  p.sink.reduced_axes = reduced;
  index_t kept = 1, along = 1;
  for (int d = p.ndim - 1; d >= 0; --d) {
    const auto k = static_cast<std::size_t>(d);
    if ((reduced >> d) & 1u) {
      p.sink.index_map.coef[k] = along;
      along *= p.extent[k];
    } else {
      p.sink.map.coef[k] = kept;
      kept *= p.extent[k];
    }
  }
  p.sink.num_partials = kept;
  return p;
}

/// Values of dtype t for input `seed`: ordinary ones with NaN, infinities, signed zeros,
/// subnormals and the integer extremes among them.
std::vector<unsigned char> input_bytes(DType t, index_t n, int seed) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(n) * dtype_size(t));
  std::uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(seed + 1);
  for (index_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const auto r = static_cast<std::int64_t>(state >> 11);
    const double special[] = {std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              -0.0,
                              0.0,
                              4.9e-324,
                              1e300,
                              -7.0};
    const bool edge = r % 17 == 0;
    const double f = edge ? special[(r >> 8) % 8] : static_cast<double>(r % 20001 - 10000) / 64.0;
    const std::int64_t k =
        edge ? std::numeric_limits<std::int64_t>::min() + (r >> 8) % 3 : r % 2001 - 1000;
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      T v;
      if constexpr (std::is_same_v<T, bool>)
        v = (r & 1) != 0;
      else if constexpr (std::is_floating_point_v<T>)
        v = static_cast<T>(f);
      else
        v = static_cast<T>(k == 0 ? 3 : k); // nonzero divisors stay likely
      std::memcpy(bytes.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
    });
  }
  return bytes;
}

struct DeviceMemory {
  void* p = nullptr;
  explicit DeviceMemory(std::size_t bytes) {
    if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess)
      throw std::bad_alloc();
  }
  ~DeviceMemory() { cudaFree(p); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
};

/// Elements a leaf or sink map reaches over the box, for buffers of the right size.
index_t span_of(const plan::BlockProgram& p, const plan::AffineMap& m) {
  index_t last = m.base;
  for (int d = 0; d < p.ndim; ++d)
    last += m.coef[static_cast<std::size_t>(d)] * (p.extent[static_cast<std::size_t>(d)] - 1);
  return last + 1;
}

/// The output bytes of `p` run on device 0 by the kernels of `tier`.
std::vector<unsigned char> run(const plan::BlockProgram& p, KernelTier tier) {
  cuda::set_kernel_tier(tier);
  std::vector<std::unique_ptr<DeviceMemory>> memory;
  std::vector<const void*> inputs;
  for (std::size_t l = 0; l < p.leaves.size(); ++l) {
    const plan::Leaf& leaf = p.leaves[l];
    if (leaf.kind != plan::LeafKind::stored)
      continue;
    const auto bytes = input_bytes(leaf.dtype, span_of(p, leaf.map), static_cast<int>(l));
    memory.push_back(std::make_unique<DeviceMemory>(bytes.size()));
    EXPECT_EQ(cudaMemcpy(memory.back()->p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
    inputs.resize(std::max<std::size_t>(inputs.size(), static_cast<std::size_t>(leaf.input) + 1));
    inputs[static_cast<std::size_t>(leaf.input)] = memory.back()->p;
  }
  const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
  const std::size_t out_bytes =
      reduce ? static_cast<std::size_t>(p.sink.num_partials) * 8u *
                   static_cast<std::size_t>(plan::partial_layout(p.sink.op, p.result_dtype()).words)
             : static_cast<std::size_t>(span_of(p, p.sink.map)) * dtype_size(p.result_dtype());
  DeviceMemory out(out_bytes);
  EXPECT_EQ(cudaMemset(out.p, 0xa5, out_bytes), cudaSuccess);
  cuda::Stream stream(0);
  cuda::launch_program(0, stream, p, inputs, out.p, [&](std::size_t bytes) {
    memory.push_back(std::make_unique<DeviceMemory>(bytes));
    return memory.back()->p;
  });
  EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  std::vector<unsigned char> host(out_bytes);
  EXPECT_EQ(cudaMemcpy(host.data(), out.p, out_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

/// Runs each program by its generated kernels and by the interpreter and compares the bytes. The
/// generated modules compile first, on all cores (one NVRTC compile per module and thread).
void expect_same_bits(const std::vector<plan::BlockProgram>& programs) {
  runtime::parallel_for(programs.size(), runtime::hardware_threads(), [&](std::size_t i) {
    cuda::program_module(0, programs[i], cuda::kernel_set(programs[i]));
  });
  for (const plan::BlockProgram& p : programs) {
    ASSERT_TRUE(cuda::interpretable(p)) << p.describe();
    const auto compiled = run(p, KernelTier::compiled);
    const auto interpreted = run(p, KernelTier::interpreter);
    EXPECT_TRUE(compiled == interpreted) << p.describe();
  }
  cuda::set_kernel_tier(KernelTier::tiered);
}

class CudaInterpreter : public ::testing::Test {
protected:
  void SetUp() override { SKIP_WITHOUT_DEVICE(); }
  void TearDown() override { cuda::set_kernel_tier(KernelTier::tiered); }
};

TEST_F(CudaInterpreter, EveryOpOnEveryAcceptedDtype) {
  std::vector<plan::BlockProgram> programs;
  for (int code = 0; code < ops::num_opcodes; ++code) {
    const auto op = static_cast<OpCode>(code);
    if (op == OpCode::cast)
      continue;
    for (DType t : all_dtypes) {
      if (!plan::op_accepts(op, t))
        continue;
      test::SingleOp one = test::single_op(op, t);
      programs.push_back(program({37, 45}, std::move(one.leaves), {one.instr}));
    }
  }
  EXPECT_GT(programs.size(), 100u);
  expect_same_bits(programs);
}

TEST_F(CudaInterpreter, EveryCastAndAChainOfInstructions) {
  std::vector<plan::BlockProgram> programs;
  for (DType from : all_dtypes)
    for (DType to : all_dtypes) {
      plan::Instr ins;
      ins.op = OpCode::cast;
      ins.dtype = to;
      ins.args = {0, -1, -1};
      programs.push_back(program({1000}, {stored_leaf(from, 0)}, {ins}));
    }
  // (a * b + c) / sqrt(|a|) > 1 ? a : c, in float64 over float32 inputs, 3-D.
  std::vector<plan::Instr> chain = {
      {OpCode::cast, DType::float64, {0, -1, -1}}, {OpCode::cast, DType::float64, {1, -1, -1}},
      {OpCode::cast, DType::float64, {2, -1, -1}}, {OpCode::mul, DType::float64, {3, 4, -1}},
      {OpCode::add, DType::float64, {6, 5, -1}},   {OpCode::abs, DType::float64, {3, -1, -1}},
      {OpCode::sqrt, DType::float64, {8, -1, -1}}, {OpCode::div, DType::float64, {7, 9, -1}},
      {OpCode::gt, DType::bool_, {10, 3, -1}},     {OpCode::where, DType::float64, {11, 3, 5}}};
  programs.push_back(program({5, 7, 33},
                             {stored_leaf(DType::float32, 0), stored_leaf(DType::float32, 1),
                              stored_leaf(DType::float32, 2)},
                             chain));
  expect_same_bits(programs);
}

TEST_F(CudaInterpreter, EveryLeafKind) {
  std::vector<plan::BlockProgram> programs;
  for (DType t : all_dtypes) {
    std::vector<plan::LeafKind> kinds{plan::LeafKind::constant, plan::LeafKind::stored};
    if (t != DType::bool_)
      kinds.push_back(plan::LeafKind::arange);
    if (is_floating(t)) {
      kinds.push_back(plan::LeafKind::normal);
      kinds.push_back(plan::LeafKind::uniform);
    }
    if (is_integral(t))
      kinds.push_back(plan::LeafKind::integers);
    for (auto kind : kinds) {
      plan::Leaf leaf = stored_leaf(t, 0);
      leaf.kind = kind;
      leaf.a.f = kind == plan::LeafKind::arange ? 0.25 : -1.5;
      leaf.b.f = kind == plan::LeafKind::arange ? 0.1 : 3.0;
      leaf.a.i = -5;
      leaf.b.i = kind == plan::LeafKind::integers ? 1000 : 7;
      leaf.seed = 42;
      leaf.stream = 3;
      if (kind != plan::LeafKind::stored)
        leaf.input = -1;
      // The leaf read as it is, and doubled (a program of one leaf and one instruction).
      programs.push_back(program({19, 53}, {leaf}, {}));
      if (t != DType::bool_)
        programs.push_back(program({19, 53}, {leaf}, {{OpCode::add, t, {0, 0, -1}}}));
    }
  }
  expect_same_bits(programs);
}

/// Boxes and reduced axes that take every reduction kernel: along some axes with 32 kept
/// positions per CUDA block, with one and with segments; over every axis, by rows and by grid
/// stride; ranks 1, 3 and 5 (padded to the interpreter's ranks 2 and 8).
const std::vector<std::pair<std::vector<index_t>, unsigned>> reduction_shapes = {
    {{301, 67}, 0b01u},   {{67, 301}, 0b10u},          {{3, 70000}, 0b10u},
    {{301, 67}, 0b11u},   {{4, 100000}, 0b11u},        {{1000}, 0b1u},
    {{5, 7, 33}, 0b101u}, {{3, 2, 4, 5, 6}, 0b01010u}, {{3, 2, 4, 5, 6}, 0b11111u}};

TEST_F(CudaInterpreter, EveryReductionOverEveryKernelShape) {
  std::vector<plan::BlockProgram> programs;
  for (int code = 0; code < ops::num_reduce_ops; ++code) {
    const auto op = static_cast<plan::ReduceOp>(code);
    const bool exact = op == plan::ReduceOp::exact_sum || op == plan::ReduceOp::exact_mean;
    for (DType t : {DType::float64, DType::float32, DType::int32, DType::bool_}) {
      if (exact && !is_floating(t))
        continue; // exact sums are planned for floating values only
      if (!exact && (t == DType::float32 || t == DType::bool_) && op != plan::ReduceOp::sum &&
          op != plan::ReduceOp::any && op != plan::ReduceOp::argmax)
        continue; // the other ops' kernels are the same for these inputs; keeps compiles few
      for (const auto& [extent, reduced] : reduction_shapes)
        programs.push_back(program(extent, {stored_leaf(t, 0)}, {}, reduced, op));
    }
  }
  expect_same_bits(programs);
}

TEST_F(CudaInterpreter, TieredRunsSwitchToTheCompiledKernelOnceItIsReady) {
  // A structure no other test compiles: cos of a 4-D float32 box.
  const plan::BlockProgram p = program({2, 3, 4, 129}, {stored_leaf(DType::float32, 0)},
                                       {{OpCode::cos, DType::float32, {0, -1, -1}}});
  const auto interpreted = run(p, KernelTier::interpreter);
  const cuda::KernelSet set = cuda::kernel_set(p);
  EXPECT_EQ(cuda::find_module(0, cuda::module_key(p, set)), nullptr);
  const auto first = run(p, KernelTier::tiered); // interpreted, its compile started
  cuda::wait_for_background_compiles();
  EXPECT_NE(cuda::find_module(0, cuda::module_key(p, set)), nullptr);
  const auto second = run(p, KernelTier::tiered); // the compiled kernel
  EXPECT_TRUE(first == interpreted);
  EXPECT_TRUE(second == interpreted);
}

TEST_F(CudaInterpreter, ModulesNotInTheDiskCacheAreLeftToTheBackgroundCompiler) {
  // A structure no other test compiles: tan of a 3-D float64 box, under an empty disk cache.
  const plan::BlockProgram p = program({3, 5, 7}, {stored_leaf(DType::float64, 0)},
                                       {{OpCode::tan, DType::float64, {0, -1, -1}}});
  const cuda::KernelSet set = cuda::kernel_set(p);
  const std::string key = cuda::module_key(p, set);
  const auto source = [&] { return cuda::generate_source(p, set); };
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("chunked-cache-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const char* before = std::getenv("CHUNKED_CACHE_DIR");
  const std::string saved = before ? before : "";
  setenv("CHUNKED_CACHE_DIR", dir.c_str(), 1);
  EXPECT_EQ(cuda::find_or_load_cached(0, key, source), nullptr); // nothing compiled
  EXPECT_EQ(cuda::find_module(0, key), nullptr);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  const cuda::Module& compiled = cuda::program_module(0, p, set); // compiled, then cached
  EXPECT_FALSE(std::filesystem::is_empty(dir));
  EXPECT_EQ(cuda::find_or_load_cached(0, key, source), &compiled);
  if (before)
    setenv("CHUNKED_CACHE_DIR", saved.c_str(), 1);
  else
    unsetenv("CHUNKED_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

} // namespace

// Needs no device: the interpreter's argument block pads a program's axes to its kernels' rank,
// outermost, with extent 1 and no stride, and carries the structure.
TEST(CudaInterpreterArgs, PadsAxesAndEncodesTheProgram) {
  using namespace chunked;
  plan::BlockProgram p = program(
      {4, 5, 6, 7}, {stored_leaf(DType::float32, 0), stored_leaf(DType::int32, 1)},
      {{OpCode::cast, DType::float32, {1, -1, -1}}, {OpCode::add, DType::float32, {0, 2, -1}}},
      0b0101u, plan::ReduceOp::max);
  const void* inputs[] = {nullptr, nullptr};
  const cuda::kernel::ProgramArgs args = cuda::make_args(p, inputs, nullptr, nullptr);
  const cuda::kernel::InterpArgs a = cuda::interp_args(p, args);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(a.extent[d], 1);
    EXPECT_EQ(a.leaf[0].map.coef[d], 0);
    EXPECT_EQ(a.extent[d + 4], p.extent[static_cast<std::size_t>(d)]);
    EXPECT_EQ(a.leaf[1].map.coef[d + 4], p.leaves[1].map.coef[static_cast<std::size_t>(d)]);
    EXPECT_EQ(a.sink.coef[d + 4], p.sink.map.coef[static_cast<std::size_t>(d)]);
  }
  EXPECT_EQ(a.size, 4 * 5 * 6 * 7);
  EXPECT_EQ(a.code.reduced, 0b0101u << 4);
  EXPECT_EQ(a.code.leaves, 2);
  EXPECT_EQ(a.code.values, 4);
  EXPECT_EQ(a.code.v[1].dtype, static_cast<unsigned char>(DType::int32));
  EXPECT_EQ(a.code.v[2].op, static_cast<unsigned char>(OpCode::cast));
  EXPECT_EQ(a.code.v[2].operand, static_cast<unsigned char>(DType::int32));
  EXPECT_EQ(a.code.v[3].op, static_cast<unsigned char>(OpCode::add));
  EXPECT_EQ(a.code.v[3].args[0], 0);
  EXPECT_EQ(a.code.v[3].args[1], 2);
  // User functions exist only as source text: their programs wait for the compiler.
  p.instrs[1].call = 0;
  EXPECT_FALSE(cuda::interpretable(p));
}
