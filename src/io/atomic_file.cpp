// SPDX-License-Identifier: Apache-2.0
// Atomic file publication by rename.
#include "io/atomic_file.hpp"

#include <chunked/core/error.hpp>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace chunked::io {

AtomicFile::AtomicFile(std::string target)
    : target_(std::move(target)), temp_(target_ + "." + unique_suffix() + ".partial") {
  const int fd = ::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw_errno("cannot create", temp_);
  file_ = FileHandle(fd, temp_);
}

AtomicFile::AtomicFile(std::string target, std::string temp, const std::string& what)
    : target_(std::move(target)), temp_(std::move(temp)), owned_(false) {
  const int fd = ::open(temp_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    throw_errno("cannot open " + what, temp_);
  file_ = FileHandle(fd, temp_);
}

AtomicFile::~AtomicFile() {
  if (!committed_ && owned_) {
    file_.close();
    std::remove(temp_.c_str());
  }
}

void AtomicFile::resize(std::uint64_t size) const {
  if (::ftruncate(file_.fd(), static_cast<off_t>(size)) != 0)
    throw_errno("cannot size", temp_);
}

void AtomicFile::commit() {
  // No fsync: the rename makes the file appear whole to readers and after a process crash, which
  // is the promise; flushing every chunk to the device would cost a write's speed for power loss.
  if (!owned_)
    throw Error("'" + temp_ + "' is committed by the process that created it");
  file_.close();
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw_errno("cannot rename '" + temp_ + "' to", target_);
  committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFile f(path);
  f.file().write_at(bytes.data(), bytes.size(), 0);
  f.commit();
}

} // namespace chunked::io
