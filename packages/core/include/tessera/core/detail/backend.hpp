#pragma once
// detail::Backend<Exec>: the seam between the pattern front ends and the
// back-ends. Every host execution space shares one implementation (the
// host_* functions); the CUDA back-end specializes Backend<Cuda> in its own
// folder.
#include <tessera/core/detail/host_mdrange.hpp>
#include <tessera/core/detail/host_range.hpp>
#include <tessera/core/detail/host_team.hpp>
#include <tessera/core/space_traits.hpp>

#include <type_traits>

namespace tessera::detail {

template <class Exec, class Enable = void>
struct Backend {
  static_assert(sizeof(Exec) == 0, "no back-end implementation for this execution space");
};

template <class Exec>
struct Backend<Exec, std::enable_if_t<is_host_execution_space<Exec>::value>> {
  template <class Policy, class F>
  static void parallel_for(const Policy& p, const F& f) {
    host_parallel_for(p, f);
  }
  template <class Policy, class F, class Ops>
  static void parallel_reduce(const Policy& p, const F& f, const Ops& ops) {
    host_parallel_reduce(p, f, ops);
  }
  template <class Policy, class F, class Ops, class V>
  static void parallel_scan(const Policy& p, const F& f, const Ops& ops, V* total) {
    host_parallel_scan(p, f, ops, total);
  }
  template <class T>
  static void store_scalar(T* dst, const T& value) {
    *dst = value;
  }
};

}  // namespace tessera::detail

#if TESSERA_ENABLE_CUDA
#include <tessera/core/backends/cuda/cuda_backend.hpp>
#endif
