# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the peer benchmarks: dependency checks, machine description, JSON output."""

import datetime
import json
import os
import platform
import statistics
import sys
import time

INSTALL_HINT = {
    "numpy": "python3-numpy",
    "dask": "python3-dask",
    "matplotlib": "python3-matplotlib",
}


def require(*modules):
    """Imports the modules or exits with the command that installs them (Debian packages)."""
    loaded, missing = [], []
    for name in modules:
        try:
            loaded.append(__import__(name))
        except ImportError:
            missing.append(name)
    if missing:
        packages = " ".join(INSTALL_HINT.get(m, "python3-" + m) for m in missing)
        sys.exit(
            f"{os.path.basename(sys.argv[0])}: missing Python module(s) {', '.join(missing)} "
            f"for {sys.executable}.\nInstall them with: sudo apt-get install {packages}\n"
            "(Debian's packages install into /usr/bin/python3; run the script with that interpreter.)"
        )
    return loaded if len(loaded) > 1 else loaded[0]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine():
    return {"cpu_model": cpu_model(), "hardware_threads": os.cpu_count(), "python": platform.python_version()}


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def timed(fn):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def median(values):
    return statistics.median(values)


def parse_extent(text):
    rows, cols = (int(v) for v in text.lower().split("x"))
    if rows <= 0 or cols <= 0:
        raise ValueError(text)
    return rows, cols


def write_json(path, record):
    if path:
        with open(path, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")


# The seed study's shape: whole-array estimates are scaled to it.
SEED_ELEMENTS = 500000 * 500000
