#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""B6 peers: a dense float64 matrix product of two n x n random matrices.

  cupy, jax, torch   one matmul on the GPU, operands already in device memory;
  dask               dask.array.matmul of NumPy chunks (chunk x chunk) on the CPU's threads;
  numpy              one numpy.matmul on the CPU (NumPy's own BLAS).

Prints the median of --repeat timed runs (after one untimed run) and its rate in TFLOP/s. A
library that is not importable is skipped with a message.

  python3 benchmarks/peers/b6_matmul.py [--size 32768] [--chunk 8192] [--variant cupy,jax,torch]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def timed(run, sync, repeat):
    run()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def report(name, n, seconds):
    print(f"{name:6s} {n}^2 float64 matmul: {seconds:.4f} s, {2 * n**3 / seconds / 1e12:.2f} TFLOP/s",
          flush=True)


def run_cupy(n, chunk, repeat):
    import cupy as cp
    rng = cp.random.default_rng(6)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    out = {}
    report("cupy", n, timed(lambda: out.update(c=a @ b), cp.cuda.Device().synchronize, repeat))


def run_jax(n, chunk, repeat):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    ka, kb = jax.random.split(jax.random.PRNGKey(6))
    a = jax.random.normal(ka, (n, n), dtype=jnp.float64)
    b = jax.random.normal(kb, (n, n), dtype=jnp.float64)
    f = jax.jit(jnp.matmul)
    out = {}
    report("jax", n, timed(lambda: out.update(c=f(a, b)), lambda: out["c"].block_until_ready(),
                           repeat))


def run_torch(n, chunk, repeat):
    import torch
    g = torch.Generator(device="cuda").manual_seed(6)
    a = torch.randn(n, n, dtype=torch.float64, device="cuda", generator=g)
    b = torch.randn(n, n, dtype=torch.float64, device="cuda", generator=g)
    out = {}
    report("torch", n, timed(lambda: out.update(c=a @ b), torch.cuda.synchronize, repeat))


def run_dask(n, chunk, repeat):
    import dask.array as da
    a = da.random.RandomState(6).standard_normal((n, n), chunks=(chunk, chunk)).persist()
    b = da.random.RandomState(7).standard_normal((n, n), chunks=(chunk, chunk)).persist()
    report("dask", n, timed(lambda: (a @ b).persist(), lambda: None, repeat))


def run_numpy(n, chunk, repeat):
    import numpy as np
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    report("numpy", n, timed(lambda: a @ b, lambda: None, repeat))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=32768)
    p.add_argument("--chunk", type=int, default=8192)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--variant", default="cupy,jax,torch")
    args = p.parse_args()
    runs = {"cupy": run_cupy, "jax": run_jax, "torch": run_torch, "dask": run_dask,
            "numpy": run_numpy}
    names = args.variant.split(",")
    if len(names) > 1:
        # One process each: a library's memory pool would otherwise keep the GPU from the next.
        for name in names:
            subprocess.run([sys.executable, __file__, "--size", str(args.size), "--chunk",
                            str(args.chunk), "--repeat", str(args.repeat), "--variant", name],
                           check=False)
        return
    try:
        runs[names[0]](args.size, args.chunk, args.repeat)
    except ImportError as e:
        print(f"{names[0]}: skipped ({e})")


if __name__ == "__main__":
    main()
