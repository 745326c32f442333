// SPDX-License-Identifier: Apache-2.0
// ZarrOptions checked and turned into the metadata of the store to_zarr writes.
#pragma once

#include "io/zarr_meta.hpp"

#include <chunked/storage.hpp>

#include <string>

namespace chunked::detail {

/// The metadata of a store of `dtype`, `shape` and `chunks` written with `zarr`. ValueError naming
/// `path` for an unknown version or compressor, a level out of the codec's range, a bad
/// separator, blosc setting, attributes text or dimension names; chunked::Error when this build
/// lacks the compressor's library.
io::ZarrMeta zarr_meta_for(const ZarrOptions& zarr, DType dtype, const Shape& shape,
                           const std::vector<index_t>& chunks, const std::string& path);

} // namespace chunked::detail
