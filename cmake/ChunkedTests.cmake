# SPDX-License-Identifier: Apache-2.0
# Helpers for chunked's test executables: GoogleTest registration, per-backend typed suites, and
# compiling every public header on its own.

include(GoogleTest)

set(CHUNKED_TEST_TIMEOUT 300 CACHE STRING "Seconds one test case may run before ctest stops it")

# chunked_test_code_options(<target>)
# Test code is compiled at -O1 in optimised builds: its large template instantiations compile
# 1.5x (Release) to 2.5x (the sanitizer builds) faster than at -O2/-O3, and the library it tests
# keeps the build's own optimisation.
function(chunked_test_code_options target)
  target_compile_options(${target} PRIVATE
    "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release,RelWithDebInfo,MinSizeRel>>:-O1>")
endfunction()

# chunked_add_gtest(<name> SOURCES <file>... [INCLUDE_DIRS <dir>...] [LIBRARIES <lib>...]
#                   [PREFIX <ctest name prefix>] [LABELS <label>...])
# Builds a GoogleTest executable linked with chunked and registers each of its test cases with
# ctest. Cases are listed when ctest runs (PRE_TEST), so building never runs a test binary, which
# matters for sanitizer and cross builds.
function(chunked_add_gtest name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX" "SOURCES;INCLUDE_DIRS;LIBRARIES;LABELS")
  add_executable(${name} ${arg_SOURCES})
  chunked_target_options(${name})
  chunked_test_code_options(${name})
  # Tests may include the library's private headers (src/) as the library does.
  target_include_directories(${name} PRIVATE ${arg_INCLUDE_DIRS} "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(${name} PRIVATE chunked::chunked GTest::gtest_main ${arg_LIBRARIES})
  # Every test file includes GoogleTest and the library's umbrella header: parsed once per target
  # instead of once per file (most of a small test file's compile time). C++ files only.
  target_precompile_headers(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<gtest/gtest.h>>"
                            "$<$<COMPILE_LANGUAGE:CXX>:<chunked/chunked.hpp>>")
  set(properties TIMEOUT ${CHUNKED_TEST_TIMEOUT})
  if(arg_LABELS)
    list(APPEND properties LABELS "${arg_LABELS}")
  endif()
  gtest_discover_tests(${name}
    TEST_PREFIX "${arg_PREFIX}"
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES ${properties})
endfunction()

# chunked_generate_backend_suites(<backend> <out_var> <suite header>...)
# Writes one translation unit per typed suite header for <backend> (Cpu, Cuda or Auto) and returns
# their paths in <out_var>. A suite is written once, against CHUNKED_TEST_BACKEND, and compiled
# once per backend. Files are rewritten only when their text changes.
function(chunked_generate_backend_suites backend out_var)
  set(sources "")
  foreach(header IN LISTS ARGN)
    cmake_path(GET header FILENAME header_name)
    cmake_path(GET header STEM suite)
    set(source "${CMAKE_CURRENT_BINARY_DIR}/suites/${suite}_${backend}.cpp")
    file(CONFIGURE OUTPUT "${source}" CONTENT
"#define CHUNKED_TEST_BACKEND chunked::${backend}
#define CHUNKED_TEST_BACKEND_NAME ${backend}
#include \"${header_name}\"
")
    list(APPEND sources "${source}")
  endforeach()
  set(${out_var} "${sources}" PARENT_SCOPE)
endfunction()

# chunked_add_header_tests(<target> <include root> [CUDA] <header>...)
# Builds an object library in which each header is the whole of one translation unit, included
# twice: a header that needs an include it does not make, or lacks #pragma once, fails to compile.
# With CUDA, one .cu translation unit includes every header (each twice), compiled by nvcc as it
# would a user's (C++20 and no other flag), since a user's .cu file may include any public header.
function(chunked_add_header_tests target include_root)
  cmake_parse_arguments(PARSE_ARGV 2 arg "CUDA" "" "")
  set(extension cpp)
  if(arg_CUDA)
    set(extension cu)
  endif()
  set(sources "")
  set(all_includes "")
  foreach(header IN LISTS arg_UNPARSED_ARGUMENTS)
    cmake_path(RELATIVE_PATH header BASE_DIRECTORY "${include_root}" OUTPUT_VARIABLE include_name)
    string(REGEX REPLACE "[/.]" "_" stem "${include_name}")
    string(APPEND all_includes "#include <${include_name}>\n#include <${include_name}>\n")
    if(NOT arg_CUDA)
      set(source "${CMAKE_CURRENT_BINARY_DIR}/header_tests/${stem}.${extension}")
      file(CONFIGURE OUTPUT "${source}" CONTENT "#include <${include_name}>\n#include <${include_name}>\n")
      list(APPEND sources "${source}")
    endif()
  endforeach()
  if(arg_CUDA)
    # Under nvcc the headers share one translation unit: that each compiles on its own is what the
    # C++ header tests check, and a translation unit per header cost nvcc's start-up each time.
    set(source "${CMAKE_CURRENT_BINARY_DIR}/header_tests/${target}_all.${extension}")
    file(CONFIGURE OUTPUT "${source}" CONTENT "${all_includes}")
    list(APPEND sources "${source}")
  endif()
  add_library(${target} OBJECT ${sources})
  if(arg_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON
                                               CUDA_EXTENSIONS OFF)
  else()
    chunked_target_options(${target})
  endif()
  target_link_libraries(${target} PRIVATE chunked::chunked)
endfunction()
