// SPDX-License-Identifier: Apache-2.0
// Calling a user block function on one block (user_call.hpp).
#include "runtime/user_call.hpp"

#include <chunked/core/error.hpp>

#include <exception>

namespace chunked::runtime {

std::string block_label(const std::vector<index_t>& block) {
  std::string s = "(";
  for (std::size_t k = 0; k < block.size(); ++k)
    s += (k ? ", " : "") + std::to_string(block[k]);
  return s + (block.size() == 1 ? ",)" : ")");
}

void call_user(const plan::UserStage& u, const BlockInfo& info, const chunked::detail::RawView& out,
               const std::vector<chunked::detail::RawView>& in) {
  try {
    u.fn->call(info, out, in);
  } catch (const std::exception& e) {
    // The block is named so that a failure on one block among thousands can be reproduced.
    throw Error(u.fn->name + ": the user function raised on block " + block_label(info.block) +
                ": " + e.what());
  }
}

} // namespace chunked::runtime
