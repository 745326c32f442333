// SPDX-License-Identifier: Apache-2.0
// The scratch pool of chunk bytes: a buffer given back serves the next chunk that fits in it,
// the smallest that fits first; buffers too large to keep are not kept.
#include "io/scratch.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using chunked::io::Scratch;

TEST(IoScratch, AGivenBackBufferServesTheNextChunkThatFits) {
  const char* first = nullptr;
  {
    const Scratch a(3 << 20);
    std::memset(a.data(), 1, 3 << 20); // writable over its whole size
    first = a.data();
  }
  const Scratch b(2 << 20); // smaller: the kept buffer serves it
  EXPECT_EQ(b.data(), first);
  const Scratch c(2 << 20); // the kept one is taken: a new one
  EXPECT_NE(c.data(), first);
}

TEST(IoScratch, TheSmallestBufferThatFitsIsTaken) {
  const char *small = nullptr, *large = nullptr;
  {
    const Scratch s(5 << 20);
    const Scratch l(9 << 20);
    small = s.data();
    large = l.data();
  }
  {
    const Scratch want(4 << 20);
    EXPECT_EQ(want.data(), small);
    const Scratch more(6 << 20);
    EXPECT_EQ(more.data(), large);
  }
}

TEST(IoScratch, BuffersOverTheKeptSizeAreNotKept) {
  const std::size_t before = Scratch::kept_bytes();
  {
    const Scratch h(std::size_t{300} << 20);
    h.data()[(std::size_t{300} << 20) - 1] = 1;
  }
  EXPECT_EQ(Scratch::kept_bytes(), before);
  // One of 200 MiB is kept (smaller ones may make room for it), and taken again.
  constexpr std::size_t mib200 = std::size_t{200} << 20;
  { const Scratch k(mib200); }
  const std::size_t kept = Scratch::kept_bytes();
  EXPECT_GE(kept, mib200);
  const Scratch again(mib200);
  EXPECT_EQ(Scratch::kept_bytes(), kept - mib200);
}

TEST(IoScratch, ZeroBytesIsAValidBuffer) {
  const Scratch z(0);
  EXPECT_NE(z.data(), nullptr);
}

} // namespace
