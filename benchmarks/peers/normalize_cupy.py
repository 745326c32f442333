#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""BENCHMARKS.md B2 in CuPy on one GPU: a / a.sum() of a float64 host array, in chunks, result
back in host memory; with the host<->device copy limits measured in the same process.

Two chunk loops over the same data (--gib GiB in --chunk-mib MiB chunks), two passes each:
  pageable  NumPy arrays; each chunk cupy.asarray (pageable copy, blocking), sum; then again,
            divide by the sum and .get(out=...) back: what a plain CuPy user writes, and the
            baseline B2 asks to beat by 5x;
  pinned    input and output in cupyx.empty_pinned memory; chunks round-robin over --streams
            non-blocking streams with per-stream device buffers, so copies in both directions
            overlap the kernels; per-chunk sums stay on the device: a well-written pipeline.
Each run is timed with host clocks around full device synchronisations, pass by pass; medians of
--repeat runs after one warm-up. Limits, by CUDA events: pinned host->device, device->host, both
at once (two streams), and pageable host->device and device->host, on a buffer of up to 1 GiB.
The sum is checked against its closed form and the output at spread-out elements.

  python3 benchmarks/peers/normalize_cupy.py [--gib 4] [--chunk-mib 256] [--repeat 3] [--json FILE]
"""

import time

import common


def pattern_fill(np, dst, chunk):
    """dst[i] = 1 + (i % 977) * 1e-3, the values chunked-normalize-benchmark uses, chunk by chunk."""
    base = 1.0 + (np.arange(chunk + 977) % 977) * 1e-3
    for i0 in range(0, dst.size, chunk):
        i1 = min(i0 + chunk, dst.size)
        dst[i0:i1] = base[i0 % 977:i0 % 977 + (i1 - i0)]


def pattern_sum(n):
    q, r = divmod(n, 977)
    return n + 1e-3 * (q * (976 * 977 // 2) + r * (r - 1) // 2)


def probe_indices(n):
    count = min(n, 4096)
    step = max(n // count, 1)
    return [0, n - 1] + [(k * n) // count + (k * 7919) % step for k in range(count)]


def sync(cp):
    cp.cuda.Device().synchronize()


def pageable_run(cp, a, out, bounds):
    """Two passes, naive: blocking pageable copies, the sum brought to the host in between."""
    t0 = time.perf_counter()
    total = cp.zeros((), dtype=cp.float64)
    for i0, i1 in bounds:
        total += cp.asarray(a[i0:i1]).sum()
    s = float(total)
    t1 = time.perf_counter()
    for i0, i1 in bounds:
        (cp.asarray(a[i0:i1]) / s).get(out=out[i0:i1])
    sync(cp)
    return t1 - t0, time.perf_counter() - t1, s


class PinnedPipeline:
    """Chunks round-robin over streams, each with its own device buffers (reused in stream order)."""

    def __init__(self, cp, chunk, streams, nchunks):
        self.cp = cp
        self.streams = [cp.cuda.Stream(non_blocking=True) for _ in range(streams)]
        self.dev_in = [cp.empty(chunk, dtype=cp.float64) for _ in range(streams)]
        self.dev_out = [cp.empty(chunk, dtype=cp.float64) for _ in range(streams)]
        self.partials = cp.empty(nchunks, dtype=cp.float64)

    def get_async(self, d, out, stream):
        try:
            d.get(stream=stream, out=out, blocking=False)
        except TypeError:  # a CuPy without `blocking`: get() with a stream is asynchronous there
            d.get(stream=stream, out=out)

    def run(self, a, out, bounds):
        cp = self.cp
        ns = len(self.streams)
        t0 = time.perf_counter()
        for k, (i0, i1) in enumerate(bounds):
            st = self.streams[k % ns]
            d = self.dev_in[k % ns][: i1 - i0]
            with st:
                d.set(a[i0:i1], stream=st)
                self.partials[k] = d.sum()
        sync(cp)
        s = self.partials[: len(bounds)].sum()
        sync(cp)
        t1 = time.perf_counter()
        for k, (i0, i1) in enumerate(bounds):
            st = self.streams[k % ns]
            d = self.dev_in[k % ns][: i1 - i0]
            r = self.dev_out[k % ns][: i1 - i0]
            with st:
                d.set(a[i0:i1], stream=st)
                cp.divide(d, s, out=r)
                self.get_async(r, out[i0:i1], st)
        sync(cp)
        return t1 - t0, time.perf_counter() - t1, float(s)


def copy_limits(cp, host, repeat):
    """GB/s of host<->device copies of up to 1 GiB, by CUDA events, median of `repeat`. Reads the
    input arrays and writes over the output arrays of `host`."""
    (pinned, pinned_out), (pageable, pageable_out) = host["pinned"], host["pageable"]
    n = min(pinned.size, (1 << 30) // 8)
    dev = cp.empty(n, dtype=cp.float64)
    dev2 = cp.zeros(n, dtype=cp.float64)
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    mem = cp.cuda.runtime

    def events(fn, stream):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        fn()
        stop.record(stream)
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) / 1e3

    def h2d(src, st):
        mem.memcpyAsync(dev.data.ptr, src.ctypes.data, n * 8, mem.memcpyHostToDevice, st.ptr)

    def d2h(dst, st):
        mem.memcpyAsync(dst.ctypes.data, dev2.data.ptr, n * 8, mem.memcpyDeviceToHost, st.ptr)

    def both():
        start = time.perf_counter()
        h2d(pinned, s1)
        d2h(pinned_out, s2)
        s1.synchronize()
        s2.synchronize()
        return time.perf_counter() - start

    def median_rate(fn, traffic):
        fn()
        return traffic / common.median([fn() for _ in range(repeat)]) / 1e9

    rates = {
        "pinned_h2d": median_rate(lambda: events(lambda: h2d(pinned, s1), s1), n * 8),
        "pinned_d2h": median_rate(lambda: events(lambda: d2h(pinned_out, s1), s1), n * 8),
        "pinned_both_directions_total": median_rate(both, 2 * n * 8),
        "pageable_h2d": median_rate(lambda: events(lambda: h2d(pageable, s1), s1), n * 8),
        "pageable_d2h": median_rate(lambda: events(lambda: d2h(pageable_out, s1), s1), n * 8),
    }
    rates["copy_bytes"] = n * 8
    return rates


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--gib", type=float, default=4.0, help="host array size in GiB (default 4; B2 names 32)")
    p.add_argument("--chunk-mib", type=int, default=256, help="chunk size in MiB (default 256)")
    p.add_argument("--streams", type=int, default=3, help="streams of the pinned pipeline (default 3)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per variant (default 3)")
    p.add_argument("--variant", default="pinned,pageable", help="pinned, pageable or both (default)")
    args = common.parse_args(p)
    cp = common.require("cupy")
    import cupyx
    import numpy as np

    n = int(args.gib * 2**30) // 8
    chunk = args.chunk_mib * 2**20 // 8
    bounds = [(i0, min(i0 + chunk, n)) for i0 in range(0, n, chunk)]
    nbytes = n * 8
    expected = pattern_sum(n)
    probes = np.array(probe_indices(n))
    gpu = common.cupy_gpu_name(cp)

    def allocate(kind, size):
        """Input (filled) and output (zeroed: every page touched before timing) host arrays."""
        if kind == "pinned":
            a, out = cupyx.empty_pinned(size, dtype=np.float64), cupyx.empty_pinned(size, dtype=np.float64)
        else:
            a, out = np.empty(size), np.empty(size)
        pattern_fill(np, a, chunk)
        out.fill(0.0)
        return a, out

    # Copy limits on 1 GiB arrays of each kind; each variant then has its own full-size arrays,
    # freed before the next one's are made, so that B2's 32 GiB needs 64 GiB of host memory at a
    # time rather than 128.
    limit_n = min(n, (1 << 30) // 8)
    limits = copy_limits(cp, {kind: allocate(kind, limit_n) for kind in ("pinned", "pageable")},
                         max(args.repeat, 3))
    cp.get_default_pinned_memory_pool().free_all_blocks()
    print("copy limits, GB/s: " + ", ".join(f"{k} {v:.1f}" for k, v in limits.items() if k != "copy_bytes"))

    pipeline = PinnedPipeline(cp, chunk, args.streams, len(bounds))
    runners = {"pageable": lambda a, out: pageable_run(cp, a, out, bounds),
               "pinned": lambda a, out: pipeline.run(a, out, bounds)}
    results = {}
    for name in args.variant.split(","):
        if name not in runners:
            raise SystemExit(f"normalize_cupy: unknown variant {name!r} (pinned or pageable)")
        a, out = allocate(name, n)
        # (Each run fills its output with zeros again, so a run that writes nothing fails the check.)
        runners[name](a, out)  # warm-up: kernels compiled, pools filled
        passes = []
        for _ in range(args.repeat):
            out.fill(0.0)
            t1, t2, s = runners[name](a, out)
            if abs(s - expected) > 1e-9 * expected:
                raise SystemExit(f"normalize_cupy {name}: sum {s!r}, expected {expected!r}")
            want = a[probes] / expected
            got = out[probes]
            worst = float(np.max(np.abs(got - want) / want))
            if not worst <= 1e-9:
                raise SystemExit(f"normalize_cupy {name}: output off by {worst:.3g} (relative)")
            passes.append((t1, t2))
        totals = [t1 + t2 for t1, t2 in passes]
        k = totals.index(sorted(totals)[len(totals) // 2])
        t1, t2 = passes[k]
        total = t1 + t2
        results[name] = {
            "runs_s": [{"sum_pass": a_, "divide_pass": b_} for a_, b_ in passes],
            "median_total_s": total,
            "sum_pass_GBps": nbytes / t1 / 1e9,
            "divide_pass_GBps": nbytes / t2 / 1e9,
            "per_pass_GBps": 2 * nbytes / total / 1e9,
            "per_pass_vs_pinned_h2d": 2 * nbytes / total / 1e9 / limits["pinned_h2d"],
        }
        r = results[name]
        print(f"cupy {cp.__version__} {name}: {total:.3f} s for 2 passes over {nbytes / 1e9:.2f} GB; "
              f"sum pass {r['sum_pass_GBps']:.1f} GB/s, divide pass {r['divide_pass_GBps']:.1f} GB/s, "
              f"{r['per_pass_GBps']:.1f} GB/s per pass = {r['per_pass_vs_pinned_h2d']:.2f} of pinned h2d")
        del a, out
        cp.get_default_pinned_memory_pool().free_all_blocks()
    common.write_json(args.json, common.record(
        "B2", f"cupy {cp.__version__}, chunk loops", dict(common.machine(), gpu=gpu),
        config={"elements": n, "bytes": nbytes, "gib": args.gib, "chunk_mib": args.chunk_mib,
                "num_chunks": len(bounds), "streams": args.streams, "repeat": args.repeat},
        limits_GBps=limits,
        variants=results))


if __name__ == "__main__":
    main()
