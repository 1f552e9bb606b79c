#pragma once
// The BLAS's own threads, seen through one seam whatever library is linked
// (Tessera::blas_lapack: OpenBLAS, BLIS, MKL, or a BLAS with no threads).
//
// Block kernels run single-threaded inside tasks and parallel_for bodies:
// the DAG or the level set supplies the parallelism, and a multithreaded
// BLAS under it would oversubscribe the cores. While any factorization or
// solve is running the BLAS is kept at one thread, and the setting the
// program had is restored when the last one ends.
//
// Why process-wide, and why counted: OpenBLAS and BLIS have one thread
// count for the whole process (no per-call or per-thread setting), and the
// solver's BLAS calls run on the back-end's worker threads, not on the
// thread that called factorize(). So the count is set for everyone while a
// solver runs, and several host threads may factorize at once: the first to
// enter saves the program's setting and sets 1, the last to leave restores
// it (a count under a mutex, so that an inner exit never restores early).
// MKL's mkl_set_num_threads_local would bind the setting to one thread, but
// that thread would have to be every worker running a task; MKL is handled
// like the others (MKL_Set_Num_Threads / MKL_Get_Max_Threads).
//
// The library is recognized at run time by the symbols it exports
// (src/blas_threads.cpp), so one build serves whichever BLAS the program
// is linked or preloaded with.
namespace tessera::sparse::detail {

enum class BlasLibrary { Unknown, OpenBLAS, BLIS, MKL };

// The linked BLAS (Unknown: no thread control found, e.g. the reference
// BLAS, which has no threads), its name ("OpenBLAS", ...; "unknown"), and
// its thread count (1 where Unknown).
BlasLibrary blas_library();
const char* blas_library_name();
int blas_threads();
// Sets the BLAS's thread count (nothing where Unknown). Process-wide.
void set_blas_threads(int n);

class BlasSingleThreaded {
 public:
  BlasSingleThreaded();
  ~BlasSingleThreaded();
  BlasSingleThreaded(const BlasSingleThreaded&) = delete;
  BlasSingleThreaded& operator=(const BlasSingleThreaded&) = delete;
};

}  // namespace tessera::sparse::detail
