#pragma once
// Small helpers shared by Tessera's peer-comparison benchmarks: repeated
// timing with median and spread, and a fixed-width result table.
#include <tessera/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace tessera::bench {

struct Stats {
  double median = 0, min = 0, max = 0;
};

inline Stats summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  Stats s;
  if (samples.empty()) return s;
  const std::size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

// Runs `body` `warmup` times untimed, then `repeats` times timed; returns
// the seconds of each timed run.
template <class Body>
std::vector<double> time_repeats(int warmup, int repeats, const Body& body) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> t;
  t.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return t;
}

// Lets the other runtime's spinning workers go to sleep before measuring a
// different back-end, so that pools do not fight over the same cores.
inline void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(60)); }

inline void print_header(const char* what, const char* unit) {
  std::printf("%-12s %-10s %8s %12s %12s %12s %10s\n", "kernel", "back-end", "threads", (std::string(unit) + " med").c_str(),
              "min", "max", "ratio");
  (void)what;
}

inline void print_row(const std::string& kernel, const std::string& backend, int threads, const Stats& s,
                      double ratio) {
  if (ratio > 0)
    std::printf("%-12s %-10s %8d %12.3f %12.3f %12.3f %10.3f\n", kernel.c_str(), backend.c_str(), threads, s.median,
                s.min, s.max, ratio);
  else
    std::printf("%-12s %-10s %8d %12.3f %12.3f %12.3f %10s\n", kernel.c_str(), backend.c_str(), threads, s.median,
                s.min, s.max, "-");
  std::fflush(stdout);
}

// Converts seconds to a rate (work / seconds), keeping min/max meaning "worst/best".
inline Stats to_rate(const Stats& seconds, double work) {
  return Stats{work / seconds.median, work / seconds.max, work / seconds.min};
}

}  // namespace tessera::bench
