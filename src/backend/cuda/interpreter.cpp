// SPDX-License-Identifier: Apache-2.0
// A block program as the interpreter's code, and the driver's handles of its kernels.
#include "backend/cuda/interpreter.hpp"

#include "backend/cuda/runtime.hpp"
#include <chunked/core/error.hpp>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace chunked::cuda {

namespace {

/// Moves the axes of `m` from the first `nd` places to the last ones, zeroing the first `pad`.
void pad_map(kernel::Map& m, int nd, int pad) {
  for (int d = nd - 1; d >= 0; --d)
    m.coef[d + pad] = m.coef[d];
  for (int d = 0; d < pad; ++d)
    m.coef[d] = 0;
}

} // namespace

bool interpretable(const plan::BlockProgram& p) {
  if (p.ndim < 0 || p.ndim > kernel::args_max_ndim || p.leaves.empty() ||
      p.num_values() > kernel::interp_max_values)
    return false;
  for (const auto& in : p.instrs)
    if (in.call >= 0)
      return false;
  return true;
}

kernel::InterpArgs interp_args(const plan::BlockProgram& p, const kernel::ProgramArgs& args) {
  kernel::InterpArgs a{};
  static_cast<kernel::ProgramArgs&>(a) = args;
  const int nd = p.ndim;
  const int slot = kernel::interp_rank_slot(nd < 1 ? 1 : nd);
  if (slot < 0)
    throw ValueError(
        fmt::format("cuda interpreter: a program of rank {}; its kernels take at most {}", nd,
                    kernel::args_max_ndim));
  const int rank = kernel::interp_ranks[slot];
  const int pad = rank - nd;
  for (int d = nd - 1; d >= 0; --d)
    a.extent[d + pad] = a.extent[d];
  for (int d = 0; d < pad; ++d)
    a.extent[d] = 1;
  pad_map(a.sink, nd, pad);
  pad_map(a.index, nd, pad);
  for (std::size_t l = 0; l < p.leaves.size(); ++l)
    pad_map(a.leaf[l].map, nd, pad);
  kernel::InterpCode& c = a.code;
  c.reduced = p.sink.kind == plan::Sink::Kind::reduce ? p.sink.reduced_axes << pad : 0u;
  c.leaves = static_cast<unsigned char>(p.leaves.size());
  c.values = static_cast<unsigned char>(p.num_values());
  for (std::size_t l = 0; l < p.leaves.size(); ++l)
    c.v[l] = {static_cast<unsigned char>(p.leaves[l].kind),
              static_cast<unsigned char>(p.leaves[l].dtype),
              0,
              {0, 0, 0}};
  for (std::size_t j = 0; j < p.instrs.size(); ++j) {
    const plan::Instr& in = p.instrs[j];
    const int arity = in.arity();
    kernel::InterpValue& v = c.v[p.leaves.size() + j];
    v.op = static_cast<unsigned char>(in.op);
    v.dtype = static_cast<unsigned char>(in.dtype);
    v.operand = static_cast<unsigned char>(p.value_dtype(in.args[arity == 3 ? 1 : 0]));
    for (int k = 0; k < 3; ++k)
      v.args[k] = static_cast<unsigned char>(k < arity ? in.args[k] : 0);
  }
  return a;
}

CUfunction interp_function(int device, const void* symbol) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, CUfunction> functions;
  const std::lock_guard lock(mutex);
  auto [it, added] = functions.try_emplace({device, symbol}, nullptr);
  if (added) {
    const DeviceGuard guard(device);
    cudaFunction_t f = nullptr;
    const cudaError_t status = cudaGetFuncBySymbol(&f, symbol);
    if (status != cudaSuccess) {
      functions.erase(it);
      (void)cudaGetLastError(); // not sticky: later launches must not see it
    }
    check(status, "cudaGetFuncBySymbol", device, "(an interpreter kernel)");
    it->second = reinterpret_cast<CUfunction>(f);
  }
  return it->second;
}

bool interpreter_available(int device) {
  static std::mutex mutex;
  static std::map<int, bool> available;
  const std::lock_guard lock(mutex);
  auto [it, added] = available.try_emplace(device, false);
  if (added) {
    try {
      it->second = interp_function(device, interp_store_kernel(1, DType::float64)) != nullptr;
    } catch (const Error&) {
      it->second = false;
    }
  }
  return it->second;
}

namespace {

/// Loads every interpreter kernel on each device on its own thread, which stops at exit after the
/// kernel it is loading.
class Preload {
public:
  explicit Preload(std::vector<int> devices)
      : thread_([this, devices = std::move(devices)] { run(devices); }) {}
  void stop() {
    stop_.store(true);
    if (thread_.joinable())
      thread_.join();
  }

private:
  void run(const std::vector<int>& devices) {
    for (const int nd : kernel::interp_ranks)
      for (const void* symbol : interp_kernels_of_rank(nd))
        for (const int device : devices) {
          if (stop_.load(std::memory_order_relaxed))
            return;
          // Not through interp_function: its lock would hold up launches while a kernel loads.
          const DeviceGuard guard(device);
          cudaFunction_t f = nullptr;
          if (cudaGetFuncBySymbol(&f, symbol) != cudaSuccess)
            (void)cudaGetLastError(); // launches report it, with the program
        }
  }

  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Preload* preload = nullptr; // never destroyed: stopped at exit

} // namespace

void preload_interpreter(const std::vector<int>& devices) {
  static std::once_flag started;
  if (devices.empty() || !interpreter_available(devices.front()))
    return;
  std::call_once(started, [&] {
    preload = new Preload(devices);
    // Registered after CUDA's start (the devices exist), so it runs before CUDA's own exit.
    (void)std::atexit([] { preload->stop(); });
  });
}

} // namespace chunked::cuda
