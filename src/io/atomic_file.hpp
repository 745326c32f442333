// SPDX-License-Identifier: Apache-2.0
// A file published atomically: written as `<name>.<unique>.partial` beside its target, renamed
// over it when complete, removed when not. Readers see the old file or the new one, never a part.
#pragma once

#include "io/file_io.hpp"

#include <string>
#include <string_view>

namespace chunked::io {

class AtomicFile {
public:
  /// Creates the temporary file beside `target`; chunked::Error naming it when it cannot.
  explicit AtomicFile(std::string target);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() published it.
  ~AtomicFile();

  /// The open temporary file, for positioned writes (several threads may write at once).
  const FileHandle& file() const { return file_; }
  /// Sets the file's size (sparse until written).
  void resize(std::uint64_t size) const;
  /// Closes and renames the temporary file over the target.
  void commit();

private:
  std::string target_;
  std::string temp_;
  FileHandle file_;
  bool committed_ = false;
};

/// Writes `bytes` to `path` atomically (an AtomicFile of one write).
void write_file_atomically(const std::string& path, std::string_view bytes);

} // namespace chunked::io
