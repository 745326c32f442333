// SPDX-License-Identifier: Apache-2.0
// A consumer of the installed or embedded library: builds a small lazy program and checks its
// value.
#include <chunked/chunked.hpp>

#include <cstdio>
#include <cstring>

int main() {
  // 4 x 5 ones in ragged 2 x 2 chunks: three blocks per row, the last one a single column wide.
  const double sum =
      chunked::ones<double>(chunked::Shape{4, 5}, chunked::Chunks{2, 2}).sum().item();
  if (sum != 20.0) {
    std::fprintf(stderr, "ones(4x5).sum() gave %g, expected 20\n", sum);
    return 1;
  }
  const double zero =
      chunked::zeros<double>(chunked::Shape{4, 5}, chunked::Chunks{2, 2}).sum().item();
  if (zero != 0.0) {
    std::fprintf(stderr, "zeros(4x5).sum() gave %g, expected 0\n", zero);
    return 1;
  }
  // Headers and library must come from the same release.
  if (std::strcmp(chunked::version_string(), CHUNKED_VERSION_STRING) != 0) {
    std::fprintf(stderr, "library version %s, headers version %s\n", chunked::version_string(),
                 CHUNKED_VERSION_STRING);
    return 1;
  }
  std::printf("chunked %s consumer: ok\n", chunked::version_string());
  return 0;
}
