// Tacho peer of bench_cholesky: Tacho::Solver<double, Kokkos::Serial> given
// an external ordering, since Debian's Tacho is built without METIS
// (Tacho_config.h: TACHO_HAVE_METIS undefined) and would otherwise factor in
// the natural order.
#include "tacho_peer.hpp"

#include <Tacho_Solver.hpp>

#include <numeric>
#include <stdexcept>
#include <string>

namespace tessera::bench {

namespace {
using Device = Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>;
using Solver = Tacho::Solver<double, Device>;
using SizeArray = Kokkos::View<Tacho::size_type*, Device>;
using OrdinalArray = Kokkos::View<Tacho::ordinal_type*, Device>;
using ValueArray = Kokkos::View<double*, Device>;
using ValueMatrix = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("Tacho ") + what + " returned " + std::to_string(rc));
}
}  // namespace

struct TachoPeer::Impl {
  Solver solver;
  std::int64_t n = 0;
  ValueArray ax;
  ValueMatrix x, b, t;
};

void TachoPeer::initialize_kokkos() {
  if (!Kokkos::is_initialized()) Kokkos::initialize();
}
void TachoPeer::finalize_kokkos() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

TachoPeer::TachoPeer() : impl_(std::make_unique<Impl>()) {}
TachoPeer::~TachoPeer() {
  if (impl_) impl_->solver.release();
}

void TachoPeer::analyze(std::int64_t n, const std::int64_t* row_map, const std::int32_t* col_idx,
                        const double* values, const std::vector<std::int64_t>& perm) {
  Impl& s = *impl_;
  s.n = n;
  const std::int64_t nnz = row_map[n];
  SizeArray ap("tacho ap", n + 1);
  OrdinalArray aj("tacho aj", nnz);
  s.ax = ValueArray("tacho ax", nnz);
  for (std::int64_t i = 0; i <= n; ++i) ap(i) = static_cast<Tacho::size_type>(row_map[i]);
  for (std::int64_t k = 0; k < nnz; ++k) {
    aj(k) = col_idx[k];
    s.ax(k) = values[k];
  }
  // Tacho's convention (Tacho_NumericTools_Serial: t(i) = b(perm(i)) before the
  // triangular solves, x(i) = t(peri(i)) after): perm[new] = old, peri[old] = new.
  OrdinalArray p("tacho perm", n), pi("tacho peri", n);
  for (std::int64_t i = 0; i < n; ++i) {
    p(i) = static_cast<Tacho::ordinal_type>(perm[i]);
    pi(perm[i]) = static_cast<Tacho::ordinal_type>(i);
  }
  s.solver.setMatrixType(2, true);  // symmetric, positive definite: Cholesky
  s.solver.setVerbose(0);
  check(s.solver.analyze(static_cast<Tacho::ordinal_type>(n), ap, aj, p, pi), "analyze");
  check(s.solver.initialize(), "initialize");
  s.x = ValueMatrix("tacho x", n, 1);
  s.b = ValueMatrix("tacho b", n, 1);
  s.t = ValueMatrix("tacho t", n, 1);
}

void TachoPeer::factorize() { check(impl_->solver.factorize(impl_->ax), "factorize"); }

void TachoPeer::solve(const double* b, double* x) {
  Impl& s = *impl_;
  for (std::int64_t i = 0; i < s.n; ++i) s.b(i, 0) = b[i];
  check(s.solver.solve(s.x, s.b, s.t), "solve");
  for (std::int64_t i = 0; i < s.n; ++i) x[i] = s.x(i, 0);
}

std::vector<std::int64_t> TachoPeer::permutation() const {
  auto p = impl_->solver.getPermutationVector();
  // At most Tacho's small-problem threshold (1024 by default) it factors the
  // matrix densely in its own order and keeps no permutation.
  std::vector<std::int64_t> out(std::size_t(impl_->n));
  if (std::int64_t(p.extent(0)) != impl_->n) {
    std::iota(out.begin(), out.end(), std::int64_t(0));
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = p(i);
  return out;
}

int TachoPeer::num_supernodes() const { return impl_->solver.getNumSupernodes(); }

}  // namespace tessera::bench
