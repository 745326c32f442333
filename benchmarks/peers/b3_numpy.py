#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""BENCHMARKS.md B3 in NumPy on one core, beside a copy of the same bytes measured in the same run.

(a * b + c).sum(axis=0) and (x - x.mean(axis=0)) / x.std(axis=0) on 2048x4096 float64 arrays,
the shapes of benchmarks/micro/materialized.cpp. vs_memcpy is the time of np.copyto moving the
same traffic (half read, half written) divided by the program's time; 1.0 is copy speed.
"""

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import common  # noqa: E402


def best_of(fn, repeat):
    return common.median([common.timed(fn)[1] for _ in range(repeat)])


def main():
    p = common.arg_parser(__doc__)
    p.add_argument("--shape", type=common.parse_extent, default=(2048, 4096))
    p.add_argument("--repeat", type=int, default=7)
    args = common.parse_args(p)
    np = common.require("numpy")

    shape = args.shape
    n = shape[0] * shape[1]
    base = 1.0 + (np.arange(n) % 977).reshape(shape) * 1e-3
    a, b, c, x = base.copy(), base.copy(), base.copy(), base.copy()

    def copy_seconds(traffic):
        src = np.ones(traffic // 16)
        dst = np.zeros_like(src)
        return best_of(lambda: np.copyto(dst, src), args.repeat)

    programs = {
        "a_mul_b_add_c_sum_axis0": (lambda: (a * b + c).sum(axis=0), 3 * n * 8),
        "standardize_axis0": (lambda: (x - x.mean(axis=0)) / x.std(axis=0), 2 * n * 8),
    }
    results = {}
    for name, (fn, traffic) in programs.items():
        t = best_of(fn, args.repeat)
        results[name] = {"seconds": t, "traffic_bytes": traffic, "bytes_per_s": traffic / t,
                         "vs_memcpy": copy_seconds(traffic) / t}
        print(f"numpy {name}: {t * 1e3:.1f} ms, {traffic / t / 1e9:.2f} GB/s, "
              f"{results[name]['vs_memcpy']:.2f} of copy speed")
    common.write_json(args.json, common.record(
        "B3", f"numpy {np.__version__}",
        config={"shape": list(shape), "repeat": args.repeat, "threads": 1},
        programs=results))


if __name__ == "__main__":
    main()
