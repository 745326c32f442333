// SPDX-License-Identifier: Apache-2.0
// Products of blocks (matmul, dot, tensordot): per output block, a chain of product tasks, one
// per block of the contracted axes in C order, each adding its term into the buffer of the one
// before. The chain fixes the order of the additions by the chunk grid alone, and a block's sum
// lives in one buffer however many terms it has.
//
// Operand blocks already in memory (stored, loaded, reduced, ...) are read where they are. An
// operand computed by a program (random numbers, elementwise operations, views, casts, rechunks,
// copies of borrowed memory) is computed into the block each term reads, once per term: a block of
// a is read by every block of the result along b's free axes, and keeping them all would hold the
// whole operand, while computing one again costs a pass over one block against the term's product
// of blocks. So that a chain cannot run ahead of its terms, term t's operand programs wait for term
// t - 2: each chain holds the operands of two terms, one being multiplied while the next is
// computed.
#include "planner.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace chunked::plan {

ProductShape product_shape(const Plan& plan, const Task& task) {
  const ProductTerm& term = plan.product_terms[task.index];
  const ProductStage& st = plan.products[term.stage];
  const graph::ContractParams& p = st.axes;
  const std::vector<index_t> a =
      st.a_grid.block_shape(st.a_grid.block_index(term.a_block)).extents();
  const std::vector<index_t> b =
      st.b_grid.block_shape(st.b_grid.block_index(term.b_block)).extents();
  ProductShape s;
  auto product = [](const std::vector<index_t>& e, index_t from, index_t count) {
    index_t r = 1;
    for (index_t k = from; k < from + count; ++k)
      r *= e[static_cast<std::size_t>(k)];
    return r;
  };
  s.batch = product(a, 0, p.batch);
  s.m = product(a, p.batch, p.m);
  s.k = product(a, p.batch + p.m, p.k);
  s.n = product(b, p.batch + p.k, p.n);
  s.accumulate = task.inputs_end - task.inputs_begin == 3;
  return s;
}

namespace detail {

bool Planner::computed_per_term(const graph::Node& operand) const {
  // Borrowed memory (from_host_view, from_device) is read in place by a copy program: kept as
  // blocks, its copies would hold the whole operand as a computed one would.
  return !is_materialized(&operand, forced_) || graph::is_borrowed(operand);
}

Body Planner::contract_reads(const graph::Node& n) {
  Body reads;
  for (const graph::NodePtr& in : n.inputs) {
    if (!computed_per_term(*in)) {
      reads.stored.push_back(StoredLeafInfo{-1, in, {}});
      continue;
    }
    Body program = lower_root(in);
    reads.stored.insert(reads.stored.end(), program.stored.begin(), program.stored.end());
  }
  return reads;
}

std::vector<InputRef> Planner::plan_contract(const graph::Node& n) {
  const auto& p = n.as<graph::ContractParams>();
  const graph::Node& a = *n.inputs[0];
  const graph::Node& b = *n.inputs[1];
  const std::vector<index_t> a_per_axis = a.grid.blocks_per_axis();
  // The blocks of the contracted axes, in C order: each one term of every output block.
  std::vector<index_t> k_blocks(a_per_axis.begin() + p.batch + p.m, a_per_axis.end());
  index_t terms = 1;
  for (index_t c : k_blocks)
    terms *= c;
  expect_tasks(n, n.grid, static_cast<std::uint64_t>(terms) * 3);
  // Per operand, the stage of its program (-1: its blocks are in memory); one for both in a @ a.
  std::array<std::int64_t, 2> program{-1, -1};
  for (std::size_t j = 0; j < 2; ++j) {
    const graph::NodePtr& in = n.inputs[j];
    if (j == 1 && in == n.inputs[0])
      program[1] = program[0];
    else if (computed_per_term(*in)) {
      Body body = lower_root(in);
      materialize_reads(body); // planned by contract_reads, unless a later request forced more
      body.prog.sink.kind = Sink::Kind::store;
      program[j] = add_stage(std::move(body), in->grid);
    }
  }
  plan.products.push_back(ProductStage{n.dtype, n.grid, a.grid, b.grid, p});
  const auto stage = static_cast<std::uint32_t>(plan.products.size() - 1);
  std::vector<TaskId> chain; // the product tasks of the current output block
  // Operand j's block `number` for term t: where it is, or computed by a new program task.
  auto operand = [&](std::size_t j, index_t number, index_t t) {
    const graph::Node& x = *n.inputs[j];
    if (program[j] < 0)
      return block_ref(x, number);
    const Output out{Output::Kind::buffer, x.dtype,
                     x.grid.block_shape(x.grid.block_index(number)).size(), -1};
    const TaskId id = add_program_task(static_cast<std::uint32_t>(program[j]), number, out);
    if (t >= 2) {
      std::vector<TaskId>& deps = plan.deps[id];
      deps.insert(
          std::upper_bound(deps.begin(), deps.end(), chain[static_cast<std::size_t>(t - 2)]),
          chain[static_cast<std::size_t>(t - 2)]);
    }
    return InputRef{InputRef::Kind::task, id, nullptr};
  };

  std::vector<InputRef> refs;
  std::vector<index_t> ai(static_cast<std::size_t>(a.shape.ndim()));
  std::vector<index_t> bi(static_cast<std::size_t>(b.shape.ndim()));
  std::vector<index_t> ki(k_blocks.size());
  const auto nb = static_cast<std::size_t>(p.batch), nm = static_cast<std::size_t>(p.m);
  const auto nk = static_cast<std::size_t>(p.k), nn = static_cast<std::size_t>(p.n);
  for (index_t o = 0; o < n.grid.numblocks(); ++o) {
    const std::vector<index_t> oi = n.grid.block_index(o);
    const index_t elements = n.grid.block_shape(oi).size();
    std::copy(oi.begin(), oi.begin() + static_cast<std::ptrdiff_t>(nb + nm), ai.begin());
    std::copy(oi.begin(), oi.begin() + static_cast<std::ptrdiff_t>(nb), bi.begin());
    std::copy(oi.end() - static_cast<std::ptrdiff_t>(nn), oi.end(),
              bi.begin() + static_cast<std::ptrdiff_t>(nb + nk));
    std::fill(ki.begin(), ki.end(), 0);
    chain.clear();
    InputRef previous{};
    for (index_t t = 0; t < terms; ++t) {
      std::copy(ki.begin(), ki.end(), ai.begin() + static_cast<std::ptrdiff_t>(nb + nm));
      std::copy(ki.begin(), ki.end(), bi.begin() + static_cast<std::ptrdiff_t>(nb));
      const index_t an = a.grid.block_number(ai), bn = b.grid.block_number(bi);
      plan.product_terms.push_back(ProductTerm{stage, an, bn});
      std::vector<TaskId> deps;
      // The operands first: a program task computing one adds its own inputs to the list.
      const InputRef ra = operand(0, an, t), rb = operand(1, bn, t);
      const auto begin = static_cast<std::uint32_t>(plan.inputs.size());
      auto read = [&](const InputRef& ref) {
        plan.inputs.push_back(TaskInput{ref, -1, {}, {}});
        if (ref.kind == InputRef::Kind::task)
          deps.push_back(ref.task);
      };
      read(ra);
      read(rb);
      if (t > 0)
        read(previous);
      const auto end = static_cast<std::uint32_t>(plan.inputs.size());
      const auto term = static_cast<std::uint32_t>(plan.product_terms.size() - 1);
      const TaskId id = add_task(Task{TaskKind::product, term, o, begin, end,
                                      Output{Output::Kind::buffer, n.dtype, elements, -1}},
                                 std::move(deps));
      previous = InputRef{InputRef::Kind::task, id, nullptr};
      chain.push_back(id);
      // The next block of the contracted axes, in C order.
      for (std::size_t k = ki.size(); k-- > 0;) {
        if (++ki[k] < k_blocks[k])
          break;
        ki[k] = 0;
      }
    }
    refs.push_back(previous);
  }
  return refs;
}

} // namespace detail

} // namespace chunked::plan
