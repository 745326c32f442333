// SPDX-License-Identifier: Apache-2.0
// The C++ half of the storage test against NumPy, Zarr-Python and Dask (interop.py drives it).
//   interop read DIR    reads every array DIR/manifest.txt lists (npy files and Zarr stores that
//                       Python wrote) and compares it bit for bit with its expected values
//   interop write DIR   writes npy files and Zarr stores of every dtype and compressor into DIR,
//                       with their expected values and a manifest, for Python to check
//   interop write3 DIR  the same with Zarr v3 stores (for TensorStore, tensorstore_v3.py)
// Manifest lines: `npy|zarr <path> <dtype> <ndim> <extent>... <expected .bin path>`, paths
// relative to DIR; a .bin holds the values in C order, little-endian.
#include <chunked/chunked.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace chunked;

struct Entry {
  std::string kind, path, dtype, expected;
  std::vector<index_t> shape;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <class F> auto with_dtype(const std::string& name, F f) {
  if (name == "float64")
    return f(double{});
  if (name == "float32")
    return f(float{});
  if (name == "int64")
    return f(std::int64_t{});
  if (name == "int32")
    return f(std::int32_t{});
  if (name == "bool")
    return f(bool{});
  throw std::runtime_error("unknown dtype " + name);
}

/// A chunking of about three elements per axis: ragged edges wherever an extent is not a multiple.
Chunks ragged_chunks(const std::vector<index_t>& shape) {
  return Chunks(std::vector<index_t>(shape.size(), 3));
}

bool check(const std::string& dir, const Entry& e) {
  return with_dtype(e.dtype, [&](auto t) {
    using T = decltype(t);
    const std::string path = dir + "/" + e.path;
    NDArray<T> got;
    if (e.kind == "npy")
      got = load_npy<T>(path, ragged_chunks(e.shape)).compute();
    else
      got = from_zarr<T>(path).compute();
    const std::string want = read_file(dir + "/" + e.expected);
    const bool same_shape = got.shape() == Shape(e.shape);
    const bool same = same_shape &&
                      want.size() == static_cast<std::size_t>(got.size()) * sizeof(T) &&
                      std::memcmp(want.data(), got.data(), want.size()) == 0;
    if (!same)
      std::cerr << "MISMATCH " << e.path << ": shape " << got.shape().to_string() << "\n";
    return same;
  });
}

int read_mode(const std::string& dir) {
  std::ifstream manifest(dir + "/manifest.txt");
  std::string line;
  int checked = 0, failed = 0;
  while (std::getline(manifest, line)) {
    std::istringstream in(line);
    Entry e;
    index_t nd = 0;
    in >> e.kind >> e.path >> e.dtype >> nd;
    e.shape.resize(static_cast<std::size_t>(nd));
    for (auto& x : e.shape)
      in >> x;
    in >> e.expected;
    try {
      failed += check(dir, e) ? 0 : 1;
    } catch (const std::exception& ex) {
      std::cerr << "ERROR " << e.path << ": " << ex.what() << "\n";
      ++failed;
    }
    ++checked;
  }
  std::cout << "interop read: " << checked << " arrays checked, " << failed << " failed\n";
  return failed == 0 && checked > 0 ? 0 : 1;
}

/// Element i of the arrays this program writes.
template <class T> T value(index_t i) {
  if constexpr (std::is_same_v<T, bool>)
    return i % 3 == 0;
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>((static_cast<double>(i) - 10.0) * 0.25);
  else if constexpr (sizeof(T) == 8)
    return static_cast<T>(i * 1000000007LL - 5);
  else
    return static_cast<T>(i * 7 - 20);
}

class Writer {
public:
  Writer(std::string dir, int version)
      : dir_(std::move(dir)), manifest_(dir_ + "/manifest.txt"), version_(version) {}

  template <class T> void all_of_dtype(const std::string& dtype) {
    const Shape shape{7, 5};
    NDArray<T> host{shape};
    for (index_t i = 0; i < 35; ++i)
      host.data()[i] = value<T>(i);
    const auto x = from_host(host, Chunks{3, 2});
    const std::string bin = dtype + ".bin";
    std::ofstream(dir_ + "/" + bin, std::ios::binary)
        .write(reinterpret_cast<const char*>(host.data()),
               static_cast<std::streamsize>(static_cast<std::size_t>(host.size()) * sizeof(T)));
    if (version_ == 2) {
      save_npy(dir_ + "/" + dtype + ".npy", x);
      add("npy", dtype + ".npy", dtype, shape, bin);
    }
    for (const char* compressor : {"none", "zstd", "gzip", "blosc"}) {
      if (!zarr_compressor_available(compressor))
        continue;
      const std::string name = dtype + "_" + compressor + ".zarr";
      to_zarr(dir_ + "/" + name, x,
              {.version = version_, .compressor = compressor, .fill_value = 9});
      add("zarr", name, dtype, shape, bin);
    }
    if (!zarr_compressor_available("blosc"))
      return;
    const std::string slash = dtype + "_slash_bitshuffle.zarr";
    to_zarr(dir_ + "/" + slash, x,
            {.version = version_,
             .compressor = "blosc",
             .dimension_separator = version_ == 2 ? "/" : ".",
             .blosc_cname = "zstd",
             .blosc_shuffle = 2,
             .attributes = R"({"written_by": "chunked"})"});
    add("zarr", slash, dtype, shape, bin);
  }

  void zero_dimensional() {
    const auto s = from_host(std::vector<double>{2.5}, Shape{}, Chunks{});
    save_npy(dir_ + "/scalar.npy", s);
    const double v = 2.5;
    std::ofstream(dir_ + "/scalar.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(&v), sizeof v);
    add("npy", "scalar.npy", "float64", Shape{}, "scalar.bin");
  }

private:
  void add(const std::string& kind, const std::string& path, const std::string& dtype,
           const Shape& shape, const std::string& bin) {
    manifest_ << kind << " " << path << " " << dtype << " " << shape.ndim();
    for (index_t i = 0; i < shape.ndim(); ++i)
      manifest_ << " " << shape[i];
    manifest_ << " " << bin << "\n";
  }

  std::string dir_;
  std::ofstream manifest_;
  int version_;
};

int write_mode(const std::string& dir, int version) {
  Writer w(dir, version);
  w.all_of_dtype<double>("float64");
  w.all_of_dtype<float>("float32");
  w.all_of_dtype<std::int64_t>("int64");
  w.all_of_dtype<std::int32_t>("int32");
  w.all_of_dtype<bool>("bool");
  if (version == 2)
    w.zero_dimensional();
  std::cout << "interop write: done\n";
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (argc != 3 && std::string_view(argv[1]) != "codecs")) {
    std::cerr << "usage: interop read|write|write3 DIR | interop codecs NAME...\n";
    return 2;
  }
  try {
    const std::string mode = argv[1];
    if (mode == "codecs") { // which of the compressors named this build has, one a line
      for (int i = 2; i < argc; ++i)
        if (zarr_compressor_available(argv[i]))
          std::cout << argv[i] << "\n";
      return 0;
    }
    if (mode == "read")
      return read_mode(argv[2]);
    return write_mode(argv[2], mode == "write3" ? 3 : 2);
  } catch (const std::exception& e) {
    std::cerr << "interop: " << e.what() << "\n";
    return 1;
  }
}
