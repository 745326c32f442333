// SPDX-License-Identifier: Apache-2.0
// The fixed combine tree of a reduction (planner internals): its shape depends only on the
// number of partials, so the order of operations, and so the result, does not depend on how
// the tasks run.
#pragma once

#include <chunked/core/types.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace chunked::plan::detail {

/// Partials combined per task; fixed, so the combine tree depends only on the block count.
inline constexpr std::size_t combine_fanin = 8;

/// Builds the combine tree over partials [0, members): `partial(m)` makes partial m, and
/// `combine(parts, root)` a combine of `parts` (ids that `partial` and `combine` returned, in
/// member order), `root` for the tree's root only; returns the root's id. A range of at most
/// `fanin` members is one combine of its partials; a larger one is cut into consecutive ranges
/// of the greatest power of `fanin` below its size, each a subtree. Depth-first, so each
/// combine follows its inputs closely and few partials are alive at once. fanin >= 2; with no
/// members, the root combines no partials.
template <class Partial, class CombineFn>
auto build_combine_tree(index_t members, index_t fanin, Partial&& partial, CombineFn&& combine) {
  using Id = decltype(partial(index_t{0}));
  auto build = [&](auto&& self, index_t lo, index_t hi, bool root) -> Id {
    std::vector<Id> parts;
    if (hi - lo <= fanin) {
      for (index_t m = lo; m < hi; ++m)
        parts.push_back(partial(m));
    } else {
      index_t step = fanin;
      while (step * fanin < hi - lo)
        step *= fanin;
      for (index_t m = lo; m < hi; m += step)
        parts.push_back(self(self, m, std::min(hi, m + step), false));
    }
    return combine(parts, root);
  };
  return build(build, index_t{0}, members, true);
}

} // namespace chunked::plan::detail
