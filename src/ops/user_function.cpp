// SPDX-License-Identifier: Apache-2.0
// ops::make_user_function: a user function's checks and its kernel-cache key.
#include <chunked/core/error.hpp>
#include <chunked/ops/user_function.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

namespace chunked::ops {

namespace {

bool is_identifier(std::string_view s) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !letter(s[0]))
    return false;
  for (char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9'))
      return false;
  return true;
}

/// 64-bit FNV-1a: a key needs to tell bodies apart, not to resist an adversary.
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325u) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3u;
  }
  return h;
}

} // namespace

UserFunction make_user_function(std::string name, std::string cuda_body, DType result,
                                std::vector<DType> params,
                                std::function<void(void*, const void* const*, index_t)> cpu) {
  if (!is_identifier(name))
    throw ValueError("ElementwiseFunction: the name \"" + name +
                     "\" is not an identifier (letters, digits and _, not starting with a digit)");
  if (params.empty() || params.size() > static_cast<std::size_t>(max_user_function_args))
    throw ValueError(fmt::format("ElementwiseFunction {}: {} parameters; expected 1 to {}", name,
                                 params.size(), max_user_function_args));
  if (cuda_body.empty() && !cpu)
    throw ValueError("ElementwiseFunction " + name + ": neither a CUDA body nor a CPU function");
  UserFunction f;
  std::string types = std::string(dtype_name(result));
  for (DType p : params)
    types += "," + std::string(dtype_name(p));
  f.key = fmt::format("{}#{:016x}", name, fnv1a(cuda_body, fnv1a(types)));
  f.name = std::move(name);
  f.cuda_body = std::move(cuda_body);
  f.result = result;
  f.params = std::move(params);
  f.cpu = std::move(cpu);
  return f;
}

} // namespace chunked::ops
