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
    args = common.seed_chunk_args(__doc__, "--generator", "legacy,philox")
    cp = common.require("cupy")

    rows, cols = args.chunk
    gpu = common.cupy_gpu_name(cp)
    results = {}
    for name in args.generator.split(","):
        chunk, label = make_chunk_fn(cp, name, args.seed, rows, cols)
        first, runs, sums = common.seed_chunk_runs(lambda n: timed_run(cp, chunk, n), args)
        results[name] = common.seed_chunk_variant(f"seed_cupy {name}", label, "first_chunk_s", first, runs,
                                                  cp.stack(sums).get(), args)
        per_chunk = results[name]["per_chunk_per_worker_s"]
        print(f"cupy {cp.__version__} {label}: {per_chunk * 1e3:.3f} ms per {rows}x{cols} chunk "
              f"(first chunk {first * 1e3:.1f} ms); whole 500000x500000 ~ "
              f"{results[name]['estimate_500000x500000_s']:.1f} s")
    common.write_seed_chunk_json(args, f"cupy {cp.__version__}, chunk loop", gpu, results)


if __name__ == "__main__":
    main()
