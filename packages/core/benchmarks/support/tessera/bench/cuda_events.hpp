#pragma once
// A GPU contender for run_interleaved: its run is the work between two CUDA
// events recorded on the stream the work runs on, and its time is the
// events' elapsed time (the host clock would count launches and the
// synchronization, not the work). Include only from a target compiled by
// nvcc (or linking the CUDA runtime).
//
//   auto c = tessera::bench::cuda_contender("tessera", stream, threads, [=] { ...queue work on stream... });
#include "interleaved.hpp"

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace tessera::bench {

inline void cuda_bench_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

struct CudaEvents {
  cudaEvent_t start = nullptr, stop = nullptr;
  CudaEvents() {
    cuda_bench_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_bench_check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~CudaEvents() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  CudaEvents(const CudaEvents&) = delete;
  CudaEvents& operator=(const CudaEvents&) = delete;
  double seconds() const {
    float ms = 0;
    cuda_bench_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return double(ms) * 1e-3;
  }
};

// `threads`: what the row's threads column shows (a device's resident-thread
// capacity). `prepare` (untimed) is followed by a stream synchronization.
// Work that synchronizes the host itself (a library call returning a count)
// is timed the same way: the events bracket everything it queues.
inline Contender cuda_contender(const std::string& name, cudaStream_t stream, int threads, std::function<void()> work,
                                int reference = -1, std::function<void()> prepare = {}) {
  auto ev = std::make_shared<CudaEvents>();
  Contender c;
  c.name = name;
  c.run = [ev, stream, work] {
    cuda_bench_check(cudaEventRecord(ev->start, stream), "cudaEventRecord");
    work();
    cuda_bench_check(cudaEventRecord(ev->stop, stream), "cudaEventRecord");
    cuda_bench_check(cudaEventSynchronize(ev->stop), "cudaEventSynchronize");
  };
  c.measured_seconds = [ev] { return ev->seconds(); };
  c.threads_ran = [threads] { return threads; };
  c.reference = reference;
  if (prepare)
    c.prepare = [prepare, stream] {
      prepare();
      cuda_bench_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    };
  return c;
}

}  // namespace tessera::bench
