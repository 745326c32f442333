#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes a report with PROGRAM (called as PROGRAM REPORT.html TRACE.json), then checks it in
# headless Chromium with check_report.py; exits 77 (skipped) where no Chromium is installed.
# Usage: run.sh PYTHON WORK_DIR PROGRAM [check_report.py options...]
set -euo pipefail
python=$1 work_dir=$2 program=$3
shift 3
mkdir -p "$work_dir"
"$program" "$work_dir/report.html" "$work_dir/trace.json"
exec "$python" "$(dirname "$0")/check_report.py" "$work_dir/report.html" "$work_dir/report.png" "$@"
