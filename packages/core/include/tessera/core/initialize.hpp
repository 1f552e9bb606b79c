#pragma once
// Lifetime of the Tessera runtime: initialize, finalize, settings, ScopeGuard.
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace tessera {

// Settings for initialize(); unset fields fall back to the environment
// (TESSERA_NUM_THREADS, TESSERA_DEVICE_ID, TESSERA_HUGE_PAGES,
// TESSERA_CUDA_MALLOC_ASYNC), then to the
// machine's defaults.
class InitializationSettings {
 public:
  InitializationSettings& set_num_threads(int n) { m_num_threads = n; return *this; }
  bool has_num_threads() const { return m_num_threads.has_value(); }
  int get_num_threads() const { return m_num_threads.value_or(0); }

  InitializationSettings& set_device_id(int id) { m_device_id = id; return *this; }
  bool has_device_id() const { return m_device_id.has_value(); }
  int get_device_id() const { return m_device_id.value_or(0); }

  InitializationSettings& set_print_configuration(bool on) { m_print_configuration = on; return *this; }
  bool has_print_configuration() const { return m_print_configuration.has_value(); }
  bool get_print_configuration() const { return m_print_configuration.value_or(false); }

  // --tessera-help: print the valid flags and environment variables at initialize().
  InitializationSettings& set_print_help(bool on) { m_print_help = on; return *this; }
  bool get_print_help() const { return m_print_help.value_or(false); }

  // Kokkos settings Tessera accepts with nothing to change: it prints no
  // warnings, and has no internal tuning to switch on.
  InitializationSettings& set_disable_warnings(bool on) { m_disable_warnings = on; return *this; }
  bool has_disable_warnings() const { return m_disable_warnings.has_value(); }
  bool get_disable_warnings() const { return m_disable_warnings.value_or(false); }
  InitializationSettings& set_tune_internals(bool on) { m_tune_internals = on; return *this; }
  bool has_tune_internals() const { return m_tune_internals.has_value(); }
  bool get_tune_internals() const { return m_tune_internals.value_or(false); }

  // Thread pinning on the Threads back-end (on by default).
  InitializationSettings& set_bind_threads(bool on) { m_bind_threads = on; return *this; }
  bool has_bind_threads() const { return m_bind_threads.has_value(); }
  bool get_bind_threads() const { return m_bind_threads.value_or(true); }

  // Transparent huge pages asked for on host allocations of 2 MiB and more
  // (on by default; HostSpace::huge_page_bytes says why).
  InitializationSettings& set_huge_pages(bool on) { m_huge_pages = on; return *this; }
  bool has_huge_pages() const { return m_huge_pages.has_value(); }
  bool get_huge_pages() const { return m_huge_pages.value_or(true); }

  // CudaSpace allocations from CUDA's stream-ordered pool (cudaMallocAsync,
  // on by default where the device supports it) or with cudaMalloc (off):
  // --tessera-cuda-malloc-async=0|1, env TESSERA_CUDA_MALLOC_ASYNC.
  InitializationSettings& set_cuda_malloc_async(bool on) { m_cuda_malloc_async = on; return *this; }
  bool has_cuda_malloc_async() const { return m_cuda_malloc_async.has_value(); }
  bool get_cuda_malloc_async() const { return m_cuda_malloc_async.value_or(true); }

 private:
  std::optional<int> m_num_threads;
  std::optional<int> m_device_id;
  std::optional<bool> m_print_configuration;
  std::optional<bool> m_bind_threads;
  std::optional<bool> m_huge_pages;
  std::optional<bool> m_cuda_malloc_async;
  std::optional<bool> m_print_help;
  std::optional<bool> m_disable_warnings;
  std::optional<bool> m_tune_internals;
};

// The text --tessera-help prints: every flag and environment variable.
const char* help_text();

// Parses and removes the --tessera-* flags from argv (argc is updated), then
// initializes. Unknown --tessera-* flags and malformed values throw
// std::invalid_argument naming the flag and listing the valid ones.
void initialize(int& argc, char* argv[]);
void initialize(const InitializationSettings& settings = InitializationSettings());
// Parses the flags without initializing (used by initialize(argc, argv)).
InitializationSettings parse_flags(int& argc, char* argv[]);

void finalize();
bool is_initialized() noexcept;
bool is_finalized() noexcept;

// Runs `hook` at the start of finalize() (last pushed runs first).
void push_finalize_hook(std::function<void()> hook);

// Writes the version, the enabled back-ends and their thread counts, devices
// and pinning to `out`.
void print_configuration(std::ostream& out, bool verbose = false);

// Initializes in its constructor and finalizes in its destructor.
class ScopeGuard {
 public:
  ScopeGuard(int& argc, char* argv[]) { initialize(argc, argv); }
  explicit ScopeGuard(const InitializationSettings& settings = InitializationSettings()) {
    initialize(settings);
  }
  ~ScopeGuard() {
    if (is_initialized()) finalize();
  }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
};

namespace detail {
// Throws std::runtime_error naming `what` when the runtime is not initialized.
void require_initialized(const char* what);
}  // namespace detail

}  // namespace tessera
