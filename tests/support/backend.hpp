// SPDX-License-Identifier: Apache-2.0
// The backend a typed suite runs on, and fixtures that skip where that backend cannot run here.
#pragma once

#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#ifndef CHUNKED_TEST_BACKEND
#error                                                                                             \
    "define CHUNKED_TEST_BACKEND (chunked::Cpu, chunked::Cuda or chunked::Auto) before including a suite"
#endif

namespace chunked::test {

/// The backend this translation unit's suites run on.
using Backend = CHUNKED_TEST_BACKEND;

inline constexpr bool backend_is_cuda = std::is_same_v<Backend, Cuda>;

/// True when computations of `Backend` run on a GPU here (Cuda, or Auto with a device).
inline bool runs_on_gpu() {
  if constexpr (std::is_same_v<Backend, Cpu>)
    return false;
  else
    return cuda_available();
}

/// Why tests of `Backend` cannot run here, or an empty string when they can. Only Cuda can be
/// unusable: Cpu always runs, and Auto falls back to the CPU.
inline std::string backend_skip_reason() {
  if constexpr (backend_is_cuda) {
    if (!cuda_available())
      return "Cuda backend: no usable CUDA device is visible on this machine";
  }
  return {};
}

/// Skips the current test (from SetUp or a test body) when the backend cannot run here.
#define CHUNKED_SKIP_IF_BACKEND_UNUSABLE()                                                         \
  do {                                                                                             \
    if (const std::string reason = ::chunked::test::backend_skip_reason(); !reason.empty())        \
      GTEST_SKIP() << reason;                                                                      \
  } while (false)

/// Base fixture of every suite test: skips it, with the reason, where the backend cannot run.
class BackendTest : public ::testing::Test {
protected:
  void SetUp() override { CHUNKED_SKIP_IF_BACKEND_UNUSABLE(); }
};

/// The same for typed tests over element types.
template <class T> class TypedBackendTest : public BackendTest {};

} // namespace chunked::test
