#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed benchmark chunk by chunk in CuPy on one GPU: (x + 1)[::2, ::2].sum() per chunk.

What one Dask + CuPy worker does per chunk, without Dask's scheduling: x = normal(10, 1) of one
10000x10000 float64 chunk, then (x + 1)[::2, ::2].sum(). Two generators:
  legacy   cupy.random.RandomState(seed).normal (cuRAND host API, XORWOW), what Dask's
           da.random.RandomState(RandomState=cupy.random.RandomState) uses;
  philox   cupy.random.Generator(cupy.random.Philox4x3210(seed)) (cuRAND device API); this
           Generator has no normal(), so x = standard_normal() + 10 in place.
A timed run is --chunks chunks issued back to back on the current stream, between two CUDA
events; per-chunk time is the run's event time / chunks, reported as the median of --repeat runs
after --warmup runs. Every chunk's sum is checked against 11 x kept elements (6 sigma).

  python3 benchmarks/peers/seed_cupy.py [--chunk 10000x10000] [--chunks 10] [--repeat 5]
                                        [--generator legacy,philox] [--json FILE]
"""

import argparse

import common


def make_chunk_fn(cp, name, seed, rows, cols):
    if name == "legacy":
        rs = cp.random.RandomState(seed)

        def chunk():
            x = rs.normal(10.0, 1.0, size=(rows, cols), dtype=cp.float64)
            return (x + 1)[::2, ::2].sum()

        return chunk, "cupy.random.RandomState.normal (cuRAND XORWOW, host API)"
    if name == "philox":
        if hasattr(cp.random, "Philox4x3210"):
            gen = cp.random.Generator(cp.random.Philox4x3210(seed))
            label = "cupy.random.Generator(Philox4x3210)"
        else:
            gen = cp.random.default_rng(seed)
            label = "cupy.random.default_rng"
        if hasattr(gen, "normal"):
            def chunk():
                x = gen.normal(10.0, 1.0, size=(rows, cols))
                return (x + 1)[::2, ::2].sum()
            return chunk, label + ".normal"

        def chunk():
            x = gen.standard_normal(size=(rows, cols), dtype=cp.float64)
            x += 10.0
            return (x + 1)[::2, ::2].sum()

        return chunk, label + ".standard_normal + 10"
    raise SystemExit(f"seed_cupy: unknown generator {name!r} (legacy or philox)")


def timed_run(cp, chunk, n):
    """Seconds of n chunks issued back to back, by CUDA events, and their sums (on the device)."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    sums = [chunk() for _ in range(n)]
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) / 1e3, sums


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunk", type=common.parse_extent, default=(10000, 10000), help="RxC (default 10000x10000)")
    p.add_argument("--chunks", type=int, default=10, help="chunks per timed run (default 10)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    p.add_argument("--generator", default="legacy,philox", help="legacy, philox or both (default)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()
    cp = common.require("cupy")
    import numpy as np

    rows, cols = args.chunk
    kept = ((rows + 1) // 2) * ((cols + 1) // 2)
    gpu = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    gpu = gpu.decode() if isinstance(gpu, bytes) else str(gpu)
    results = {}
    for name in args.generator.split(","):
        chunk, label = make_chunk_fn(cp, name, args.seed, rows, cols)
        first, _ = timed_run(cp, chunk, 1)
        for _ in range(args.warmup):
            timed_run(cp, chunk, args.chunks)
        runs, sums = [], []
        for _ in range(args.repeat):
            t, s = timed_run(cp, chunk, args.chunks)
            runs.append(t / args.chunks)
            sums += s
        values = cp.stack(sums).get()
        bad = np.abs(values - 11.0 * kept) > 6.0 * kept**0.5
        if bad.any():
            raise SystemExit(f"seed_cupy {name}: chunk sum {values[bad][0]} is not near {11.0 * kept}")
        per_chunk = common.median(runs)
        results[name] = {
            "implementation": label,
            "first_chunk_s": first,
            "per_chunk_runs_s": runs,
            "per_chunk_per_worker_s": per_chunk,
            "array_elements_per_s": rows * cols / per_chunk,
            "estimate_500000x500000_s": per_chunk * common.SEED_ELEMENTS / (rows * cols),
            "result": {"chunk_sums_checked": int(values.size), "first_sum": float(values[0]),
                       "expected": 11.0 * kept},
        }
        print(f"cupy {cp.__version__} {label}: {per_chunk * 1e3:.3f} ms per {rows}x{cols} chunk "
              f"(first chunk {first * 1e3:.1f} ms); whole 500000x500000 ~ "
              f"{results[name]['estimate_500000x500000_s']:.1f} s")
    common.write_json(args.json, {
        "benchmark": "seed", "implementation": f"cupy {cp.__version__}, chunk loop",
        "date": common.utc_now(), "machine": dict(common.machine(), gpu=gpu),
        "config": {"chunk": [rows, cols], "chunks_per_run": args.chunks, "repeat": args.repeat,
                   "warmup": args.warmup, "seed": args.seed},
        "variants": results,
    })


if __name__ == "__main__":
    main()
