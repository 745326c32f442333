#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""BENCHMARKS.md B5 in JAX and PyTorch: a program's first call in a fresh process against its warm
calls, for the workloads of chunked-first-call-benchmark on one GPU.

Each framework runs in a process of its own, started by this script, so that its first calls pay
what a user's first calls pay (JAX: tracing and XLA compiling each jitted function; PyTorch: its
eager kernels' first launches). The arrays (rows x --cols float64, 1 + (i % 977) * 1e-3 at flat
index i, as the chunked driver makes them) are made and on the device before any timing, and a
one-element sum starts the framework's GPU runtime first (timed apart, as the driver's backend
start). Workloads:
  b3_sum       (a * b + c).sum(axis=0) to the host
  standardize  (x - x.mean(axis=0)) / x.std(axis=0), left on the device
  pipeline     the driver's ten programs, each its own jitted function in JAX
Times are host clocks around block_until_ready / torch.cuda.synchronize.

  python3 benchmarks/peers/first_call_peers.py [--gib 2] [--cols 4096] [--repeat 5]
                                               [--frameworks jax,torch] [--json FILE]
"""

import json
import os
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def pipeline_steps(xp, where, tanh, log1p):
    """The ten programs of chunked-first-call-benchmark's pipeline, as functions of arrays."""
    return [
        lambda x, a, b, r: {"r1": x * 1.5 + 2.0},
        lambda x, a, b, r: {"r2": xp.sqrt(xp.abs(r["r1"]) + 1.0)},
        lambda x, a, b, r: {"h3": r["r2"].sum(axis=0)},
        lambda x, a, b, r: {"r4": where(a > 1.2, a, b * 0.5)},
        lambda x, a, b, r: {"r5": xp.exp(-xp.square(x - 1.0))},
        lambda x, a, b, r: {"h6": (r["r4"] / (xp.abs(r["r1"]) + 1.0)).std(axis=0)},
        lambda x, a, b, r: {"r7": tanh(r["r2"] - r["r5"])},
        lambda x, a, b, r: {"h8": (r["r7"] * r["r7"] + r["r4"]).max(axis=0)},
        lambda x, a, b, r: {"r9": log1p(xp.abs(a - b)) * r["r5"]},
        lambda x, a, b, r: {"h10": (r["r9"] - r["r7"]).min(axis=0)},
    ]


def run_framework(name, rows, cols, repeat):
    """Times the workloads in this process; returns a dict of results."""
    if name == "jax":
        import jax
        import jax.numpy as xp

        jax.config.update("jax_enable_x64", True)
        sync = lambda v: jax.block_until_ready(v)  # noqa: E731
        to_host = lambda v: jax.device_get(v)  # noqa: E731
        jit = jax.jit
        where, tanh, log1p = xp.where, xp.tanh, xp.log1p
        start = time.perf_counter()
        sync(xp.ones(1).sum())
        start_s = time.perf_counter() - start
        i = xp.arange(rows * cols, dtype=xp.int64).reshape(rows, cols)
    else:
        import torch

        xp = torch
        dev = torch.device("cuda")
        sync = lambda v: torch.cuda.synchronize()  # noqa: E731
        to_host = lambda v: v.cpu()  # noqa: E731
        jit = lambda f: f  # noqa: E731  eager
        where, tanh, log1p = torch.where, torch.tanh, torch.log1p
        start = time.perf_counter()
        torch.ones(1, device=dev).sum().item()
        start_s = time.perf_counter() - start
        i = torch.arange(rows * cols, dtype=torch.int64, device=dev).reshape(rows, cols)
    x = 1.0 + (i % 977).astype(xp.float64) * 1e-3 if name == "jax" else 1.0 + (i % 977).double() * 1e-3
    a, b, c = x + 0.0, x + 0.0, x + 0.0
    del i
    sync(c)
    if name == "jax":
        std = lambda v, axis: v.std(axis=axis)  # noqa: E731
    else:
        std = lambda v, axis: torch.std(v, dim=axis, correction=0)  # noqa: E731
    b3 = jit(lambda a, b, c: (a * b + c).sum(axis=0) if name == "jax" else (a * b + c).sum(dim=0))
    stdz = jit(lambda x: (x - x.mean(axis=0)) / std(x, 0) if name == "jax"
               else (x - x.mean(dim=0)) / std(x, 0))
    steps = [jit(s) for s in pipeline_steps(xp, where, tanh, log1p)] if name == "jax" else None

    def pipeline():
        r = {}
        if name == "jax":
            for s in steps:
                r.update(s(x, a, b, r))
                sync(list(r.values())[-1])
        else:
            r["r1"] = x * 1.5 + 2.0
            r["r2"] = torch.sqrt(torch.abs(r["r1"]) + 1.0)
            r["h3"] = r["r2"].sum(dim=0).cpu()
            r["r4"] = torch.where(a > 1.2, a, b * 0.5)
            r["r5"] = torch.exp(-torch.square(x - 1.0))
            r["h6"] = std(r["r4"] / (torch.abs(r["r1"]) + 1.0), 0).cpu()
            r["r7"] = torch.tanh(r["r2"] - r["r5"])
            r["h8"] = (r["r7"] * r["r7"] + r["r4"]).max(dim=0).values.cpu()
            r["r9"] = torch.log1p(torch.abs(a - b)) * r["r5"]
            r["h10"] = (r["r9"] - r["r7"]).min(dim=0).values.cpu()
        return r

    workloads = {
        "b3_sum": lambda: to_host(b3(a, b, c)),
        "standardize": lambda: sync(stdz(x)),
        "pipeline": pipeline,
    }
    out = {"backend_start_s": start_s, "workloads": {}}
    for wname, fn in workloads.items():
        t = time.perf_counter()
        fn()
        sync(None if name == "torch" else x)
        first = time.perf_counter() - t
        warm = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            sync(None if name == "torch" else x)
            warm.append(time.perf_counter() - t)
        warm.sort()
        out["workloads"][wname] = {"first_s": first, "warm_s": warm,
                                   "warm_median_s": warm[len(warm) // 2]}
    return out


def main():
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gib", type=float, default=2.0)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--frameworks", default="jax,torch")
    p.add_argument("--json")
    p.add_argument("--one", help=argparse.SUPPRESS)  # run one framework in this process
    args = p.parse_args()
    rows = int(args.gib * (1 << 30) / (8 * args.cols))
    if args.one:
        print(json.dumps(run_framework(args.one, rows, args.cols, args.repeat)))
        return
    results = {}
    for fw in args.frameworks.split(","):
        proc = subprocess.run([sys.executable, __file__, "--one", fw, "--gib", str(args.gib),
                               "--cols", str(args.cols), "--repeat", str(args.repeat)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{fw}: failed ({proc.returncode})\n{proc.stderr[-2000:]}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        results[fw] = r
        print(f"{fw}: backend start {r['backend_start_s'] * 1e3:.1f} ms")
        for w, v in r["workloads"].items():
            print(f"  {w:<12} first {v['first_s'] * 1e3:9.2f} ms  warm "
                  f"{v['warm_median_s'] * 1e3:9.2f} ms  first/warm {v['first_s'] / v['warm_median_s']:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "first_call", "rows": rows, "cols": args.cols,
                       "frameworks": results}, f, indent=2)


if __name__ == "__main__":
    main()
