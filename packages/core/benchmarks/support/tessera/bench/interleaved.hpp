#pragma once
// Contenders timed in turn within each repetition (A B C A B C ...), so that a
// shared machine whose speed drifts slows every contender alike. Each
// contender's time ratio to a reference contender is taken per repetition and
// summarized, so a reported ratio never mixes a fast moment of one with a slow
// moment of the other. Contenders time themselves where the host clock
// cannot see the work (a GPU's events: Contender::measured_seconds).
#include "stats.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace tessera::bench {

struct Contender {
  std::string name;           // who runs ("tessera Threads", "oneTBB task_group", ...)
  std::function<void()> run;  // one timed run; check its answer outside the timing
  // How many threads really ran, asked of the runtime after the runs (an
  // OpenMP region's omp_get_num_threads(), a TBB arena's concurrency, ...),
  // not the number that was requested.
  std::function<int()> threads_ran = [] { return 1; };
  // Index of the reference contender (-1: none). The row's ratio is
  // reference seconds / own seconds per repetition: with Tessera as the
  // reference of each peer, a ratio <= 1 means Tessera took at most the
  // peer's time.
  int reference = -1;
  // Untimed work before each run (warm-up and timed), e.g. restoring the
  // matrix a factorization overwrites, or setting a library's thread count.
  std::function<void()> prepare = [] {};
  // Seconds of the last run as the contender measured them itself, e.g.
  // between two CUDA events recorded on the stream the work ran on (a GPU
  // run's host time would count launch and synchronization, not the work).
  // Unset (the default): the run is timed with the host clock around run().
  std::function<double()> measured_seconds{};
  // Untimed work after each run (warm-up and timed), e.g. checking the
  // answer it left (copying a result back from a GPU takes time the run's
  // work did not).
  std::function<void()> check = [] {};
};

struct Result {
  std::vector<double> seconds;  // one per repetition, in order
  std::vector<double> ratio;    // reference seconds / own seconds per repetition
  int threads = 1;
};

struct InterleaveOptions {
  int warmup = 1;
  int repeats = 7;
  // Sleep before each timed run, so another runtime's spinning workers have
  // gone idle and do not steal the cores of the contender being timed.
  int pause_ms = 20;
};

inline std::vector<Result> run_interleaved(const std::vector<Contender>& contenders,
                                           const InterleaveOptions& opt) {
  using clock = std::chrono::steady_clock;
  for (int w = 0; w < opt.warmup; ++w)
    for (const auto& c : contenders) {
      c.prepare();
      c.run();
      c.check();
    }
  std::vector<Result> out(contenders.size());
  for (int r = 0; r < opt.repeats; ++r) {
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      contenders[i].prepare();
      std::this_thread::sleep_for(std::chrono::milliseconds(opt.pause_ms));
      const auto t0 = clock::now();
      contenders[i].run();
      const double host_seconds = std::chrono::duration<double>(clock::now() - t0).count();
      out[i].seconds.push_back(contenders[i].measured_seconds ? contenders[i].measured_seconds() : host_seconds);
      contenders[i].check();
    }
  }
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    out[i].threads = contenders[i].threads_ran();
    const int p = contenders[i].reference;
    if (p < 0) continue;
    for (int r = 0; r < opt.repeats; ++r) out[i].ratio.push_back(out[p].seconds[r] / out[i].seconds[r]);
  }
  return out;
}

}  // namespace tessera::bench
