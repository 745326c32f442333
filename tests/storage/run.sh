#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs interop.py with a Python that has NumPy, Zarr-Python and Dask (Debian's belong to
# /usr/bin/python3, which another python3 on PATH may hide); exit 77 (skipped) without one.
# Usage: run.sh [--tensorstore] --program PATH --work-dir DIR (with --tensorstore: tensorstore_v3.py,
# which needs NumPy and TensorStore only)
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
script=interop.py
modules="numpy, zarr, dask.array"
if [[ ${1:-} == --tensorstore ]]; then
  shift
  script=tensorstore_v3.py
  modules="numpy, tensorstore"
fi
python=""
for candidate in "${CHUNKED_PYTHON:-}" python3 /usr/bin/python3; do
  if [[ -n $candidate ]] && "$candidate" -c "import $modules" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [[ -z $python ]]; then
  echo "storage interop: skipped: no python3 that imports $modules" \
       "(scripts/setup installs python3-zarr and python3-dask; TensorStore: pip install tensorstore)"
  exit 77
fi
exec "$python" "$(dirname "$0")/$script" "$@"
