// SPDX-License-Identifier: Apache-2.0
// Positioned file I/O over POSIX descriptors.
#include "io/file_io.hpp"

#include <chunked/core/error.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace chunked::io {

void throw_errno(const std::string& what, const std::string& path) {
  throw Error(what + " '" + path + "': " + std::strerror(errno));
}

FileHandle::FileHandle(FileHandle&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

FileHandle& FileHandle::operator=(FileHandle&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

FileHandle::~FileHandle() { close(); }

void FileHandle::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

std::uint64_t FileHandle::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    throw_errno("cannot stat", path_);
  return static_cast<std::uint64_t>(st.st_size);
}

void FileHandle::read_at(void* out, std::size_t size, std::uint64_t offset) const {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw_errno("cannot read", path_);
    if (n == 0)
      throw Error("'" + path_ + "' is truncated: it ends at byte " + std::to_string(offset) +
                  ", before the " + std::to_string(size) + " bytes still to read there");
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void FileHandle::write_at(const void* data, std::size_t size, std::uint64_t offset) const {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw_errno("cannot write", path_);
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void FileHandle::sync() const {
  if (::fdatasync(fd_) != 0)
    throw_errno("cannot flush", path_);
}

FileHandle open_for_reading(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw_errno("cannot open", path);
  return {fd, path};
}

FileHandle open_if_exists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno != ENOENT)
    throw_errno("cannot open", path);
  return {fd, path};
}

std::optional<std::string> read_whole_file(const std::string& path) {
  const FileHandle f = open_if_exists(path);
  if (f.fd() < 0)
    return std::nullopt;
  std::string out(f.size(), '\0');
  f.read_at(out.data(), out.size(), 0);
  return out;
}

std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(static_cast<std::uint64_t>(now) % 1000000007);
}

} // namespace chunked::io
