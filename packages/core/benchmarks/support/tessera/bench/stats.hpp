#pragma once
// Summary of repeated timings: median and spread (min, max). The median is
// what Tessera's benchmarks report and compare; the spread says how far to
// trust it.
#include <algorithm>
#include <vector>

namespace tessera::bench {

struct Stats {
  double median = 0, min = 0, max = 0;
};

inline Stats summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

// The same statistics of `scale / sample` per sample: seconds into a rate
// (work per second) or into a time per item (1 / items), keeping min and max
// as the smallest and largest transformed value.
inline Stats summarize_scaled(const std::vector<double>& seconds, double numerator, bool invert) {
  std::vector<double> v;
  v.reserve(seconds.size());
  for (double s : seconds) v.push_back(invert ? numerator / s : s * numerator);
  return summarize(std::move(v));
}

}  // namespace tessera::bench
