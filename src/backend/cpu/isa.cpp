// SPDX-License-Identifier: Apache-2.0
// The instruction-set dispatcher (see isa.hpp): the one place that reads CHUNKED_SIMD and asks
// the CPU what it supports.
#include "backend/cpu/isa.hpp"

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/simd_random.hpp"

#include <cstdlib>
#include <cstring>

namespace chunked::cpu {

namespace isa {

namespace {

bool cpu_has(SimdIsa set) noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  switch (set) {
  case SimdIsa::avx512:
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  case SimdIsa::avx2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  default:
    return true;
  }
#else
  return set == SimdIsa::scalar;
#endif
}

} // namespace

const detail::InterpreterKernels* interpreter_kernels(SimdIsa set) noexcept {
  switch (set) {
  case SimdIsa::avx512:
    return isa_avx512::interpreter_kernels();
  case SimdIsa::avx2:
    return isa_avx2::interpreter_kernels();
  default:
    return nullptr;
  }
}

const simd::RandomKernelTable* random_kernels(SimdIsa set) noexcept {
  switch (set) {
  case SimdIsa::avx512:
    return isa_avx512::random_kernels();
  case SimdIsa::avx2:
    return isa_avx2::random_kernels();
  default:
    return nullptr;
  }
}

bool supported(SimdIsa set) noexcept {
  return set == SimdIsa::scalar ||
         (interpreter_kernels(set) != nullptr && random_kernels(set) != nullptr && cpu_has(set));
}

SimdIsa chosen() noexcept {
  static const SimdIsa set = [] {
    if (const char* name = std::getenv("CHUNKED_SIMD"))
      for (SimdIsa s : {SimdIsa::scalar, SimdIsa::avx2, SimdIsa::avx512})
        if (std::strcmp(name, simd_isa_name(s)) == 0 && supported(s))
          return s;
    for (SimdIsa s : {SimdIsa::avx512, SimdIsa::avx2})
      if (supported(s))
        return s;
    return SimdIsa::scalar;
  }();
  return set;
}

} // namespace isa

namespace detail {

const InterpreterKernels* interpreter_kernels() noexcept {
  static const InterpreterKernels* const chosen = isa::interpreter_kernels(isa::chosen());
  return chosen;
}

} // namespace detail

} // namespace chunked::cpu
