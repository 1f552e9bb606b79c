// The BLAS thread seam (see detail/blas_threads.hpp): the library is found
// by the symbols it exports, looked up once in the whole process.
#include <tessera/sparse/detail/blas_threads.hpp>

#include <dlfcn.h>

#include <cstdint>
#include <mutex>

namespace tessera::sparse::detail {

namespace {

struct BlasControl {
  BlasLibrary library = BlasLibrary::Unknown;
  int (*get)() = nullptr;
  void (*set)(int) = nullptr;
};

using BliGet = std::int64_t (*)();
using BliSet = void (*)(std::int64_t);
BliGet g_bli_get = nullptr;
BliSet g_bli_set = nullptr;

template <class F>
F symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

const BlasControl& control() {
  static const BlasControl c = [] {
    BlasControl r;
    using Get = int (*)();
    using Set = void (*)(int);
    // OpenBLAS first: it exports no BLIS or MKL names; an MKL or BLIS that
    // also carried OpenBLAS's (a compatibility layer) would be driven
    // through them, which is what such a layer is for.
    {
      auto g = symbol<Get>("openblas_get_num_threads");
      auto s = symbol<Set>("openblas_set_num_threads");
      if (g && s) r = {BlasLibrary::OpenBLAS, g, s};
    }
    if (r.library == BlasLibrary::Unknown) {
      // BLIS counts threads in dim_t (64 bits by default, 32 in some
      // builds): called through its own types, the count truncated to 32
      // bits, which reads right in either build.
      g_bli_get = symbol<BliGet>("bli_thread_get_num_threads");
      g_bli_set = symbol<BliSet>("bli_thread_set_num_threads");
      if (g_bli_get && g_bli_set)
        r = {BlasLibrary::BLIS, [] { return int(std::int32_t(g_bli_get())); }, [](int n) { g_bli_set(n); }};
    }
    if (r.library == BlasLibrary::Unknown) {
      // The C entry points (mkl_service.h maps mkl_set_num_threads to them;
      // the lower-case symbols are the Fortran ones, by pointer).
      auto g = symbol<Get>("MKL_Get_Max_Threads");
      auto s = symbol<Set>("MKL_Set_Num_Threads");
      if (g && s) r = {BlasLibrary::MKL, g, s};
    }
    return r;
  }();
  return c;
}

std::mutex g_mutex;
int g_active = 0;  // solvers inside a BlasSingleThreaded scope
int g_saved = 1;   // the program's setting, restored when g_active returns to 0

}  // namespace

BlasLibrary blas_library() { return control().library; }

const char* blas_library_name() {
  switch (control().library) {
    case BlasLibrary::OpenBLAS: return "OpenBLAS";
    case BlasLibrary::BLIS: return "BLIS";
    case BlasLibrary::MKL: return "MKL";
    case BlasLibrary::Unknown: break;
  }
  return "unknown";
}

int blas_threads() {
  const BlasControl& c = control();
  return c.get ? c.get() : 1;
}

void set_blas_threads(int n) {
  const BlasControl& c = control();
  if (c.set) c.set(n);
}

BlasSingleThreaded::BlasSingleThreaded() {
  const BlasControl& c = control();
  if (!c.get) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_active++ == 0) {
    g_saved = c.get();
    if (g_saved != 1) c.set(1);
  }
}

BlasSingleThreaded::~BlasSingleThreaded() {
  const BlasControl& c = control();
  if (!c.get) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_active == 0 && g_saved != 1) c.set(g_saved);
}

}  // namespace tessera::sparse::detail
