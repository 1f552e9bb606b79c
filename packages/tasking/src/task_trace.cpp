// Task timelines: the threads' event logs and the flush that turns them into
// slices and flow arrows of the trace file (see detail/task_trace.hpp).
#include <tessera/tasking/detail/task_trace.hpp>
#include <tessera/tasking/detail/task_backend.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::detail::tasking::trace {

namespace {

// Events kept per trace unless TESSERA_TRACE_MAX_EVENTS says otherwise
// (40 bytes each: 160 MB; about 3 events per task of a Fibonacci DAG).
constexpr std::int64_t kDefaultMaxEvents = 4'000'000;

struct OwnedLog : ThreadLog {
  int tid = 0;
  std::vector<std::unique_ptr<Event[]>> chunks;  // the last one is being filled unless `scratch`
  std::unique_ptr<Event[]> scratch_chunk;        // written over once the budget is spent
  bool scratch = false;
  bool over_budget = false;  // the scratch chunk holds events of the trace (they are counted as dropped)
  std::uint64_t dropped = 0;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<OwnedLog>> logs;  // of the current generation
  std::atomic<std::int64_t> budget{0};          // events that may still be kept
  std::int64_t ticks0 = 0, ns0 = 0;             // the clock when the generation's first log was made
  std::int64_t max_events = kDefaultMaxEvents;
  Registry() { reset_budget(); }
  void reset_budget() {
    max_events = kDefaultMaxEvents;
    if (const char* v = std::getenv("TESSERA_TRACE_MAX_EVENTS"); v && *v) {
      char* end = nullptr;
      const long long n = std::strtoll(v, &end, 10);
      if (end && *end == '\0' && n > 0)
        max_events = n;
      else
        std::cerr << "tessera: TESSERA_TRACE_MAX_EVENTS='" << v << "' is not a positive number; using "
                  << kDefaultMaxEvents << "\n";
    }
    budget.store(max_events, std::memory_order_relaxed);
  }
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may outlive static destruction
  return *r;
}

void flush(profiling::TraceWriter& out);

}  // namespace

// Whether Linux keeps time with the TSC (see "Clock" in task_trace.hpp).
bool kernel_clock_is_tsc() {
#if defined(__x86_64__)
  std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return false;
  char name[32] = {};
  const bool tsc = std::fgets(name, sizeof name, f) && std::string(name) == "tsc\n";
  std::fclose(f);
  return tsc;
#else
  return false;
#endif
}

ThreadLog* new_thread_log() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    g_use_tsc = kernel_clock_is_tsc() && !std::getenv("TESSERA_TRACE_NO_TSC");
    profiling::add_trace_flush(&flush);
  });
  Registry& r = registry();
  auto owned = std::make_unique<OwnedLog>();
  owned->tid = profiling::trace_thread_id();
  OwnedLog* log = owned.get();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    log->next_id = std::uint64_t(r.logs.size() + 1) << kIdCounterBits;
    if (r.logs.empty()) {
      r.ns0 = profiling::trace_clock_ns();
      r.ticks0 = now();
    }
    r.logs.push_back(std::move(owned));
  }
  t_log_generation = g_generation.load(std::memory_order_relaxed);
  return log;
}

void grow(ThreadLog& l) {
  auto& log = static_cast<OwnedLog&>(l);
  Registry& r = registry();
  if (log.scratch && log.over_budget) log.dropped += kChunkEvents;
  const bool recording = profiling::trace_active();
  if (recording && r.budget.fetch_sub(std::int64_t(kChunkEvents), std::memory_order_relaxed) >=
                       std::int64_t(kChunkEvents)) {
    log.chunks.emplace_back(new Event[kChunkEvents]);
    log.scratch = false;
    log.cursor = log.chunks.back().get();
  } else {
    if (!log.scratch_chunk) log.scratch_chunk.reset(new Event[kChunkEvents]);
    log.scratch = true;
    log.over_budget = recording;
    log.cursor = log.scratch_chunk.get();
  }
  log.limit = log.cursor + kChunkEvents;
}

namespace {

const char* priority_name(int p) {
  switch (p) {
    case 0: return "High";
    case 1: return "Regular";
    case 2: return "Low";
  }
  return "?";
}

// A demangled functor type, shortened for a slice name: no namespaces of
// the standard library or Tessera, no anonymous namespace, no lambda
// parameter lists, template arguments below the first level as <...>, and
// at most 80 characters (the end kept: it names the type). The full name is
// in the slice's arguments.
std::string short_name(std::string s) {
  auto erase_all = [&s](const std::string& what) {
    for (std::size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
  };
  erase_all("(anonymous namespace)::");
  erase_all("tessera::detail::tasking::");
  erase_all("tessera::");
  erase_all("std::");
  // {lambda(TaskMember<Threads>&, long&)#1} -> {lambda#1}
  for (std::size_t p = 0; (p = s.find("{lambda(", p)) != std::string::npos;) {
    std::size_t q = p + 7;
    int depth = 0;
    for (; q < s.size(); ++q) {
      if (s[q] == '(') ++depth;
      if (s[q] == ')' && --depth == 0) break;
    }
    s.erase(p + 7, q + 1 - (p + 7));
    p += 7;
  }
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') {
      if (++depth == 2) out += "<...";
      if (depth >= 2) continue;
    } else if (c == '>') {
      if (depth-- >= 2) {
        if (depth == 1) out += '>';
        continue;
      }
    } else if (depth >= 2) {
      continue;
    }
    if (c == ' ' && !out.empty() && out.back() == '>' && i + 1 < s.size() && s[i + 1] == '>') continue;
    out += c;
  }
  if (out.size() > 80) out = "..." + out.substr(out.size() - 77);
  return out;
}

struct Run {
  std::int64_t start, end;
  std::uint64_t task;
  const std::type_info* type;
  int tid;
  std::uint16_t rank, team;
  std::uint8_t priority;
};

// Where an arrow may start inside slice r (its end) and finish inside it
// (its start), a nanosecond in so that the enclosing slice is r.
std::int64_t arrow_from(const Run& r) { return r.end - r.start >= 2 ? r.end - 1 : r.start; }
std::int64_t arrow_to(const Run& r) { return r.end - r.start >= 2 ? r.start + 1 : r.start; }

// The runs of one task: runs[first, first + leads) are those led by rank 0
// (every run of a single task), by start; members of team runs follow.
struct TaskRuns {
  std::uint64_t id;
  std::uint32_t first, leads, count;
  std::uint64_t number;  // 1, 2, ... in order of first run
};

void flush(profiling::TraceWriter& out) {
  Registry& r = registry();
  std::vector<std::unique_ptr<OwnedLog>> logs;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    logs.swap(r.logs);
  }
  // Threads ask for new logs from now on (their old ones are freed below).
  g_generation.fetch_add(1, std::memory_order_relaxed);
  const std::int64_t max_events = r.max_events;
  r.reset_budget();
  // Ticks to nanoseconds (the identity without the TSC).
  const std::int64_t ticks1 = now(), ns1 = profiling::trace_clock_ns();
  const long double ns_per_tick =
      g_use_tsc && ticks1 > r.ticks0 ? (long double)(ns1 - r.ns0) / (long double)(ticks1 - r.ticks0) : 1.0L;
  const std::int64_t ticks0 = g_use_tsc ? r.ticks0 : 0, ns0 = g_use_tsc ? r.ns0 : 0;
  auto to_ns = [&](std::int64_t t) { return ns0 + std::int64_t(std::llround((long double)(t - ticks0) * ns_per_tick)); };

  // Sorted vectors and binary searches, not hash maps: a flush may handle
  // millions of events.
  std::vector<Run> runs;
  std::vector<Event> waits;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> inputs;  // (when_all, one input)
  std::uint64_t dropped = 0;
  for (const auto& log : logs) {
    dropped += log->dropped;
    if (log->scratch && log->over_budget) dropped += std::uint64_t(log->cursor - log->scratch_chunk.get());
    for (std::size_t c = 0; c < log->chunks.size(); ++c) {
      const Event* begin = log->chunks[c].get();
      const bool current = c + 1 == log->chunks.size() && !log->scratch;
      const Event* end = current ? log->cursor : begin + kChunkEvents;
      for (const Event* e = begin; e != end; ++e) {
        switch (e->kind) {
          case EventKind::Run:
            runs.push_back(Run{to_ns(e->start), to_ns(e->end), e->id, reinterpret_cast<const std::type_info*>(e->other), log->tid,
                               e->team_rank, e->team_size, e->priority});
            break;
          case EventKind::Wait: waits.push_back(*e); break;
          case EventKind::Input: inputs.emplace_back(e->id, e->other); break;
        }
      }
    }
  }
  logs.clear();
  if (dropped != 0)
    std::cerr << "tessera: the trace kept the first " << max_events << " task events and dropped " << dropped
              << " (raise TESSERA_TRACE_MAX_EVENTS)\n";
  if (runs.empty()) return;

  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    if (a.task != b.task) return a.task < b.task;
    if ((a.rank == 0) != (b.rank == 0)) return a.rank == 0;
    return a.start < b.start;
  });
  std::sort(inputs.begin(), inputs.end());
  std::vector<TaskRuns> tasks;
  for (std::uint32_t i = 0; i < runs.size(); ++i) {
    if (tasks.empty() || tasks.back().id != runs[i].task) tasks.push_back(TaskRuns{runs[i].task, i, 0, 0, 0});
    ++tasks.back().count;
    if (runs[i].rank == 0) ++tasks.back().leads;
  }
  {
    std::vector<std::uint32_t> order(tasks.size());
    for (std::uint32_t t = 0; t < order.size(); ++t) order[t] = t;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return runs[tasks[a].first].start < runs[tasks[b].first].start; });
    for (std::size_t k = 0; k < order.size(); ++k) tasks[order[k]].number = k + 1;
  }
  auto find_task = [&tasks](std::uint64_t id) -> const TaskRuns* {
    auto it = std::lower_bound(tasks.begin(), tasks.end(), id,
                               [](const TaskRuns& t, std::uint64_t v) { return t.id < v; });
    return it != tasks.end() && it->id == id && it->leads > 0 ? &*it : nullptr;
  };
  // The first lead run of t that starts after `after`.
  auto next_run = [&runs](const TaskRuns& t, std::int64_t after) -> const Run* {
    const Run* begin = runs.data() + t.first;
    const Run* end = begin + t.leads;
    const Run* it = std::upper_bound(begin, end, after, [](std::int64_t v, const Run& r) { return v < r.start; });
    return it == end ? nullptr : it;
  };

  // Slices.
  std::unordered_map<const std::type_info*, std::pair<std::string, std::string>> names;  // short, full (escaped)
  std::string args;
  for (const TaskRuns& t : tasks) {
    const Run* lead = runs.data() + t.first;
    for (std::uint32_t i = 0; i < t.count; ++i) {
      const Run& run = lead[i];
      auto it = names.find(run.type);
      if (it == names.end()) {
        const std::string full = demangle(*run.type);
        it = names.emplace(run.type, std::make_pair(short_name(full), profiling::TraceWriter::escape(full))).first;
      }
      // The run's number: for a member of a team run, that of the lead run
      // that started last before it.
      std::size_t k = i;
      if (i >= t.leads) {
        const Run* after = std::upper_bound(lead, lead + t.leads, run.start,
                                            [](std::int64_t v, const Run& r) { return v < r.start; });
        k = after == lead ? 0 : std::size_t(after - lead) - 1;
      }
      args.clear();
      args += "\"task\":";
      args += std::to_string(t.number);
      args += ",\"run\":";
      args += std::to_string(k);
      args += ",\"priority\":\"";
      args += priority_name(run.priority);
      args += "\",\"functor\":\"";
      args += it->second.second;
      args += '"';
      if (run.team > 1) {
        args += ",\"team_rank\":";
        args += std::to_string(run.rank);
        args += ",\"team_size\":";
        args += std::to_string(run.team);
      }
      out.slice(it->second.first, k == 0 ? "task" : "task,respawn", run.tid, run.start, run.end, args);
    }
  }

  auto arrow = [&out](const char* name, const Run& from, const Run& to) {
    const std::uint64_t id = out.new_flow_id();
    out.flow_start(id, name, "task", from.tid, arrow_from(from));
    out.flow_finish(id, name, "task", to.tid, arrow_to(to));
  };
  // Each run of a respawned task, from the run before it.
  for (const TaskRuns& t : tasks)
    for (std::uint32_t k = 1; k < t.leads; ++k) arrow("respawn", runs[t.first + k - 1], runs[t.first + k]);

  // Each declared dependence, from the last run of every task it names
  // (through when_alls, which have no runs) to the run that waited.
  // (A when_all only names older records, so the expansion ends; a task
  // named twice gets one arrow.)
  std::vector<std::uint64_t> stack, named;
  for (const Event& w : waits) {
    const TaskRuns* waiter = find_task(w.id);
    if (waiter == nullptr) continue;  // cancelled, or ran after the trace
    const Run* to = next_run(*waiter, w.start == 0 ? 0 : to_ns(w.start));
    if (to == nullptr) continue;
    stack.assign(1, w.other);
    named.clear();
    while (!stack.empty()) {
      const std::uint64_t d = stack.back();
      stack.pop_back();
      const auto in = std::equal_range(inputs.begin(), inputs.end(), std::make_pair(d, std::uint64_t(0)),
                                       [](const auto& a, const auto& b) { return a.first < b.first; });
      if (in.first == in.second) named.push_back(d);
      for (auto i = in.first; i != in.second; ++i) stack.push_back(i->second);
    }
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    for (const std::uint64_t d : named) {
      const TaskRuns* src = find_task(d);
      if (src == nullptr) continue;  // ran before the trace, or a when_all of nothing traced
      const Run& from = runs[src->first + src->leads - 1];
      if (from.end <= to->start) arrow("dependence", from, *to);
    }
  }
}

}  // namespace
}  // namespace tessera::detail::tasking::trace
