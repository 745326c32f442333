#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed benchmark chunk by chunk in PyTorch on one GPU: (x + 1)[::2, ::2].sum() per chunk.

x = normal(10, 1) of one 10000x10000 float64 chunk on "cuda", two ways:
  normal_  torch.empty(...).normal_(10, 1, generator=g)   (Philox, one kernel)
  randn    torch.randn(..., generator=g) + 10
then (x + 1)[::2, ::2].sum(). A timed run is --chunks chunks issued back to back between two
CUDA events (torch.cuda.Event); per-chunk time is the run's event time / chunks, reported as the
median of --repeat runs after --warmup runs. Every chunk's sum is checked against 11 x kept
elements (6 sigma).

  python3 benchmarks/peers/seed_torch.py [--chunk 10000x10000] [--chunks 10] [--repeat 5]
                                         [--variant normal_,randn] [--json FILE]
"""

import argparse

import common


def make_chunk_fn(torch, name, gen, rows, cols):
    opts = {"dtype": torch.float64, "device": "cuda"}
    if name == "normal_":
        def chunk():
            x = torch.empty((rows, cols), **opts).normal_(10.0, 1.0, generator=gen)
            return (x + 1)[::2, ::2].sum()
        return chunk, "torch.Tensor.normal_(10, 1)"
    if name == "randn":
        def chunk():
            x = torch.randn((rows, cols), generator=gen, **opts) + 10.0
            return (x + 1)[::2, ::2].sum()
        return chunk, "torch.randn + 10"
    raise SystemExit(f"seed_torch: unknown variant {name!r} (normal_ or randn)")


def timed_run(torch, chunk, n):
    """Seconds of n chunks issued back to back, by CUDA events, and their sums (on the device)."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    sums = [chunk() for _ in range(n)]
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3, sums


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunk", type=common.parse_extent, default=(10000, 10000), help="RxC (default 10000x10000)")
    p.add_argument("--chunks", type=int, default=10, help="chunks per timed run (default 10)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    p.add_argument("--variant", default="normal_,randn", help="normal_, randn or both (default)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()
    torch = common.require("torch")
    if not torch.cuda.is_available():
        raise SystemExit("seed_torch: torch sees no CUDA device")

    rows, cols = args.chunk
    kept = ((rows + 1) // 2) * ((cols + 1) // 2)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    results = {}
    for name in args.variant.split(","):
        chunk, label = make_chunk_fn(torch, name, gen, rows, cols)
        first, _ = timed_run(torch, chunk, 1)
        for _ in range(args.warmup):
            timed_run(torch, chunk, args.chunks)
        runs, sums = [], []
        for _ in range(args.repeat):
            t, s = timed_run(torch, chunk, args.chunks)
            runs.append(t / args.chunks)
            sums += s
        values = torch.stack(sums).cpu()
        bad = (values - 11.0 * kept).abs() > 6.0 * kept**0.5
        if bool(bad.any()):
            raise SystemExit(f"seed_torch {name}: chunk sum {float(values[bad][0])} is not near {11.0 * kept}")
        per_chunk = common.median(runs)
        results[name] = {
            "implementation": label,
            "first_chunk_s": first,
            "per_chunk_runs_s": runs,
            "per_chunk_per_worker_s": per_chunk,
            "array_elements_per_s": rows * cols / per_chunk,
            "estimate_500000x500000_s": per_chunk * common.SEED_ELEMENTS / (rows * cols),
            "result": {"chunk_sums_checked": int(values.numel()), "first_sum": float(values[0]),
                       "expected": 11.0 * kept},
        }
        print(f"torch {torch.__version__} {label}: {per_chunk * 1e3:.3f} ms per {rows}x{cols} chunk "
              f"(first chunk {first * 1e3:.1f} ms); whole 500000x500000 ~ "
              f"{results[name]['estimate_500000x500000_s']:.1f} s")
    common.write_json(args.json, {
        "benchmark": "seed", "implementation": f"torch {torch.__version__}, chunk loop",
        "date": common.utc_now(), "machine": dict(common.machine(), gpu=torch.cuda.get_device_name()),
        "config": {"chunk": [rows, cols], "chunks_per_run": args.chunks, "repeat": args.repeat,
                   "warmup": args.warmup, "seed": args.seed},
        "variants": results,
    })


if __name__ == "__main__":
    main()
