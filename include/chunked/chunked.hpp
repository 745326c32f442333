// SPDX-License-Identifier: Apache-2.0
// The umbrella header: everything a program needs. Never includes a CUDA header.
//
// Under a CUDA compiler (a user's .cu file) it leaves out the fmt formatters, so that such a file
// compiles whatever fmt the system has: include <chunked/format.hpp> there to format chunked's
// types with fmt.
#pragma once

#include <chunked/array.hpp>
#include <chunked/core/backend_tags.hpp>
#include <chunked/core/error.hpp>
#include <chunked/core/ndarray.hpp>
#include <chunked/core/version.hpp>
#include <chunked/creation.hpp>
#include <chunked/elementwise_function.hpp>
#if !defined(__CUDACC__)
#include <chunked/format.hpp>
#endif
#include <chunked/generator.hpp>
#include <chunked/linalg.hpp>
#include <chunked/math.hpp>
#include <chunked/ops.hpp>
#include <chunked/reductions.hpp>
#include <chunked/reshape.hpp>
#include <chunked/runtime/compute_options.hpp>
#include <chunked/runtime/diagnostics.hpp>
#include <chunked/runtime/job.hpp>
#include <chunked/runtime/log.hpp>
#include <chunked/runtime/memory_resource.hpp>
#include <chunked/runtime/progress.hpp>
#include <chunked/scans.hpp>
#include <chunked/shape_ops.hpp>
#include <chunked/storage.hpp>
#include <chunked/user_code.hpp>
#include <chunked/views.hpp>
