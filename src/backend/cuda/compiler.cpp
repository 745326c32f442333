// SPDX-License-Identifier: Apache-2.0
// NVRTC compilation, the one module cache, and driver-API launches (reached through the runtime's
// entry-point query, so the library needs no link-time dependency on libcuda).
#include "backend/cuda/compiler.hpp"
#include "backend/cuda/gpu_trace.hpp"
#include "runtime/log_message.hpp"
#include "runtime/trace.hpp"
#include <chunked/config.hpp>

#include <fmt/format.h>
#include <nvrtc.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <unistd.h>
#include <vector>

#if __has_include("chunked_embedded_cuda_kernel_headers.hpp")
#include "chunked_embedded_cuda_kernel_headers.hpp"
#include "chunked_embedded_cuda_kernel_private_headers.hpp"
#define CHUNKED_HAVE_EMBEDDED_KERNEL_HEADERS 1
#else
#define CHUNKED_HAVE_EMBEDDED_KERNEL_HEADERS 0
#endif

namespace chunked::cuda {

namespace {

// ---- Driver entry points -------------------------------------------------------------------

struct Driver {
  CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
};

template <class F> void entry_point(const char* name, F& out) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found),
        "cudaGetDriverEntryPointByVersion", -1, name);
  if (found != cudaDriverEntryPointSuccess || !p)
    throw BackendError(fmt::format("Cuda backend: the driver has no entry point {}", name));
  out = reinterpret_cast<F>(p);
}

const Driver& driver() {
  // Leaked, as the module cache: background compiles may use it until their threads end at exit.
  static const Driver& d = *new Driver([] {
    Driver r;
    entry_point("cuModuleLoadData", r.module_load_data);
    entry_point("cuModuleGetFunction", r.module_get_function);
    entry_point("cuLaunchKernel", r.launch_kernel);
    entry_point("cuGetErrorName", r.get_error_name);
    return r;
  }());
  return d;
}

void check_driver(CUresult status, const char* call, int device, const std::string& what) {
  if (status == CUDA_SUCCESS)
    return;
  const char* name = nullptr;
  if (driver().get_error_name)
    driver().get_error_name(status, &name);
  const std::string message = fmt::format("Cuda backend: {} failed on device {} {}: {}", call,
                                          device, what, name ? name : "unknown error");
  if (status == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemory(message);
  throw BackendError(message);
}

// ---- Headers the generated source includes -------------------------------------------------

/// The include folder of chunked's public headers for NVRTC when they are not embedded:
/// $CHUNKED_INCLUDE_DIR, else the source tree this file was compiled from.
std::string include_root() {
  if (const char* env = std::getenv("CHUNKED_INCLUDE_DIR"))
    return env;
  const std::string file = __FILE__;
  return file.substr(0, file.rfind("src/backend/cuda/")) + "include";
}

/// The folder of the private headers that kernels include (src/ of the source tree).
std::string private_root() {
  const std::string file = __FILE__;
  return file.substr(0, file.rfind("backend/cuda/"));
}

/// Text of every header the kernels may include, for the cache key (a changed header must not
/// load a stale module).
const std::string& headers_fingerprint() {
  static const std::string& text = *new std::string([] { // leaked, as driver()
    std::string all;
#if CHUNKED_HAVE_EMBEDDED_KERNEL_HEADERS
    all = chunked_embedded_cuda_kernel_headers;
    all += chunked_embedded_cuda_kernel_private_headers;
#else
    const auto add = [&](const std::string& root, std::initializer_list<const char*> names) {
      for (const char* name : names) {
        std::ifstream in(root + "/" + name, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        all += ss.str();
      }
    };
    add(include_root(), {"chunked/core/host_device.hpp", "chunked/random/philox.hpp",
                         "chunked/random/distributions.hpp", "chunked/random/cuda_math.hpp",
                         "chunked/ops/elementwise_table.hpp", "chunked/ops/op_code.hpp",
                         "chunked/ops/reduce_op.hpp", "chunked/ops/scalar.hpp"});
    add(private_root(), {"backend/common/exact_sum.hpp", "backend/common/partial_ops.hpp",
                         "backend/cuda/kernel/args.hpp", "backend/cuda/kernel/elementwise.hpp",
                         "backend/cuda/kernel/exact_fold.hpp", "backend/cuda/kernel/partials.hpp",
                         "backend/cuda/kernel/program.hpp"});
#endif
    return all;
  }());
  return text;
}

#if CHUNKED_HAVE_EMBEDDED_KERNEL_HEADERS
/// The embedded headers, public and private, as the (names, contents) arrays NVRTC takes.
struct EmbeddedHeaders {
  std::vector<const char*> names, contents;
  EmbeddedHeaders() {
    for (std::size_t i = 0; i < chunked_embedded_cuda_kernel_headers_count; ++i) {
      names.push_back(chunked_embedded_cuda_kernel_headers_names[i]);
      contents.push_back(chunked_embedded_cuda_kernel_headers_contents[i]);
    }
    for (std::size_t i = 0; i < chunked_embedded_cuda_kernel_private_headers_count; ++i) {
      names.push_back(chunked_embedded_cuda_kernel_private_headers_names[i]);
      contents.push_back(chunked_embedded_cuda_kernel_private_headers_contents[i]);
    }
  }
};
#endif

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

struct Image;
Image compile_image(const std::string& key, const std::string& source, const std::string& arch);

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

struct Image {
  std::vector<char> data;
};

} // namespace

std::vector<char> compile_to_cubin(const std::string& key, const std::string& source,
                                   const std::string& arch) {
  return compile_image(key, source, arch).data;
}

namespace {

Image compile_image(const std::string& key, const std::string& source, const std::string& arch) {
  nvrtcProgram prog = nullptr;
#if CHUNKED_HAVE_EMBEDDED_KERNEL_HEADERS
  static const EmbeddedHeaders& headers = *new EmbeddedHeaders; // leaked, as driver()
  const nvrtcResult created = nvrtcCreateProgram(&prog, source.c_str(), "chunked_program.cu",
                                                 static_cast<int>(headers.names.size()),
                                                 headers.contents.data(), headers.names.data());
#else
  const nvrtcResult created =
      nvrtcCreateProgram(&prog, source.c_str(), "chunked_program.cu", 0, nullptr, nullptr);
#endif
  if (created != NVRTC_SUCCESS)
    throw BackendError(
        fmt::format("Cuda backend: nvrtcCreateProgram failed: {}", nvrtcGetErrorString(created)));
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owner(
      &prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  const std::string arch_option = "--gpu-architecture=" + arch;
  const std::string own = "-I" + include_root();
  const std::string own_private = "-I" + private_root();
  const std::string cuda_inc = std::string("-I") + CHUNKED_CUDA_INCLUDE_DIR;
  const std::string cccl_inc = std::string("-I") + CHUNKED_CUDA_CCCL_INCLUDE_DIR;
  // --fmad=false: the CPU backend never contracts a * b + c, and results must agree.
  std::vector<const char*> options = {arch_option.c_str(), "-std=c++17", "--fmad=false",
                                      "-default-device",   own.c_str(),  own_private.c_str(),
                                      cuda_inc.c_str()};
  if (CHUNKED_CUDA_CCCL_INCLUDE_DIR[0] != '\0')
    options.push_back(cccl_inc.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(prog, static_cast<int>(options.size()), options.data());
  if (compiled != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    throw BackendError(fmt::format("Cuda backend: NVRTC could not compile the kernel of program "
                                   "{} for {}: {}\n{}\n--- source ---\n{}",
                                   key, arch, nvrtcGetErrorString(compiled), log, source));
  }
  Image image;
  std::size_t size = 0;
  if (nvrtcGetCUBINSize(prog, &size) != NVRTC_SUCCESS || size == 0)
    throw BackendError("Cuda backend: nvrtcGetCUBINSize failed for " + arch);
  image.data.resize(size);
  if (nvrtcGetCUBIN(prog, image.data.data()) != NVRTC_SUCCESS)
    throw BackendError("Cuda backend: nvrtcGetCUBIN failed for " + arch);
  return image;
}

bool read_file(const std::filesystem::path& path, Image& image) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  image.data.assign(std::istreambuf_iterator<char>(in), {});
  return !image.data.empty();
}

void write_file(const std::filesystem::path& path, const Image& image) {
  // A cache that cannot be written only costs a recompilation later: errors are ignored, and the
  // rename makes a concurrent reader see either nothing or the whole file.
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const auto temp = path.string() + fmt::format(".tmp{}", static_cast<long>(::getpid()));
  {
    std::ofstream out(temp, std::ios::binary);
    if (!out)
      return;
    out.write(image.data.data(), static_cast<std::streamsize>(image.data.size()));
    if (!out)
      return;
  }
  std::filesystem::rename(temp, path, ec);
  if (ec)
    std::filesystem::remove(temp, ec);
}

} // namespace

std::string kernel_cache_dir() {
  if (const char* dir = std::getenv("CHUNKED_CACHE_DIR"))
    return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/chunked";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/chunked";
  return {};
}

CUfunction Module::function(const char* name) const {
  CUfunction f = nullptr;
  check_driver(driver().module_get_function(&f, module_, name), "cuModuleGetFunction", device_,
               name);
  return f;
}

namespace {

/// The process's one module cache. Keys determine their source (codegen's module_key), so a
/// loaded key needs no source text. Images are made once per architecture (devices of one model
/// share them); modules are loaded once per device. Modules stay loaded for the life of the
/// process.
class ModuleCache {
public:
  const Module& get(int device, const std::string& key,
                    const std::function<std::string()>& source) {
    const std::string arch = device_arch(device);
    std::shared_ptr<ImageEntry> entry;
    std::shared_ptr<LoadEntry> loaded;
    {
      std::lock_guard lock(mutex_);
      auto& module = modules_[{device, key}];
      if (!module)
        module = std::make_shared<LoadEntry>();
      if (const Module* m = module->module.load())
        return *m;
      loaded = module;
      auto& slot = images_[{arch, key}];
      if (!slot)
        slot = std::make_shared<ImageEntry>();
      entry = slot;
    }
    // Compiles and loads run outside the lock, so that find() (every launch asks it) never waits
    // for them. A compile or load that throws leaves its flag unset: a later call tries again.
    std::call_once(entry->once, [&] {
      entry->image = make_image(key, source(), arch);
      entry->made.store(true);
    });
    std::call_once(loaded->once, [&] {
      loaded->owner = load(device, key, entry->image);
      loaded->module.store(loaded->owner.get());
    });
    return *loaded->module.load();
  }

  const Module* find(int device, const std::string& key) {
    std::lock_guard lock(mutex_);
    const auto it = modules_.find({device, key});
    return it == modules_.end() ? nullptr : it->second->module.load();
  }

  const Module* find_or_load_cached(int device, const std::string& key,
                                    const std::function<std::string()>& source) {
    if (const Module* m = find(device, key))
      return m;
    const std::string arch = device_arch(device);
    bool made = false;
    {
      std::lock_guard lock(mutex_);
      const auto it = images_.find({arch, key});
      made = it != images_.end() && it->second->made.load();
    }
    if (made)
      return &get(device, key, source);
    std::string text = source();
    const std::filesystem::path path = image_path(text, arch);
    std::error_code ignored;
    if (path.empty() || !std::filesystem::exists(path, ignored))
      return nullptr;
    return &get(device, key, [&] { return std::move(text); });
  }

private:
  /// The image of one source for one architecture, made once: the first caller compiles it (or
  /// reads it from disk) while callers for other keys go on in parallel, and callers for the
  /// same key wait for it.
  struct ImageEntry {
    std::once_flag once;
    Image image;
    std::atomic<bool> made{false};
  };

  static std::string device_arch(int device) {
    const DeviceState& state = device_state(device);
    return fmt::format("sm_{}{}", state.cc_major, state.cc_minor);
  }

  /// The disk cache's file of `source`'s image for `arch`, named by a hash of the source text
  /// itself (with the architecture, NVRTC's version and the kernel headers), so a changed code
  /// generator never loads a stale image; empty without a disk cache.
  static std::filesystem::path image_path(const std::string& source, const std::string& arch) {
    const std::string dir = kernel_cache_dir();
    if (dir.empty())
      return {};
    const std::string image_key = arch + "\n" + source;
    const std::string version = nvrtc_version();
    const std::uint64_t h1 =
        fnv1a(headers_fingerprint(), fnv1a(image_key + version, 0xcbf29ce484222325ull));
    const std::uint64_t h2 =
        fnv1a(image_key + version + headers_fingerprint(), 0x84222325cbf29ce4ull);
    return std::filesystem::path(dir) / fmt::format("{:016x}{:016x}.cubin", h1, h2);
  }
  /// The module of one image on one device, loaded once.
  struct LoadEntry {
    std::once_flag once;
    std::unique_ptr<Module> owner;
    std::atomic<const Module*> module{nullptr};
  };

  /// From the disk cache (image_path), else compiled by NVRTC and stored there.
  static Image make_image(const std::string& key, const std::string& source,
                          const std::string& arch) {
    const std::filesystem::path path = image_path(source, arch);
    Image image;
    if (!path.empty() && read_file(path, image)) {
      if (runtime::logging(LogLevel::debug))
        runtime::log(LogLevel::debug,
                     "kernel module for " + arch + " read from the disk cache, " + path.string());
      return image;
    }
    const auto start = std::chrono::steady_clock::now();
    runtime::Trace* const trace = runtime::current_trace();
    const std::int64_t traced_start = trace ? trace->now() : 0;
    image = compile_image(key, source, arch);
    if (trace)
      trace->span("NVRTC compile for " + arch, "compile", traced_start, trace->now());
    if (!path.empty())
      write_file(path, image);
    if (runtime::logging(LogLevel::info))
      runtime::log(
          LogLevel::info,
          fmt::format(
              "kernel module for {} compiled by NVRTC in {:.1f} ms{}", arch,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count(),
              path.empty() ? std::string(" (no disk cache)") : ", cached as " + path.string()));
    return image;
  }

  static std::unique_ptr<Module> load(int device, const std::string& key, const Image& image) {
    DeviceGuard guard(device);
    CHUNKED_CUDA_TRY(cudaFree(nullptr), device, "(making the primary context current)");
    CUmodule module = nullptr;
    check_driver(driver().module_load_data(&module, image.data.data()), "cuModuleLoadData", device,
                 key);
    return std::make_unique<Module>(module, device);
  }

  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ImageEntry>> images_;
  std::map<std::pair<int, std::string>, std::shared_ptr<LoadEntry>> modules_;
};

ModuleCache& module_cache() {
  // Never destroyed: modules must not be unloaded after the driver has shut down at exit.
  static auto* cache = new ModuleCache;
  return *cache;
}

} // namespace

const Module& get_module(int device, const std::string& key,
                         const std::function<std::string()>& source) {
  return module_cache().get(device, key, source);
}

const Module* find_module(int device, const std::string& key) {
  return module_cache().find(device, key);
}

const Module* find_or_load_cached(int device, const std::string& key,
                                  const std::function<std::string()>& source) {
  return module_cache().find_or_load_cached(device, key, source);
}

namespace {
std::atomic<long> launches_until_failure{-1};
} // namespace

void fail_launch_after(long launches) { launches_until_failure.store(launches); }

void launch(CUfunction function, unsigned grid, unsigned block, void** args, const Stream& stream,
            const char* what, unsigned grid_y) {
  // A negative count never reaches 0; at 0 the launch asks for more threads per block than any
  // device has, which the driver refuses as it refuses any bad launch.
  if (launches_until_failure.load(std::memory_order_relaxed) >= 0 &&
      launches_until_failure.fetch_sub(1) == 0)
    block = 1u << 20;
  const GpuSpan span(stream, what, "kernel");
  check_driver(driver().launch_kernel(function, grid, grid_y, 1, block, 1, 1, 0, stream.get(), args,
                                      nullptr),
               "cuLaunchKernel", stream.device(),
               fmt::format("({}, grid {} x {} of {} threads)", what, grid, grid_y, block));
}

} // namespace chunked::cuda
