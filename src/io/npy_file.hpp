// SPDX-License-Identifier: Apache-2.0
// npy files as block sources (load_npy: each block reads only its region) and sinks (save_npy:
// each block written at its offsets into a file published when complete).
#pragma once

#include "io/atomic_file.hpp"
#include "io/npy_header.hpp"

#include <chunked/graph/block_io.hpp>

#include <memory>
#include <string>

namespace chunked::io {

/// The values of an npy file, read block by block with positioned reads.
class NpySource final : public graph::BlockSource {
public:
  /// Opens `path` and reads its header; chunked::Error naming it when it is missing, not npy, or
  /// shorter than its header says.
  explicit NpySource(const std::string& path);

  const NpyHeader& header() const { return header_; }
  std::string describe() const override;
  void read(const std::vector<index_t>& block, const std::vector<index_t>& lo,
            const std::vector<index_t>& extent, void* out) const override;

private:
  /// Reads the box (`lo`, `extent`) of a C-order array of `shape` stored from the data offset
  /// into `out` (C order of extent): one read per run of consecutive elements.
  void read_box(const std::vector<index_t>& shape, const std::vector<index_t>& lo,
                const std::vector<index_t>& extent, void* out) const;

  std::string path_;
  FileHandle file_;
  NpyHeader header_;
};

/// Writes an array's blocks into a new npy file (C order, little-endian) beside `path`, renamed
/// over it by commit(); destroyed uncommitted, it removes the new file and leaves `path` as it was.
class NpySink final : public graph::BlockSink {
public:
  /// Creates the file's temporary form beside `path`, sized, with its header.
  NpySink(const std::string& path, DType dtype, const Shape& shape);
  /// Writes into the temporary file `temp` that another process created for `path` with the same
  /// dtype and shape (AtomicFile's joining constructor).
  NpySink(const std::string& path, const std::string& temp, DType dtype, const Shape& shape,
          const std::string& what);
  void write(const std::vector<index_t>& block, const std::vector<index_t>& lo,
             const std::vector<index_t>& extent, const void* data) override;
  void commit() { file_.commit(); }
  /// The temporary file's path.
  const std::string& temp() const { return file_.temp(); }

private:
  AtomicFile file_;
  DType dtype_;
  std::vector<index_t> shape_;
  std::uint64_t data_offset_;
};

} // namespace chunked::io
