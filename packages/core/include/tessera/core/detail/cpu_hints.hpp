#pragma once
// Two host instructions that spin loops and timers need: the spin-wait hint
// (x86 pause, Arm yield) and the CPU's cycle counter (x86 TSC, Arm's virtual
// counter). Written as inline assembly and a compiler builtin rather than
// _mm_pause / __rdtsc, whose <immintrin.h> / <x86intrin.h> are 39,000 lines:
// a third of what a TU including tessera/core.hpp parsed, 0.6 of its 2.4
// CPU-s with GCC 12, and every TU of the project includes core. Core's team
// barrier, mempool's spin loops and scatter value and tasking's trace clock
// use these; this header includes nothing, so mempool's metadata header,
// which includes only core's macros, can take it too.
//
// Host functions: nvcc's device pass parses them but never runs them, so the
// device pass sees empty bodies (its front end knows neither builtin).
#include <cstdint>

namespace tessera::detail {

// Tells the core that this thread is spinning on a value another thread
// will change: it stops speculating ahead on the loop and, on a core shared
// by two hardware threads, lets the other one run.
inline void host_cpu_relax() noexcept {
#if defined(__CUDA_ARCH__)
#elif defined(__x86_64__) || defined(__i386__)
  asm volatile("pause" ::: "memory");
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Whether host_cycle_counter reads a hardware counter on this target.
inline constexpr bool host_has_cycle_counter =
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    true;
#else
    false;
#endif

// The CPU's cycle counter: a few cycles to read, monotonic on one core; 0
// where host_has_cycle_counter is false. Whether the cores' counters agree
// with each other and run at a fixed rate is the caller's question (the
// task trace asks Linux's clocksource).
inline std::uint64_t host_cycle_counter() noexcept {
#if defined(__CUDA_ARCH__)
  return 0;
#elif defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  std::uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return 0;
#endif
}

}  // namespace tessera::detail
