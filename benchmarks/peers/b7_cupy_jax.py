#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""B7 peers on one GPU: steps of the 5-point heat stencil u + alpha * Laplacian(u) on a periodic
square of float64, as chunked-b7-benchmark computes it with map_overlap.

  cupy   slicing: the interior from shifted slices of u padded by one wrapped row and column
         (cupy.pad mode "wrap"), one new array per step;
  jax    jnp.roll in one jax.jit(lax.fori_loop) over the steps.

Prints the time per step and the rate of one read and one write of the array per step (the
library's count), beside a device-to-device copy measured in the same process. A library that
is not importable is skipped with a message.

  python3 benchmarks/peers/b7_cupy_jax.py [--size 32768] [--steps 100] [--variant cupy,jax]
"""

import argparse
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

ALPHA = 0.2


def report(name, size, steps, seconds, limit):
    per_step = seconds / steps
    rate = 2 * size * size * 8 / per_step / 1e9
    print(f"{name:5s} {size}^2 float64, {steps} steps: {per_step:.6f} s/step, {rate:.2f} GB/s"
          + (f" ({100 * rate / limit:.1f} % of the copy limit {limit:.2f} GB/s)" if limit else ""))


def run_cupy(size, steps):
    try:
        import cupy as cp
    except ImportError:
        print("cupy: not importable; skipped")
        return
    u = (cp.arange(size * size, dtype=cp.float64) % 1009 * 1e-3).reshape(size, size)
    dst = cp.empty_like(u)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    best = 1e30
    for _ in range(5):
        start.record()
        dst[...] = u
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) / 1e3)
    limit = 2 * u.nbytes / best / 1e9
    del dst

    def step(u):
        p = cp.pad(u, 1, mode="wrap")
        c = p[1:-1, 1:-1]
        return c + ALPHA * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * c)

    u = step(u)  # warm-up: kernels compiled and memory pooled
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        u = step(u)
    cp.cuda.Device().synchronize()
    report("cupy", size, steps, time.perf_counter() - t0, limit)


def run_jax(size, steps):
    try:
        import jax
    except ImportError:
        print("jax: not importable; skipped")
        return
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    if not [d for d in jax.devices() if d.platform == "gpu"]:
        print(f"jax: no GPU (devices: {jax.devices()}); skipped")
        return

    def step(_, u):
        lap = (jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1) + jnp.roll(u, -1, 1)
               - 4 * u)
        return u + ALPHA * lap

    many = jax.jit(lambda u: jax.lax.fori_loop(0, steps, step, u))
    copy = jax.jit(lambda u: u + 0.0)
    u = (jnp.arange(size * size, dtype=jnp.float64) % 1009 * 1e-3).reshape(size, size)
    copy(u).block_until_ready()
    best = 1e30
    for _ in range(5):
        t0 = time.perf_counter()
        copy(u).block_until_ready()
        best = min(best, time.perf_counter() - t0)
    limit = 2 * size * size * 8 / best / 1e9
    many(u).block_until_ready()  # compiles
    t0 = time.perf_counter()
    many(u).block_until_ready()
    report("jax", size, steps, time.perf_counter() - t0, limit)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=32768)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--variant", default="cupy,jax")
    args = ap.parse_args()
    for v in args.variant.split(","):
        {"cupy": run_cupy, "jax": run_jax}[v](args.size, args.steps)


if __name__ == "__main__":
    main()
