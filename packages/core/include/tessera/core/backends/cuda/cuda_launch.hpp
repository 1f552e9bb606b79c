#pragma once
// Kernel launch plumbing shared by the CUDA patterns: how a functor reaches
// the kernel, block-size choice under launch bounds, and launch checking.
// Only meaningful under nvcc.
#include <tessera/core/backends/cuda/cuda_space.hpp>
#include <tessera/core/backends/cuda/cuda_trap_report.hpp>
#include <tessera/core/policy_traits.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tessera::detail::cuda {

inline constexpr int kWarpSize = 32;
// Functors up to this size travel as kernel parameters (the classic 4 KiB
// parameter limit minus room for the other arguments); larger ones are copied
// to the instance's device scratch and the kernel reads them from there.
inline constexpr std::size_t kMaxFunctorParamBytes = 3840;

// Functor passed by value as a kernel parameter.
template <class F>
struct FunctorByValue {
  F f;
  TESSERA_FORCEINLINE_FUNCTION const F& get() const { return f; }
};
// Functor read from a device copy (for functors too large to be parameters).
template <class F>
struct FunctorInGlobal {
  const F* f;
  TESSERA_FORCEINLINE_FUNCTION const F& get() const { return *f; }
};

template <class F>
inline constexpr bool functor_fits_param = sizeof(F) <= kMaxFunctorParamBytes;

// Calls launch(holder) with the functor by value, or copied to the device
// scratch of `inst` (caller holds inst.mutex in that case: see needs_lock).
template <class F, class Launch>
void with_functor(CudaInstance& inst, const F& f, const Launch& launch) {
  publish_trap_report();  // once per translation unit
  if constexpr (functor_fits_param<F>) {
    launch(FunctorByValue<F>{f});
  } else {
    auto s = inst.scratch(sizeof(F), 0);
    // Bitwise copy: the device copy never runs the functor's destructor and
    // View copies made on the device never touch reference counts.
    cuda_check(cudaMemcpyAsync(s.functor, static_cast<const void*>(&f), sizeof(F), cudaMemcpyHostToDevice,
                               inst.stream),
               "tessera::Cuda: copying a large functor to the device");
    launch(FunctorInGlobal<F>{static_cast<const F*>(s.functor)});
  }
}

// max_threads / min_blocks of LaunchBounds<> (0: not given).
template <class LB>
inline constexpr unsigned lb_max_threads = LB::max_threads;
template <class LB>
inline constexpr unsigned lb_min_blocks = LB::min_blocks > 0 ? LB::min_blocks : 1;

// Threads per block for `kernel`: `preferred`, capped by the launch bounds,
// by what the kernel's register use allows, and (for reductions) rounded
// down to a power of two; always a multiple of the warp size.
template <class LB>
int block_size_for(const void* kernel, int preferred, bool power_of_two) {
  cudaFuncAttributes attr{};
  cuda_check(cudaFuncGetAttributes(&attr, kernel), "tessera::Cuda: querying kernel attributes");
  int limit = attr.maxThreadsPerBlock;
  if (lb_max_threads<LB> > 0) limit = std::min<int>(limit, int(lb_max_threads<LB>));
  int b = std::min(preferred, limit);
  if (power_of_two) {
    int p = kWarpSize;
    while (p * 2 <= b) p *= 2;
    b = p;
  } else {
    b = std::max(kWarpSize, b / kWarpSize * kWarpSize);
  }
  return b;
}

inline void check_launch(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw_cuda_error(e, std::string(what) + ": kernel launch failed");
}

// Dynamic shared memory of every Tessera kernel (one extern array, typed at use).
__device__ inline unsigned char* shared_memory() {
  extern __shared__ __align__(16) unsigned char tessera_cuda_shared[];
  return tessera_cuda_shared;
}

// FunctorReduceOps keeps a pointer to the host's functor; inside a kernel it
// must point at the kernel's copy instead.
template <class Ops, class F>
TESSERA_FORCEINLINE_FUNCTION void rebind_functor(Ops& ops, const F* f) {
  if constexpr (requires { ops.functor = f; }) ops.functor = f;
}

}  // namespace tessera::detail::cuda
