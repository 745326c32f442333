// SPDX-License-Identifier: Apache-2.0
// A CUDA program that uses chunked as a user's .cu file does: the umbrella header and the fmt
// formatters, a kernel of its own, and computations on Cpu and Auto. Exits non-zero on a wrong
// value.
#include <chunked/chunked.hpp>
#include <chunked/format.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

__global__ void add_one(double* data, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    data[i] += 1.0;
}

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "nvcc consumer: %s\n", what.c_str());
    ++failures;
  }
}

/// 1 + 2 + ... + 100 through a lazy expression with a slice and a reduction.
template <class B> void compute_on() {
  const auto x = chunked::arange<double, B>(0.0, 100.0, 1.0, 7) + 1.0;
  const double sum = x.sum().item();
  expect(sum == 5050.0, "sum gave " + std::to_string(sum) + ", expected 5050");
  const double evens = x(chunked::slice(chunked::none, chunked::none, 2)).sum().item();
  expect(evens == 2500.0, "sum of x[::2] gave " + std::to_string(evens) + ", expected 2500");
}

/// The program's own kernel, where a device is visible.
void run_kernel() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("nvcc consumer: no CUDA device visible; kernel skipped\n");
    return;
  }
  std::vector<double> host{1.0, 2.0, 3.0};
  double* data = nullptr;
  const std::size_t bytes = host.size() * sizeof(double);
  expect(cudaMalloc(&data, bytes) == cudaSuccess, "cudaMalloc failed");
  cudaMemcpy(data, host.data(), bytes, cudaMemcpyHostToDevice);
  add_one<<<1, 32>>>(data, static_cast<int>(host.size()));
  cudaMemcpy(host.data(), data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(data);
  const auto back = chunked::from_host(host, chunked::Shape{3}, chunked::Chunks{2});
  expect(back.sum().item() == 9.0, "the kernel's output did not sum to 9");
}

} // namespace

int main() {
  compute_on<chunked::Cpu>();
  compute_on<chunked::Auto>();
  run_kernel();
  const auto z = chunked::zeros<float>(chunked::Shape{4, 6}, chunked::Chunks{2, 4});
  const std::string shape = fmt::format("{}", z.shape());
  expect(shape == chunked::Shape{4, 6}.to_string(), "Shape formatted as " + shape);
  const std::string summary = fmt::format("{}", z);
  expect(summary.find("ChunkedArray<float32, Cpu>") == 0, "ChunkedArray formatted as " + summary);
  if (failures == 0)
    std::printf("nvcc consumer: ok (%s)\n", summary.c_str());
  return failures == 0 ? 0 : 1;
}
