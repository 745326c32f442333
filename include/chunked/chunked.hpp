// SPDX-License-Identifier: Apache-2.0
// The umbrella header: everything a program needs. Never includes a CUDA header.
#pragma once

#include <chunked/array.hpp>
#include <chunked/core/backend_tags.hpp>
#include <chunked/core/error.hpp>
#include <chunked/core/ndarray.hpp>
#include <chunked/core/version.hpp>
#include <chunked/creation.hpp>
#include <chunked/format.hpp>
#include <chunked/generator.hpp>
#include <chunked/ops.hpp>
#include <chunked/reductions.hpp>
#include <chunked/runtime/compute_options.hpp>
#include <chunked/runtime/progress.hpp>
