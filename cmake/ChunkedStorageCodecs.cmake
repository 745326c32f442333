# SPDX-License-Identifier: Apache-2.0
# The compression libraries of the storage formats (Zarr chunks): libzstd, zlib and c-blosc, each
# optional. Each one found sets CHUNKED_HAVE_<NAME> to 1 for the generated config header; a store
# that needs a missing one raises a chunked::Error at run time. They link PRIVATE, by full path (a
# static chunked's export then names the file, and consumers need no find module): no public
# header names them.

find_package(PkgConfig QUIET)

# chunked_find_codec(<NAME> <pkg-config module> <header> <library name>)
# Sets CHUNKED_HAVE_<NAME> (0 or 1), CHUNKED_<NAME>_INCLUDE_DIR and CHUNKED_<NAME>_LIBRARY.
function(chunked_find_codec name module header library)
  set(hint_include "")
  set(hint_lib "")
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(CHUNKED_PC_${name} QUIET ${module})
    set(hint_include ${CHUNKED_PC_${name}_INCLUDE_DIRS})
    set(hint_lib ${CHUNKED_PC_${name}_LIBRARY_DIRS})
  endif()
  find_path(CHUNKED_${name}_INCLUDE_DIR ${header} HINTS ${hint_include})
  find_library(CHUNKED_${name}_LIBRARY ${library} HINTS ${hint_lib})
  string(TOLOWER "${name}" lower)
  if(CHUNKED_${name}_INCLUDE_DIR AND CHUNKED_${name}_LIBRARY)
    message(STATUS "chunked: ${module} found: the ${lower} codec is built")
    set(CHUNKED_HAVE_${name} 1 PARENT_SCOPE)
  else()
    message(STATUS "chunked: ${module} not found: stores compressed with ${lower} will not open")
    set(CHUNKED_HAVE_${name} 0 PARENT_SCOPE)
  endif()
endfunction()

chunked_find_codec(ZSTD libzstd zstd.h zstd)
chunked_find_codec(ZLIB zlib zlib.h z)
chunked_find_codec(BLOSC blosc blosc.h blosc)

# chunked_link_storage_codecs(<target>): links the codec libraries that were found.
function(chunked_link_storage_codecs target)
  foreach(name IN ITEMS ZSTD ZLIB BLOSC)
    if(CHUNKED_HAVE_${name})
      target_include_directories(${target} PRIVATE "${CHUNKED_${name}_INCLUDE_DIR}")
      target_link_libraries(${target} PRIVATE "${CHUNKED_${name}_LIBRARY}")
    endif()
  endforeach()
endfunction()
