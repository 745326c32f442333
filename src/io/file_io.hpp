// SPDX-License-Identifier: Apache-2.0
// Positioned reads and writes of whole byte ranges, with errors that name the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace chunked::io {

/// An open file descriptor, closed when destroyed.
class FileHandle {
public:
  FileHandle() = default;
  FileHandle(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  FileHandle(FileHandle&& other) noexcept;
  FileHandle& operator=(FileHandle&& other) noexcept;
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  ~FileHandle();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  /// The file's size in bytes.
  std::uint64_t size() const;
  /// Reads exactly `size` bytes at `offset`; chunked::Error naming the file when it ends first.
  void read_at(void* out, std::size_t size, std::uint64_t offset) const;
  /// Writes all `size` bytes at `offset`.
  void write_at(const void* data, std::size_t size, std::uint64_t offset) const;
  /// Flushes the data to the device (before a rename publishes the file).
  void sync() const;
  void close();

private:
  int fd_ = -1;
  std::string path_;
};

/// Opens an existing file for reading; chunked::Error naming it when it cannot.
FileHandle open_for_reading(const std::string& path);
/// Opens `path` for reading, or returns a closed handle (fd() < 0) when it does not exist;
/// chunked::Error naming it on other failures.
FileHandle open_if_exists(const std::string& path);
/// The whole contents of a file, or nothing when it does not exist; chunked::Error naming it on
/// other failures.
std::optional<std::string> read_whole_file(const std::string& path);

/// chunked::Error "<what> '<path>': <strerror(errno)>".
[[noreturn]] void throw_errno(const std::string& what, const std::string& path);

/// A name no other writer uses at the same time: process id, a counter and the clock, for
/// temporary files beside their targets.
std::string unique_suffix();

} // namespace chunked::io
