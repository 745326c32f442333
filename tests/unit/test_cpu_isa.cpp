// SPDX-License-Identifier: Apache-2.0
// The CPU backend's one instruction-set dispatcher (src/backend/cpu/isa.hpp): the interpreter's
// loops and the random kernels start on the same instruction set, the one CHUNKED_SIMD names when
// it is supported, else the widest supported. ctest runs these cases again with CHUNKED_SIMD set
// to avx2 and to scalar.
#include <gtest/gtest.h>

#include "backend/cpu/random_kernels.hpp"

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/isa.hpp"

#include <cstdlib>
#include <cstring>

namespace {

using chunked::cpu::SimdIsa;
namespace isa = chunked::cpu::isa;

TEST(CpuIsa, OneChoiceForTheInterpreterAndTheRandomKernels) {
  const SimdIsa chosen = isa::chosen();
  EXPECT_TRUE(isa::supported(chosen));
  EXPECT_EQ(chunked::cpu::detail::interpreter_kernels(), isa::interpreter_kernels(chosen));
  EXPECT_EQ(chosen == SimdIsa::scalar, chunked::cpu::detail::interpreter_kernels() == nullptr);
  // Tests that switch the random kernels (set_simd_isa) put them back.
  EXPECT_EQ(chunked::cpu::simd_isa(), chosen);
}

TEST(CpuIsa, TheEnvironmentChoosesASupportedSet) {
  const char* name = std::getenv("CHUNKED_SIMD");
  for (SimdIsa s : {SimdIsa::scalar, SimdIsa::avx2, SimdIsa::avx512}) {
    if (name != nullptr && std::strcmp(name, chunked::cpu::simd_isa_name(s)) == 0 &&
        isa::supported(s)) {
      EXPECT_EQ(isa::chosen(), s);
    }
  }
  if (name == nullptr) {
    // The widest supported.
    const SimdIsa widest = isa::supported(SimdIsa::avx512) ? SimdIsa::avx512
                           : isa::supported(SimdIsa::avx2) ? SimdIsa::avx2
                                                           : SimdIsa::scalar;
    EXPECT_EQ(isa::chosen(), widest);
  }
}

TEST(CpuIsa, EverySupportedSetHasBothFamilies) {
  for (SimdIsa s : {SimdIsa::avx2, SimdIsa::avx512}) {
    if (!isa::supported(s))
      continue;
    EXPECT_NE(isa::interpreter_kernels(s), nullptr) << chunked::cpu::simd_isa_name(s);
    EXPECT_NE(isa::random_kernels(s), nullptr) << chunked::cpu::simd_isa_name(s);
  }
  EXPECT_TRUE(isa::supported(SimdIsa::scalar));
  EXPECT_EQ(isa::interpreter_kernels(SimdIsa::scalar), nullptr);
}

} // namespace
