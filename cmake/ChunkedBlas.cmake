# SPDX-License-Identifier: Apache-2.0
# The CPU BLAS that multiplies blocks on the Cpu backend (matmul, dot, tensordot): OpenBLAS where
# it is found, else any BLAS with the CBLAS interface (find_package(BLAS)), else none, and the Cpu
# backend multiplies with its own (slower) loops. CHUNKED_ENABLE_BLAS=OFF skips the search. Like
# the storage codecs, the BLAS links PRIVATE by full path and no public header names it.
#
# Sets CHUNKED_HAVE_BLAS and CHUNKED_HAVE_OPENBLAS (0 or 1) for the generated config header.

set(CHUNKED_ENABLE_BLAS AUTO CACHE STRING "Multiply blocks on the CPU with a BLAS (AUTO, ON, OFF)")
set_property(CACHE CHUNKED_ENABLE_BLAS PROPERTY STRINGS AUTO ON OFF)

set(CHUNKED_HAVE_BLAS 0)
set(CHUNKED_HAVE_OPENBLAS 0)
if(NOT CHUNKED_ENABLE_BLAS STREQUAL "OFF")
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  if(BLAS_FOUND)
    set(CHUNKED_HAVE_OPENBLAS 1)
  else()
    unset(BLA_VENDOR)
    find_package(BLAS QUIET)
  endif()
  # Debian keeps each BLAS's cblas.h in a directory of its own; the generic one is an alternative.
  if(CHUNKED_HAVE_OPENBLAS)
    set(_chunked_cblas_suffixes openblas-pthread openblas openblas-openmp openblas-serial)
  endif()
  find_path(CHUNKED_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES ${_chunked_cblas_suffixes}
            PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
  if(BLAS_FOUND AND CHUNKED_CBLAS_INCLUDE_DIR)
    include(CheckSymbolExists)
    set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
    set(CMAKE_REQUIRED_INCLUDES ${CHUNKED_CBLAS_INCLUDE_DIR})
    check_symbol_exists(cblas_dgemm cblas.h CHUNKED_BLAS_HAS_CBLAS)
    if(CHUNKED_HAVE_OPENBLAS)
      check_symbol_exists(openblas_set_num_threads cblas.h CHUNKED_BLAS_HAS_THREAD_CONTROL)
      if(NOT CHUNKED_BLAS_HAS_THREAD_CONTROL)
        set(CHUNKED_HAVE_OPENBLAS 0)
      endif()
    endif()
    unset(CMAKE_REQUIRED_LIBRARIES)
    unset(CMAKE_REQUIRED_INCLUDES)
    if(CHUNKED_BLAS_HAS_CBLAS)
      set(CHUNKED_HAVE_BLAS 1)
    endif()
  endif()
  if(NOT CHUNKED_HAVE_BLAS)
    set(CHUNKED_HAVE_OPENBLAS 0)
    if(CHUNKED_ENABLE_BLAS STREQUAL "ON")
      message(FATAL_ERROR "chunked: CHUNKED_ENABLE_BLAS=ON but no BLAS with cblas.h was found "
                          "(Debian: apt-get install libopenblas-dev)")
    endif()
  endif()
endif()
if(CHUNKED_HAVE_BLAS)
  message(STATUS "chunked: CPU products of blocks with ${BLAS_LIBRARIES}")
else()
  message(STATUS "chunked: no CBLAS found: the Cpu backend multiplies blocks with its own loops")
endif()

# chunked_link_blas(<target>): links the BLAS that was found, if any.
function(chunked_link_blas target)
  if(CHUNKED_HAVE_BLAS)
    target_include_directories(${target} PRIVATE "${CHUNKED_CBLAS_INCLUDE_DIR}")
    target_link_libraries(${target} PRIVATE ${BLAS_LIBRARIES})
  endif()
endfunction()
