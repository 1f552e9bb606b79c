#pragma once
// MUMPS 5 (sequential, Debian's libmumps-seq-dev) as an independent
// reference for symmetric indefinite matrices: an LDL^T with SYM = 2 (its
// own threshold pivoting, ordering and scaling), whose INFOG(12) is the
// number of negative pivots, so the inertia by Sylvester's law. MUMPS is
// linked only where CMake finds it (as for bench_cholesky); without it
// (TESSERA_NO_MUMPS) mumps_factor returns ok = false and the callers rely
// on their other references (dense LAPACK, closed forms).
#include "sparse_test_util.hpp"

#ifndef TESSERA_NO_MUMPS
#define TESSERA_NO_MUMPS 0
#endif
#if !TESSERA_NO_MUMPS
#include <dmumps_c.h>
#endif

#include <string>
#include <vector>

namespace sparse_test {

struct MumpsResult {
  bool ok = false;
  std::int64_t negative = -1;  // INFOG(12)
  std::int64_t delayed = -1;   // INFOG(13)
  std::int64_t null = -1;      // INFOG(28), with null pivot detection
  std::string error;
};

// Analysis and factorization (JOB = 4) of the symmetric A (its lower
// triangle, 1-based coordinates). null_pivots: ICNTL(24) = 1, MUMPS's
// detection of pivots below CNTL(3) (its default threshold).
inline MumpsResult mumps_factor(const ts::CrsMatrix<double>& A, bool null_pivots = false) {
  MumpsResult out;
#if TESSERA_NO_MUMPS
  (void)A;
  (void)null_pivots;
  out.error = "MUMPS (libmumps-seq-dev) was not found when configuring";
#else
  std::vector<MUMPS_INT> irn, jcn;
  std::vector<double> a;
  for (std::int64_t i = 0; i < A.num_rows(); ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      if (A.col_idx()[k] <= i) {
        irn.push_back(MUMPS_INT(i + 1));
        jcn.push_back(MUMPS_INT(A.col_idx()[k] + 1));
        a.push_back(A.values()[k]);
      }
  DMUMPS_STRUC_C id{};
  id.comm_fortran = -987654;  // USE_COMM_WORLD; the sequential library ignores it
  id.par = 1;
  id.sym = 2;
  id.job = -1;
  dmumps_c(&id);
  id.icntl[0] = id.icntl[1] = id.icntl[2] = -1;  // no output
  id.icntl[3] = 0;
  if (null_pivots) id.icntl[23] = 1;  // ICNTL(24)
  id.n = MUMPS_INT(A.num_rows());
  id.nnz = MUMPS_INT8(a.size());
  id.irn = irn.data();
  id.jcn = jcn.data();
  id.a = a.data();
  // Delayed pivots can outgrow the estimated workspace (INFOG(1) = -9):
  // raise ICNTL(14), as MUMPS's guide advises, and try again.
  for (int tries = 0; tries < 8; ++tries) {
    id.job = 4;
    dmumps_c(&id);
    if (id.infog[0] != -9 && id.infog[0] != -8) break;
    id.icntl[13] = 2 * id.icntl[13] + 20;
  }
  if (id.infog[0] < 0) {
    out.error = "MUMPS JOB=4 failed: INFOG(1) = " + std::to_string(id.infog[0]) + ", INFOG(2) = " +
                std::to_string(id.infog[1]);
    ADD_FAILURE() << out.error;
  } else {
    out.ok = true;
    out.negative = id.infog[11];
    out.delayed = id.infog[12];
    out.null = null_pivots ? id.infog[27] : -1;
  }
  id.job = -2;
  dmumps_c(&id);
#endif
  return out;
}

// Whether MUMPS was linked.
inline constexpr bool have_mumps() { return !TESSERA_NO_MUMPS; }

// The inertia of a nonsingular A from MUMPS: INFOG(12) negative, the rest
// positive (a singular A would need null pivot detection); {-1, -1, -1}
// without MUMPS.
inline ts::Inertia mumps_inertia(const ts::CrsMatrix<double>& A) {
  const MumpsResult r = mumps_factor(A);
  ts::Inertia in;
  if (!r.ok) return {-1, -1, -1};
  in.negative = r.negative;
  in.positive = A.num_rows() - r.negative;
  return in;
}

}  // namespace sparse_test
