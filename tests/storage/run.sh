#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs interop.py with a Python that has NumPy, Zarr-Python and Dask (Debian's belong to
# /usr/bin/python3, which another python3 on PATH may hide); exit 77 (skipped) without one.
# Usage: run.sh --program PATH --work-dir DIR
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
python=""
for candidate in "${CHUNKED_PYTHON:-}" python3 /usr/bin/python3; do
  if [[ -n $candidate ]] && "$candidate" -c 'import numpy, zarr, dask.array' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [[ -z $python ]]; then
  echo "storage interop: skipped: no python3 with NumPy, Zarr-Python and Dask" \
       "(scripts/setup installs python3-zarr and python3-dask)"
  exit 77
fi
exec "$python" "$(dirname "$0")/interop.py" "$@"
