#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the seed benchmark in chunked and in its CPU peers on this machine, side by side.

chunked-seed-benchmark, Dask + NumPy and a NumPy chunk loop, with the same shape, chunks and
thread counts, one after the other (never at the same time). Writes every run's JSON and a
summary to benchmarks/results/ and plots seconds per chunk per worker and the estimate for the
whole 500000x500000 array beside the published 2019 Dask figures (benchmarks/results/seed_cpu.png).

  benchmarks/run_peers.py --shape 20000x40000 --threads 1,2
"""

import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))
import common  # noqa: E402

PUBLISHED = [  # the seed study (2019), whole 500000x500000 array
    ("Dask + NumPy, 1 core (2019)", 2 * 3600 + 39 * 60),
    ("Dask + NumPy, 40 cores (2019)", 11 * 60 + 30),
    ("Dask + CuPy, 1 GPU (2019)", 97),
    ("Dask + CuPy, 8 GPUs (2019)", 19),
]


def find_driver(given):
    if given:
        return given
    candidates = [os.path.join(ROOT, "build", "default", "benchmarks", "chunked-seed-benchmark")]
    candidates += sorted(glob.glob(os.path.join(ROOT, "build*", "**", "chunked-seed-benchmark"), recursive=True))
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    sys.exit("run_peers: chunked-seed-benchmark not found; build it (cmake --build --preset default "
             "--target chunked-seed-benchmark) or pass --driver PATH")


def peer_python():
    """An interpreter that has NumPy and Dask: this one, else Debian's, else this one (which then
    tells the user what to install)."""
    probe = "import numpy, dask.array"
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.access(exe, os.X_OK) and subprocess.run([exe, "-c", probe], capture_output=True).returncode == 0:
            return exe
    return sys.executable


def run(cmd, json_path):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(json_path) as f:
        record = json.load(f)
    record["command"] = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
    with open(json_path, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return record


def plot(rows, out_png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    labels = [r["label"] for r in rows]
    colors = ["tab:blue" if r["label"].startswith("chunked") else "tab:gray" for r in rows]
    per_chunk = [r["per_chunk_per_worker_s"] for r in rows]
    left.barh(labels, per_chunk, color=colors)
    left.set_xlabel("seconds per 10000x10000 chunk per worker (lower is better)")
    left.invert_yaxis()
    for y, v in enumerate(per_chunk):
        left.text(v, y, f" {v:.2f} s", va="center")
    left.set_xlim(0, max(per_chunk) * 1.3)

    est = [(r["label"] + " (est.)", r["estimate_500000x500000_s"], c) for r, c in zip(rows, colors)]
    est += [(name, s, "tab:orange") for name, s in PUBLISHED]
    right.barh([e[0] for e in est], [e[1] for e in est], color=[e[2] for e in est])
    right.set_xscale("log")
    right.set_xlabel("whole 500000x500000 array, seconds (log; lower is better)")
    right.invert_yaxis()
    for y, (_, v, _) in enumerate(est):
        right.text(v, y, f" {v:,.0f} s", va="center")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print("wrote", out_png)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="20000x40000", help="RxC (default 20000x40000: 8 chunks, even on 1, 2, 4 or 8 threads)")
    p.add_argument("--chunks", default="10000x10000", help="RxC (default 10000x10000)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    p.add_argument("--repeat", type=int, default=2, help="warm runs after the first (default 2)")
    p.add_argument("--driver", help="path of chunked-seed-benchmark (default: found under build*/)")
    p.add_argument("--out", default=os.path.join(HERE, "results"), help="results folder")
    p.add_argument("--skip-peers", action="store_true", help="run only chunked")
    args = p.parse_args()

    threads = [int(t) for t in args.threads.split(",")]
    driver = find_driver(args.driver)
    py = peer_python()
    os.makedirs(args.out, exist_ok=True)
    # Shared machines drift: keep the load around the runs and the source they measured.
    load_before = os.getloadavg()
    commit = common.source_commit(ROOT)
    rows = []
    for t in threads:
        path = os.path.join(args.out, f"seed_chunked_cpu_t{t}.json")
        r = run([driver, "--backend", "cpu", "--shape", args.shape, "--chunks", args.chunks,
                 "--threads", str(t), "--repeat", str(args.repeat), "--json", path], path)
        rows.append(dict(r, label=f"chunked, {t} thread{'s' if t > 1 else ''}"))
    if not args.skip_peers:
        for t in threads:
            path = os.path.join(args.out, f"seed_dask_t{t}.json")
            r = run([py, os.path.join(HERE, "peers", "seed_dask.py"), "--shape", args.shape, "--chunks",
                     args.chunks, "--threads", str(t), "--repeat", str(args.repeat), "--json", path], path)
            rows.append(dict(r, label=f"Dask + NumPy, {t} thread{'s' if t > 1 else ''}"))
        path = os.path.join(args.out, "seed_numpy.json")
        r = run([py, os.path.join(HERE, "peers", "seed_numpy.py"), "--chunk", args.chunks, "--json", path], path)
        rows.append(dict(r, label="NumPy chunk loop, 1 core"))

    summary = {
        "benchmark": "seed", "date": common.utc_now(), "machine": common.machine(),
        "shape": args.shape, "chunks": args.chunks, "commit": commit,
        "load_average_1_5_15": {"before": load_before, "after": os.getloadavg()},
        "runs": [{k: r[k] for k in ("label", "command", "per_chunk_per_worker_s", "estimate_500000x500000_s")}
                 for r in rows],
        "published_500000x500000_s": dict(PUBLISHED),
    }
    with open(os.path.join(args.out, "seed_summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(f"\n{'system':<32} {'s/chunk/worker':>15} {'whole 2 TB est.':>16}")
    for r in rows:
        print(f"{r['label']:<32} {r['per_chunk_per_worker_s']:>15.3f} {r['estimate_500000x500000_s']:>15.0f}s")
    m = common.machine()
    title = (f"(x + 1)[::2, ::2].sum(), x = normal(10, 1), chunks {args.chunks}, measured at {args.shape}\n"
             f"{m['cpu_model']}, {m['hardware_threads']} hardware threads, {summary['date'][:10]}")
    try:
        plot(rows, os.path.join(args.out, "seed_cpu.png"), title)
    except ImportError:
        print("run_peers: matplotlib is missing, no plot (sudo apt-get install python3-matplotlib; "
              "run with /usr/bin/python3)", file=sys.stderr)


if __name__ == "__main__":
    main()
