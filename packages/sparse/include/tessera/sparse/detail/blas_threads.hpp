#pragma once
// Block kernels run single-threaded inside tasks and parallel_for bodies:
// the DAG or the level set supplies the parallelism, and a multithreaded
// OpenBLAS under it would oversubscribe the cores. While any factorization
// or solve is running, OpenBLAS is kept at one thread; the setting the
// program had is restored when the last one ends (a count, because several
// host threads may factorize at once).
#include <cblas.h>

#include <mutex>

// Declared here too: Debian's cblas.h alternative may be a non-OpenBLAS one.
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}

namespace tessera::sparse::detail {

class BlasSingleThreaded {
 public:
  BlasSingleThreaded() {
    std::lock_guard<std::mutex> lock(mutex());
    if (active()++ == 0) {
      saved() = openblas_get_num_threads();
      if (saved() != 1) openblas_set_num_threads(1);
    }
  }
  ~BlasSingleThreaded() {
    std::lock_guard<std::mutex> lock(mutex());
    if (--active() == 0 && saved() != 1) openblas_set_num_threads(saved());
  }
  BlasSingleThreaded(const BlasSingleThreaded&) = delete;
  BlasSingleThreaded& operator=(const BlasSingleThreaded&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& active() {
    static int a = 0;
    return a;
  }
  static int& saved() {
    static int s = 1;
    return s;
  }
};

}  // namespace tessera::sparse::detail
