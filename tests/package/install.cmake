# SPDX-License-Identifier: Apache-2.0
# Installs the current build into a fresh prefix, so the find_package test sees exactly what an
# install ships and nothing left over from an earlier one.
#   cmake -DBUILD_DIR=<build> -DPREFIX=<prefix> -DCONFIG=<config> -P install.cmake
foreach(var BUILD_DIR PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args}
                COMMAND_ERROR_IS_FATAL ANY)
