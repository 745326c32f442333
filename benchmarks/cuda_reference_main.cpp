// SPDX-License-Identifier: Apache-2.0
// The host half of the CUDA reference benchmark (see cuda_reference_kernel.cu): the host compiler
// builds this part, nvcc the kernel, so the public API's headers never go through nvcc.
#include "cuda_reference_kernel.cu"
