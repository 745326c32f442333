# SPDX-License-Identifier: Apache-2.0
# Checks that chunked's includes point down its layers and that the public API does not name the
# planner: run as `cmake -DCHUNKED_SOURCE_DIR=<source tree> -P check_layering.cmake`. Fails,
# listing every offending line, when a layer includes one above it.
#
# Layers, lowest first: core; random and ops (the operation vocabulary); graph; plan; runtime;
# backend; then the API (the top-level headers, detail/ and src/api/), which may include anything.
# The storage formats (src/io/: npy, Zarr, codecs) sit between the API and the graph: they
# include graph and core, the API includes them, and no layer below the API includes them.
# The MPI backend (src/mpi/, library chunked::mpi) implements runtime's Cluster for the API's
# <chunked/mpi.hpp>: it includes core, runtime and that header, and nothing in the layers
# includes it.

cmake_minimum_required(VERSION 3.25)

if(NOT CHUNKED_SOURCE_DIR)
  message(FATAL_ERROR "check_layering.cmake: set CHUNKED_SOURCE_DIR")
endif()

# Sets <out> to the lines of <file> as a list. Semicolons in the text read as commas and square
# brackets as parentheses: CMake would split lists at the one and not inside the others.
function(read_lines file out)
  file(READ "${file}" text)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The layers (chunked/ folders, or top-level headers by stem) each layer may include.
set(allowed_core core config)
set(allowed_random core config random)
set(allowed_ops core config ops)
set(allowed_graph core config ops graph)
set(allowed_plan core config ops graph plan)
set(allowed_runtime core config ops graph plan runtime)
set(allowed_backend core config random ops graph plan runtime backend)
set(allowed_io core config ops graph io)
set(allowed_mpi core config runtime mpi)

set(problems "")
foreach(layer IN ITEMS core random ops graph plan runtime backend io mpi)
  file(GLOB_RECURSE files "${CHUNKED_SOURCE_DIR}/include/chunked/${layer}/*"
       "${CHUNKED_SOURCE_DIR}/src/${layer}/*")
  foreach(file IN LISTS files)
    read_lines("${file}" lines)
    foreach(line IN LISTS lines)
      # Public headers are included as <chunked/layer/...>, private ones (beside their sources
      # in src/) as "layer/...".
      if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]chunked/([A-Za-z0-9_]+)")
        set(included "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([A-Za-z0-9_]+)/")
        set(included "${CMAKE_MATCH_1}")
      else()
        continue()
      endif()
      if(NOT included IN_LIST allowed_${layer})
        cmake_path(RELATIVE_PATH file BASE_DIRECTORY "${CHUNKED_SOURCE_DIR}" OUTPUT_VARIABLE name)
        string(APPEND problems "  ${name} (layer ${layer}) includes ${included}/: ${line}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

# The public API speaks the vocabulary (ops::), never the planner's words.
file(GLOB api_headers "${CHUNKED_SOURCE_DIR}/include/chunked/*.hpp"
     "${CHUNKED_SOURCE_DIR}/include/chunked/detail/*.hpp"
     "${CHUNKED_SOURCE_DIR}/include/chunked/graph/*.hpp"
     "${CHUNKED_SOURCE_DIR}/include/chunked/ops/*.hpp")
foreach(file IN LISTS api_headers)
  read_lines("${file}" lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "plan::" AND NOT line MATCHES "^[ \t]*//")
      cmake_path(RELATIVE_PATH file BASE_DIRECTORY "${CHUNKED_SOURCE_DIR}" OUTPUT_VARIABLE name)
      string(APPEND problems "  ${name} names the planner: ${line}\n")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "includes that point up the layers (core < random, ops < graph < plan < "
                      "runtime < backend < API; core, ops < graph < io < API):\n${problems}")
endif()
message(STATUS "layering: every include points down")
