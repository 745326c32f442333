#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""BENCHMARKS.md B3 on one GPU in CuPy and JAX, beside a device-to-device copy measured in the
same process (the limit B3 names).

(a * b + c).sum(axis=0) and (x - x.mean(axis=0)) / x.std(axis=0) on float64 device arrays of
--gib GiB each (rows x --cols, the values chunked-b3-benchmark uses: 1 + (i % 977) * 1e-3 at flat
index i), results left on the device. Traffic counts each byte a program must read or write once
(3 x array bytes and 2 x array bytes), and vs_copy is that traffic's rate over the copy's
(bytes read + written per second; the larger of cudaMemcpy device-to-device and CuPy's copy
kernel). CuPy is timed with CUDA events, JAX with host clocks around block_until_ready; medians
of --repeat runs after two warm-up runs (the first compiles). Results are checked against NumPy
on three columns.

  python3 benchmarks/peers/b3_gpu.py [--gib 2] [--cols 4096] [--repeat 10] [--frameworks cupy,jax]
                                     [--json FILE]
"""

import math
import os
import time

# JAX allocates as needed rather than 75 % of the GPU at start, leaving room for CuPy's arrays.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import common  # noqa: E402

PROGRAMS = ("a_mul_b_add_c_sum_axis0", "standardize_axis0")


def references(np, rows, cols, columns):
    """Per column: the exact column sum of a * b + c, and the column's mean and std."""
    out = {}
    for j in columns:
        col = 1.0 + ((np.arange(rows, dtype=np.int64) * cols + j) % 977) * 1e-3
        out[j] = (math.fsum(col * col + col), col.mean(), col.std(), col[:2])
    return out


def check(np, framework, fma_row, std_head, refs):
    for j, (fsum, mean, std, head) in refs.items():
        if not abs(fma_row[j] - fsum) <= 1e-9 * abs(fsum):
            raise SystemExit(f"b3_gpu {framework}: {PROGRAMS[0]} column {j} is {fma_row[j]!r}, expected {fsum!r}")
        want = (head - mean) / std
        if not np.allclose(std_head[:, j], want, rtol=1e-8, atol=1e-8):
            raise SystemExit(f"b3_gpu {framework}: {PROGRAMS[1]} column {j} is {std_head[:, j]}, expected {want}")


def median_of(fn, repeat):
    for _ in range(2):
        fn()
    return common.median([fn() for _ in range(repeat)])


def run_cupy(args, rows, cols, refs):
    cp = common.require("cupy")
    import numpy as np

    def event_seconds(fn):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) / 1e3

    base = 1.0 + (cp.arange(rows * cols, dtype=cp.int64) % 977).reshape(rows, cols) * 1e-3
    a, b, c, x = base, base.copy(), base.copy(), base.copy()
    nbytes = a.nbytes
    dst = cp.empty_like(a)
    memcpy = median_of(lambda: event_seconds(lambda: dst.data.copy_from_device_async(a.data, nbytes)), args.repeat)
    kernel = median_of(lambda: event_seconds(lambda: cp.copyto(dst, a)), args.repeat)
    limits = {"memcpy_d2d_GBps": 2 * nbytes / memcpy / 1e9, "copy_kernel_GBps": 2 * nbytes / kernel / 1e9}
    limit = max(limits.values())
    del dst

    kept = {}
    fns = {PROGRAMS[0]: lambda: kept.__setitem__(0, (a * b + c).sum(axis=0)),
           PROGRAMS[1]: lambda: kept.__setitem__(1, (x - x.mean(axis=0)) / x.std(axis=0))}
    times = {name: median_of(lambda: event_seconds(fn), args.repeat) for name, fn in fns.items()}
    check(np, "cupy", kept[0].get(), kept[1][:2].get(), refs)
    del a, b, c, x, base, kept
    cp.get_default_memory_pool().free_all_blocks()
    return f"cupy {cp.__version__}", common.cupy_gpu_name(cp), limits, limit, times, nbytes


def run_jax(args, rows, cols, refs):
    jax = common.require("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    def host_seconds(fn):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        return time.perf_counter() - start

    base = 1.0 + (jnp.arange(rows * cols, dtype=jnp.int64) % 977).reshape(rows, cols) * 1e-3
    a, b, c, x = base, jnp.copy(base), jnp.copy(base), jnp.copy(base)
    fma = jax.jit(lambda a, b, c: (a * b + c).sum(axis=0))
    standardize = jax.jit(lambda x: (x - x.mean(axis=0)) / x.std(axis=0))
    times = {PROGRAMS[0]: median_of(lambda: host_seconds(lambda: fma(a, b, c)), args.repeat),
             PROGRAMS[1]: median_of(lambda: host_seconds(lambda: standardize(x)), args.repeat)}
    check(np, "jax", np.asarray(fma(a, b, c)), np.asarray(standardize(x)[:2]), refs)
    gpu = [d for d in jax.devices() if d.platform == "gpu"]
    return f"jax {jax.__version__}", gpu[0].device_kind if gpu else str(jax.devices()[0]), times, a.nbytes


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--gib", type=float, default=2.0, help="size of each array in GiB (default 2)")
    p.add_argument("--cols", type=int, default=4096, help="columns (default 4096)")
    p.add_argument("--repeat", type=int, default=10, help="timed runs (default 10)")
    p.add_argument("--frameworks", default="cupy,jax", help="cupy, jax or both (default); the copy limit needs cupy")
    args = common.parse_args(p)
    cols = args.cols
    rows = int(args.gib * 2**30) // (8 * cols)
    np = common.require("numpy")
    refs = references(np, rows, cols, [0, cols // 3, cols - 1])
    traffic = {PROGRAMS[0]: 3, PROGRAMS[1]: 2}
    record = common.record("B3", "cupy and jax",
                           config={"shape": [rows, cols], "gib_per_array": args.gib, "repeat": args.repeat},
                           limits_GBps=None, frameworks={})
    limit = None
    frameworks = args.frameworks.split(",")
    for fw in frameworks:
        if fw == "cupy":
            label, gpu, limits, limit, times, nbytes = run_cupy(args, rows, cols, refs)
            record["limits_GBps"] = dict(limits, limit=limit)
            print(f"{label}: device copy {limits['memcpy_d2d_GBps']:.0f} GB/s (cudaMemcpy), "
                  f"{limits['copy_kernel_GBps']:.0f} GB/s (copy kernel), read + write")
        elif fw == "jax":
            label, gpu, times, nbytes = run_jax(args, rows, cols, refs)
        else:
            raise SystemExit(f"b3_gpu: unknown framework {fw!r} (cupy or jax)")
        record["machine"]["gpu"] = gpu
        entry = {"implementation": label, "programs": {}}
        for name, t in times.items():
            rate = traffic[name] * nbytes / t / 1e9
            entry["programs"][name] = {"median_s": t, "traffic_bytes": traffic[name] * nbytes, "GBps": rate,
                                       "vs_copy": rate / limit if limit else None}
            print(f"{label} {name}: {t * 1e3:.2f} ms, {rate:.0f} GB/s"
                  + (f", {rate / limit:.2f} of the device copy" if limit else ""))
        record["frameworks"][fw] = entry
    common.write_json(args.json, record)


if __name__ == "__main__":
    main()
