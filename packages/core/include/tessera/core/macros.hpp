#pragma once
// Portability macros. Under nvcc every function that a kernel may call must be
// marked __host__ __device__; on host-only builds the markers vanish.
#include <tessera/config.hpp>

#if defined(__CUDACC__)
#define TESSERA_IMPL_HOST_DEVICE __host__ __device__
#define TESSERA_IMPL_DEVICE __device__
#else
#define TESSERA_IMPL_HOST_DEVICE
#define TESSERA_IMPL_DEVICE
#endif

#if defined(__CUDA_ARCH__)
#define TESSERA_IMPL_ON_DEVICE 1
#else
#define TESSERA_IMPL_ON_DEVICE 0
#endif

#define TESSERA_FUNCTION TESSERA_IMPL_HOST_DEVICE
#define TESSERA_INLINE_FUNCTION TESSERA_IMPL_HOST_DEVICE inline
#define TESSERA_FORCEINLINE_FUNCTION TESSERA_IMPL_HOST_DEVICE inline __attribute__((always_inline))
// For functions defaulted on their first declaration: nvcc infers their
// execution space from the members they call and ignores (warning #20012-D)
// an explicit __host__ __device__, so the marker is empty everywhere.
#define TESSERA_DEFAULTED_FUNCTION

#if defined(__CUDACC__)
#define TESSERA_LAMBDA [=] __host__ __device__
#define TESSERA_CLASS_LAMBDA [ =, *this ] __host__ __device__
#else
#define TESSERA_LAMBDA [=]
#define TESSERA_CLASS_LAMBDA [ =, *this ]
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TESSERA_IMPL_RESTRICT __restrict__
#define TESSERA_IMPL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TESSERA_IMPL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TESSERA_IMPL_RESTRICT
#define TESSERA_IMPL_LIKELY(x) (x)
#define TESSERA_IMPL_UNLIKELY(x) (x)
#endif

// Expands to the argument only in host compilation passes; used for code
// (exceptions, std::string, I/O) that must never reach a device pass.
#if TESSERA_IMPL_ON_DEVICE
#define TESSERA_IF_ON_HOST(code)
#define TESSERA_IF_ON_DEVICE(code) code
#else
#define TESSERA_IF_ON_HOST(code) code
#define TESSERA_IF_ON_DEVICE(code)
#endif
