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
  /// Opens the temporary file `temp` that another process created for `target` (the ranks of a
  /// cluster writing one file), to write into it: that process removes or commits it, this one
  /// never does. chunked::Error naming it when it cannot be opened (`what` says why it should
  /// exist).
  AtomicFile(std::string target, std::string temp, const std::string& what);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() published it or another process owns it.
  ~AtomicFile();

  /// The temporary file's path.
  const std::string& temp() const { return temp_; }
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
  bool owned_ = true;
};

/// Writes `bytes` to `path` atomically (an AtomicFile of one write).
void write_file_atomically(const std::string& path, std::string_view bytes);

} // namespace chunked::io
