# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the peer benchmarks: dependency checks, machine description, JSON output."""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
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


def source_commit(root):
    """The commit a run measures: $CHUNKED_COMMIT when set (a copy of the tree that lacks its
    history, as on a lent GPU machine, would name a stale one), else `git describe` of root."""
    if os.environ.get("CHUNKED_COMMIT"):
        return os.environ["CHUNKED_COMMIT"]
    return subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"], capture_output=True,
                          text=True).stdout.strip()


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


def record(benchmark, implementation, machine_info=None, **fields):
    """The JSON record of one peer run: what ran, when and where, then `fields` in their order."""
    return {"benchmark": benchmark, "implementation": implementation, "date": utc_now(),
            "machine": machine_info or machine(), **fields}


def cupy_gpu_name(cp):
    """The name of CuPy's current device."""
    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def arg_parser(doc):
    """A command line parser described by the first line of the script's docstring."""
    return argparse.ArgumentParser(description=doc.splitlines()[0])


def parse_args(parser):
    """Adds the --json option every peer has, last, and parses the command line."""
    parser.add_argument("--json", help="write the results to this file")
    return parser.parse_args()


def write_json(path, record):
    if path:
        with open(path, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")


# The seed study's shape: whole-array estimates are scaled to it.
SEED_ELEMENTS = 500000 * 500000


def seed_kept(rows, cols):
    """Elements (x + 1)[::2, ::2] keeps of a rows x cols array."""
    return ((rows + 1) // 2) * ((cols + 1) // 2)


def check_seed_sum(who, total, kept, slack=0.0, what="sum"):
    """Exits unless a sum of kept normal(10, 1) + 1 values is 11 x kept within 6 sigma (+ slack)."""
    if abs(total - 11.0 * kept) > 6.0 * kept**0.5 + slack:
        raise SystemExit(f"{who}: {what} {total} is not near {11.0 * kept}")


def seed_chunk_args(doc, variant_flag, variants, warmup_help="untimed runs first (default 1)"):
    """The command line of the GPU chunk-loop peers of the seed benchmark; `variants` is the
    comma-separated default of `variant_flag`, each one tried in turn."""
    p = arg_parser(doc)
    p.add_argument("--chunk", type=parse_extent, default=(10000, 10000), help="RxC (default 10000x10000)")
    p.add_argument("--chunks", type=int, default=10, help="chunks per timed run (default 10)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    p.add_argument("--warmup", type=int, default=1, help=warmup_help)
    p.add_argument(variant_flag, default=variants, help=f"{variants.replace(',', ', ')} or both (default)")
    p.add_argument("--seed", type=int, default=42)
    return parse_args(p)


def seed_chunk_runs(run, args):
    """Times a chunk loop: run(n) gives (seconds, chunk sums) of n chunks issued back to back.
    Returns the first call's seconds (one chunk), then after args.warmup untimed runs the seconds
    per chunk of args.repeat runs of args.chunks chunks, and all their sums."""
    first, _ = run(1)
    for _ in range(args.warmup):
        run(args.chunks)
    runs, sums = [], []
    for _ in range(args.repeat):
        t, s = run(args.chunks)
        runs.append(t / args.chunks)
        sums += s
    return first, runs, sums


def seed_chunk_variant(who, label, first_key, first, runs, values, args):
    """Checks the chunk sums (a NumPy array) and returns the variant's JSON record."""
    rows, cols = args.chunk
    kept = seed_kept(rows, cols)
    for value in values:
        check_seed_sum(who, value, kept, what="chunk sum")
    per_chunk = median(runs)
    return {
        "implementation": label,
        first_key: first,
        "per_chunk_runs_s": runs,
        "per_chunk_per_worker_s": per_chunk,
        "array_elements_per_s": rows * cols / per_chunk,
        "estimate_500000x500000_s": per_chunk * SEED_ELEMENTS / (rows * cols),
        "result": {"chunk_sums_checked": int(values.size), "first_sum": float(values[0]),
                   "expected": 11.0 * kept},
    }


def write_seed_chunk_json(args, implementation, gpu, variants):
    rows, cols = args.chunk
    write_json(args.json, record(
        "seed", implementation, dict(machine(), gpu=gpu),
        config={"chunk": [rows, cols], "chunks_per_run": args.chunks, "repeat": args.repeat,
                "warmup": args.warmup, "seed": args.seed},
        variants=variants))
