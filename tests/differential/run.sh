#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Differential test against NumPy: writes random programs with NumPy's results
# (gen_programs.py), runs them through chunked and compares (the runner). ctest runs 300; for a
# longer run, after building the default preset:
#
#   tests/differential/run.sh --count 20000 --seed 7
#
# Options: --count N, --seed S, --only ID (one program alone, to reproduce a failure),
# --exact-sums (ComputeOptions::exact_sums: float sums, means, variances, deviations and cumsums
# checked bit for bit against what the option promises, computed exactly by exact_model.py),
# --max-extent N (the longest axis of the arrays made; default 6),
# --exclude TAGS (comma-separated; "none" excludes nothing; default: $default_exclude below),
# --runner PATH (default: the default preset's build), --work-dir DIR (where the programs are
# written; default: a temporary directory). Arguments after -- go to the runner (--backends cpu,
# --extra-ulps N, --max-reports N). Exits 77 (skipped) when no Python with NumPy is found.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Corners where chunked is known to differ from NumPy (issue 19 items 10 and 6): a Python int
# scalar outside the array's integer type wraps instead of raising OverflowError (NEP 50), and
# var/std of data holding infinities or NaN can give inf or 0 where NumPy gives NaN.
default_exclude="scalar-range,nonfinite-moments"

count=300
seed=1
only=""
exact_sums=""
max_extent=""
exclude=$default_exclude
runner="$here/../../build/default/tests/differential/chunked-differential-runner"
work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --exact-sums) exact_sums=1; shift ;;
    --max-extent) max_extent=$2; shift 2 ;;
    --exclude) exclude=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --work-dir) work=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ $exclude == none ]] && exclude=""

# The sources may be read-only: no __pycache__ next to gen_programs.py.
export PYTHONDONTWRITEBYTECODE=1

# Debian's NumPy belongs to /usr/bin/python3, which another python3 on PATH may hide.
python=""
for candidate in "${CHUNKED_PYTHON:-}" python3 /usr/bin/python3; do
  if [[ -n $candidate ]] && "$candidate" -c 'import numpy' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [[ -z $python ]]; then
  echo "differential: skipped: no python3 with NumPy (scripts/setup installs python3-numpy)"
  exit 77
fi
if [[ ! -x $runner ]]; then
  echo "run.sh: no runner at $runner; build it first" \
       "(cmake --build --preset default --target chunked_differential_runner)" >&2
  exit 2
fi

if [[ -z $work ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
programs="$work/programs-seed$seed-count$count${only:+-only$only}${exact_sums:+-exact}.txt"
args=(--count "$count" --seed "$seed" --out "$programs")
[[ -n $exclude ]] && args+=(--exclude "$exclude")
[[ -n $only ]] && args+=(--only "$only")
[[ -n $exact_sums ]] && args+=(--exact-sums)
[[ -n $max_extent ]] && args+=(--max-extent "$max_extent")
echo "differential: $("$python" -c 'import numpy; print("NumPy", numpy.__version__)')," \
     "seed $seed, ${only:+program $only of }$count programs," \
     "excluding: ${exclude:-nothing}${exact_sums:+ (exact sums)}"
"$python" "$here/gen_programs.py" "${args[@]}"
"$runner" "$programs" ${exact_sums:+--exact-sums} "$@"
