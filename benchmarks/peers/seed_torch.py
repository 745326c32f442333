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
    args = common.seed_chunk_args(__doc__, "--variant", "normal_,randn")
    torch = common.require("torch")
    if not torch.cuda.is_available():
        raise SystemExit("seed_torch: torch sees no CUDA device")

    rows, cols = args.chunk
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    results = {}
    for name in args.variant.split(","):
        chunk, label = make_chunk_fn(torch, name, gen, rows, cols)
        first, runs, sums = common.seed_chunk_runs(lambda n: timed_run(torch, chunk, n), args)
        results[name] = common.seed_chunk_variant(f"seed_torch {name}", label, "first_chunk_s", first, runs,
                                                  torch.stack(sums).cpu().numpy(), args)
        per_chunk = results[name]["per_chunk_per_worker_s"]
        print(f"torch {torch.__version__} {label}: {per_chunk * 1e3:.3f} ms per {rows}x{cols} chunk "
              f"(first chunk {first * 1e3:.1f} ms); whole 500000x500000 ~ "
              f"{results[name]['estimate_500000x500000_s']:.1f} s")
    common.write_seed_chunk_json(args, f"torch {torch.__version__}, chunk loop", torch.cuda.get_device_name(),
                                 results)


if __name__ == "__main__":
    main()
