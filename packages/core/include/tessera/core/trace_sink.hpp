#pragma once
// Adding events of another package to the TESSERA_TRACE file.
//
// Kernel and region slices are written as they end, under the profiling
// lock: fine for kernels, too slow for events that come by the million. A
// package that records many small events (tasking: one slice per task run,
// flow arrows along dependences) keeps them in its own per-thread buffers
// and hands them over when the trace is closed (profiling::stop_trace or
// finalize): it registers a flush with add_trace_flush, and the flush writes
// through the TraceWriter it is given. Timestamps are trace_clock_ns()
// values, threads are trace_thread_id() numbers: the tracks the kernels of
// the same threads are drawn on.
#include <tessera/core/profiling.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::profiling {

namespace detail {
extern std::atomic<bool> g_trace_on;  // a trace file is open
}

// Whether a trace file is being recorded (TESSERA_TRACE, or start_trace).
inline bool trace_active() noexcept { return detail::g_trace_on.load(std::memory_order_relaxed); }

// The clock of the trace, in nanoseconds (steady_clock; the file's time 0 is
// when the trace started).
inline std::int64_t trace_clock_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// This thread's track in the trace (the tid of its kernel slices). Takes the
// profiling lock: ask once per thread and keep the answer.
int trace_thread_id();

// Writes events into the trace file being closed. Only a flush gets one.
class TraceWriter {
 public:
  // A complete slice ("X") on track tid from start_ns to end_ns.
  // args_json: the members of its "args" object, already JSON
  // (`"task":3,"priority":"High"`), or empty.
  void slice(std::string_view name, std::string_view category, int tid, std::int64_t start_ns, std::int64_t end_ns,
             std::string_view args_json = {});
  // The two ends of flow arrow `id` (unique in the file): the start ("s")
  // binds to the slice enclosing ts_ns on track tid, the finish ("f",
  // binding point "e") to the slice enclosing its ts_ns.
  void flow_start(std::uint64_t id, std::string_view name, std::string_view category, int tid, std::int64_t ts_ns);
  void flow_finish(std::uint64_t id, std::string_view name, std::string_view category, int tid, std::int64_t ts_ns);
  // Names track tid in the viewer (a "thread_name" metadata event).
  void thread_name(int tid, std::string_view name);
  // A fresh id for flow arrows (unique among every writer of this file).
  std::uint64_t new_flow_id() noexcept { return ++m_last_flow_id; }

  // `text` with JSON string escapes (quotes, backslashes, control characters).
  static std::string escape(std::string_view text);

  // ---- implementation ----
  struct File;
  explicit TraceWriter(File& file) noexcept : m_file(file) {}

 private:
  void begin_event();
  File& m_file;
  std::uint64_t m_last_flow_id = 0;
};

// Called with a writer each time a trace file is closed, before its end is
// written; every thread that recorded is quiet then (no DAG or kernel runs).
// A flush must not call other profiling functions (the lock is held).
using TraceFlush = void (*)(TraceWriter&);
// Registers a flush (once per function: registering it again does nothing).
void add_trace_flush(TraceFlush flush);

}  // namespace tessera::profiling
