#pragma once
// Profiling hooks: every parallel dispatch, deep copy, region and allocation
// announces itself here. With no tool active each hook is one relaxed load.
//
// Built-in tools, chosen by environment variable at initialize():
//   TESSERA_PROFILE=summary   table of kernels by total time, printed at finalize()
//   TESSERA_TRACE=file.json   Chrome trace-event file (one track per thread) for Perfetto
//                             (other packages add their events: trace_sink.hpp)
// Users can also install their own callbacks with profiling::set_callbacks.
#include <atomic>
#include <cstdint>
#include <string>

namespace tessera::profiling {

enum class Kind : int { parallel_for, parallel_reduce, parallel_scan, deep_copy, region, fence };

// User-installable callbacks; any may be null.
struct Callbacks {
  void (*begin_kernel)(Kind kind, const char* name, const char* space, std::uint64_t id) = nullptr;
  void (*end_kernel)(Kind kind, std::uint64_t id) = nullptr;
  void (*push_region)(const char* name) = nullptr;
  void (*pop_region)() = nullptr;
  void (*allocate)(const char* space, const char* label, const void* ptr, std::uint64_t bytes) = nullptr;
  void (*deallocate)(const char* space, const char* label, const void* ptr, std::uint64_t bytes) = nullptr;
};

// Installs callbacks (replacing the previous user set); returns the old ones.
Callbacks set_callbacks(const Callbacks& callbacks);

// Records a trace into `path` from now on, as TESSERA_TRACE does from
// initialize(): to trace one phase of a program. False (with a message on
// stderr naming the file) when the file cannot be written, or when a trace is
// already being recorded. stop_trace() writes the file and closes it
// (finalize() does when the program did not); call it while no kernel or
// task DAG runs.
bool start_trace(const std::string& path);
void stop_trace();

namespace detail {
extern std::atomic<bool> g_active;  // true when any tool or callback listens
std::uint64_t begin_kernel(Kind kind, const std::string& name, const char* space);
void end_kernel(Kind kind, std::uint64_t id);
void on_allocate(const char* space, const char* label, const void* ptr, std::uint64_t bytes);
void on_deallocate(const char* space, const char* label, const void* ptr, std::uint64_t bytes);
void initialize_tools();  // reads TESSERA_PROFILE / TESSERA_TRACE
void finalize_tools();    // prints the summary, closes the trace
}  // namespace detail

inline bool active() { return detail::g_active.load(std::memory_order_relaxed); }

void push_region(const std::string& name);
void pop_region();

// RAII span used by the dispatchers: announces begin at construction and end
// at destruction, costing a relaxed load when nobody listens.
class KernelScope {
 public:
  KernelScope(Kind kind, const std::string& name, const char* space) {
    if (active()) {
      m_on = true;
      m_kind = kind;
      m_id = detail::begin_kernel(kind, name, space);
    }
  }
  ~KernelScope() {
    if (m_on) detail::end_kernel(m_kind, m_id);
  }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;

 private:
  bool m_on = false;
  Kind m_kind{};
  std::uint64_t m_id = 0;
};

}  // namespace tessera::profiling

namespace tessera {
// Kokkos spells these in the Profiling namespace; Tessera offers them at top level too.
inline void push_region(const std::string& name) { profiling::push_region(name); }
inline void pop_region() { profiling::pop_region(); }
}  // namespace tessera

// Kokkos' spellings of the region calls: Kokkos::Profiling::pushRegion /
// popRegion / ScopedRegion, also under Kokkos::Tools.
namespace tessera::Profiling {
inline void pushRegion(const std::string& name) { profiling::push_region(name); }
inline void popRegion() { profiling::pop_region(); }
// Pushes a region for its lifetime.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { profiling::push_region(name); }
  ~ScopedRegion() { profiling::pop_region(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};
}  // namespace tessera::Profiling

namespace tessera::Tools {
using Profiling::popRegion;
using Profiling::pushRegion;
using Profiling::ScopedRegion;
}  // namespace tessera::Tools
