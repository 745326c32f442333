// SPDX-License-Identifier: Apache-2.0
// What the nvcc-compiled GPU tests share: skipping where no device is visible, and checking the
// CUDA calls a test makes as the host code it plays.
#pragma once

#include <chunked/chunked.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

/// Skips the test where no usable CUDA device is visible (CI machines have none).
#define SKIP_WITHOUT_DEVICE()                                                                      \
  do {                                                                                             \
    if (!chunked::cuda_available())                                                                \
      GTEST_SKIP() << "no usable CUDA device is visible";                                          \
  } while (false)

/// Fails the test (and returns from it) when a CUDA call of the test's own does not succeed.
#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call
