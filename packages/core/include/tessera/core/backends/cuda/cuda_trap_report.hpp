#pragma once
// What a kernel tells the host before it stops itself with a trap (today: a
// View bounds error). A trapped kernel cannot be recovered: the CUDA context
// is lost and every later CUDA call of the process fails. So the report goes
// where the host can still read it afterwards, a page-locked host buffer
// mapped into the device's address space, and the first failing CUDA call on
// the host (the next fence, as a rule) throws an error that quotes it.
//
// The contract (packages/core/docs/cuda.md, "Device-side errors"): the
// device prints the View's label, the index and the extent; the next fence
// throws std::runtime_error beginning "tessera: device-side View bounds
// error"; the process must not use the GPU again.
//
// How a kernel finds the buffer without relocatable device code: every
// translation unit compiled by nvcc has its own copy of the device pointer
// `trap_report_slot` below (internal linkage), which the TU fills once,
// before its first dispatch (with_functor calls publish_trap_report()).
// Kernels launched by other means (raw CUDA kernels that index Views) still
// print and trap; only the fence's message is then less specific.
#include <cstddef>

namespace tessera::detail {

struct CudaTrapReport {
  volatile unsigned kind;  // 0: nothing reported; 1: View bounds error
  long long index;
  unsigned long long dimension, extent, rank;
  char label[128];
};
inline constexpr unsigned kTrapBoundsError = 1;

// The mapped report: its host address and its device address (nullptr when
// the back-end is unavailable). Defined in cuda_space.cpp.
CudaTrapReport* cuda_trap_report_host();
CudaTrapReport* cuda_trap_report_device();

}  // namespace tessera::detail

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>

namespace tessera::detail::cuda {
namespace {

// This translation unit's pointer to the mapped report, and the word that
// lets only the first failing thread of this TU write it.
__device__ CudaTrapReport* trap_report_slot = nullptr;
__device__ unsigned trap_report_claim = 0;

// Host: fills this TU's slot once (thread-safe through the static's
// initialization). Errors are ignored: without the slot, a bounds error
// still prints and traps.
inline void publish_trap_report() {
  static const bool published = [] {
    CudaTrapReport* p = cuda_trap_report_device();
    if (p && cudaMemcpyToSymbol(trap_report_slot, &p, sizeof(p)) != cudaSuccess) (void)cudaGetLastError();
    return true;
  }();
  (void)published;
}

// Device: records a bounds error for the host (first caller only), making
// the write visible to the host before the trap that follows.
__device__ inline void report_bounds_error_to_host(const char* label, unsigned long long dim, long long index,
                                                   unsigned long long extent, unsigned long long rank) {
  CudaTrapReport* r = trap_report_slot;
  if (r == nullptr || atomicCAS(&trap_report_claim, 0u, 1u) != 0u) return;
  r->index = index;
  r->dimension = dim;
  r->extent = extent;
  r->rank = rank;
  int k = 0;
  for (; k < 127 && label[k] != '\0'; ++k) r->label[k] = label[k];
  r->label[k] = '\0';
  __threadfence_system();
  r->kind = kTrapBoundsError;
  __threadfence_system();
}

}  // namespace
}  // namespace tessera::detail::cuda
#endif
