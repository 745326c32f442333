#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed benchmark in Dask Array with NumPy chunks, as the 2019 study wrote it.

x = da.random.RandomState().normal(10, 1, size=shape, chunks=chunks); (x + 1)[::2, ::2].sum()
computed with the threaded scheduler on --threads workers. Reports the first and the median of
warm runs, the time per chunk per worker and the estimate for the 500000x500000 array.
"""

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import common  # noqa: E402


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--shape", type=common.parse_extent, default=(50000, 50000), help="RxC (default 50000x50000)")
    p.add_argument("--chunks", type=common.parse_extent, default=(10000, 10000), help="RxC (default 10000x10000)")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="worker threads (default: all)")
    p.add_argument("--repeat", type=int, default=2, help="warm runs after the first (default 2)")
    p.add_argument("--seed", type=int, default=42)
    args = common.parse_args(p)
    dask, np = common.require("dask", "numpy")
    import dask.array as da

    rows, cols = args.shape
    crow, ccol = args.chunks
    num_chunks = -(-rows // crow) * -(-cols // ccol)
    kept = common.seed_kept(rows, cols)

    def run():
        x = da.random.RandomState(args.seed).normal(10, 1, size=(rows, cols), chunks=(crow, ccol))
        return float((x + 1)[::2, ::2].sum().compute(scheduler="threads", num_workers=args.threads))

    s, first = common.timed(run)
    warm = [common.timed(run)[1] for _ in range(args.repeat)]
    common.check_seed_sum("seed_dask", s, kept, slack=1e-12 * 11.0 * kept)
    med = common.median(warm) if warm else first
    per_chunk_worker = med * args.threads / num_chunks
    estimate = med * common.SEED_ELEMENTS / (rows * cols)
    record = common.record(
        "seed", f"dask {dask.__version__} + numpy {np.__version__}, threaded scheduler",
        config={"shape": [rows, cols], "chunks": [crow, ccol], "num_chunks": num_chunks,
                "threads": args.threads, "repeat": args.repeat, "seed": args.seed},
        result={"sum": s, "expected": 11.0 * kept},
        time_s={"first": first, "warm": warm, "median_warm": med},
        per_chunk_per_worker_s=per_chunk_worker,
        array_elements_per_s=rows * cols / med,
        estimate_500000x500000_s=estimate)
    print(f"dask {dask.__version__}, {args.threads} thread(s), shape {rows}x{cols}, chunks {crow}x{ccol}: "
          f"first {first:.2f} s, median warm {med:.2f} s, {per_chunk_worker:.3f} s per chunk per worker; "
          f"whole 500000x500000 ~ {estimate:.0f} s")
    common.write_json(args.json, record)


if __name__ == "__main__":
    main()
