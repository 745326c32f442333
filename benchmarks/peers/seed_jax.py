#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed benchmark in JAX on one GPU: (x + 1)[::2, ::2].sum() per chunk, compiled by XLA.

x = 10 + jax.random.normal(key, chunk, float64) (Threefry, jax_enable_x64), two ways:
  jit       jax.jit over one chunk, called once per chunk key, calls issued back to back;
  lax.map   one jax.jit(jax.lax.map(chunk, keys)) over --chunks chunk keys.
XLA may fuse generation, the add, the slice and the sum, which the chunked library must beat.
A timed run covers --chunks chunks and ends with block_until_ready on every result; per-chunk
time is run time / chunks, the median of --repeat runs after the first (compiling) call and
--warmup runs. Every chunk's sum is checked against 11 x kept elements (6 sigma).

  python3 benchmarks/peers/seed_jax.py [--chunk 10000x10000] [--chunks 10] [--repeat 5]
                                       [--variant jit,lax.map] [--json FILE]
"""

import os
import time

# Allocate as needed rather than 75 % of the GPU at start: other runs share the device after us.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import common  # noqa: E402


def main():
    args = common.seed_chunk_args(__doc__, "--variant", "jit,lax.map", "untimed runs after the first (default 1)")
    jax = common.require("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        raise SystemExit(f"seed_jax: jax sees no GPU (devices: {jax.devices()})")
    rows, cols = args.chunk

    def chunk_sum(key):
        x = 10.0 + jax.random.normal(key, (rows, cols), dtype=jnp.float64)
        return (x + 1)[::2, ::2].sum()

    make_key = getattr(jax.random, "key", jax.random.PRNGKey)
    keys = jax.random.split(make_key(args.seed), args.chunks)
    key_list = [keys[i] for i in range(args.chunks)]
    one = jax.jit(chunk_sum)
    many = jax.jit(lambda ks: jax.lax.map(chunk_sum, ks))
    runners = {
        "jit": (lambda: [one(k) for k in key_list], "jax.jit(chunk) per chunk"),
        "lax.map": (lambda: [many(keys)], "jax.jit(jax.lax.map(chunk, keys))"),
    }

    def timed_run(fn):
        """run(n) of common.seed_chunk_runs; every call covers --chunks chunks, whatever n."""
        def run(n):
            start = time.perf_counter()
            out = jax.block_until_ready(fn())
            return time.perf_counter() - start, [np.asarray(o).ravel() for o in out]
        return run

    results = {}
    for name in args.variant.split(","):
        if name not in runners:
            raise SystemExit(f"seed_jax: unknown variant {name!r} (jit or lax.map)")
        fn, label = runners[name]
        # The first call includes XLA compilation.
        first, runs, sums = common.seed_chunk_runs(timed_run(fn), args)
        values = np.concatenate(sums)
        if values.size != args.repeat * args.chunks:
            raise SystemExit(f"seed_jax {name}: {values.size} sums, expected {args.repeat * args.chunks}")
        results[name] = common.seed_chunk_variant(f"seed_jax {name}", label, "first_call_s", first, runs, values, args)
        per_chunk = results[name]["per_chunk_per_worker_s"]
        print(f"jax {jax.__version__} {label}: {per_chunk * 1e3:.3f} ms per {rows}x{cols} chunk "
              f"(first call {first:.2f} s with compilation); whole 500000x500000 ~ "
              f"{results[name]['estimate_500000x500000_s']:.1f} s")
    common.write_seed_chunk_json(args, f"jax {jax.__version__}, Threefry, float64", gpus[0].device_kind, results)


if __name__ == "__main__":
    main()
