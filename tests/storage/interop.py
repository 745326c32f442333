# SPDX-License-Identifier: Apache-2.0
"""The storage test against NumPy, Zarr-Python (v2) and Dask.

1. Python writes npy files (every dtype, both orders, both byte orders, format versions 1.0-3.0)
   and Zarr v2 stores (each compressor, ragged edge chunks, fill values, missing chunks, both
   separators, big-endian, order F), with their values as .bin files and a manifest;
2. `interop read` reads them with chunked and compares bit for bit;
3. `interop write` writes npy files and Zarr stores of every dtype and compressor;
4. Python reads those with NumPy, Zarr-Python and dask.array.from_zarr and compares exactly.

Usage: interop.py --program PATH --work-dir DIR. Exit 77 (skip) without zarr or dask.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import dask
    import dask.array as da
    import numcodecs
    import zarr
except ImportError as e:  # pragma: no cover
    print(f"storage interop: skipped: {e} (scripts/setup installs python3-zarr and python3-dask)")
    sys.exit(77)

from manifest import DTYPES, round_trip, values


def write_npy(root, m):
    for dtype in DTYPES:
        for order in "CF":
            a = np.asarray(values((5, 4), dtype), order=order)
            tag = dtype.replace("<", "le").replace(">", "be").replace("|", "")
            name = f"py_{tag}_{order}.npy"
            np.save(os.path.join(root, name), a)
            m.add("npy", name, a)
    for version in [(1, 0), (2, 0), (3, 0)]:
        a = values((3, 7), "<f8")
        name = f"py_v{version[0]}.npy"
        with open(os.path.join(root, name), "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        m.add("npy", name, a)
    for shape in [(), (0,), (6,), (2, 3, 4)]:
        a = values(shape, "<i4")
        name = f"py_shape{len(shape)}_{int(np.prod(shape))}.npy"
        np.save(os.path.join(root, name), a)
        m.add("npy", name, a)


COMPRESSORS = {
    "none": None,
    "zstd": numcodecs.Zstd(level=3),
    "gzip": numcodecs.GZip(level=5),
    "blosc_lz4": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
    "blosc_zstd_bit": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE),
    "blosc_noshuffle": numcodecs.Blosc(cname="lz4", clevel=1, shuffle=numcodecs.Blosc.NOSHUFFLE),
    "zlib": numcodecs.Zlib(level=4),
}


def write_zarr(root, m, compressors):
    for cname, compressor in compressors.items():
        for dtype in DTYPES:
            tag = dtype.replace("<", "le").replace(">", "be").replace("|", "")
            name = f"py_{cname}_{tag}.zarr"
            fill = False if dtype == "|b1" else 5
            z = zarr.open(os.path.join(root, name), mode="w", shape=(7, 5), chunks=(3, 2),
                          dtype=dtype, compressor=compressor, fill_value=fill)
            z[:] = values((7, 5), dtype)
            m.add("zarr", name, z[:])
    # Missing chunks read as the fill value: NaN, Infinity, an integer; "/" separators; order F.
    # These take Zarr-Python's default compressor (blosc) where chunked has it, else none.
    default = {} if "blosc_lz4" in compressors else {"compressor": None}
    for fill, tag in [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "ninf")]:
        name = f"py_fill_{tag}.zarr"
        z = zarr.open(os.path.join(root, name), mode="w", shape=(9, 4), chunks=(4, 3),
                      dtype="<f8", fill_value=fill, dimension_separator="/", **default)
        z[1:5, :2] = 1.5
        m.add("zarr", name, z[:])
    name = "py_order_f.zarr"
    z = zarr.open(os.path.join(root, name), mode="w", shape=(6, 5), chunks=(4, 4), dtype=">i8",
                  order="F", fill_value=-3, **default)
    z[:, :3] = values((6, 3), ">i8")
    m.add("zarr", name, z[:])
    name = "py_scalar.zarr"
    z = zarr.open(os.path.join(root, name), mode="w", shape=(), dtype="<f4", **default)
    z[...] = 4.25
    m.add("zarr", name, z[...])
    name = "py_empty.zarr"
    z = zarr.open(os.path.join(root, name), mode="w", shape=(0, 3), chunks=(2, 2), dtype="<f8",
                  **default)
    m.add("zarr", name, z[:])


def check_chunked_outputs(root, entries):
    """Reads what chunked wrote with NumPy, Zarr-Python and Dask; returns the failures."""
    failures = []
    for kind, name, want in entries:
        nd, shape = want.ndim, want.shape
        path = os.path.join(root, name)
        got = np.load(path) if kind == "npy" else zarr.open(path, mode="r")[...]
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            failures.append(f"{name}: got {got.dtype} {got.shape}, want {want.dtype} {shape}")
        if kind == "zarr" and nd > 0:
            if not np.array_equal(da.from_zarr(path).compute(), want):
                failures.append(f"{name}: dask.array.from_zarr differs")
    return failures


def write_all(root, m, built):
    write_npy(root, m)
    write_zarr(root, m, built(COMPRESSORS))


def main():
    clients = (f"NumPy {np.__version__}, Zarr-Python {zarr.__version__}, "
               f"numcodecs {numcodecs.__version__}, Dask {dask.__version__}")
    return round_trip("storage interop", clients, "write", write_all, check_chunked_outputs)


if __name__ == "__main__":
    sys.exit(main())
