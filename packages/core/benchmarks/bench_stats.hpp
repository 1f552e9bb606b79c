#pragma once
// Small helpers shared by Tessera's peer-comparison benchmarks: repeated
// timing with median and spread, and a fixed-width result table.
#include <tessera/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

// Several contenders timed in turn within each repetition (A B C A B C ...),
// so that a machine whose speed drifts (shared, noisy) slows all of them
// alike; each one's ratio to its peer is taken per repetition, and the
// median of those ratios is what gets reported.
struct Contender {
  std::string kernel;
  std::string backend;
  int threads = 1;
  std::function<void()> run;
  int peer = -1;  // index of the contender it is compared with (-1: none)
};

struct PairedResult {
  Stats seconds;
  Stats ratio;  // peer time / own time per repetition (> 1: faster than the peer)
};

inline std::vector<PairedResult> run_paired(const std::vector<Contender>& cs, int warmup, int repeats,
                                            int pause_ms = 5) {
  for (int w = 0; w < warmup; ++w)
    for (const auto& c : cs) c.run();
  std::vector<std::vector<double>> t(cs.size());
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t i = 0; i < cs.size(); ++i) {
      // Let the previous runtime's spinning workers go idle first.
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      auto start = std::chrono::steady_clock::now();
      cs[i].run();
      t[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::vector<PairedResult> out(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i) {
    out[i].seconds = summarize(t[i]);
    if (cs[i].peer >= 0) {
      std::vector<double> ratios;
      for (int r = 0; r < repeats; ++r) ratios.push_back(t[cs[i].peer][r] / t[i][r]);
      out[i].ratio = summarize(ratios);
    }
  }
  return out;
}

// Prints one row per contender: rate = work / seconds (median, worst, best)
// and the median ratio to its peer with the ratio's spread.
inline void print_paired(const std::vector<Contender>& cs, const std::vector<PairedResult>& res, double work,
                         const char* unit) {
  std::printf("%-12s %-13s %7s %11s %11s %11s %9s %15s\n", "kernel", "back-end", "threads",
              (std::string(unit) + " med").c_str(), "min", "max", "ratio", "ratio min-max");
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const Stats& s = res[i].seconds;
    std::printf("%-12s %-13s %7d %11.3f %11.3f %11.3f", cs[i].kernel.c_str(), cs[i].backend.c_str(), cs[i].threads,
                work / s.median, work / s.max, work / s.min);
    if (cs[i].peer >= 0)
      std::printf(" %9.3f %7.3f-%-7.3f\n", res[i].ratio.median, res[i].ratio.min, res[i].ratio.max);
    else
      std::printf(" %9s %15s\n", "(peer)", "");
  }
  std::fflush(stdout);
}

// Prints the 1, 5 and 15 minute load averages (timings mean little when
// the machine is busy: report them beside any figure).
inline void print_load(const char* what) {
  double l[3] = {-1, -1, -1};
  if (getloadavg(l, 3) == 3) std::printf("%s: %.2f %.2f %.2f\n", what, l[0], l[1], l[2]);
  std::fflush(stdout);
}

// Converts seconds to a rate (work / seconds), keeping min/max meaning "worst/best".
inline Stats to_rate(const Stats& seconds, double work) {
  return Stats{work / seconds.median, work / seconds.max, work / seconds.min};
}

}  // namespace tessera::bench
