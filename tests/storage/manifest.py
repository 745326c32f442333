# SPDX-License-Identifier: Apache-2.0
"""What the storage tests share: the test values, and the manifest that tells the C++ program
(interop.cpp) which arrays to read and where their expected values are."""
import argparse
import os
import shutil
import subprocess

import numpy as np

DTYPES = ["<f8", ">f8", "<f4", ">f4", "<i8", ">i8", "<i4", ">i4", "|b1"]
NAMES = {"f8": "float64", "f4": "float32", "i8": "int64", "i4": "int32", "b1": "bool"}


def values(shape, dtype):
    n = int(np.prod(shape))
    i = np.arange(n)
    kind = np.dtype(dtype).kind
    if kind == "b":
        v = i % 3 == 1
    elif kind == "f":
        v = (i - 7) * 0.375
    else:
        v = i * 13 - 40
    return v.astype(dtype).reshape(shape)


class Manifest:
    def __init__(self, root):
        self.root = root
        self.lines = []

    def add(self, kind, name, expected):
        """Records an array and writes its expected values (C order, little-endian)."""
        bin_name = name.replace("/", "_") + ".bin"
        native = np.ascontiguousarray(expected).astype(expected.dtype.newbyteorder("<"))
        native.tofile(os.path.join(self.root, bin_name))
        dtype = NAMES[expected.dtype.str[1:]]
        shape = " ".join(str(e) for e in expected.shape)
        self.lines.append(f"{kind} {name} {dtype} {expected.ndim} {shape} {bin_name}".replace("  ", " "))

    def save(self):
        with open(os.path.join(self.root, "manifest.txt"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def read_manifest(root):
    """Yields (kind, name, expected array) for each line of root/manifest.txt."""
    with open(os.path.join(root, "manifest.txt")) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            kind, name, dtype, nd = parts[0], parts[1], parts[2], int(parts[3])
            shape = tuple(int(e) for e in parts[4:4 + nd])
            want = np.fromfile(os.path.join(root, parts[4 + nd]),
                               dtype=np.dtype(dtype).newbyteorder("<"))
            yield kind, name, want.reshape(shape)


def built_compressors(program, compressors):
    """The entries of `compressors` (test name: value) whose codec the chunked program was built
    with: a test name's first word ("blosc_lz4": blosc) is the compressor chunked is asked for.
    Prints those skipped, since each codec is optional at configure time."""
    wanted = sorted({name.split("_")[0] for name in compressors})
    out = subprocess.run([program, "codecs", *wanted], check=True, capture_output=True, text=True)
    built = set(out.stdout.split())
    skipped = sorted(set(wanted) - built)
    if skipped:
        print(f"skipped: compressors this build of chunked lacks: {', '.join(skipped)}")
    return {name: c for name, c in compressors.items() if name.split("_")[0] in built}


def round_trip(title, clients, write_mode, write, check):
    """The storage tests' main: parses --program and --work-dir, has `write(dir, manifest,
    compressors)` write the clients' files and chunked read them (`program read`), then has
    chunked write its own (`program write_mode`) and `check(dir, entries)` read those, returning
    the failures. Returns the exit status."""
    p = argparse.ArgumentParser()
    p.add_argument("--program", required=True)
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    work = os.path.join(args.work_dir, title.replace(" ", "_"))
    shutil.rmtree(work, ignore_errors=True)
    theirs, ours = os.path.join(work, "clients"), os.path.join(work, "chunked")
    os.makedirs(theirs)
    os.makedirs(ours)
    print(f"{title}: {clients}")
    m = Manifest(theirs)
    write(theirs, m, lambda compressors: built_compressors(args.program, compressors))
    m.save()
    if subprocess.call([args.program, "read", theirs]) != 0:
        print(f"{title}: chunked could not read what the clients wrote")
        return 1
    if subprocess.call([args.program, write_mode, ours]) != 0:
        print(f"{title}: chunked could not write")
        return 1
    entries = list(read_manifest(ours))
    failures = check(ours, entries)
    print(f"{title}: {len(entries)} arrays written by chunked read by the clients")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0
