#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""B7 peer on the CPU: steps of the 5-point heat stencil u + alpha * Laplacian(u) by Dask's
map_overlap (depth 1, boundary "periodic") on a square of float64 in square chunks, each step
persisted, as chunked-b7-benchmark --backend cpu computes it. Smaller sizes than the GPU's
32768^2 are fine (--size). Skips with a message where dask is not importable.

  python3 benchmarks/peers/b7_dask.py [--size 8192] [--chunk 2048] [--steps 10]
"""

import argparse
import time

ALPHA = 0.2


def step_block(b):
    c = b[1:-1, 1:-1]
    out = b.copy()
    out[1:-1, 1:-1] = c + ALPHA * (b[:-2, 1:-1] + b[2:, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] - 4 * c)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--chunk", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=10)
    args = ap.parse_args()
    try:
        import dask
        import dask.array as da
        import numpy as np
    except ImportError as e:
        print(f"b7_dask: {e}; skipped")
        return
    n = args.size
    u = (da.arange(n * n, dtype=np.float64, chunks=args.chunk * args.chunk) % 1009 * 1e-3)
    u = u.reshape(n, n).rechunk((args.chunk, args.chunk)).persist()
    energy0 = float(u.sum().compute())

    src = np.ones(n * n)
    dst = np.empty_like(src)
    best = 1e30
    for _ in range(3):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    limit = 2 * src.nbytes / best / 1e9
    del src, dst

    def step(u):
        return u.map_overlap(step_block, depth=1, boundary="periodic", dtype=np.float64).persist()

    u = step(u)  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.steps):
        u = step(u)
    per_step = (time.perf_counter() - t0) / args.steps
    rate = 2 * n * n * 8 / per_step / 1e9
    energy = float(u.sum().compute())
    print(f"dask {dask.__version__} {n}^2 float64 in {args.chunk}^2 chunks, {args.steps} steps: "
          f"{per_step:.6f} s/step, {rate:.2f} GB/s (one-thread copy {limit:.2f} GB/s); "
          f"energy {energy:.9g} (start {energy0:.9g})")


if __name__ == "__main__":
    main()
