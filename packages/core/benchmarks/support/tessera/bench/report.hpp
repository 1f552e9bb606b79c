#pragma once
// Output of Tessera's benchmarks: a table for people and, with --json, one
// JSON object per line for scripts (docs/performance.md is generated from
// those lines). Every row carries the thread count that really ran.
#include "interleaved.hpp"
#include "stats.hpp"

#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace tessera::bench {

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

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

class Report {
 public:
  // bench: the program ("task_overhead"); json: print JSON lines instead of the table.
  // In JSON mode the first line describes the run: the machine's load
  // average when it started (a figure taken on a busy machine is flagged by
  // the report script) and its hardware threads.
  Report(std::string bench, bool json) : m_bench(std::move(bench)), m_json(json) {
    double load1 = -1;
    if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(f, "%lf", &load1) != 1) load1 = -1;
      std::fclose(f);
    }
    const unsigned hw = std::thread::hardware_concurrency();
    if (m_json)
      std::printf(
          "{\"bench\":\"%s\",\"meta\":true,\"load_avg_1m\":%.2f,\"hardware_threads\":%u,\"time\":%lld}\n",
          json_escape(m_bench).c_str(), load1, hw, static_cast<long long>(std::time(nullptr)));
    else
      std::printf("# %s: load average %.2f at start, %u hardware threads\n", m_bench.c_str(), load1, hw);
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
        std::printf(
            "{\"bench\":\"%s\",\"case\":\"%s\",\"contender\":\"%s\",\"threads\":%d,\"unit\":\"%s\","
            "\"median\":%.6g,\"min\":%.6g,\"max\":%.6g,\"repeats\":%zu",
            json_escape(m_bench).c_str(), json_escape(case_name).c_str(), json_escape(cs[i].name).c_str(),
            rs[i].threads, json_escape(m.unit).c_str(), v.median, v.min, v.max, rs[i].seconds.size());
        if (has_ratio)
          std::printf(",\"reference\":\"%s\",\"ratio_median\":%.4f,\"ratio_min\":%.4f,\"ratio_max\":%.4f",
                      json_escape(cs[cs[i].reference].name).c_str(), r.median, r.min, r.max);
        std::printf("}\n");
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

 private:
  std::string m_bench;
  bool m_json;
};

}  // namespace tessera::bench
