// SPDX-License-Identifier: Apache-2.0
// Work too large for memory is refused as chunked::OutOfMemory (an absurd thread count as
// ValueError) naming what was asked, before it is allocated where it can be, and the runtime
// stays usable afterwards.
#include "core/memory_budget.hpp"
#include "support/errors.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHUNKED_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHUNKED_TEST_SANITIZED 1
#endif
#endif

namespace {

using namespace chunked;
using A = ChunkedArray<double, Cpu>;

using chunked::test::expect_error;

/// A small computation that must still work after a refused one.
void expect_runtime_usable() {
  const A x = arange<double, Cpu>(0.0, 10.0, 1.0, 3);
  EXPECT_EQ(x.sum().item(), 45.0);
}

TEST(MemoryLimits, AbsurdThreadCountIsAValueError) {
  ComputeOptions o;
  o.num_threads = 30000;
  const A x = zeros<double, Cpu>(Shape{8}, Chunks{4});
  expect_error<ValueError>([&] { (void)x.compute(o); },
                           {"num_threads", "30000", std::to_string(max_num_threads)});
  expect_error<ValueError>([&] { (void)x.sum().item(o); }, {"num_threads", "30000"});
  o.num_threads = max_num_threads; // allowed; a run never starts more workers than it has tasks
  EXPECT_EQ(x.sum().item(o), 0.0);
  expect_runtime_usable();
}

// A trillion blocks would be a trillion tasks: planning refuses them before making any.
TEST(MemoryLimits, TrillionBlockReductionIsRefusedWhenPlanned) {
  const A x = zeros<double, Cpu>(Shape{1000000, 1000000}, Chunks{1, 1});
  expect_error<OutOfMemory>(
      [&] { (void)x.sum().item(); },
      {"(1000000, 1000000)", "1000000000000 blocks", "tasks", "larger chunks"});
  EXPECT_EQ(x(slice(0, 2), slice(0, 3)).sum().item(), 0.0) << "six blocks plan as ever";
  expect_runtime_usable();
}

// An axis of 10^11 blocks needs more than a terabyte to record their lengths and offsets.
TEST(MemoryLimits, GridOfTooManyBlocksIsRefusedWhenMade) {
  expect_error<OutOfMemory>(
      [] { (void)zeros<double, Cpu>(Shape{100000000000}, Chunks{1}); },
      {"100000000000 blocks along axis 0", "(100000000000,)", "chunk length 1", "larger chunks"});
  expect_runtime_usable();
}

TEST(MemoryLimits, BookkeepingBudgetIsHalfOfUsableMemory) {
  const std::uint64_t budget = usable_memory_bytes() / 2;
  EXPECT_LE(usable_memory_bytes(), physical_memory_bytes());
  EXPECT_TRUE(detail::bookkeeping_fits(budget / 16, 16));
  EXPECT_FALSE(detail::bookkeeping_fits(budget / 16 + 1, 16));
  EXPECT_FALSE(detail::bookkeeping_fits(~std::uint64_t{0}, 2)) << "no overflow";
  expect_error<OutOfMemory>(
      [] { detail::throw_bookkeeping_too_large(~std::uint64_t{0}, 2, "it", "records", "advice"); },
      {"it needs", "records of 2 bytes", "over 2^64", "advice"});
}

#if defined(__unix__) && !defined(CHUNKED_TEST_SANITIZED)

/// The process's address space in use now, from /proc/self/statm (pages).
std::uint64_t address_space_in_use() {
  unsigned long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1)
      pages = 0;
    std::fclose(f);
  }
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

/// Codes of what the child below found wrong.
enum ChildResult : int {
  child_ok = 0,
  no_limit = 1,
  no_refusal = 2,
  wrong_error = 3,
  not_usable = 4,
  no_thread_error = 5,
};

/// Under an address-space limit, planning more than fits, running out while planning, and starting
/// threads that do not fit are each an OutOfMemory; small computations work after every one.
int limited_child() {
  const std::uint64_t limit = address_space_in_use() + (std::uint64_t{768} << 20);
  const rlimit rl{limit, limit};
  if (::setrlimit(RLIMIT_AS, &rl) != 0)
    return no_limit;
  auto refused = [](auto&& f) -> int {
    try {
      f();
      return no_refusal;
    } catch (const OutOfMemory&) {
      return child_ok;
    } catch (...) {
      return wrong_error;
    }
  };
  auto usable = [] {
    const A x = arange<double, Cpu>(0.0, 10.0, 1.0, 3);
    ComputeOptions one;
    one.num_threads = 1;
    return x.sum().item(one) == 45.0;
  };
  // The task budget (half of the limit) refuses 16 million blocks at planning.
  const A big = zeros<double, Cpu>(Shape{4000, 4000}, Chunks{1, 1});
  if (const int r = refused([&] { (void)big.sum().item(); }); r != child_ok)
    return r;
  if (!usable())
    return not_usable;
  // With all but a little of the address space taken, planning runs out under the budget, and
  // worker threads find no room for their stacks.
  std::vector<std::pair<void*, std::size_t>> taken;
  taken.reserve(1 << 16);
  for (std::size_t size : {std::size_t{8} << 20, std::size_t{64} << 10})
    while (taken.size() < taken.capacity())
      if (void* p = std::malloc(size))
        taken.emplace_back(p, size);
      else
        break;
  // 24 MiB back: room for a small plan, not for 200 000 blocks' tasks nor 64 threads' stacks.
  for (std::size_t freed = 0; freed < (std::size_t{24} << 20) && !taken.empty(); taken.pop_back()) {
    std::free(taken.back().first);
    freed += taken.back().second;
  }
  // 200 000 blocks: within the budget, but not within what is left.
  const A wide = zeros<double, Cpu>(Shape{200, 1000}, Chunks{1, 1});
  int result = refused([&] { (void)wide.sum().item(); });
  ComputeOptions many;
  many.num_threads = 64;
  const A blocks = zeros<double, Cpu>(Shape{64 * 64}, Chunks{64});
  const int threads = refused([&] { (void)(blocks + 1.0).sum().item(many); });
  for (const auto& [p, size] : taken)
    std::free(p);
  if (result != child_ok)
    return result;
  if (threads != child_ok)
    return threads == no_refusal ? no_thread_error : threads;
  return usable() ? child_ok : not_usable;
}

// In a process of its own (the threadsafe style runs the test binary again), whose address space
// holds nothing from the tests before.
TEST(MemoryLimits, AddressSpaceLimitGivesOutOfMemoryAndLeavesTheRuntimeUsable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(limited_child()), ::testing::ExitedWithCode(child_ok), "")
      << "1: no limit set, 2: nothing refused, 3: not OutOfMemory, 4: unusable afterwards, "
         "5: threads started regardless";
}

#endif

} // namespace
