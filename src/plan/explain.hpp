// SPDX-License-Identifier: Apache-2.0
// A plan in words and as a graph: the text of ChunkedArray::explain() and the Graphviz of
// ChunkedArray::to_dot(), made from the plan a computation would run.
#pragma once

#include "plan/plan.hpp"

#include <string>
#include <string_view>

namespace chunked::plan {

/// explain()'s text for `plan`, planned for `backend` (its words: "the Cpu backend"): the
/// requested arrays, each program with its leaves (named by the API that made them, with the
/// views pushed into them spelt as slices), operations and sink, the other stages, the
/// intermediates stored and why, tasks by kind and the bytes read and written. Deterministic: no
/// addresses.
std::string explain(const Plan& plan, std::string_view backend);

/// The plan as a Graphviz digraph: a node per stage (a program's tasks, a reduction's combines,
/// the gathers of one array, ...) and per stored array read, edges labelled with the number of
/// reads between them; aggregated, so its size does not grow with the number of blocks.
std::string to_dot(const Plan& plan);

} // namespace chunked::plan
