// SPDX-License-Identifier: Apache-2.0
// Backend tag types and their traits: the template parameter that picks where compute runs.
#pragma once

#include <type_traits>

namespace chunked {

/// Runs on CPU cores with the thread-pool scheduler. Always built.
struct Cpu {};
/// Runs on NVIDIA GPUs; needs a CUDA build and a visible device at compute time (else
/// BackendError).
struct Cuda {};
/// Runs on CUDA when a device is usable, else on the CPU.
struct Auto {};

/// Run-time tag of a backend, used below the API where code is not templated on it.
enum class BackendKind : unsigned char { cpu, cuda, automatic };

template <class B> struct backend_traits {
  static_assert(sizeof(B) == 0,
                "chunked: the backend must be chunked::Cpu, chunked::Cuda or chunked::Auto");
};
template <> struct backend_traits<Cpu> {
  static constexpr BackendKind kind = BackendKind::cpu;
  static constexpr const char* name = "Cpu";
};
template <> struct backend_traits<Cuda> {
  static constexpr BackendKind kind = BackendKind::cuda;
  static constexpr const char* name = "Cuda";
};
template <> struct backend_traits<Auto> {
  static constexpr BackendKind kind = BackendKind::automatic;
  static constexpr const char* name = "Auto";
};

template <class B>
inline constexpr bool is_backend_v =
    std::is_same_v<B, Cpu> || std::is_same_v<B, Cuda> || std::is_same_v<B, Auto>;

/// True when built with CUDA and at least one device is visible and usable.
bool cuda_available();

/// Blocks until the GPU kernels being compiled in the background are ready. A program's first
/// runs on a GPU go through the CUDA backend's precompiled interpreter while its fused kernel
/// compiles on a host thread, so that no computation waits for the compiler; later runs launch
/// the fused kernel once it is ready. Results are bitwise the same either way. Call this before
/// timing warm runs (benchmarks); it returns at once when nothing is compiling or without CUDA.
void wait_for_kernels();

} // namespace chunked
