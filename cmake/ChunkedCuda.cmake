# SPDX-License-Identifier: Apache-2.0
# Decides whether the CUDA backend is built (CHUNKED_ENABLE_CUDA = AUTO | ON | OFF) and finds the
# toolkit. Sets CHUNKED_HAS_CUDA (0 or 1), CHUNKED_CUDA_INCLUDE_DIR and CHUNKED_CUDA_CCCL_INCLUDE_DIR.
#
# Included from the top-level CMakeLists.txt at file scope, because enable_language() must not run
# inside a function.

include(CheckLanguage)

string(TOUPPER "${CHUNKED_ENABLE_CUDA}" _chunked_cuda_request)
if(_chunked_cuda_request MATCHES "^(ON|YES|TRUE|Y|1)$")
  set(_chunked_cuda_request ON)
elseif(_chunked_cuda_request MATCHES "^(OFF|NO|FALSE|N|0)$")
  set(_chunked_cuda_request OFF)
elseif(NOT _chunked_cuda_request STREQUAL "AUTO")
  message(FATAL_ERROR "CHUNKED_ENABLE_CUDA is '${CHUNKED_ENABLE_CUDA}'; expected AUTO, ON or OFF")
endif()

set(CHUNKED_HAS_CUDA 0)
set(CHUNKED_CUDA_INCLUDE_DIR "")
set(CHUNKED_CUDA_CCCL_INCLUDE_DIR "")
set(_chunked_cuda_missing "")

if(NOT _chunked_cuda_request STREQUAL "OFF")
  # Toolkits installed by NVIDIA's packages are often not on PATH; look in the standard place
  # before deciding there is no compiler.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    # Only PATH: CMake's default prefixes may hold wrapper scripts that its compiler detection,
    # which follows PATH, would not see anyway.
    find_program(_chunked_nvcc_on_path nvcc PATHS ENV PATH NO_DEFAULT_PATH NO_CACHE)
    if(NOT _chunked_nvcc_on_path AND EXISTS /usr/local/cuda/bin/nvcc)
      set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
    endif()
  endif()

  # `native` would fail on machines without a GPU (CI, build hosts), so default to Hopper.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures chunked is compiled for")
  endif()

  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    # CMake before 3.26 does not know that nvcc 12+ speaks C++20, and would refuse CUDA_STANDARD 20.
    if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12
       AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    find_package(CUDAToolkit)
    if(NOT CUDAToolkit_FOUND)
      set(_chunked_cuda_missing "the CUDA toolkit libraries were not found")
    elseif(NOT TARGET CUDA::cudart OR NOT TARGET CUDA::nvrtc)
      set(_chunked_cuda_missing "the CUDA toolkit has no cudart or NVRTC library")
    else()
      set(CHUNKED_HAS_CUDA 1)
    endif()
  else()
    set(_chunked_cuda_missing "no CUDA compiler (nvcc) was found")
  endif()

  if(NOT CHUNKED_HAS_CUDA)
    if(_chunked_cuda_request STREQUAL "ON")
      message(FATAL_ERROR "CHUNKED_ENABLE_CUDA=ON but ${_chunked_cuda_missing}")
    endif()
    message(STATUS "chunked: CUDA backend not built: ${_chunked_cuda_missing}")
  endif()
endif()

if(CHUNKED_HAS_CUDA)
  # NVRTC compiles our generated kernels at run time and needs the toolkit's headers (cuRAND,
  # and CUB from CCCL, which CUDA 13 moved under include/cccl), so their paths are baked in.
  find_path(_chunked_curand_dir curand_kernel.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_CACHE
            NO_DEFAULT_PATH)
  if(_chunked_curand_dir)
    set(CHUNKED_CUDA_INCLUDE_DIR "${_chunked_curand_dir}")
  else()
    list(GET CUDAToolkit_INCLUDE_DIRS 0 CHUNKED_CUDA_INCLUDE_DIR)
  endif()
  find_path(_chunked_cub_dir cub/cub.cuh
            HINTS "${CHUNKED_CUDA_INCLUDE_DIR}/cccl" ${CUDAToolkit_INCLUDE_DIRS} NO_CACHE
            NO_DEFAULT_PATH)
  if(_chunked_cub_dir)
    set(CHUNKED_CUDA_CCCL_INCLUDE_DIR "${_chunked_cub_dir}")
  endif()
  # find_path may leave a trailing separator; the paths end up in a header, so keep them tidy.
  string(REGEX REPLACE "(.)/+$" "\\1" CHUNKED_CUDA_INCLUDE_DIR "${CHUNKED_CUDA_INCLUDE_DIR}")
  string(REGEX REPLACE "(.)/+$" "\\1" CHUNKED_CUDA_CCCL_INCLUDE_DIR "${CHUNKED_CUDA_CCCL_INCLUDE_DIR}")
  message(STATUS "chunked: CUDA backend built with CUDA ${CUDAToolkit_VERSION} "
                 "for architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()
