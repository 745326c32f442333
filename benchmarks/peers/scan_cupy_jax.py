#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scans on one GPU in CuPy and JAX: cumsum along an axis of a float64 device array, beside a
device-to-device copy measured in the same process (the peers of chunked-scan-benchmark).

x is --rows x --cols float64 on the device (the values chunked-scan-benchmark uses: 1 + (i % 977)
* 1e-3 at flat index i). Programs, results left on the device:
  cumsum_sum      cupy.cumsum(x, axis).sum() / jnp.cumsum(x, axis).sum(); traffic 1 x bytes
  cumsum_persist  cupy.cumsum(x, axis) / jnp.cumsum(x, axis);              traffic 2 x bytes
as chunked-scan-benchmark counts them; GB/s is that traffic per second, vs_copy its ratio to the
copy's rate (bytes read + written per second; the larger of cudaMemcpy device-to-device and
CuPy's copy kernel, measured only when CuPy is importable). CuPy is timed with CUDA events, JAX
with host clocks around block_until_ready; medians of --repeat runs after two warm-up runs (the
first compiles). A framework that cannot be imported is skipped with a message. cumsum(x).sum()
is checked against its closed form, computed with NumPy.

  python3 benchmarks/peers/scan_cupy_jax.py [--rows 16384] [--cols 8192] [--axis 1] [--repeat 10]
                                            [--frameworks cupy,jax] [--json FILE]
"""

import importlib
import math
import os
import time

# JAX allocates as needed rather than 75 % of the GPU at start, leaving room for CuPy's arrays.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import common  # noqa: E402

PROGRAMS = ("cumsum_sum", "cumsum_persist")
TRAFFIC = {"cumsum_sum": 1, "cumsum_persist": 2}


def try_import(name):
    """The module, or None with a message: a missing peer is skipped, not an error."""
    try:
        return importlib.import_module(name)
    except Exception as e:  # ImportError, or a CUDA library that fails to load
        print(f"scan_cupy_jax: skipping {name}: {e}")
        return None


def reference_total(np, rows, cols, axis):
    """sum(cumsum(x, axis)): element k along the axis counts once per position at or after it."""
    total = 0.0
    for r in range(rows):
        row = 1.0 + ((np.arange(cols, dtype=np.int64) + r * cols) % 977) * 1e-3
        weight = (rows - r) if axis == 0 else (cols - np.arange(cols, dtype=np.float64))
        total += math.fsum(row * weight)
    return total


def check(framework, got, want):
    if not abs(got - want) <= 1e-9 * abs(want):
        raise SystemExit(f"scan_cupy_jax {framework}: cumsum(x).sum() is {got!r}, expected {want!r}")


def median_of(fn, repeat):
    for _ in range(2):
        fn()
    return common.median([fn() for _ in range(repeat)])


def run_cupy(cp, args, want):
    def event_seconds(fn):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) / 1e3

    x = 1.0 + (cp.arange(args.rows * args.cols, dtype=cp.int64) % 977).reshape(args.rows, args.cols) * 1e-3
    nbytes = x.nbytes
    dst = cp.empty_like(x)
    memcpy = median_of(lambda: event_seconds(lambda: dst.data.copy_from_device_async(x.data, nbytes)), args.repeat)
    kernel = median_of(lambda: event_seconds(lambda: cp.copyto(dst, x)), args.repeat)
    limits = {"memcpy_d2d_GBps": 2 * nbytes / memcpy / 1e9, "copy_kernel_GBps": 2 * nbytes / kernel / 1e9}
    del dst
    kept = {}
    fns = {"cumsum_sum": lambda: kept.__setitem__(0, cp.cumsum(x, axis=args.axis).sum()),
           "cumsum_persist": lambda: kept.__setitem__(1, cp.cumsum(x, axis=args.axis))}
    times = {name: median_of(lambda: event_seconds(fn), args.repeat) for name, fn in fns.items()}
    check("cupy", float(kept[0]), want)
    del x, kept
    cp.get_default_memory_pool().free_all_blocks()
    return f"cupy {cp.__version__}", common.cupy_gpu_name(cp), limits, times, nbytes


def run_jax(jax, args, want):
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def host_seconds(fn):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        return time.perf_counter() - start

    x = 1.0 + (jnp.arange(args.rows * args.cols, dtype=jnp.int64) % 977).reshape(args.rows, args.cols) * 1e-3
    total = jax.jit(lambda x: jnp.cumsum(x, axis=args.axis).sum())
    scan = jax.jit(lambda x: jnp.cumsum(x, axis=args.axis))
    times = {"cumsum_sum": median_of(lambda: host_seconds(lambda: total(x)), args.repeat),
             "cumsum_persist": median_of(lambda: host_seconds(lambda: scan(x)), args.repeat)}
    check("jax", float(total(x)), want)
    gpu = [d for d in jax.devices() if d.platform == "gpu"]
    return f"jax {jax.__version__}", gpu[0].device_kind if gpu else str(jax.devices()[0]), times, x.nbytes


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--rows", type=int, default=16384, help="rows (default 16384)")
    p.add_argument("--cols", type=int, default=8192, help="columns (default 8192)")
    p.add_argument("--axis", type=int, default=1, choices=(0, 1, -1, -2), help="scanned axis (default 1)")
    p.add_argument("--repeat", type=int, default=10, help="timed runs (default 10)")
    p.add_argument("--frameworks", default="cupy,jax", help="cupy, jax or both (default); the copy limit needs cupy")
    args = common.parse_args(p)
    np = common.require("numpy")
    want = reference_total(np, args.rows, args.cols, args.axis % 2)
    record = common.record("scan", "cupy and jax",
                           config={"shape": [args.rows, args.cols], "axis": args.axis, "repeat": args.repeat},
                           limits_GBps=None, frameworks={})
    limit = None
    for fw in args.frameworks.split(","):
        if fw not in ("cupy", "jax"):
            raise SystemExit(f"scan_cupy_jax: unknown framework {fw!r} (cupy or jax)")
        module = try_import(fw)
        if module is None:
            continue
        if fw == "cupy":
            label, gpu, limits, times, nbytes = run_cupy(module, args, want)
            limit = max(limits.values())
            record["limits_GBps"] = dict(limits, limit=limit)
            print(f"{label}: device copy {limits['memcpy_d2d_GBps']:.0f} GB/s (cudaMemcpy), "
                  f"{limits['copy_kernel_GBps']:.0f} GB/s (copy kernel), read + write")
        else:
            label, gpu, times, nbytes = run_jax(module, args, want)
        record["machine"]["gpu"] = gpu
        entry = {"implementation": label, "programs": {}}
        for name, t in times.items():
            rate = TRAFFIC[name] * nbytes / t / 1e9
            entry["programs"][name] = {"median_s": t, "traffic_bytes": TRAFFIC[name] * nbytes, "GBps": rate,
                                       "vs_copy": rate / limit if limit else None}
            print(f"{label} {name} axis {args.axis}: {t * 1e3:.2f} ms, {rate:.0f} GB/s"
                  + (f", {rate / limit:.2f} of the device copy" if limit else ""))
        record["frameworks"][fw] = entry
    common.write_json(args.json, record)


if __name__ == "__main__":
    main()
