#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""B8 peer: a float64 array written as a Zarr v2 store by Dask + Zarr-Python and read back, with
zstd level 3 and uncompressed, on all cores (Dask's threaded scheduler), as chunked-b8-benchmark
does: a random normal array of rows x cols in chunks of whole rows of about --chunk-mib MiB,
generated as it is written; the read sums every chunk. Also reports Dask's time to generate and sum
the array without any store, the share of the write that is not storage.

  python3 benchmarks/peers/b8_dask_zarr.py [--gib 16] [--chunk-mib 64] [--cols 8192]
                                           [--dir /tmp/dask-b8] [--compressor zstd|none|both]
                                           [--repeat 3] [--json FILE]
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gib", type=float, default=16.0)
    ap.add_argument("--chunk-mib", type=int, default=64)
    ap.add_argument("--cols", type=int, default=8192)
    ap.add_argument("--dir", default="/tmp/dask-b8")
    ap.add_argument("--compressor", choices=["zstd", "none", "both"], default="both")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    dask, zarr, numcodecs = common.require("dask", "zarr", "numcodecs")
    import dask.array as da

    rows = int(args.gib * 2**30 / (8 * args.cols))
    chunk_rows = max(1, (args.chunk_mib << 20) // (8 * args.cols))
    nbytes = 8.0 * rows * args.cols
    x = da.random.RandomState(8).standard_normal((rows, args.cols), chunks=(chunk_rows, args.cols))
    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "x.zarr")
    print(f"dask {dask.__version__}, zarr {zarr.__version__}, numcodecs {numcodecs.__version__}; "
          f"{common.cpu_model()}, {os.cpu_count()} hardware threads")
    print(f"config:   {rows} x {args.cols} float64 ({nbytes / 2**30:.2f} GiB), chunks {chunk_rows} x "
          f"{args.cols}, {args.repeat} runs")
    _, generate = common.timed(lambda: x.sum().compute())
    print(f"generate+sum without a store {generate:8.3f} s")
    results = []
    for comp in ("zstd", "none"):
        if args.compressor not in ("both", comp):
            continue
        compressor = numcodecs.Zstd(level=3) if comp == "zstd" else None
        writes, reads = [], []
        for _ in range(args.repeat):
            shutil.rmtree(path, ignore_errors=True)
            _, w = common.timed(lambda: da.to_zarr(x, path, compressor=compressor, overwrite=True))
            _, r = common.timed(lambda: da.from_zarr(path).sum().compute())
            writes.append(w)
            reads.append(r)
        w, r = common.median(writes), common.median(reads)
        print(f"{comp:<5} write {w:8.3f} s ({nbytes / w * 1e-9:6.2f} GB/s)  read+sum {r:8.3f} s "
              f"({nbytes / r * 1e-9:6.2f} GB/s)")
        results.append({"compressor": comp, "write_s": writes, "read_s": reads, "median_write_s": w,
                        "median_read_s": r})
    shutil.rmtree(path, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "b8_zarr", "implementation": "dask", "date": common.utc_now(),
                       "machine": common.machine(), "config": {"rows": rows, "cols": args.cols,
                                                                "chunk_rows": chunk_rows},
                       "generate_sum_s": generate, "runs": results}, f, indent=2)


if __name__ == "__main__":
    main()
