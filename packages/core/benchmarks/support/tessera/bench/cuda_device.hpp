#pragma once
// The two things every GPU benchmark does about its device: without a
// usable GPU, say why (a table line, or a JSON line with "skipped") so the
// program can exit 0; with one, name the card, which becomes the column of
// its table in docs/performance.md. Include only from a target compiled by
// nvcc (or linking the CUDA runtime) in a build with the Cuda back-end.
//
//   if (tessera::bench::say_no_cuda_device("fem_assembly_cuda", json)) return 0;
//   tessera::bench::note_cuda_device(report, json, repeats);
#include "report.hpp"

#include <tessera/core.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

namespace tessera::bench {

// True when no GPU is usable: the reason is printed (as bench's "device"
// case with "skipped" in JSON mode) and the caller should exit 0.
inline bool say_no_cuda_device(const char* bench, bool json) {
  if (tessera::Cuda::impl_is_available()) return false;
  const std::string msg = "no CUDA device: " + tessera::Cuda::impl_unavailable_reason();
  if (json)
    tools::print_line({{"bench", bench}, {"case", "device"}, {"skipped", msg}});
  else
    std::printf("%s\n", msg.c_str());
  return true;
}

// The card of Tessera's default Cuda instance: a "device" note (JSON) or a
// comment line (table).
inline void note_cuda_device(const Report& report, bool json, int repeats) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, tessera::Cuda().cuda_device()) != cudaSuccess) return;
  if (json)
    report.note("device", {{"device", p.name}, {"sm_count", p.multiProcessorCount}, {"repeats", repeats}});
  else
    std::printf("# device: %s, %d SMs\n", p.name, p.multiProcessorCount);
}

}  // namespace tessera::bench
