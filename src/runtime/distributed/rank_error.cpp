// SPDX-License-Identifier: Apache-2.0
// RankError (rank_error.hpp).
#include "runtime/distributed/rank_error.hpp"

#include <chunked/core/error.hpp>
#include <chunked/runtime/cluster.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

namespace chunked::runtime {

RankError RankError::of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ShapeError& e) {
    return {Kind::shape, e.what()};
  } catch (const IndexError& e) {
    return {Kind::index, e.what()};
  } catch (const ValueError& e) {
    return {Kind::value, e.what()};
  } catch (const BackendError& e) {
    return {Kind::backend, e.what()};
  } catch (const OutOfMemory& e) {
    return {Kind::out_of_memory, e.what()};
  } catch (const Error& e) {
    return {Kind::error, e.what()};
  } catch (const std::exception& e) {
    return {Kind::other, e.what()};
  } catch (...) {
    return {Kind::other, "an exception that is not a std::exception"};
  }
}

std::string RankError::encode() const { return static_cast<char>(kind) + message; }

RankError RankError::decode(const char* data, std::size_t bytes) {
  if (bytes == 0)
    return {Kind::error, "(no message)"};
  const auto kind = static_cast<Kind>(data[0]);
  return {kind <= Kind::other ? kind : Kind::error, std::string(data + 1, bytes - 1)};
}

void RankError::raise(const std::string& cluster, int rank) const {
  const std::string what = cluster + " rank " + std::to_string(rank) + " failed: " + message;
  switch (kind) {
  case Kind::shape:
    throw ShapeError(what);
  case Kind::index:
    throw IndexError(what);
  case Kind::value:
    throw ValueError(what);
  case Kind::backend:
    throw BackendError(what);
  case Kind::out_of_memory:
    throw OutOfMemory(what);
  case Kind::error:
  case Kind::other:
    break;
  }
  throw Error(what);
}

void RankErrorRecord::set(const std::exception_ptr& error) {
  failed = error ? 1 : 0;
  bytes = 0;
  if (!error)
    return;
  const std::string encoded = RankError::of(error).encode();
  bytes = static_cast<std::uint32_t>(std::min(encoded.size(), sizeof(text)));
  std::memcpy(text, encoded.data(), bytes);
}

void raise_if_any_failed(const RankErrorRecord* all, std::size_t size,
                         const std::exception_ptr& mine, const Cluster& cluster) {
  for (std::size_t r = 0; r < size; ++r) {
    if (all[r].failed == 0)
      continue;
    if (mine)
      std::rethrow_exception(mine);
    RankError::decode(all[r].text, all[r].bytes).raise(cluster.name(), static_cast<int>(r));
  }
}

void agree_on_outcome(Cluster& cluster, const std::exception_ptr& error) {
  RankErrorRecord mine;
  mine.set(error);
  std::vector<RankErrorRecord> all(static_cast<std::size_t>(cluster.size()));
  cluster.allgather(&mine, sizeof(RankErrorRecord), all.data());
  raise_if_any_failed(all.data(), all.size(), error, cluster);
}

} // namespace chunked::runtime
