#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs B1, B2 and B3 on one GPU in chunked and in its GPU peers (CuPy, JAX, PyTorch), side by side.

Run on the GPU machine, after building the cuda preset; every program runs alone, one after the
other, on the first visible GPU (set CUDA_VISIBLE_DEVICES=0 on a machine with several):
  B1  chunked: the JSON of `chunked-seed-benchmark --backend cuda` given by --seed-json (scripts/
      gpu-check writes one), or a run of --seed-driver at --seed-shape; peers: seed_cupy.py,
      seed_torch.py, seed_jax.py, 10000x10000 chunks; compared per chunk.
  B2  chunked-normalize-benchmark --backend cuda and normalize_cupy.py at --b2-gib; compared in
      GB/s per pass against the pinned host->device rate normalize_cupy.py measures.
  B3  chunked-b3-benchmark --backend cuda and b3_gpu.py at --b3-gib per array; compared in GB/s
      of required traffic against the device-to-device copy b3_gpu.py measures.
Writes benchmarks/results/gpu_<benchmark>_<system>.json for every run, gpu_summary.json and the
plot gpu_peers.png (--out to change the folder). A program that fails is reported and the others
still run; the exit status is 1 if any failed.

  python3 benchmarks/run_gpu_peers.py --normalize-driver build/cuda/benchmarks/chunked-normalize-benchmark \\
      --b3-driver build/cuda/benchmarks/chunked-b3-benchmark --seed-json gpu-logs/seed_cuda_1gpu.json
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = os.path.join(HERE, "peers")
sys.path.insert(0, PEERS)
import common  # noqa: E402


class Runner:
    """Runs commands that write a JSON record, keeping the records and the failures."""

    def __init__(self, out, timeout):
        self.out = out
        self.timeout = timeout
        self.failures = []

    def __call__(self, name, cmd):
        path = os.path.join(self.out, f"gpu_{name}.json")
        if not os.access(cmd[0], os.X_OK):
            print(f"run_gpu_peers: {name}: {cmd[0]} is not an executable (build it first)",
                  file=sys.stderr, flush=True)
            self.failures.append(name)
            return None
        if os.path.exists(path):
            os.remove(path)  # a stale record must not stand in for a failed run
        cmd = [str(c) for c in cmd] + ["--json", path]
        print("+", " ".join(cmd), flush=True)
        try:
            rc = subprocess.run(cmd, timeout=self.timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        if rc != 0 or not os.path.exists(path):
            print(f"run_gpu_peers: {name} failed (exit status {rc})", file=sys.stderr, flush=True)
            self.failures.append(name)
            return None
        return annotate(path, cmd)


def annotate(path, cmd):
    with open(path) as f:
        record = json.load(f)
    record["command"] = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
    common.write_json(path, record)
    return record


def b1(args, run):
    rows = []
    ours = None
    if args.seed_json and os.path.exists(args.seed_json):
        with open(args.seed_json) as f:
            ours = json.load(f)
        common.write_json(os.path.join(args.out, "gpu_b1_chunked.json"), ours)
    elif args.seed_json:
        print(f"run_gpu_peers: {args.seed_json} does not exist (did the seed benchmark fail?)",
              file=sys.stderr)
        run.failures.append("b1_chunked")
    elif args.seed_driver:
        ours = run("b1_chunked", [args.seed_driver, "--backend", args.backend, "--shape", args.seed_shape,
                                  "--chunks", "10000x10000", "--repeat", "3"])
    if ours:
        rows.append({"system": "chunked (whole array, fused, pushdown)", "per_chunk_s": ours["per_chunk_s"],
                     "first_run_s": ours["time_s"]["first"], "shape": ours["config"]["shape"],
                     "estimate_500000x500000_s": ours["estimate_500000x500000_s"]})
    common_args = ["--chunks", args.b1_chunks, "--repeat", args.repeat]
    for peer, script in (("cupy", "seed_cupy.py"), ("torch", "seed_torch.py"), ("jax", "seed_jax.py")):
        record = run(f"b1_{peer}", [sys.executable, os.path.join(PEERS, script)] + common_args)
        for variant, r in (record or {}).get("variants", {}).items():
            rows.append({"system": r["implementation"], "per_chunk_s": r["per_chunk_per_worker_s"],
                         "estimate_500000x500000_s": r["estimate_500000x500000_s"]})
    return rows


def b2(args, run):
    rows, limit = [], None
    gib = ["--gib", args.b2_gib, "--chunk-mib", args.b2_chunk_mib]
    peer = run("b2_cupy", [sys.executable, os.path.join(PEERS, "normalize_cupy.py")] + gib
               + ["--repeat", args.b2_repeat])
    if peer:
        limit = peer["limits_GBps"]
        for variant, r in peer["variants"].items():
            rows.append({"system": f"CuPy loop, {variant}", "per_pass_GBps": r["per_pass_GBps"],
                         "sum_pass_GBps": r["sum_pass_GBps"], "divide_pass_GBps": r["divide_pass_GBps"]})
    if args.normalize_driver:
        ours = run("b2_chunked", [args.normalize_driver, "--backend", args.backend, "--repeat", args.b2_repeat] + gib)
        if ours:
            rows.insert(0, {"system": "chunked (host array held by the library)",
                            "per_pass_GBps": ours["per_pass_GBps"]})
            rows.insert(1, {"system": "chunked, from_host included",
                            "per_pass_GBps": ours["per_pass_with_from_host_GBps"]})
            rows.insert(2, {"system": "chunked's own transfer (persist upload)",
                            "per_pass_GBps": ours["library_transfer_GBps"]["upload"]})
    if limit:
        for r in rows:
            r["vs_pinned_h2d"] = r["per_pass_GBps"] / limit["pinned_h2d"]
    return rows, limit


def b3(args, run):
    rows, limit = [], None
    peer = run("b3_peers", [sys.executable, os.path.join(PEERS, "b3_gpu.py"), "--gib", args.b3_gib,
                            "--repeat", args.repeat * 2])
    if peer:
        limit = (peer.get("limits_GBps") or {}).get("limit")
        for fw, entry in peer["frameworks"].items():
            for program, r in entry["programs"].items():
                rows.append({"system": entry["implementation"], "program": program, "GBps": r["GBps"]})
    if args.b3_driver:
        ours = run("b3_chunked", [args.b3_driver, "--backend", args.backend, "--gib", args.b3_gib,
                                  "--repeat", args.repeat])
        if ours:
            # The driver's "part_" programs time pieces of standardize; its JSON keeps them.
            rows[:0] = [{"system": "chunked", "program": program, "GBps": r["GBps"]}
                        for program, r in ours["programs"].items()
                        if not program.startswith("part_")]
    if limit:
        for r in rows:
            r["vs_copy"] = r["GBps"] / limit
    return rows, limit


def plot(summary, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(19, 6))

    def bars(ax, labels, values, fmt):
        colors = ["tab:blue" if label.startswith("chunked") else "tab:gray" for label in labels]
        ax.barh(labels, values, color=colors)
        ax.invert_yaxis()
        for y, v in enumerate(values):
            ax.text(v, y, " " + fmt(v), va="center", fontsize=8)

    rows = summary["B1"]["rows"]
    if rows:
        bars(axes[0], [r["system"] for r in rows], [r["per_chunk_s"] * 1e3 for r in rows], lambda v: f"{v:.3g} ms")
        axes[0].set_xscale("log")
    axes[0].set_title("B1 (x + 1)[::2, ::2].sum(), per 10000² chunk")
    axes[0].set_xlabel("ms per chunk, one GPU (log; lower is better)")

    rows, limit = summary["B2"]["rows"], summary["B2"]["limits_GBps"]
    if rows:
        bars(axes[1], [r["system"] for r in rows], [r["per_pass_GBps"] for r in rows], lambda v: f"{v:.1f}")
    if limit:
        axes[1].axvline(limit["pinned_h2d"], color="tab:red", ls="--", label="pinned host→device copy")
        axes[1].legend(loc="lower right")
    axes[1].set_title(f"B2 a / a.sum() of a {summary['B2']['gib']} GiB host array")
    axes[1].set_xlabel("GB/s per pass (higher is better)")

    rows, limit = summary["B3"]["rows"], summary["B3"]["limit_GBps"]
    if rows:
        bars(axes[2], [f"{r['system']}: {r['program']}" for r in rows], [r["GBps"] for r in rows],
             lambda v: f"{v:.0f}")
    if limit:
        axes[2].axvline(limit, color="tab:red", ls="--", label="device-to-device copy")
        axes[2].legend(loc="lower right")
    axes[2].set_title(f"B3 on {summary['B3']['gib']} GiB device arrays")
    axes[2].set_xlabel("GB/s of required traffic (higher is better)")

    m = summary["machine"]
    fig.suptitle(f"chunked and its GPU peers, {m.get('gpu', 'GPU')}, {m['cpu_model']}, {summary['date'][:10]}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--normalize-driver", help="path of chunked-normalize-benchmark (B2 for chunked)")
    p.add_argument("--b3-driver", help="path of chunked-b3-benchmark (B3 for chunked)")
    p.add_argument("--seed-json", help="JSON of a chunked-seed-benchmark --backend cuda run (B1 for chunked)")
    p.add_argument("--seed-driver", help="path of chunked-seed-benchmark, run when --seed-json is not given")
    p.add_argument("--seed-shape", default="100000x100000", help="shape for --seed-driver (default 100000x100000)")
    p.add_argument("--b1-chunks", type=int, default=10, help="chunks per timed peer run (default 10)")
    p.add_argument("--b2-gib", type=float, default=4.0, help="B2 host array in GiB (default 4; B2 names 32)")
    p.add_argument("--b2-chunk-mib", type=int, default=256, help="B2 chunk in MiB (default 256)")
    p.add_argument("--b2-repeat", type=int, default=3, help="B2 timed runs (default 3)")
    p.add_argument("--b3-gib", type=float, default=2.0, help="B3 array size in GiB (default 2)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs for B1 and B3 (default 5)")
    p.add_argument("--backend", default="cuda", help="backend of our drivers (default cuda; cpu to try this script)")
    p.add_argument("--only", default="b1,b2,b3", help="benchmarks to run (default b1,b2,b3)")
    p.add_argument("--timeout", type=int, default=300, help="seconds allowed to each program (default 300)")
    p.add_argument("--out", default=os.path.join(HERE, "results"), help="results folder")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    run = Runner(args.out, args.timeout)
    only = args.only.split(",")
    commit = common.source_commit(ROOT)
    summary = {"benchmark": "gpu peers", "date": common.utc_now(), "commit": commit,
               "machine": common.machine(),
               "B1": {"rows": []}, "B2": {"rows": [], "limits_GBps": None, "gib": args.b2_gib},
               "B3": {"rows": [], "limit_GBps": None, "gib": args.b3_gib}}
    try:
        summary["machine"]["gpu"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
            capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    if "b1" in only:
        summary["B1"]["rows"] = b1(args, run)
    if "b2" in only:
        summary["B2"]["rows"], summary["B2"]["limits_GBps"] = b2(args, run)
    if "b3" in only:
        summary["B3"]["rows"], summary["B3"]["limit_GBps"] = b3(args, run)
    summary["failed"] = run.failures
    common.write_json(os.path.join(args.out, "gpu_summary.json"), summary)

    print("\nB1, ms per 10000x10000 chunk on one GPU:")
    for r in summary["B1"]["rows"]:
        print(f"  {r['system']:<58} {r['per_chunk_s'] * 1e3:9.3f}   whole 2 TB ~ {r['estimate_500000x500000_s']:.2f} s")
    print("B2, GB/s per pass" + (f" (pinned h2d {summary['B2']['limits_GBps']['pinned_h2d']:.1f} GB/s):"
                                 if summary["B2"]["limits_GBps"] else ":"))
    for r in summary["B2"]["rows"]:
        print(f"  {r['system']:<58} {r['per_pass_GBps']:9.2f}   {r.get('vs_pinned_h2d', float('nan')):.2f} of pinned h2d")
    print("B3, GB/s of required traffic" + (f" (device copy {summary['B3']['limit_GBps']:.0f} GB/s):"
                                            if summary["B3"]["limit_GBps"] else ":"))
    for r in summary["B3"]["rows"]:
        label = f"{r['system']}: {r['program']}"
        print(f"  {label:<58} {r['GBps']:9.1f}   {r.get('vs_copy', float('nan')):.2f} of the copy")
    try:
        plot(summary, os.path.join(args.out, "gpu_peers.png"))
    except ImportError:
        print("run_gpu_peers: matplotlib is missing, no plot", file=sys.stderr)
    if run.failures:
        print("run_gpu_peers: failed: " + ", ".join(run.failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
