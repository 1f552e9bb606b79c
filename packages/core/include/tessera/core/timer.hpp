#pragma once
// Timer: wall-clock seconds since construction or the last reset(), on a
// monotonic clock (steady_clock), so system clock adjustments never make an
// interval negative. Host only, as in Kokkos.
#include <chrono>

namespace tessera {

class Timer {
 public:
  Timer() : m_start(clock::now()) {}
  Timer(const Timer&) = default;
  Timer& operator=(const Timer&) = default;

  // Restarts the interval at now.
  void reset() { m_start = clock::now(); }
  // Seconds elapsed since construction or the last reset().
  double seconds() const { return std::chrono::duration<double>(clock::now() - m_start).count(); }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point m_start;
};

}  // namespace tessera
