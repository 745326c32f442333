// SPDX-License-Identifier: Apache-2.0
// NumPy basic indexing (integers and slices) as view nodes.
#include <chunked/array.hpp>

#include <string>

namespace chunked::detail {

graph::NodePtr index_view(const graph::NodePtr& node, const std::vector<IndexArg>& args) {
  const index_t nd = node->shape.ndim();
  if (static_cast<index_t>(args.size()) > nd)
    throw IndexError("too many indices: the array has rank " + std::to_string(nd) + " but " +
                     std::to_string(args.size()) + " were given");
  graph::ViewParams v;
  v.fixed.assign(static_cast<std::size_t>(nd), -1);
  bool identity = true;
  for (index_t d = 0; d < nd; ++d) {
    const index_t n = node->shape.extents()[d];
    if (d < static_cast<index_t>(args.size()) && std::holds_alternative<index_t>(args[d])) {
      const index_t given = std::get<index_t>(args[d]);
      const index_t i = given < 0 ? given + n : given;
      if (i < 0 || i >= n)
        throw IndexError("index " + std::to_string(given) + " is out of bounds for axis " +
                         std::to_string(d) + " with size " + std::to_string(n));
      v.fixed[d] = i;
      identity = false;
      continue;
    }
    const Slice s = d < static_cast<index_t>(args.size()) ? std::get<Slice>(args[d]) : all;
    const SliceRange r = s.apply(n);
    identity = identity && r.start == 0 && r.step == 1 && r.length == n;
    v.length.push_back(r.length);
    v.source.push_back(static_cast<int>(d));
    v.start.push_back(r.start);
    v.step.push_back(r.step);
  }
  if (identity)
    return node;
  return graph::make_view(node, std::move(v));
}

} // namespace chunked::detail
