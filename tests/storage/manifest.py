# SPDX-License-Identifier: Apache-2.0
"""What the storage tests share: the test values, and the manifest that tells the C++ program
(interop.cpp) which arrays to read and where their expected values are."""
import os

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
