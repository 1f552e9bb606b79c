#pragma once
// Output of Tessera's benchmarks: a table for people and, with --json, one
// JSON object per line for scripts (docs/performance.md is generated from
// those lines by ci/perf_report.py, which reads the keys below). Every row
// carries the thread count that really ran. The lines are written with the
// one JSON writer (<tessera/tools/json.hpp>, nlohmann-json): medians and
// spreads at 6 significant digits and ratios at 4 decimals, as they have
// always been printed; a figure that is not finite is null.
#include "interleaved.hpp"
#include "stats.hpp"
#include "thread_sweep.hpp"

#include <tessera/tools/json.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace tessera::bench {

// The CPU's model name (/proc/cpuinfo), or "" where the file does not say.
inline std::string cpu_model() {
  std::string model;
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      if (std::strncmp(line, "model name", 10) != 0) continue;
      const char* colon = std::strchr(line, ':');
      if (!colon) break;
      model = colon + 1;
      while (!model.empty() && (model.front() == ' ' || model.front() == '\t')) model.erase(0, 1);
      while (!model.empty() && (model.back() == '\n' || model.back() == ' ')) model.pop_back();
      break;
    }
    std::fclose(f);
  }
  return model;
}

// The kernel set OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ...), or
// "" when OpenBLAS is not in the process. Looked up at run time so that a
// benchmark without BLAS need not link it: a dense figure means little
// without knowing whether OpenBLAS ran its AVX-512 kernels or a generic one.
inline std::string blas_core() {
  using corename_fn = char* (*)();
  auto fn = reinterpret_cast<corename_fn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = fn ? fn() : nullptr;
  return name ? std::string(name) : std::string();
}

// What a row's number is: `per_item` divides seconds by `items` (ns per
// task: items = tasks, scale = 1e9); otherwise items / seconds is a rate
// (GB/s: items = bytes, scale = 1e-9).
struct Measure {
  const char* unit = "s";
  double items = 1;
  double scale = 1;
  bool per_item = true;
  bool lower_is_better = true;

  Stats of(const std::vector<double>& seconds) const {
    return per_item ? summarize_scaled(seconds, scale / items, false)
                    : summarize_scaled(seconds, items * scale, true);
  }
};

class Report {
 public:
  // bench: the program ("task_overhead"); json: print JSON lines instead of the table.
  // In JSON mode the first line describes the run: the machine's load
  // average when it started (a figure taken on a busy machine is flagged by
  // the report script), its CPU model and hardware threads, and OpenBLAS's
  // kernel set where OpenBLAS is loaded.
  Report(std::string bench, bool json) : m_bench(std::move(bench)), m_json(json) {
    double load1 = -1;
    if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(f, "%lf", &load1) != 1) load1 = -1;
      std::fclose(f);
    }
    const unsigned hw = std::thread::hardware_concurrency();
    const std::string cpu = cpu_model(), blas = blas_core();
    if (m_json) {
      tools::json meta = {{"bench", m_bench},
                          {"meta", true}};
      // The thread count asked for (thread_sweep.hpp), which the report
      // script groups runs by.
      if (const int requested = threads_requested(); requested > 0) meta["threads_requested"] = requested;
      meta.update(tools::json{{"load_avg_1m", tools::fixed(load1, 2)},
                          {"hardware_threads", hw},
                          {"time", static_cast<long long>(std::time(nullptr))}});
      if (!cpu.empty()) meta["cpu_model"] = cpu;
      if (!blas.empty()) meta["blas_core"] = blas;
      tools::print_line(meta);
    } else {
      std::printf("# %s: load average %.2f at start, %u hardware threads%s%s%s%s\n", m_bench.c_str(), load1, hw,
                  cpu.empty() ? "" : ", ", cpu.c_str(), blas.empty() ? "" : ", OpenBLAS core ", blas.c_str());
    }
  }

  // One row per contender of one case ("fib(27)", "fan-out 10^6").
  void add(const std::string& case_name, const Measure& m, const std::vector<Contender>& cs,
           const std::vector<Result>& rs) const {
    if (!m_json)
      std::printf("%s\n  %-34s %7s %14s %25s %9s %15s\n", case_name.c_str(), "contender", "threads",
                  (std::string(m.unit) + " median").c_str(), "(min - max)", "ref/own", "min-max");
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const Stats v = m.of(rs[i].seconds);
      const bool has_ratio = !rs[i].ratio.empty();
      const Stats r = summarize(rs[i].ratio);
      if (m_json) {
        tools::json row = {{"bench", m_bench},        {"case", case_name},
                           {"contender", cs[i].name}, {"threads", rs[i].threads},
                           {"unit", m.unit},          {"median", tools::rounded(v.median, 6)},
                           {"min", tools::rounded(v.min, 6)}, {"max", tools::rounded(v.max, 6)},
                           {"repeats", rs[i].seconds.size()}};
        if (has_ratio) {
          row["reference"] = cs[cs[i].reference].name;
          row["ratio_median"] = tools::fixed(r.median, 4);
          row["ratio_min"] = tools::fixed(r.min, 4);
          row["ratio_max"] = tools::fixed(r.max, 4);
        }
        tools::print_line(row);
      } else {
        std::printf("  %-34s %7d %14.3f  (%10.3f - %10.3f)", cs[i].name.c_str(), rs[i].threads, v.median,
                    v.min, v.max);
        if (has_ratio)
          std::printf(" %9.3f %7.3f-%-7.3f  %s / own\n", r.median, r.min, r.max,
                      cs[cs[i].reference].name.c_str());
        else
          std::printf("\n");
      }
    }
    std::fflush(stdout);
  }

  // A case note (with --json only): one line {"bench", "case", fields...}
  // without a contender, for what a case measured beside its rows (the
  // peers' command line, iteration counts, per-rank traffic, a skip).
  void note(const std::string& case_name, const tools::json& fields) const {
    if (!m_json) return;
    tools::json line = {{"bench", m_bench}, {"case", case_name}};
    line.update(fields);
    tools::print_line(line);
  }

  bool json() const { return m_json; }

 private:
  std::string m_bench;
  bool m_json;
};

}  // namespace tessera::bench
