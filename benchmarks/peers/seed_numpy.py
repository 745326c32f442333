#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed benchmark chunk by chunk in NumPy, on one core: (x + 1)[::2, ::2].sum() per chunk.

Times a few 10000x10000 chunks of normal(10, 1) from numpy.random.default_rng (PCG64) and
scales the median to the 2500 chunks of the 500000x500000 array. This is what one Dask worker
does per chunk, without Dask's scheduling.
"""

import os

# One core, like one Dask worker thread: keep any BLAS from spawning threads.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import common  # noqa: E402


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--chunk", type=common.parse_extent, default=(10000, 10000), help="RxC (default 10000x10000)")
    p.add_argument("--repeat", type=int, default=3, help="chunks timed (default 3)")
    p.add_argument("--seed", type=int, default=42)
    args = common.parse_args(p)
    np = common.require("numpy")

    rng = np.random.default_rng(args.seed)
    rows, cols = args.chunk

    def one_chunk():
        x = rng.normal(10.0, 1.0, size=(rows, cols))
        return float((x + 1)[::2, ::2].sum())

    results, times = [], []
    for _ in range(args.repeat):
        s, t = common.timed(one_chunk)
        results.append(s)
        times.append(t)
    kept = common.seed_kept(rows, cols)
    for s in results:  # each chunk's sum is 11 * kept give or take sqrt(kept)
        common.check_seed_sum("seed_numpy", s, kept, what="chunk sum")
    per_chunk = common.median(times)
    estimate = per_chunk * common.SEED_ELEMENTS / (rows * cols)
    record = common.record(
        "seed", f"numpy {np.__version__} default_rng, chunk loop",
        config={"chunk": [rows, cols], "repeat": args.repeat, "threads": 1, "seed": args.seed},
        time_s={"chunks": times, "median": per_chunk},
        per_chunk_per_worker_s=per_chunk,
        array_elements_per_s=rows * cols / per_chunk,
        estimate_500000x500000_s=estimate)
    print(f"numpy {np.__version__}, 1 core, chunk {rows}x{cols}: median {per_chunk:.3f} s per chunk "
          f"({rows * cols / per_chunk:.4g} elements/s); whole 500000x500000 ~ {estimate:.0f} s")
    common.write_json(args.json, record)


if __name__ == "__main__":
    main()
