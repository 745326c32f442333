// SPDX-License-Identifier: Apache-2.0
// plan_fingerprint (fingerprint.hpp).
#include "runtime/distributed/fingerprint.hpp"

#include <cstring>
#include <type_traits>

namespace chunked::runtime {

namespace {

/// A 64-bit multiply-xorshift hash of the values fed to it, in order.
class Hasher {
public:
  void word(std::uint64_t w) {
    h_ = (h_ ^ w) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 29;
  }
  template <class T> void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
    std::uint64_t w = 0;
    std::memcpy(&w, &v, sizeof(T));
    word(w);
  }
  void text(std::string_view s) {
    word(s.size());
    for (std::size_t i = 0; i < s.size(); i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, std::min<std::size_t>(8, s.size() - i));
      word(w);
    }
  }
  void map(const plan::AffineMap& m) {
    value(m.base);
    for (index_t c : m.coef)
      value(c);
  }
  void grid(const ChunkGrid& g) {
    value(g.ndim());
    for (index_t k = 0; k < g.ndim(); ++k) {
      value(g.lengths(k).size());
      for (index_t n : g.lengths(k))
        value(n);
    }
  }
  void shape(const Shape& s) {
    value(s.ndim());
    for (index_t k = 0; k < s.ndim(); ++k)
      value(s[k]);
  }
  void scalar(const plan::Scalar& s) {
    value(s.i);
    value(s.f);
  }
  void program(const plan::BlockProgram& p) {
    value(p.ndim);
    for (index_t e : p.extent)
      value(e);
    value(p.leaves.size());
    for (const plan::Leaf& leaf : p.leaves) {
      value(leaf.kind);
      value(leaf.dtype);
      map(leaf.map);
      scalar(leaf.a);
      scalar(leaf.b);
      value(leaf.seed);
      value(leaf.stream);
      value(leaf.input);
    }
    value(p.instrs.size());
    for (const plan::Instr& in : p.instrs) {
      value(in.op);
      value(in.dtype);
      for (auto a : in.args)
        value(a);
      value(in.call);
      value(in.call_arity);
    }
    value(p.functions.size());
    value(p.sink.kind);
    map(p.sink.map);
    value(p.sink.op);
    value(p.sink.reduced_axes);
    value(p.sink.num_partials);
    map(p.sink.index_map);
  }
  void ref(const plan::InputRef& r) {
    value(r.kind);
    value(r.kind == plan::InputRef::Kind::task ? std::uint64_t{r.task} : r.stored->bytes());
  }
  std::uint64_t result() const { return h_; }

private:
  std::uint64_t h_ = 0xCBF29CE484222325ull;
};

void hash_stages(Hasher& h, const plan::Plan& plan) {
  h.value(plan.stages.size());
  for (const plan::Stage& s : plan.stages) {
    h.program(s.program);
    h.grid(s.grid);
    h.value(s.cut);
  }
  h.value(plan.gathers.size());
  for (const auto& pieces : plan.gathers) {
    h.value(pieces.size());
    for (const plan::GatherPiece& piece : pieces) {
      h.ref(piece.source);
      h.program(piece.program);
    }
  }
  for (const plan::Combine& c : plan.combines) {
    h.value(c.op);
    h.value(c.result);
    h.value(c.input);
    h.value(c.count);
    h.value(c.ddof);
  }
  for (const plan::ScanStage& s : plan.scans) {
    h.value(s.op);
    h.value(s.axis);
    h.value(s.dtype);
    h.grid(s.grid);
  }
  for (const plan::UserStage& u : plan.users) {
    h.grid(u.grid);
    h.grid(u.input_grid);
    for (index_t d : u.depth)
      h.value(d);
    h.value(u.dtype);
  }
  for (const plan::LoadStage& l : plan.loads) {
    h.grid(l.grid);
    h.value(l.dtype);
  }
  for (const plan::WriteStage& w : plan.writes) {
    h.grid(w.grid);
    h.value(w.dtype);
  }
  for (const plan::ProductStage& p : plan.products) {
    h.value(p.dtype);
    h.grid(p.grid);
    h.grid(p.a_grid);
    h.grid(p.b_grid);
    h.value(p.axes.batch);
    h.value(p.axes.m);
    h.value(p.axes.k);
    h.value(p.axes.n);
  }
  for (const plan::ProductTerm& t : plan.product_terms) {
    h.value(t.stage);
    h.value(t.a_block);
    h.value(t.b_block);
  }
  for (const plan::Destination& d : plan.destinations) {
    h.value(d.dtype);
    h.shape(d.shape);
  }
}

} // namespace

std::uint64_t plan_fingerprint(const plan::Plan& plan, std::string_view backend) {
  Hasher h;
  h.text(backend);
  hash_stages(h, plan);
  h.value(plan.tasks.size());
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    h.value(task.kind);
    h.value(task.index);
    h.value(task.block);
    h.value(task.output.kind);
    h.value(task.output.dtype);
    h.value(task.output.elements);
    h.value(task.output.destination);
    h.value(task.output.owner);
    h.value(plan.deps[t].size());
    for (plan::TaskId d : plan.deps[t])
      h.value(d);
  }
  h.value(plan.inputs.size());
  for (const plan::TaskInput& in : plan.inputs) {
    h.ref(in.ref);
    h.value(in.leaf);
    h.map(in.map);
  }
  h.value(plan.combine_inputs.size());
  for (const plan::InputRef& r : plan.combine_inputs)
    h.ref(r);
  for (const auto& blocks : plan.result_blocks)
    for (plan::TaskId id : blocks)
      h.value(id);
  return h.result();
}

} // namespace chunked::runtime
