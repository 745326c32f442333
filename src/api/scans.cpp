// SPDX-License-Identifier: Apache-2.0
// Scans as graph nodes: the input cast to the accumulation dtype, then a scan node.
#include <chunked/scans.hpp>

#include <string>

namespace chunked::detail {

graph::NodePtr scan(const graph::NodePtr& node, graph::ScanParams::Op op, index_t axis) {
  const char* what = graph::scan_op_name(op);
  graph::ScanParams p;
  p.op = op;
  try {
    p.axis = normalize_axis(axis, node->shape.ndim());
  } catch (const IndexError& e) {
    throw IndexError(std::string(what) + ": " + e.what());
  }
  // bool, int32 and int64 accumulate in int64; the cast fuses into the program that computes
  // the scan's input.
  const DType acc = is_floating(node->dtype) ? node->dtype : DType::int64;
  return graph::make_scan(graph::cast(node, acc), p);
}

} // namespace chunked::detail
