// SPDX-License-Identifier: Apache-2.0
// RankError (rank_error.hpp).
#include "runtime/distributed/rank_error.hpp"

#include <chunked/core/error.hpp>

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

} // namespace chunked::runtime
