#pragma once
// Timing helpers of the tasking benchmarks: repeats, median and spread.
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

inline Stats summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s;
  if (v.empty()) return s;
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

// Seconds of each of `repeats` timed runs of body, after `warmup` untimed ones.
template <class Body>
Stats time_repeats(int warmup, int repeats, const Body& body) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(t);
}

// Lets another runtime's spinning workers go to sleep before the next peer runs.
inline void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

// "name  threads  median  (min - max)  unit  ratio-to-reference"
inline void row(const std::string& what, const std::string& who, int threads, const Stats& s, const char* unit,
                double reference_median) {
  std::printf("%-22s %-22s %3d  %10.2f  (%9.2f - %9.2f) %-8s", what.c_str(), who.c_str(), threads, s.median, s.min,
              s.max, unit);
  if (reference_median > 0) std::printf("  x%.2f", s.median / reference_median);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace tessera::bench
