#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs an MPI test: `run_mpi.sh MPIEXEC ARGS...`. Open MPI's mpiexec refuses to start as root
# unless OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set; rather than set
# them for everyone, the test is skipped there (exit 77) and says so. .ci/run sets them.
if [ "$(id -u)" -eq 0 ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] &&
   "$1" --version 2>&1 | grep -qE "Open MPI|OpenRTE|run as root"; then
  echo "skipped: Open MPI's mpiexec does not run as root unless OMPI_ALLOW_RUN_AS_ROOT=1 and" \
       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set"
  exit 77
fi
exec "$@"
