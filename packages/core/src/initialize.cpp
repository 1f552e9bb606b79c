// initialize / finalize and the --tessera-* command-line flags.
#include <tessera/config.hpp>
#include <tessera/core/initialize.hpp>
#include <tessera/core/memory_space.hpp>
#include <tessera/core/profiling.hpp>
#include <tessera/core/backends/serial/serial.hpp>
#if TESSERA_ENABLE_THREADS
#include <tessera/core/backends/threads/threads.hpp>
#endif
#if TESSERA_ENABLE_OPENMP
#include <tessera/core/backends/openmp/openmp.hpp>
#endif
#if TESSERA_ENABLE_CUDA
#include <tessera/core/backends/cuda/cuda_space.hpp>
#endif

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {
namespace {

enum class State { never, running, finalized };
State g_state = State::never;
std::vector<std::function<void()>> g_finalize_hooks;

const char* const kValidFlags =
    "--tessera-num-threads=N, --tessera-device-id=N, --tessera-print-configuration, "
    "--tessera-disable-binding, --tessera-disable-huge-pages, --tessera-cuda-malloc-async=0|1, --tessera-help";

// A 0/1 switch given as a flag value or in the environment.
bool parse_switch(const std::string& what, const std::string& v) {
  if (v != "0" && v != "1")
    throw std::invalid_argument("tessera: invalid value '" + v + "' for " + what + ": expected 0 or 1");
  return v == "1";
}

int parse_int(const std::string& what, const char* text, int min_value) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min_value || v > INT_MAX) {
    throw std::invalid_argument("tessera: invalid value '" + std::string(text) + "' for " + what +
                                ": expected an integer >= " + std::to_string(min_value));
  }
  return static_cast<int>(v);
}

// The kernel's transparent huge page mode, the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"):
// under "madvise" only advised memory gets huge pages, under "never" none.
std::string transparent_huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

void apply_environment(InitializationSettings& s) {
  if (!s.has_num_threads()) {
    if (const char* env = std::getenv("TESSERA_NUM_THREADS"); env && *env)
      s.set_num_threads(parse_int("TESSERA_NUM_THREADS", env, 1));
  }
  if (!s.has_device_id()) {
    if (const char* env = std::getenv("TESSERA_DEVICE_ID"); env && *env)
      s.set_device_id(parse_int("TESSERA_DEVICE_ID", env, 0));
  }
  if (!s.has_huge_pages()) {
    if (const char* env = std::getenv("TESSERA_HUGE_PAGES"); env && *env)
      s.set_huge_pages(parse_switch("TESSERA_HUGE_PAGES", env));
  }
  if (!s.has_cuda_malloc_async()) {
    if (const char* env = std::getenv("TESSERA_CUDA_MALLOC_ASYNC"); env && *env)
      s.set_cuda_malloc_async(parse_switch("TESSERA_CUDA_MALLOC_ASYNC", env));
  }
}

}  // namespace

InitializationSettings parse_flags(int& argc, char* argv[]) {
  InitializationSettings s;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i] ? argv[i] : "";
    if (arg.rfind("--tessera-", 0) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    auto eq = arg.find('=');
    std::string key = arg.substr(0, eq);
    bool has_value = eq != std::string::npos;
    std::string value = has_value ? arg.substr(eq + 1) : "";
    auto need_value = [&](const char* flag) -> std::string {
      if (has_value) return value;
      if (i + 1 < argc) return argv[++i];
      throw std::invalid_argument(std::string("tessera: ") + flag + " needs a value (" + flag + "=N)");
    };
    if (key == "--tessera-num-threads") {
      s.set_num_threads(parse_int(key, need_value("--tessera-num-threads").c_str(), 1));
    } else if (key == "--tessera-device-id") {
      s.set_device_id(parse_int(key, need_value("--tessera-device-id").c_str(), 0));
    } else if (key == "--tessera-cuda-malloc-async") {
      s.set_cuda_malloc_async(parse_switch(key, need_value("--tessera-cuda-malloc-async")));
    } else if (key == "--tessera-print-configuration" || key == "--tessera-disable-binding" ||
               key == "--tessera-disable-huge-pages" || key == "--tessera-help") {
      if (has_value)
        throw std::invalid_argument("tessera: flag " + key + " takes no value (got '" + arg + "')");
      if (key == "--tessera-print-configuration") s.set_print_configuration(true);
      else if (key == "--tessera-disable-binding") s.set_bind_threads(false);
      else if (key == "--tessera-disable-huge-pages") s.set_huge_pages(false);
      else s.set_print_help(true);
    } else {
      throw std::invalid_argument("tessera: unknown flag '" + arg + "'; valid flags are " +
                                  kValidFlags);
    }
  }
  argc = out;
  if (argc >= 0) argv[argc] = nullptr;
  return s;
}

const char* help_text() {
  return "Tessera options (removed from argv by tessera::initialize):\n"
         "  --tessera-num-threads=N        threads of the host back-ends (env TESSERA_NUM_THREADS)\n"
         "  --tessera-device-id=N          CUDA device to use (env TESSERA_DEVICE_ID)\n"
         "  --tessera-print-configuration  print the configuration at initialize\n"
         "  --tessera-disable-binding      do not pin the Threads back-end's threads\n"
         "  --tessera-disable-huge-pages   do not advise huge pages for host allocations >= 2 MiB\n"
         "                                 (env TESSERA_HUGE_PAGES=0)\n"
         "  --tessera-cuda-malloc-async=0|1  CudaSpace from CUDA's stream-ordered pool (1, the default)\n"
         "                                 or cudaMalloc (0) (env TESSERA_CUDA_MALLOC_ASYNC)\n"
         "  --tessera-help                 print this text\n"
         "Environment: TESSERA_PROFILE=summary prints a kernel table at finalize;\n"
         "             TESSERA_TRACE=file.json writes a Chrome trace.\n";
}

void initialize(int& argc, char* argv[]) { initialize(parse_flags(argc, argv)); }

void initialize(const InitializationSettings& given) {
  if (g_state == State::running) throw std::runtime_error("tessera::initialize: already initialized");
  if (g_state == State::finalized)
    throw std::runtime_error("tessera::initialize: cannot initialize again after finalize()");
  InitializationSettings s = given;
  apply_environment(s);
  HostSpace::impl_set_huge_pages(s.get_huge_pages());
  profiling::detail::initialize_tools();
  Serial::impl_initialize(s);
#if TESSERA_ENABLE_OPENMP
  OpenMP::impl_initialize(s);
#endif
#if TESSERA_ENABLE_THREADS
  Threads::impl_initialize(s);
#endif
#if TESSERA_ENABLE_CUDA
  Cuda::impl_initialize(s);
#endif
  g_state = State::running;
  if (s.get_print_help()) std::cout << help_text();
  if (s.get_print_configuration()) print_configuration(std::cout);
}

}  // namespace tessera

namespace tessera {

void finalize() {
  if (g_state != State::running) throw std::runtime_error("tessera::finalize: not initialized");
  while (!g_finalize_hooks.empty()) {
    auto hook = std::move(g_finalize_hooks.back());
    g_finalize_hooks.pop_back();
    hook();
  }
#if TESSERA_ENABLE_CUDA
  Cuda::impl_finalize();
#endif
#if TESSERA_ENABLE_THREADS
  Threads::impl_finalize();
#endif
#if TESSERA_ENABLE_OPENMP
  OpenMP::impl_finalize();
#endif
  Serial::impl_finalize();
  // The freed large blocks kept for reuse go back to the system: a program
  // that goes on after finalize() should not hold up to 1 GiB it freed.
  HostSpace::impl_release_cached_blocks();
  profiling::detail::finalize_tools();
  g_state = State::finalized;
}

bool is_initialized() noexcept { return g_state == State::running; }
bool is_finalized() noexcept { return g_state == State::finalized; }

void push_finalize_hook(std::function<void()> hook) { g_finalize_hooks.push_back(std::move(hook)); }

void print_configuration(std::ostream& out, bool verbose) {
  out << "Tessera " << TESSERA_VERSION_STRING << "\n";
  out << "  back-ends: Serial"
#if TESSERA_ENABLE_THREADS
      << " Threads"
#endif
#if TESSERA_ENABLE_OPENMP
      << " OpenMP"
#endif
#if TESSERA_ENABLE_CUDA
      << " Cuda"
#endif
      << "\n  bounds checking: " << (TESSERA_ENABLE_BOUNDS_CHECK ? "on" : "off") << "\n";
  if (!is_initialized()) {
    out << "  (not initialized)\n";
    return;
  }
  out << "  host memory: huge pages " << (HostSpace::impl_huge_pages() ? "advised" : "not advised")
      << " for allocations >= 2 MiB (kernel transparent huge pages: " << transparent_huge_page_mode() << ")\n";
  Serial::print_configuration(out, verbose);
#if TESSERA_ENABLE_THREADS
  Threads::print_configuration(out, verbose);
#endif
#if TESSERA_ENABLE_OPENMP
  OpenMP::print_configuration(out, verbose);
#endif
#if TESSERA_ENABLE_CUDA
  Cuda::print_configuration(out, verbose);
#endif
}

void Serial::print_configuration(std::ostream& out, bool) { out << "  Serial: 1 thread\n"; }

#if TESSERA_ENABLE_OPENMP
void OpenMP::impl_initialize(const InitializationSettings& settings) {
  s_pool_size = settings.has_num_threads() ? settings.get_num_threads() : omp_get_max_threads();
  if (s_pool_size < 1) s_pool_size = 1;
}
void OpenMP::print_configuration(std::ostream& out, bool) {
  out << "  OpenMP: " << s_pool_size << " threads (runtime max " << omp_get_max_threads() << ")\n";
}
#endif

namespace detail {
void require_initialized(const char* what) {
  if (g_state != State::running)
    throw std::runtime_error(std::string("tessera: ") + what +
                             " used before tessera::initialize() or after tessera::finalize()");
}
}  // namespace detail

}  // namespace tessera
