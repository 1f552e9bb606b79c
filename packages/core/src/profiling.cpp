// Profiling hooks and the two built-in tools (summary table, Chrome trace).
#include <tessera/core/profiling.hpp>
#include <tessera/core/trace_sink.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tessera::profiling {
namespace detail {
std::atomic<bool> g_active{false};
std::atomic<bool> g_trace_on{false};
}

// The file a TraceWriter appends to (the lock is held while it exists).
// Events are formatted into `text` and written in large pieces: a flush may
// hand over millions of them.
struct TraceWriter::File {
  std::FILE* out;
  bool* first;
  std::int64_t epoch_ns;
  std::string text = {};
  void drain() {
    std::fwrite(text.data(), 1, text.size(), out);
    text.clear();
  }
};


namespace {

using Clock = std::chrono::steady_clock;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::parallel_for: return "parallel_for";
    case Kind::parallel_reduce: return "parallel_reduce";
    case Kind::parallel_scan: return "parallel_scan";
    case Kind::deep_copy: return "deep_copy";
    case Kind::region: return "region";
    case Kind::fence: return "fence";
  }
  return "?";
}

struct OpenKernel {
  std::string name;
  Kind kind;
  Clock::time_point start;
  int thread;
};

struct SummaryRow {
  double seconds = 0;
  std::uint64_t calls = 0;
  Kind kind = Kind::parallel_for;
};

struct State {
  std::mutex mutex;
  Callbacks user;
  bool summary = false;
  std::string trace_path;
  std::FILE* trace = nullptr;
  bool trace_first = true;
  Clock::time_point epoch = Clock::now();
  std::uint64_t next_id = 1;
  std::unordered_map<std::uint64_t, OpenKernel> open;
  std::map<std::string, SummaryRow> rows;
  std::unordered_map<std::thread::id, int> thread_ids;
  std::vector<std::vector<std::pair<std::string, Clock::time_point>>> regions;  // per thread
  double live_bytes = 0, peak_bytes = 0;
  std::vector<TraceFlush> trace_flushes;  // add_trace_flush
};

State& state() {
  static State s;
  return s;
}

bool tools_on(const State& s) {
  return s.summary || s.trace || s.user.begin_kernel || s.user.end_kernel || s.user.push_region ||
         s.user.pop_region || s.user.allocate || s.user.deallocate;
}

void refresh_active(State& s) { detail::g_active.store(tools_on(s), std::memory_order_relaxed); }

int thread_index(State& s) {
  auto [it, inserted] = s.thread_ids.emplace(std::this_thread::get_id(), int(s.thread_ids.size()));
  return it->second;
}

double micros(const State& s, Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - s.epoch).count();
}

// Appends `text` as the inside of a JSON string (quotes, backslashes and
// control characters escaped).
void append_json_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
}
std::string json_escape(std::string_view in) {
  std::string out;
  append_json_escaped(out, in);
  return out;
}

void write_trace_event(State& s, const std::string& name, const char* cat, Clock::time_point start,
                       Clock::time_point end, int tid) {
  if (!s.trace) return;
  std::fprintf(s.trace, "%s\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%d}",
               s.trace_first ? "" : ",", json_escape(name).c_str(), cat, micros(s, start),
               std::chrono::duration<double, std::micro>(end - start).count(), tid);
  s.trace_first = false;
}

// Opens the trace file (the lock is held). False, with a message, when it
// cannot be written or a trace is already open.
bool open_trace(State& s, const std::string& path, const char* origin) {
  if (s.trace) {
    std::cerr << "tessera: " << origin << "('" << path << "'): a trace is already being recorded into '"
              << s.trace_path << "'; stop_trace() first\n";
    return false;
  }
  s.trace = std::fopen(path.c_str(), "w");
  if (!s.trace) {
    std::cerr << "tessera: cannot open " << origin << " file '" << path << "'; tracing is off\n";
    return false;
  }
  s.trace_path = path;
  s.epoch = Clock::now();
  std::fputs("{\"traceEvents\":[", s.trace);
  s.trace_first = true;
  detail::g_trace_on.store(true, std::memory_order_relaxed);
  return true;
}

// Hands the trace to the registered flushes, then ends and closes the file.
void close_trace(State& s) {
  if (!s.trace) return;
  detail::g_trace_on.store(false, std::memory_order_relaxed);  // recorders stop before the flushes read
  TraceWriter::File file{s.trace, &s.trace_first,
                         std::chrono::duration_cast<std::chrono::nanoseconds>(s.epoch.time_since_epoch()).count()};
  TraceWriter writer(file);
  for (TraceFlush flush : s.trace_flushes) flush(writer);
  file.drain();
  std::fputs("\n],\"displayTimeUnit\":\"ms\"}\n", s.trace);
  if (std::fclose(s.trace) != 0)
    std::cerr << "tessera: writing the trace file '" << s.trace_path << "' failed (disk full?)\n";
  s.trace = nullptr;
}

}  // namespace

namespace {
void put_int(std::string& out, long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
// Microseconds since the trace's start, to the nanosecond, from integers
// (no rounding: ends of flows must fall inside their slices).
void put_micros(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  put_int(out, ns / 1000);
  const int frac = int(ns % 1000);
  const char digits[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
  out.append(digits, 4);
}
void put_string(std::string& out, std::string_view text) {
  out += '"';
  append_json_escaped(out, text);
  out += '"';
}
}  // namespace

std::string TraceWriter::escape(std::string_view text) {
  return json_escape(text);
}

void TraceWriter::begin_event() {
  if (m_file.text.size() > (std::size_t(1) << 20)) m_file.drain();
  m_file.text += *m_file.first ? "\n{" : ",\n{";
  *m_file.first = false;
}

void TraceWriter::slice(std::string_view name, std::string_view category, int tid, std::int64_t start_ns,
                        std::int64_t end_ns, std::string_view args_json) {
  begin_event();
  std::string& out = m_file.text;
  out += "\"name\":";
  put_string(out, name);
  out += ",\"cat\":";
  put_string(out, category);
  out += ",\"ph\":\"X\",\"ts\":";
  put_micros(out, start_ns - m_file.epoch_ns);
  out += ",\"dur\":";
  put_micros(out, end_ns - start_ns);
  out += ",\"pid\":1,\"tid\":";
  put_int(out, tid);
  if (!args_json.empty()) {
    out += ",\"args\":{";
    out += args_json;
    out += '}';
  }
  out += '}';
}

namespace {
void put_flow(std::string& out, char phase, std::uint64_t id, std::string_view name, std::string_view category,
              int tid, std::int64_t ts_ns) {
  out += "\"name\":";
  put_string(out, name);
  out += ",\"cat\":";
  put_string(out, category);
  out += phase == 's' ? ",\"ph\":\"s\",\"id\":" : ",\"ph\":\"f\",\"bp\":\"e\",\"id\":";
  put_int(out, static_cast<long long>(id));
  out += ",\"ts\":";
  put_micros(out, ts_ns);
  out += ",\"pid\":1,\"tid\":";
  put_int(out, tid);
  out += '}';
}
}  // namespace

void TraceWriter::flow_start(std::uint64_t id, std::string_view name, std::string_view category, int tid,
                             std::int64_t ts_ns) {
  begin_event();
  put_flow(m_file.text, 's', id, name, category, tid, ts_ns - m_file.epoch_ns);
}

void TraceWriter::flow_finish(std::uint64_t id, std::string_view name, std::string_view category, int tid,
                              std::int64_t ts_ns) {
  begin_event();
  put_flow(m_file.text, 'f', id, name, category, tid, ts_ns - m_file.epoch_ns);
}

void TraceWriter::thread_name(int tid, std::string_view name) {
  begin_event();
  std::string& out = m_file.text;
  out += "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":";
  put_int(out, tid);
  out += ",\"args\":{\"name\":";
  put_string(out, name);
  out += "}}";
}

void add_trace_flush(TraceFlush flush) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (std::find(s.trace_flushes.begin(), s.trace_flushes.end(), flush) == s.trace_flushes.end())
    s.trace_flushes.push_back(flush);
}

int trace_thread_id() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return thread_index(s);
}

bool start_trace(const std::string& path) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const bool opened = open_trace(s, path, "profiling::start_trace");
  refresh_active(s);
  return opened;
}

void stop_trace() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  close_trace(s);
  refresh_active(s);
}

Callbacks set_callbacks(const Callbacks& callbacks) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Callbacks old = s.user;
  s.user = callbacks;
  refresh_active(s);
  return old;
}

namespace detail {

std::uint64_t begin_kernel(Kind kind, const std::string& name, const char* space) {
  State& s = state();
  std::string full = name.empty() ? std::string("(unlabeled ") + kind_name(kind) + ")" : name;
  decltype(s.user.begin_kernel) callback;
  std::uint64_t id;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    id = s.next_id++;
    s.open.emplace(id, OpenKernel{full + " [" + space + "]", kind, Clock::now(), thread_index(s)});
    callback = s.user.begin_kernel;
  }
  // User callbacks run outside the lock: they may call back into Tessera.
  if (callback) callback(kind, full.c_str(), space, id);
  return id;
}

void end_kernel(Kind kind, std::uint64_t id) {
  auto end = Clock::now();
  State& s = state();
  decltype(s.user.end_kernel) callback;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.open.find(id);
    if (it == s.open.end()) return;
    OpenKernel k = std::move(it->second);
    s.open.erase(it);
    SummaryRow& row = s.rows[k.name];
    row.seconds += std::chrono::duration<double>(end - k.start).count();
    row.calls += 1;
    row.kind = k.kind;
    write_trace_event(s, k.name, kind_name(k.kind), k.start, end, k.thread);
    callback = s.user.end_kernel;
  }
  if (callback) callback(kind, id);
}

void on_allocate(const char* space, const char* label, const void* ptr, std::uint64_t bytes) {
  State& s = state();
  decltype(s.user.allocate) callback;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.live_bytes += double(bytes);
    s.peak_bytes = std::max(s.peak_bytes, s.live_bytes);
    callback = s.user.allocate;
  }
  if (callback) callback(space, label, ptr, bytes);
}

void on_deallocate(const char* space, const char* label, const void* ptr, std::uint64_t bytes) {
  State& s = state();
  decltype(s.user.deallocate) callback;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.live_bytes -= double(bytes);
    callback = s.user.deallocate;
  }
  if (callback) callback(space, label, ptr, bytes);
}

void initialize_tools() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.epoch = Clock::now();
  if (const char* p = std::getenv("TESSERA_PROFILE"); p && *p) {
    if (std::string(p) == "summary") {
      s.summary = true;
    } else {
      std::cerr << "tessera: TESSERA_PROFILE='" << p << "' is not known; valid: summary\n";
    }
  }
  if (const char* t = std::getenv("TESSERA_TRACE"); t && *t) open_trace(s, t, "TESSERA_TRACE");
  refresh_active(s);
}

void finalize_tools() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.summary) {
    std::vector<std::pair<std::string, SummaryRow>> rows(s.rows.begin(), s.rows.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    double total = 0;
    for (auto& r : rows) total += r.second.seconds;
    std::ostringstream out;
    out << "\nTessera profile summary (TESSERA_PROFILE=summary)\n";
    out << std::left << std::setw(56) << "kernel" << std::setw(16) << "type" << std::right
        << std::setw(10) << "calls" << std::setw(14) << "total [s]" << std::setw(14) << "per call [us]"
        << std::setw(8) << "%" << "\n";
    for (auto& [name, row] : rows) {
      out << std::left << std::setw(56) << (name.size() > 55 ? name.substr(0, 52) + "..." : name)
          << std::setw(16) << kind_name(row.kind) << std::right << std::setw(10) << row.calls
          << std::setw(14) << std::setprecision(6) << std::fixed << row.seconds << std::setw(14)
          << std::setprecision(2) << (row.seconds / double(row.calls) * 1e6) << std::setw(8)
          << std::setprecision(1) << (total > 0 ? 100.0 * row.seconds / total : 0.0) << "\n";
    }
    out << "peak bytes allocated through Tessera: " << std::setprecision(0) << s.peak_bytes << "\n";
    std::cout << out.str() << std::flush;
  }
  close_trace(s);
  s.summary = false;
  s.rows.clear();
  s.open.clear();
  refresh_active(s);
}

}  // namespace detail

void push_region(const std::string& name) {
  if (!active()) return;
  State& s = state();
  decltype(s.user.push_region) callback;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    int tid = thread_index(s);
    if (int(s.regions.size()) <= tid) s.regions.resize(tid + 1);
    s.regions[tid].emplace_back(name, Clock::now());
    callback = s.user.push_region;
  }
  if (callback) callback(name.c_str());
}

void pop_region() {
  if (!active()) return;
  auto end = Clock::now();
  State& s = state();
  decltype(s.user.pop_region) callback;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    int tid = thread_index(s);
    if (int(s.regions.size()) <= tid || s.regions[tid].empty()) return;
    auto [name, start] = s.regions[tid].back();
    s.regions[tid].pop_back();
    write_trace_event(s, name, "region", start, end, tid);
    callback = s.user.pop_region;
  }
  if (callback) callback();
}

}  // namespace tessera::profiling
