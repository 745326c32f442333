// SPDX-License-Identifier: Apache-2.0
// The spill manager: host memory of persisted blocks bounded by moving the least recently used to
// files, and back when a task reads them.
#include "runtime/spill.hpp"

#include "core/memory_counters.hpp"
#include "runtime/log_message.hpp"
#include <chunked/core/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace chunked::runtime {

namespace {

std::string io_error(const std::string& what, const std::string& path) {
  return what + " \"" + path + "\": " + std::strerror(errno);
}

/// Writes `bytes` from `data` to a new file at `path`; a partial file is removed on failure.
void write_file(const std::string& path, const void* data, std::size_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    throw Error(io_error("cannot create the spill file", path));
  const bool written = bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    const std::string message = io_error("cannot write the spill file", path);
    std::remove(path.c_str());
    throw Error(message);
  }
}

void read_file(const std::string& path, void* data, std::size_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    throw Error(io_error("cannot open the spill file", path));
  const bool read = bytes == 0 || std::fread(data, 1, bytes, f) == bytes;
  std::fclose(f);
  if (!read)
    throw Error("the spill file \"" + path + "\" is shorter than its block's " +
                std::to_string(bytes) + " bytes");
}

} // namespace

std::string spill_directory(const std::string& requested) {
  std::error_code ec;
  const std::filesystem::path dir = requested.empty() ? std::filesystem::temp_directory_path(ec)
                                                      : std::filesystem::path(requested);
  if (ec)
    throw Error("no temporary directory for spill files: " + ec.message() +
                "; set ComputeOptions::spill_directory");
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error("cannot create the spill directory \"" + dir.string() +
                "\": " + (ec ? ec.message() : std::string("not a directory")));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(io_error("cannot write to the spill directory", dir.string()));
  return dir.string();
}

SpillableBuffer::SpillableBuffer(std::shared_ptr<Buffer> resident, std::string directory,
                                 HostAllocator allocate)
    : Buffer(resident->data(), resident->bytes(), resident->space()),
      resident_(std::move(resident)), directory_(std::move(directory)),
      allocate_(std::move(allocate)) {
  SpillManager::instance().add(*this);
}

SpillableBuffer::~SpillableBuffer() { SpillManager::instance().remove(*this); }

std::shared_ptr<Buffer> SpillableBuffer::resident() const {
  std::lock_guard lock(SpillManager::instance().mutex_);
  return resident_;
}

SpillManager& SpillManager::instance() {
  static auto* manager = new SpillManager; // never destroyed: blocks may be freed during exit
  return *manager;
}

void SpillManager::set_limit(std::size_t bytes) {
  Lock lock(mutex_);
  limit_ = bytes;
  if (limit_ != 0)
    evict_to(lock, limit_);
}

std::size_t SpillManager::limit() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

std::size_t SpillManager::resident_bytes() const {
  std::lock_guard lock(mutex_);
  return resident_;
}

void SpillManager::list(SpillableBuffer& block) {
  block.lru_ = lru_.insert(lru_.end(), &block);
  block.listed_ = true;
}

void SpillManager::unlist(SpillableBuffer& block) {
  if (block.listed_)
    lru_.erase(block.lru_);
  block.listed_ = false;
}

void SpillManager::settle(Lock& lock, const SpillableBuffer& block) {
  using Where = SpillableBuffer::Where;
  moved_.wait(lock, [&] { return block.where_ == Where::memory || block.where_ == Where::file; });
}

void SpillManager::add(SpillableBuffer& block) {
  Lock lock(mutex_);
  resident_ += block.bytes();
  list(block);
  if (limit_ == 0)
    return;
  try {
    evict_to(lock, limit_);
  } catch (...) {
    // The constructor fails, so no destructor will unregister the block.
    settle(lock, block);
    unlist(block);
    if (block.resident_)
      resident_ -= block.bytes();
    if (!block.file_.empty()) {
      std::remove(block.file_.c_str());
      detail::count_memory(detail::MemoryKind::spilled, -static_cast<std::int64_t>(block.bytes()));
    }
    throw;
  }
}

void SpillManager::remove(SpillableBuffer& block) noexcept {
  Lock lock(mutex_);
  settle(lock, block); // another thread may be writing it out
  unlist(block);
  if (block.resident_)
    resident_ -= block.bytes();
  if (!block.file_.empty()) {
    std::remove(block.file_.c_str());
    detail::count_memory(detail::MemoryKind::spilled, -static_cast<std::int64_t>(block.bytes()));
  }
}

void SpillManager::evict_to(Lock& lock, std::size_t target) {
  while (resident_ - leaving_ > target && !lru_.empty())
    spill(lock, *lru_.front());
}

void SpillManager::spill(Lock& lock, SpillableBuffer& block) {
  using Where = SpillableBuffer::Where;
  unlist(block);
  block.where_ = Where::writing;
  leaving_ += block.bytes();
  std::filesystem::path dir(block.directory_);
  const std::string path = (dir / ("chunked-spill-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(next_file_++) + ".bin"))
                               .string();
  // Unpinned, the block is neither written by a task nor freed (remove() settles first): its
  // bytes stay put while they are copied out.
  const void* data = block.resident_->data();
  lock.unlock();
  std::exception_ptr error;
  try {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec); // it may have been removed since persist()
    write_file(path, data, block.bytes());
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  leaving_ -= block.bytes();
  if (error || block.pins_ > 0) {
    // Not written, or a task pinned it meanwhile: it stays in memory.
    if (!error)
      std::remove(path.c_str());
    block.where_ = Where::memory;
    if (block.pins_ == 0)
      list(block);
  } else {
    if (runtime::logging(LogLevel::debug))
      runtime::log(LogLevel::debug,
                   "spilled a block of " + std::to_string(block.bytes()) + " bytes to " + path);
    block.file_ = path;
    detail::count_memory(detail::MemoryKind::spilled, static_cast<std::int64_t>(block.bytes()));
    block.resident_.reset();
    block.rebind(nullptr);
    resident_ -= block.bytes();
    block.where_ = Where::file;
  }
  moved_.notify_all();
  if (error)
    std::rethrow_exception(error);
}

void SpillManager::load(Lock& lock, SpillableBuffer& block) {
  using Where = SpillableBuffer::Where;
  const std::string path = block.file_;
  lock.unlock();
  std::shared_ptr<Buffer> buffer;
  std::exception_ptr error;
  try {
    buffer = block.allocate_(block.bytes());
    read_file(path, buffer->data(), block.bytes());
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error) {
    block.where_ = Where::file;
    moved_.notify_all();
    std::rethrow_exception(error);
  }
  std::remove(path.c_str());
  if (runtime::logging(LogLevel::debug))
    runtime::log(LogLevel::debug, "read a spilled block of " + std::to_string(block.bytes()) +
                                      " bytes back from " + path);
  block.file_.clear();
  detail::count_memory(detail::MemoryKind::spilled, -static_cast<std::int64_t>(block.bytes()));
  block.rebind(buffer->data());
  block.resident_ = std::move(buffer);
  resident_ += block.bytes();
  block.where_ = Where::memory;
  moved_.notify_all();
}

void SpillManager::pin(std::span<SpillableBuffer* const> blocks) {
  using Where = SpillableBuffer::Where;
  Lock lock(mutex_);
  std::size_t needed = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (std::find(blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(i), blocks[i]) ==
        blocks.begin() + static_cast<std::ptrdiff_t>(i))
      needed += blocks[i]->bytes();
  if (limit_ != 0 && needed > limit_)
    throw OutOfMemory("a task reads " + std::to_string(needed) +
                      " bytes of persisted blocks at once, more than host_memory_limit (" +
                      std::to_string(limit_) +
                      " bytes); raise the limit or persist with smaller chunks");
  // Pinned blocks leave the list first, so that making room for one never spills another.
  for (SpillableBuffer* b : blocks)
    if (b->pins_++ == 0)
      unlist(*b);
  try {
    for (SpillableBuffer* b : blocks) {
      settle(lock, *b); // a write out ends with the block in memory, now that it is pinned
      if (b->where_ == Where::memory)
        continue;
      b->where_ = Where::reading;
      try {
        if (limit_ != 0)
          evict_to(lock, limit_ > b->bytes() ? limit_ - b->bytes() : 0);
      } catch (...) {
        b->where_ = Where::file;
        moved_.notify_all();
        throw;
      }
      load(lock, *b);
    }
  } catch (...) {
    for (SpillableBuffer* b : blocks)
      if (--b->pins_ == 0 && b->where_ == Where::memory)
        list(*b);
    throw;
  }
}

void SpillManager::unpin(std::span<SpillableBuffer* const> blocks) noexcept {
  Lock lock(mutex_);
  for (SpillableBuffer* b : blocks)
    if (--b->pins_ == 0 && b->where_ == SpillableBuffer::Where::memory)
      list(*b);
  if (limit_ == 0)
    return;
  try {
    evict_to(lock, limit_);
  } catch (const std::exception& e) {
    // Blocks that cannot be written stay in memory, over the limit, and readable; the next pin()
    // or persist() tries again.
    runtime::log(LogLevel::warn, std::string("a persisted block could not be spilled and stays in "
                                             "memory, over host_memory_limit: ") +
                                     e.what());
  } catch (...) { // NOLINT(bugprone-empty-catch): as above, with nothing to say
  }
}

SpillPin::SpillPin(std::vector<SpillableBuffer*> blocks) : blocks_(std::move(blocks)) {
  if (!blocks_.empty())
    SpillManager::instance().pin(blocks_);
}

SpillPin::~SpillPin() {
  if (!blocks_.empty())
    SpillManager::instance().unpin(blocks_);
}

} // namespace chunked::runtime
