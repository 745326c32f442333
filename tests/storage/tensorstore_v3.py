# SPDX-License-Identifier: Apache-2.0
"""Zarr v3 against TensorStore: TensorStore writes v3 stores (every dtype, each compressor,
ragged edge chunks, fill values, chunks it leaves out because they hold only the fill value, both
chunk key encodings) that chunked reads bit for bit (`interop read`), and reads exactly the v3
stores chunked writes (`interop write3`).

Usage: tensorstore_v3.py --program PATH --work-dir DIR (PATH: the chunked_storage_interop
program). Exit 77 (skipped) where `import tensorstore` fails; the GPU machine has it.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest import DTYPES, round_trip, values  # noqa: E402

try:
    import tensorstore as ts
except ImportError as e:
    print(f"tensorstore v3: skipped: {e}")
    sys.exit(77)

V3_NAMES = {"f8": "float64", "f4": "float32", "i8": "int64", "i4": "int32", "b1": "bool"}
COMPRESSORS = {
    "none": [],
    "zstd": [{"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
    "zstd_checksum": [{"name": "zstd", "configuration": {"level": 1, "checksum": True}}],
    "gzip": [{"name": "gzip", "configuration": {"level": 5}}],
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                 "shuffle": "shuffle", "blocksize": 0}}],
    "blosc_zstd_bit": [{"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3,
                                                          "shuffle": "bitshuffle",
                                                          "blocksize": 0}}],
}


def open_v3(path, **metadata):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}
    if metadata:
        spec.update({"metadata": metadata, "create": True, "delete_existing": True})
    return ts.open(spec).result()


def write_stores(root, m, compressors):
    for cname, compressor in compressors.items():
        for dtype in DTYPES:
            tag = dtype.replace("<", "le").replace(">", "be").replace("|", "")
            name = f"ts_{cname}_{tag}.zarr"
            endian = "big" if dtype[0] == ">" else "little"
            bytes_codec = {"name": "bytes"} if dtype == "|b1" else {
                "name": "bytes", "configuration": {"endian": endian}}
            fill = False if dtype == "|b1" else 5
            t = open_v3(os.path.join(root, name), shape=[7, 5], data_type=V3_NAMES[dtype[1:]],
                        chunk_grid={"name": "regular", "configuration": {"chunk_shape": [3, 2]}},
                        chunk_key_encoding={"name": "default"}, fill_value=fill,
                        codecs=[bytes_codec] + compressor)
            a = values((7, 5), dtype).astype(np.dtype(dtype).newbyteorder("="))
            a[:3, :2] = fill  # a chunk of fill values only: TensorStore does not store it
            t.write(a).result()
            m.add("zarr", name, t.read().result())
    for key_encoding in [{"name": "v2", "configuration": {"separator": "."}},
                         {"name": "default", "configuration": {"separator": "."}}]:
        name = f"ts_keys_{key_encoding['name']}.zarr"
        t = open_v3(os.path.join(root, name), shape=[9, 4], data_type="float64",
                    chunk_grid={"name": "regular", "configuration": {"chunk_shape": [4, 3]}},
                    chunk_key_encoding=key_encoding, fill_value="NaN",
                    codecs=[{"name": "bytes", "configuration": {"endian": "little"}}])
        t[1:5, :2].write(np.full((4, 2), 1.5)).result()
        m.add("zarr", name, t.read().result())


def check_chunked_outputs(root, entries):
    failures = []
    for kind, name, want in entries:
        got = open_v3(os.path.join(root, name)).read().result()
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            failures.append(f"{name}: got {got.dtype} {got.shape}, want {want.dtype} {want.shape}")
    return failures


def main():
    return round_trip("tensorstore v3", f"TensorStore {getattr(ts, '__version__', '?')}",
                      "write3", lambda root, m, built: write_stores(root, m, built(COMPRESSORS)),
                      check_chunked_outputs)


if __name__ == "__main__":
    sys.exit(main())
