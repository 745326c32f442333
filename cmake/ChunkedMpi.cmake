# SPDX-License-Identifier: Apache-2.0
# Decides whether the distributed backend, the target chunked::mpi (include/chunked/mpi.hpp), is
# built (CHUNKED_ENABLE_MPI = AUTO | ON | OFF) and finds MPI. Sets CHUNKED_HAS_MPI (0 or 1); with
# it FindMPI's MPIEXEC_* variables, which the MPI tests run under (tests/mpi).
#
# The core library never needs MPI: it knows clusters through chunked::Cluster only.

string(TOUPPER "${CHUNKED_ENABLE_MPI}" _chunked_mpi_request)
if(_chunked_mpi_request MATCHES "^(ON|YES|TRUE|Y|1)$")
  set(_chunked_mpi_request ON)
elseif(_chunked_mpi_request MATCHES "^(OFF|NO|FALSE|N|0)$")
  set(_chunked_mpi_request OFF)
elseif(NOT _chunked_mpi_request STREQUAL "AUTO")
  message(FATAL_ERROR "CHUNKED_ENABLE_MPI is '${CHUNKED_ENABLE_MPI}'; expected AUTO, ON or OFF")
endif()

set(CHUNKED_HAS_MPI 0)
if(NOT _chunked_mpi_request STREQUAL "OFF")
  # MPI's C API, compiled as C++: FindMPI's C component would need the C language enabled here
  # and in every project that finds chunked. Without the MPI-2 C++ bindings (removed from the
  # standard in MPI-3), which chunked does not use; a consumer chooses for itself.
  if(NOT DEFINED MPI_CXX_SKIP_MPICXX)
    set(MPI_CXX_SKIP_MPICXX ON)
  endif()
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(CHUNKED_HAS_MPI 1)
    message(STATUS "chunked: MPI backend built with MPI ${MPI_CXX_VERSION} (${MPIEXEC_EXECUTABLE})")
  elseif(_chunked_mpi_request STREQUAL "ON")
    message(FATAL_ERROR "CHUNKED_ENABLE_MPI=ON but MPI was not found (apt-get install "
                        "libopenmpi-dev openmpi-bin)")
  else()
    message(STATUS "chunked: MPI backend not built: MPI was not found")
  endif()
endif()

# chunked_add_mpi_library(): the target chunked_mpi (chunked::mpi), called once chunked exists.
function(chunked_add_mpi_library)
  add_library(chunked_mpi "${PROJECT_SOURCE_DIR}/src/mpi/mpi_cluster.cpp")
  add_library(chunked::mpi ALIAS chunked_mpi)
  chunked_target_options(chunked_mpi)
  set_target_properties(chunked_mpi PROPERTIES EXPORT_NAME mpi
                                               POSITION_INDEPENDENT_CODE ON
                                               VERSION ${PROJECT_VERSION}
                                               SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  # Public: <chunked/mpi.hpp> includes <mpi.h> and declares a function on an MPI_Comm.
  target_link_libraries(chunked_mpi PUBLIC chunked::chunked MPI::MPI_CXX)
endfunction()
