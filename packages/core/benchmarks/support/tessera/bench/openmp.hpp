#pragma once
// The thread count an OpenMP parallel region really gets when it asks for
// `requested` threads (libgomp may give fewer: OMP_THREAD_LIMIT, nested or
// dynamic adjustment). Raw-OpenMP peers report this as their threads_ran,
// asked of the runtime after their runs rather than copied from the request.
// Include only from a target compiled with OpenMP.
#include <omp.h>

namespace tessera::bench {

inline int omp_threads_ran(int requested) {
  int got = 0;
#pragma omp parallel num_threads(requested)
  {
#pragma omp single
    got = omp_get_num_threads();
  }
  return got;
}

}  // namespace tessera::bench
