// SPDX-License-Identifier: Apache-2.0
// Transition name of chunked/ops/scalar.hpp, where the per-element semantics now live.
#pragma once

// Compiled by the host compiler, by nvcc and by NVRTC, like the header it names.
#include "chunked/ops/scalar.hpp"
