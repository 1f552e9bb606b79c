#pragma once
// Preconditioned conjugate gradients on a row-distributed SPD matrix:
//
//   tessera::dist::AdditiveSchwarz<double, Space> M({.overlap = 0});   // block Jacobi, Cholesky blocks
//   M.setup(A);
//   auto r = tessera::dist::pcg<Space>(A, b.data(), x.data(), M, {.tolerance = 1e-10});
//   r.iterations, r.relative_residual, r.converged, r.halo, r.reductions
//
// b and x are this rank's owned entries (A.num_owned() each); x holds the
// initial guess. The SpMV overlaps the halo with the interior rows
// (spmv.hpp); the inner products are local sums reduced through A.comm()
// (the two per iteration that do not depend on each other, r.r and r.z,
// share one allreduce). Every rank takes the same branches: the scalars
// that decide convergence and breakdown are global. The node-level
// tessera::sparse::pcg is the same algorithm on one node, with the same
// options.
#include <tessera/core.hpp>
#include <tessera/dist/sparse/spmv.hpp>
#include <tessera/sparse/incomplete.hpp>

#include <cmath>
#include <vector>

namespace tessera::dist {

struct PcgResult {
  int iterations = 0;
  double relative_residual = 0;  // ||b - A x|| / ||b|| (of the recurrence's residual)
  bool converged = false;
  double seconds = 0;
  CommVolume halo;        // this rank's halo messages during the solve (SpMV and preconditioner)
  CommVolume reductions;  // this rank's collectives during the solve (inner products)
};

// M = I: plain CG, for comparisons.
struct IdentityPreconditioner {
  std::int64_t n_local = 0;
  template <class T>
  void apply(const T* r, T* z) const {
    std::copy(r, r + n_local, z);
  }
};

template <class Space, class T, class Precond>
PcgResult pcg(const DistCrsMatrix<T>& A, const T* b, T* x, const Precond& M, const sparse::PcgOptions& opt = {}) {
  const Comm& comm = A.comm();
  const CommVolume halo0 = A.halo_volume(), coll0 = comm.volume();
  const double t0 = MPI_Wtime();
  const std::int64_t n = A.num_owned();
  const auto len = static_cast<std::size_t>(n);
  std::vector<T> rv(len), zv(len), pv(len), qv(len);
  T *r = rv.data(), *z = zv.data(), *p = pv.data(), *q = qv.data();
  auto local_dot = [n](const T* a, const T* c) {
    T s = 0;
    parallel_reduce("dist::pcg_dot", RangePolicy<Space>(0, n), [=](std::int64_t i, T& acc) { acc += a[i] * c[i]; }, s);
    return s;
  };
  std::vector<T> sums(2);
  PcgResult res;
  auto finish = [&] {
    res.seconds = MPI_Wtime() - t0;
    const CommVolume& h = A.halo_volume();
    const CommVolume& c = comm.volume();
    res.halo = {h.bytes_sent - halo0.bytes_sent, h.bytes_received - halo0.bytes_received, h.calls - halo0.calls,
                h.seconds - halo0.seconds};
    res.reductions = {c.bytes_sent - coll0.bytes_sent, c.bytes_received - coll0.bytes_received, c.calls - coll0.calls,
                      c.seconds - coll0.seconds};
    return res;
  };
  multiply<Space>(A, x, q);
  parallel_for("dist::pcg_residual", RangePolicy<Space>(0, n), [=](std::int64_t i) { r[i] = b[i] - q[i]; });
  sums[0] = local_dot(b, b);
  sums[1] = local_dot(r, r);
  comm.sum_in_place(sums);
  const double bnorm = sums[0] > 0 ? std::sqrt(double(sums[0])) : 1.0;
  res.relative_residual = std::sqrt(double(sums[1])) / bnorm;
  if (res.relative_residual <= opt.tolerance) {
    res.converged = true;
    return finish();
  }
  M.apply(r, z);
  std::copy(z, z + n, p);
  T rz = comm.sum(local_dot(r, z));
  for (int it = 1; it <= opt.max_iterations; ++it) {
    multiply<Space>(A, p, q);
    const T pq = comm.sum(local_dot(p, q));
    if (!(pq > T(0))) break;  // A or M is not positive definite along p (the same on every rank)
    const T alpha = rz / pq;
    parallel_for("dist::pcg_update", RangePolicy<Space>(0, n), [=](std::int64_t i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    });
    res.iterations = it;
    M.apply(r, z);
    // r.r and r.z in one pass over r: two independent sums, where two
    // passes would each wait on one running sum.
    T rr = 0, rz_local = 0;
    parallel_reduce(
        "dist::pcg_dots", RangePolicy<Space>(0, n),
        [=](std::int64_t i, T& a, T& c) {
          a += r[i] * r[i];
          c += r[i] * z[i];
        },
        rr, rz_local);
    sums[0] = rr;
    sums[1] = rz_local;
    comm.sum_in_place(sums);
    res.relative_residual = std::sqrt(double(sums[0])) / bnorm;
    if (res.relative_residual <= opt.tolerance) {
      res.converged = true;
      break;
    }
    const T beta = sums[1] / rz;
    rz = sums[1];
    parallel_for("dist::pcg_direction", RangePolicy<Space>(0, n), [=](std::int64_t i) { p[i] = z[i] + beta * p[i]; });
  }
  return finish();
}

}  // namespace tessera::dist
