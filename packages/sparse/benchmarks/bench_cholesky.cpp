// Sparse Cholesky factorization: Tessera (task DAG and level-set schedulers)
// against CHOLMOD supernodal, Tacho 13.2 and sequential MUMPS, on the same
// matrices in the same process, with OpenBLAS dgemm as the ceiling.
//
//   bench_cholesky [--threads N] [--repeats R] [--warmup W] [--quick]
//                  [--matrix SPEC]... [--dgemm-n N] [--pause-ms MS] [--json]
//                  [--indefinite] [--gpu] [--ablations] [--slow-seconds S] [--skip-seconds S]
//
// SPEC is what tessera::sparse::make_matrix accepts: lap2d:N, lap3d:N,
// stokes:N[:delta], kkt:N:M, indef3d:N or a .mtx path. Default set:
// lap2d:1000, lap3d:60, bcsstk13.mtx; --quick: lap2d:200, lap3d:20,
// bcsstk13.mtx.
//
// --indefinite: symmetric indefinite matrices, LDL^T. Contenders: Tessera's
// LDL^T (threshold pivoting with delayed pivots, u = 0.01) on the task DAG,
// without (the default, the ratios' reference) and with the zero-diagonal
// pairing, and MUMPS with SYM = 2
// (its default threshold CNTL(1) = 0.01, METIS); CHOLMOD and Tacho have no
// pivoting LDL^T and sit out. Each row also prints its inertia (MUMPS:
// INFOG(12) negative pivots), its delayed pivots (MUMPS: INFOG(13)) and
// the normwise backward error of its solve; an inertia that differs from
// MUMPS's marks the row FAILED. Default set: stokes:150:1e-12, kkt:120:2000,
// indef3d:30, hangGlider_2.mtx; --quick: stokes:40:1e-12, kkt:40:300,
// indef3d:14, hangGlider_2.mtx. The JSON report is sparse_ldlt.
//
// --gpu (CUDA builds, on a machine with a GPU): the GPU rows. Contenders:
// Tessera's Cholesky on Cuda (METIS, the host's symbolic analysis, the
// numeric factorization level by level on the device; the ratios'
// reference), the same with each level's library fronts over 4 streams
// (dense_streams 4: what overlapping the library calls gains), Tessera's
// task-DAG Cholesky on --threads host workers (the GPU machine's cores),
// CHOLMOD on --threads OpenBLAS threads and cuSOLVER's sparse Cholesky (the
// toolkit's csrchol, given the same METIS_NodeND order as the peers, the
// matrix permuted untimed; last, as its time on the large cases is the
// least known). --ablations adds two rows that attribute Tessera's time
// rather than contend: every front through cuSOLVER and cuBLAS
// (small_front_rows and solve_small_front_rows 0: what the team kernels
// save) and the solves' teams at 128 rows (what solving the mid-sized
// fronts by teams saves over two cuBLAS calls each); each holds its own
// factor in device memory, and on lap3d:100 the first takes seconds per
// factorization. cuBLAS dgemm of order --device-dgemm-n (8192; 2048 with
// --quick) is the device's ceiling, OpenBLAS's at --threads the host's.
// Default set: lap3d:60, lap3d:80, lap3d:100 (a million unknowns),
// lap2d:1000, bcsstk13.mtx: the 3-D cases grow in turn, so each
// contender's rate on one predicts its time on the next (below), and the
// goal case comes before the others; --quick: lap2d:200, lap3d:20,
// bcsstk13.mtx. Each row also gives the time of one solve (goal for
// Tessera on Cuda: at most a tenth of its factorization) and, for the
// device rows, device memory (Tessera: factor panels and update matrices
// at their peak; cuSOLVER: the internal data and workspace it reports). The
// device rows are timed on the host around the call, which returns once the
// device is done (a factorization is host orchestration and many kernels,
// not one stream interval). Without a usable GPU it prints "no CUDA device:
// <reason>" and exits 0, as the other GPU benchmarks do.
//
// --slow-seconds S (default 120) and --skip-seconds S (default 600), so
// that a peer far behind cannot use up a GPU machine's time: a contender
// whose warm-up factorization took longer than the first is timed by that
// one run alone and left out of the repeats; one whose GFLOP/s on an
// earlier matrix of the run predict a warm-up longer than the second on
// this one (its flops counted from its analysis) is not factorized at all.
// Both are printed and named in the case's JSON note.
//
// With --json each matrix also gets a case note, "rows": per contender its
// analysis, warm-up factorization and one solve in seconds, the solve over
// the factorization, GFLOP (the one formula below), the solve's backward
// error, device memory in MiB (device rows), and "slow" or "skipped" with
// the reason; the repeated factorizations are the case's rows.
//
// Every matrix is built once by Tessera's generator or reader; the peers get
// copies converted to their own formats (CHOLMOD: lower triangle CSC,
// stype -1; MUMPS: 1-based coordinates of the lower triangle; Tacho: the full
// CRS). Each contender's analysis (ordering, symbolic) is done once and not
// timed; the timed region is its numeric factorization alone. Within each
// repeat the contenders run in turn (tessera tasks, tessera level-set, CHOLMOD,
// Tacho, MUMPS; a pause between them lets spinning workers sleep), so a drift
// of a shared machine hits all of them alike (tessera::bench::run_interleaved);
// the ratio column is, per repeat, Tessera-tasks time / peer time (<= 1:
// Tessera took at most the peer's time), median and min-max over repeats.
// With --json the rows are the bench-support JSON lines (factorization
// milliseconds; the dgemm ceiling is a case of its own in GFLOP/s).
//
// Threads: Tessera runs on --threads N workers (its tasks call OpenBLAS
// single-threaded); the peers get their parallelism from the BLAS with
// detail::set_blas_threads(N) (Tacho on Kokkos Serial, sequential MUMPS and
// CHOLMOD have no other on this machine's builds). The thread counts that
// actually ran are printed.
//
// Work: every contender's flops are counted by one formula from the ordering
// it factorized with: sum over the columns j of L of c_j^2, c_j = nnz of
// column j including the diagonal (exact column counts, no amalgamation
// zeros). Each solver's own nnz(L) / flop figures are printed beside them.
//
// A fast wrong answer cannot win: after the warm-up factorization each
// contender solves A x = b (b = A * x0) once and its ||b - A x|| / ||b|| is
// printed; a residual above 1e-8 marks the row FAILED and the exit status 3.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#include <tessera/core.hpp>
#include <tessera/sparse.hpp>

#include <cblas.h>
#include <metis.h>

#if TESSERA_BENCH_HAVE_CHOLMOD
#include <cholmod.h>
#endif
#if TESSERA_BENCH_HAVE_MUMPS
#include <dmumps_c.h>
#endif
#if TESSERA_BENCH_HAVE_TACHO
#include "tacho_peer.hpp"
#endif
#if TESSERA_BENCH_HAVE_CUDA
#include "cuda_contenders.hpp"
#endif

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// The BLAS's thread count through the solver's own seam (OpenBLAS, BLIS or
// MKL, whichever is linked: Tessera::blas_lapack).
namespace blas = tessera::sparse::detail;

namespace {

#if TESSERA_ENABLE_THREADS
using Space = tessera::Threads;
#else
using Space = tessera::DefaultHostExecutionSpace;
#endif
using Matrix = tessera::sparse::CrsMatrix<double>;
constexpr double kResidualLimit = 1e-8;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---------------------------------------------------------------------------
// One symbolic count for everybody: etree and row subtrees of P A P^T.

struct FactorSize {
  double nnz_l = 0, flops = 0;
};

// perm[new] = old. Column counts by the row-subtree walk (each row i of L
// visits the etree path from every k < i with A(i,k) != 0 up to i), which is
// O(nnz(L)) and needs no cleverness.
FactorSize count_factor(const Matrix& A, const std::vector<std::int64_t>& perm) {
  const std::int64_t n = A.num_rows();
  if (std::int64_t(perm.size()) != n)
    throw std::runtime_error("its ordering has " + std::to_string(perm.size()) + " entries for a matrix of order " +
                             std::to_string(n));
  const std::int64_t* rm = A.row_map();
  const std::int32_t* ci = A.col_idx();
  std::vector<std::int64_t> iperm(n);
  for (std::int64_t i = 0; i < n; ++i) iperm[perm[i]] = i;
  std::vector<std::int64_t> parent(n, -1), ancestor(n, -1), mark(n, -1), count(n, 1);
  for (std::int64_t i = 0; i < n; ++i) {  // Liu's elimination tree with path compression
    const std::int64_t old = perm[i];
    for (std::int64_t p = rm[old]; p < rm[old + 1]; ++p) {
      for (std::int64_t k = iperm[ci[p]]; k != -1 && k < i;) {
        const std::int64_t next = ancestor[k];
        ancestor[k] = i;
        if (next == -1) parent[k] = i;
        k = next;
      }
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    mark[i] = i;
    const std::int64_t old = perm[i];
    for (std::int64_t p = rm[old]; p < rm[old + 1]; ++p)
      for (std::int64_t k = iperm[ci[p]]; k < i && mark[k] != i; k = parent[k]) {
        mark[k] = i;
        ++count[k];
      }
  }
  FactorSize s;
  for (std::int64_t c : count) {
    s.nnz_l += double(c);
    s.flops += double(c) * double(c);
  }
  return s;
}

// METIS_NodeND with default options on the graph of A (diagonal removed):
// the ordering given to the peers that are not built with METIS themselves
// (Tacho here; MUMPS when its build lacks METIS). perm[new] = old.
std::vector<std::int64_t> metis_ordering(const Matrix& A) {
  const std::int64_t n = A.num_rows();
  std::vector<idx_t> xadj(n + 1, 0), adj;
  adj.reserve(A.nnz());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t p = A.row_map()[i]; p < A.row_map()[i + 1]; ++p)
      if (A.col_idx()[p] != i) adj.push_back(A.col_idx()[p]);
    xadj[i + 1] = static_cast<idx_t>(adj.size());
  }
  idx_t nv = static_cast<idx_t>(n);
  std::vector<idx_t> perm(n), iperm(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  if (METIS_NodeND(&nv, xadj.data(), adj.data(), nullptr, options, perm.data(), iperm.data()) != METIS_OK)
    throw std::runtime_error("METIS_NodeND failed");
  return std::vector<std::int64_t>(perm.begin(), perm.end());  // METIS: perm[new] = old
}

// y = A x (full symmetric storage).
void spmv(const Matrix& A, const double* x, double* y) {
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    double s = 0;
    for (std::int64_t p = A.row_map()[i]; p < A.row_map()[i + 1]; ++p) s += A.values()[p] * x[A.col_idx()[p]];
    y[i] = s;
  }
}

// ||b - A x|| / (||A|| ||x|| + ||b||), infinity norms (Rigal-Gaches).
double normwise_backward_error(const Matrix& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax(b.size());
  spmv(A, x.data(), ax.data());
  double r = 0, xn = 0, bn = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    r = std::max(r, std::abs(b[i] - ax[i]));
    xn = std::max(xn, std::abs(x[i]));
    bn = std::max(bn, std::abs(b[i]));
  }
  return r / (A.norm_inf() * xn + bn);
}

double relative_residual(const Matrix& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax(b.size());
  spmv(A, x.data(), ax.data());
  double r = 0, nb = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    r += (b[i] - ax[i]) * (b[i] - ax[i]);
    nb += b[i] * b[i];
  }
  return std::sqrt(r / nb);
}

// ---------------------------------------------------------------------------
// The contenders behind one interface: analyze untimed, factorize timed.

struct Solver {
  virtual ~Solver() = default;
  virtual void analyze() = 0;
  virtual void factorize() = 0;
  virtual void solve(const std::vector<double>& b, std::vector<double>& x) = 0;
  virtual std::vector<std::int64_t> permutation() = 0;  // perm[new] = old
  // The solver's own figures (NaN when it reports none).
  double own_nnz_l = std::numeric_limits<double>::quiet_NaN();
  double own_flops = std::numeric_limits<double>::quiet_NaN();
  // Symmetric indefinite factorizations: negative pivots (the inertia's
  // negative count) and delayed pivots of the last factorization; -1: none.
  std::int64_t negative = -1, delayed = -1;
  // Device rows: the device memory they hold (NaN on the host).
  double device_bytes = std::numeric_limits<double>::quiet_NaN();
  std::string note;
};

class TesseraSolver final : public Solver {
 public:
  TesseraSolver(const Matrix& A, tessera::sparse::Scheduler s)
      : TesseraSolver(A, [s] {
          tessera::sparse::Options o;
          o.ordering = tessera::sparse::Ordering::Metis;
          o.scheduler = s;
          return o;
        }()) {}
  TesseraSolver(const Matrix& A, const tessera::sparse::Options& o) : A_(A), chol_(o) {}
  void analyze() override { chol_.analyze(A_); }
  void factorize() override {
    blas::set_blas_threads(1);  // dense block kernels run single-threaded inside tasks
    chol_.factorize(A_);
    own_nnz_l = double(chol_.stats().nnz_l);
    own_flops = double(chol_.stats().flops);
    if (chol_.options().factorization == tessera::sparse::Factorization::LDLt) {
      negative = chol_.inertia().negative;
      delayed = chol_.stats().delayed_pivots;
      // The entries stored with the fronts the delays grew (the analysis's
      // nnz_l does not know them), as MUMPS's INFOG(29) counts its own.
      own_nnz_l = chol_.stats().factor_entries;
    }
  }
  void solve(const std::vector<double>& b, std::vector<double>& x) override {
    const std::size_t n = b.size();
    tessera::View<double*, tessera::HostSpace> xv("x", n), bv("b", n);
    for (std::size_t i = 0; i < n; ++i) bv(i) = b[i];
    chol_.solve(xv, tessera::View<const double*, tessera::HostSpace>(bv));
    for (std::size_t i = 0; i < n; ++i) x[i] = xv(i);
  }
  std::vector<std::int64_t> permutation() override { return chol_.permutation(); }

 private:
  const Matrix& A_;
  tessera::sparse::Cholesky<double, Space> chol_;
};

#if TESSERA_BENCH_HAVE_CHOLMOD
class CholmodSolver final : public Solver {
 public:
  CholmodSolver(const Matrix& A, int threads) : threads_(threads) {
    cholmod_l_start(&c_);
    c_.nmethods = 1;
    c_.method[0].ordering = CHOLMOD_METIS;
    c_.postorder = 1;
    c_.supernodal = CHOLMOD_SUPERNODAL;
    const std::int64_t n = A.num_rows();
    std::int64_t lower = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t p = A.row_map()[i]; p < A.row_map()[i + 1]; ++p) lower += A.col_idx()[p] >= i;
    // Column j of the lower triangle is row j's entries at or right of the diagonal.
    A_ = cholmod_l_allocate_sparse(n, n, lower, 1, 1, -1, CHOLMOD_REAL, &c_);
    auto* cp = static_cast<SuiteSparse_long*>(A_->p);
    auto* ri = static_cast<SuiteSparse_long*>(A_->i);
    auto* v = static_cast<double*>(A_->x);
    std::int64_t nz = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      cp[j] = nz;
      for (std::int64_t p = A.row_map()[j]; p < A.row_map()[j + 1]; ++p)
        if (A.col_idx()[p] >= j) {
          ri[nz] = A.col_idx()[p];
          v[nz++] = A.values()[p];
        }
    }
    cp[n] = nz;
  }
  ~CholmodSolver() override {
    if (L_) cholmod_l_free_factor(&L_, &c_);
    cholmod_l_free_sparse(&A_, &c_);
    cholmod_l_finish(&c_);
  }
  void analyze() override {
    L_ = cholmod_l_analyze(A_, &c_);
    if (!L_ || c_.status < 0) throw std::runtime_error("cholmod_l_analyze failed");
    if (L_->ordering != CHOLMOD_METIS) note = "ordering is not METIS";
    own_nnz_l = c_.lnz;
    own_flops = c_.fl;
  }
  void factorize() override {
    blas::set_blas_threads(threads_);
    if (!cholmod_l_factorize(A_, L_, &c_) || c_.status != CHOLMOD_OK)
      throw std::runtime_error("cholmod_l_factorize failed, status " + std::to_string(c_.status));
  }
  void solve(const std::vector<double>& b, std::vector<double>& x) override {
    cholmod_dense* B = cholmod_l_allocate_dense(b.size(), 1, b.size(), CHOLMOD_REAL, &c_);
    std::copy(b.begin(), b.end(), static_cast<double*>(B->x));
    cholmod_dense* X = cholmod_l_solve(CHOLMOD_A, L_, B, &c_);
    std::copy(static_cast<double*>(X->x), static_cast<double*>(X->x) + b.size(), x.begin());
    cholmod_l_free_dense(&X, &c_);
    cholmod_l_free_dense(&B, &c_);
  }
  std::vector<std::int64_t> permutation() override {
    auto* p = static_cast<SuiteSparse_long*>(L_->Perm);
    return std::vector<std::int64_t>(p, p + L_->n);
  }

 private:
  int threads_;
  cholmod_common c_;
  cholmod_sparse* A_ = nullptr;
  cholmod_factor* L_ = nullptr;
};
#endif

#if TESSERA_BENCH_HAVE_MUMPS
class MumpsSolver final : public Solver {
 public:
  // sym: 1 symmetric positive definite, 2 general symmetric (LDL^T with
  // threshold pivoting).
  MumpsSolver(const Matrix& A, int threads, int sym = 1) : A_(A), threads_(threads) {
    for (std::int64_t i = 0; i < A.num_rows(); ++i)
      for (std::int64_t p = A.row_map()[i]; p < A.row_map()[i + 1]; ++p)
        if (A.col_idx()[p] <= i) {  // lower triangle, 1-based
          irn_.push_back(static_cast<MUMPS_INT>(i + 1));
          jcn_.push_back(static_cast<MUMPS_INT>(A.col_idx()[p] + 1));
          a_.push_back(A.values()[p]);
        }
    id_.comm_fortran = -987654;  // USE_COMM_WORLD; the sequential library ignores it
    id_.par = 1;
    id_.sym = sym;
    id_.job = -1;
    dmumps_c(&id_);
    started_ = true;
    quiet();
  }
  ~MumpsSolver() override {
    if (started_) {
      id_.job = -2;
      dmumps_c(&id_);
    }
  }
  void analyze() override {
    id_.n = static_cast<MUMPS_INT>(A_.num_rows());
    id_.nnz = static_cast<MUMPS_INT8>(a_.size());
    id_.irn = irn_.data();
    id_.jcn = jcn_.data();
    id_.a = a_.data();
    id_.icntl[27] = 1;                 // ICNTL(28) = 1: sequential analysis
    static int fallback_ordering = 0;  // INFOG(7) when ICNTL(7) = 5 was not honoured
    if (fallback_ordering == 0) {
      id_.icntl[6] = 5;  // ICNTL(7) = 5: METIS
      run(1, "analysis");
      if (id_.infog[6] != 5) fallback_ordering = id_.infog[6];
    }
    if (fallback_ordering != 0) {
      // This MUMPS was built without METIS and fell back to another ordering:
      // give it METIS's ordering as a user permutation instead (ICNTL(7) = 1).
      note = "built without METIS (ICNTL(7)=5 gave INFOG(7)=" + std::to_string(fallback_ordering) +
             "); METIS_NodeND order given as PERM_IN";
      const std::vector<std::int64_t> perm = metis_ordering(A_);
      perm_in_.assign(perm.size(), 0);
      for (std::size_t k = 0; k < perm.size(); ++k) perm_in_[perm[k]] = static_cast<MUMPS_INT>(k + 1);
      id_.perm_in = perm_in_.data();
      id_.icntl[6] = 1;
      run(1, "analysis with PERM_IN");
    }
  }
  void factorize() override {
    blas::set_blas_threads(threads_);
    // Delayed pivots (SYM = 2) can outgrow the workspace the analysis
    // estimated (INFOG(1) = -9): raise ICNTL(14), the percentage added to
    // the estimate, and factorize again, as MUMPS's guide advises. The
    // warm-up run settles it; the timed runs start from the final value.
    for (int tries = 0; tries < 8; ++tries) {
      id_.job = 2;
      dmumps_c(&id_);
      if (id_.infog[0] != -9 && id_.infog[0] != -8) break;
      id_.icntl[13] = std::max(2 * id_.icntl[13], 40);
      note = "ICNTL(14) raised to " + std::to_string(id_.icntl[13]) + " (workspace for delayed pivots)";
    }
    run(2, "factorization");
    own_nnz_l = double(id_.infog[28]);  // INFOG(29): entries in the factors
    own_flops = id_.rinfog[2];          // RINFOG(3): flops of the elimination
    if (id_.sym == 2) {
      negative = id_.infog[11];  // INFOG(12): negative pivots
      delayed = id_.infog[12];   // INFOG(13): delayed pivots
    }
  }
  void solve(const std::vector<double>& b, std::vector<double>& x) override {
    x = b;
    id_.rhs = x.data();
    id_.nrhs = 1;
    id_.lrhs = static_cast<MUMPS_INT>(x.size());
    run(3, "solve");
  }
  std::vector<std::int64_t> permutation() override {
    // SYM_PERM(i): position of variable i in the pivot order (1-based).
    std::vector<std::int64_t> perm(A_.num_rows());
    for (std::int64_t i = 0; i < A_.num_rows(); ++i) perm[id_.sym_perm[i] - 1] = i;
    return perm;
  }

 private:
  void quiet() {
    id_.icntl[0] = -1;  // no error, diagnostic or global output
    id_.icntl[1] = -1;
    id_.icntl[2] = -1;
    id_.icntl[3] = 0;
  }
  void run(int job, const char* what) {
    id_.job = job;
    dmumps_c(&id_);
    if (id_.infog[0] < 0)
      throw std::runtime_error(std::string("MUMPS ") + what + ": INFOG(1) = " + std::to_string(id_.infog[0]) +
                               ", INFOG(2) = " + std::to_string(id_.infog[1]));
  }
  const Matrix& A_;
  int threads_;
  DMUMPS_STRUC_C id_{};
  bool started_ = false;
  std::vector<MUMPS_INT> irn_, jcn_, perm_in_;
  std::vector<double> a_;
};
#endif

#if TESSERA_BENCH_HAVE_TACHO
class TachoSolver final : public Solver {
 public:
  TachoSolver(const Matrix& A, int threads) : A_(A), threads_(threads) {}
  void analyze() override {
    tacho_.analyze(A_.num_rows(), A_.row_map(), A_.col_idx(), A_.values(), metis_ordering(A_));
    note =
        "Kokkos Serial, METIS_NodeND order given; " + std::to_string(tacho_.num_supernodes()) + " supernodes";
  }
  void factorize() override {
    blas::set_blas_threads(threads_);
    tacho_.factorize();
  }
  void solve(const std::vector<double>& b, std::vector<double>& x) override {
    tacho_.solve(b.data(), x.data());
  }
  std::vector<std::int64_t> permutation() override { return tacho_.permutation(); }

 private:
  const Matrix& A_;
  int threads_;
  tessera::bench::TachoPeer tacho_;
};
#endif

#if TESSERA_BENCH_HAVE_CUDA
class TesseraCudaSolver final : public Solver {
 public:
  explicit TesseraCudaSolver(const Matrix& A, int small_front_rows = -1, int dense_streams = 1,
                             int solve_small_front_rows = -1)
      : chol_(A, small_front_rows, dense_streams, solve_small_front_rows) {}
  void analyze() override { chol_.analyze(); }
  void factorize() override {
    chol_.factorize();
    own_nnz_l = chol_.nnz_l();
    own_flops = chol_.flops();
    device_bytes = double(chol_.device_peak_bytes());
    note = "device peak " + std::to_string(chol_.device_peak_bytes() >> 20) + " MiB";
  }
  void solve(const std::vector<double>& b, std::vector<double>& x) override { chol_.solve(b.data(), x.data()); }
  std::vector<std::int64_t> permutation() override { return chol_.permutation(); }

 private:
  tessera::bench::gpu::TesseraCudaCholesky chol_;
};

class CusolverSolver final : public Solver {
 public:
  explicit CusolverSolver(const Matrix& A) : chol_(A, metis_ordering(A)) {}
  void analyze() override {
    chol_.analyze();
    device_bytes = double(chol_.device_bytes());
    note = "csrchol, METIS_NodeND order given; device " + std::to_string(chol_.device_bytes() >> 20) + " MiB";
  }
  void factorize() override { chol_.factorize(); }
  void solve(const std::vector<double>& b, std::vector<double>& x) override { chol_.solve(b.data(), x.data()); }
  std::vector<std::int64_t> permutation() override { return chol_.permutation(); }

 private:
  tessera::bench::gpu::CusolverSparseCholesky chol_;
};
#endif

// ---------------------------------------------------------------------------

// Where a row runs, which says what its thread column counts.
enum class RowKind {
  tessera_host,  // Tessera's workers
  blas_peer,     // the OpenBLAS threads its factorization ran with
  device,        // a GPU contender: the device's SMs
};

struct Row {
  std::string name;
  RowKind kind = RowKind::blas_peer;
  std::unique_ptr<Solver> solver;
  double analyze_s = 0, warm_factorize_s = 0, solve_s = 0;
  FactorSize size;
  double residual = 0, backward_error = 0;
  int threads = 0;  // workers (Tessera), OpenBLAS threads (peers, asked after each run) or SMs (device)
  bool failed = false;
  bool slow = false;  // warm-up past --slow-seconds: not repeated
  std::string skipped;  // why it was not factorized (a predicted time past --skip-seconds)
  std::string error;
};

// A contender's rate on the last matrix it factorized in this run: what
// predicts its time on the next (--skip-seconds).
struct Rate {
  double gflops = 0;
  std::string matrix;
};
using Rates = std::map<std::string, Rate>;

struct Args {
  int threads = 2, repeats = 5, warmup = 1, pause_ms = 250, dgemm_n = 4000;
  int device_dgemm_n = 8192;
  double slow_seconds = 120, skip_seconds = 600;
  bool quick = false, json = false, indefinite = false, gpu = false, ablations = false;
  std::vector<std::string> matrices;
};

std::string data_file(const char* name) {
  if (const char* d = std::getenv("TESSERA_DATA_DIR")) return std::string(d) + "/matrices/" + name;
  return std::string(TESSERA_BENCH_DATA_DIR) + "/matrices/" + name;
}

std::string short_name(const std::string& spec) {
  const auto slash = spec.find_last_of('/');
  return slash == std::string::npos ? spec : spec.substr(slash + 1);
}

// OpenBLAS dgemm at `threads` threads: the ceiling for a dense-kernel code.
void dgemm_ceiling(const tessera::bench::Report& report, int n, int threads, int repeats) {
  std::vector<double> a(std::size_t(n) * n), b(std::size_t(n) * n), c(std::size_t(n) * n, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 1.0 / double(1 + i % 97);
    b[i] = 1.0 / double(1 + i % 89);
  }
  std::vector<tessera::bench::Contender> cs;
  cs.push_back({"OpenBLAS dgemm",
                [&] {
                  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(),
                              n, 0.0, c.data(), n);
                },
                [] { return blas::blas_threads(); }, -1,
                [threads] { blas::set_blas_threads(threads); }});
  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  const tessera::bench::Measure rate{"GFLOP/s", 2.0 * double(n) * n * n, 1e-9, false, false};
  report.add("dgemm n=" + std::to_string(n) + " (ceiling)", rate, cs,
             tessera::bench::run_interleaved(cs, opt));
}

#if TESSERA_BENCH_HAVE_CUDA
// cuBLAS dgemm of order n: the device's ceiling for a dense-kernel code.
void device_dgemm_ceiling(const tessera::bench::Report& report, int n, int repeats) {
  tessera::bench::gpu::CublasDgemm dgemm(n);
  const int sms = tessera::bench::gpu::multiprocessors();
  std::vector<tessera::bench::Contender> cs;
  cs.push_back({"cuBLAS dgemm", [&] { dgemm.run(); }, [sms] { return sms; }});
  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  opt.warmup = 2;
  const tessera::bench::Measure rate{"GFLOP/s", 2.0 * double(n) * n * n, 1e-9, false, false};
  report.add("device dgemm n=" + std::to_string(n) + " (ceiling)", rate, cs, tessera::bench::run_interleaved(cs, opt));
}
#endif

int bench_matrix(const tessera::bench::Report& report, const Args& args, const std::string& spec,
                 int tessera_threads, int blas_threads, Rates& rates) {
  const std::string name = short_name(spec);
  const Matrix A = tessera::sparse::make_matrix<double>(spec);
  const std::int64_t n = A.num_rows();
  // Text for people goes to stdout without --json; with it, to stderr (the JSON lines stay clean).
  std::FILE* text = args.json ? stderr : stdout;
  std::fprintf(text, "\n== %s ==\nn = %lld, nnz(A) = %lld (full symmetric storage)\n", name.c_str(),
               (long long)n, (long long)A.nnz());
  std::fflush(text);

  std::vector<Row> rows;
  auto add = [&](std::string nm, int threads, auto make, RowKind kind = RowKind::blas_peer) {
    Row r;
    r.name = std::move(nm);
    r.kind = kind;
    r.threads = threads;
    try {
      r.solver = make();
    } catch (const std::exception& e) {
      r.failed = true;
      r.error = e.what();
    }
    rows.push_back(std::move(r));
  };
  // The first rows are Tessera's (timed with its workers, or on the device),
  // the others peers; the first, the default options, is the ratios' reference.
  if (args.gpu) {
#if TESSERA_BENCH_HAVE_CUDA
    const int sms = tessera::bench::gpu::multiprocessors();
    add("tessera Cuda", sms, [&] { return std::make_unique<TesseraCudaSolver>(A); }, RowKind::device);
    // Each level's library fronts over 4 streams (Options::dense_streams).
    add("tessera Cuda, 4 library streams", sms, [&] { return std::make_unique<TesseraCudaSolver>(A, -1, 4); },
        RowKind::device);
    if (args.ablations) {
      // Every front through cuSOLVER and cuBLAS: what the small fronts' team
      // kernels (Options::small_front_rows) save.
      add("tessera Cuda, library fronts", sms, [&] { return std::make_unique<TesseraCudaSolver>(A, 0, 1, 0); },
          RowKind::device);
      // The solves' teams at the factorization's 128 rows (before 2026-12-02:
      // one split for both): what solving mid-sized fronts by teams saves.
      add("tessera Cuda, solves at 128-row teams", sms,
          [&] { return std::make_unique<TesseraCudaSolver>(A, -1, 1, 128); }, RowKind::device);
    }
#endif
    // Tessera on the host's cores: what the device gains over the same
    // library without it.
    add("tessera tasks (host)", tessera_threads,
        [&] { return std::make_unique<TesseraSolver>(A, tessera::sparse::Scheduler::Tasks); },
        RowKind::tessera_host);
#if TESSERA_BENCH_HAVE_CHOLMOD
    add("CHOLMOD supernodal", blas_threads, [&] { return std::make_unique<CholmodSolver>(A, args.threads); });
#endif
#if TESSERA_BENCH_HAVE_CUDA
    add("cuSOLVER csrchol", sms, [&] { return std::make_unique<CusolverSolver>(A); }, RowKind::device);
#endif
  } else if (args.indefinite) {
    for (bool pairing : {false, true}) {
      tessera::sparse::Options o;
      o.factorization = tessera::sparse::Factorization::LDLt;
      o.ordering = tessera::sparse::Ordering::Metis;
      o.pair_zero_diagonals = pairing;
      add(pairing ? "tessera LDLt paired" : "tessera LDLt", tessera_threads,
          [&A, o] { return std::make_unique<TesseraSolver>(A, o); }, RowKind::tessera_host);
    }
#if TESSERA_BENCH_HAVE_MUMPS
    add("MUMPS (sequential)", blas_threads, [&] { return std::make_unique<MumpsSolver>(A, args.threads, 2); });
#endif
  } else {
  add("tessera tasks", tessera_threads,
      [&] { return std::make_unique<TesseraSolver>(A, tessera::sparse::Scheduler::Tasks); }, RowKind::tessera_host);
  add("tessera level-set", tessera_threads,
      [&] { return std::make_unique<TesseraSolver>(A, tessera::sparse::Scheduler::LevelSet); },
      RowKind::tessera_host);
#if TESSERA_BENCH_HAVE_CHOLMOD
  add("CHOLMOD supernodal", blas_threads, [&] { return std::make_unique<CholmodSolver>(A, args.threads); });
#endif
#if TESSERA_BENCH_HAVE_TACHO
  add("Tacho (Kokkos Serial)", blas_threads, [&] { return std::make_unique<TachoSolver>(A, args.threads); });
#endif
#if TESSERA_BENCH_HAVE_MUMPS
  add("MUMPS (sequential)", blas_threads, [&] { return std::make_unique<MumpsSolver>(A, args.threads); });
#endif
  }

  // Right-hand side b = A x0 with a non-constant x0.
  std::vector<double> x0(n), b(n), x(n);
  for (std::int64_t i = 0; i < n; ++i) x0[i] = 1.0 + double(i % 7) / 7.0;
  spmv(A, x0.data(), b.data());

  // Analysis, the flop count, one warm-up factorization, the residual check.
  for (Row& r : rows) {
    if (r.failed) continue;
    try {
      const double t0 = now();
      r.solver->analyze();
      r.analyze_s = now() - t0;
      r.size = count_factor(A, r.solver->permutation());
      if (const auto was = rates.find(r.name); was != rates.end() && was->second.gflops > 0) {
        const double predicted = r.size.flops * 1e-9 / was->second.gflops;
        if (predicted > args.skip_seconds) {
          char why[160];
          std::snprintf(why, sizeof why, "predicted %.3g s from its %.3g GFLOP/s on %s, over --skip-seconds %g",
                        predicted, was->second.gflops, was->second.matrix.c_str(), args.skip_seconds);
          r.skipped = why;
          std::fprintf(text, "  %-22s analyzed in %7.3f s, not factorized: %s\n", r.name.c_str(), r.analyze_s, why);
          std::fflush(text);
          continue;
        }
      }
      const double t1 = now();
      r.solver->factorize();
      r.warm_factorize_s = now() - t1;
      r.slow = r.warm_factorize_s > args.slow_seconds;
      rates[r.name] = Rate{r.size.flops * 1e-9 / r.warm_factorize_s, name};
      std::fill(x.begin(), x.end(), 0.0);
      const double t2 = now();
      r.solver->solve(b, x);
      r.solve_s = now() - t2;
      r.residual = relative_residual(A, x, b);
      r.backward_error = normwise_backward_error(A, x, b);
      if (!(r.residual <= kResidualLimit)) {
        r.failed = true;
        r.error = "residual " + std::to_string(r.residual) + " above 1e-8";
      }
    } catch (const std::exception& e) {
      r.failed = true;
      r.error = e.what();
    }
    std::fprintf(text,
                 "  %-22s analyzed in %7.3f s, warm-up factorization %.3f s, one solve %.3f s (%.3f of it), "
                 "residual %.2e, backward error %.2e%s%s\n",
                 r.name.c_str(), r.analyze_s, r.warm_factorize_s, r.solve_s,
                 r.warm_factorize_s > 0 ? r.solve_s / r.warm_factorize_s : 0.0, r.residual, r.backward_error,
                 r.failed ? ", FAILED: " : "", r.failed ? r.error.c_str() : "");
    if (r.slow && !r.failed)
      std::fprintf(text, "  %-22s over --slow-seconds %g: timed by its warm-up alone, not repeated\n", r.name.c_str(),
                   args.slow_seconds);
    std::fflush(text);
  }

  // The timed, interleaved repeats (tessera tasks is everyone's reference).
  std::vector<tessera::bench::Contender> cs;
  std::vector<std::size_t> who;
  int tessera_index = -1;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].failed || rows[i].slow || !rows[i].skipped.empty()) continue;
    if (i == 0) tessera_index = static_cast<int>(cs.size());
    Solver* s = rows[i].solver.get();
    int* ran = &rows[i].threads;
    if (rows[i].kind == RowKind::tessera_host)  // Tessera: its workers
      cs.push_back({rows[i].name, [s] { s->factorize(); }, [] { return Space().concurrency(); }});
    else if (rows[i].kind == RowKind::device)  // the device's SMs
      cs.push_back({rows[i].name, [s] { s->factorize(); }, [ran] { return *ran; }});
    else  // peers: the OpenBLAS threads their factorization ran with
      cs.push_back({rows[i].name,
                    [s, ran] {
                      s->factorize();
                      *ran = blas::blas_threads();
                    },
                    [ran] { return *ran; }});
    who.push_back(i);
  }
  if (tessera_index >= 0)
    for (std::size_t k = 0; k < cs.size(); ++k)
      if (static_cast<int>(k) != tessera_index) cs[k].reference = tessera_index;
  tessera::bench::InterleaveOptions opt;
  opt.warmup = args.warmup;
  opt.repeats = args.repeats;
  opt.pause_ms = args.pause_ms;
  const auto res = tessera::bench::run_interleaved(cs, opt);
  report.add(name, tessera::bench::Measure{"ms", 1, 1e3, true, true}, cs, res);
  // The repeats' median predicts the next matrix better than the warm-up,
  // which pays first-use costs (a device's handles and workspaces).
  for (std::size_t k = 0; k < cs.size(); ++k)
    if (!res[k].seconds.empty())
      rates[rows[who[k]].name] =
          Rate{rows[who[k]].size.flops * 1e-9 / tessera::bench::summarize(res[k].seconds).median, name};
  // What the repeats do not time, per contender (the case note: see the top).
  tessera::tools::json per_row = tessera::tools::json::object();
  for (const Row& r : rows) {
    tessera::tools::json f = tessera::tools::json::object();
    if (r.failed) {
      f["failed"] = r.error;
    } else {
      f["analyze_s"] = r.analyze_s;
      f["gflop"] = r.size.flops * 1e-9;
      if (!r.skipped.empty()) {
        f["skipped"] = r.skipped;
      } else {
        f["warm_factorize_s"] = r.warm_factorize_s;
        f["solve_s"] = r.solve_s;
        if (r.warm_factorize_s > 0) f["solve_over_factorize"] = r.solve_s / r.warm_factorize_s;
        f["backward_error"] = r.backward_error;
        if (r.slow) f["slow"] = "warm-up past --slow-seconds: timed by it alone, not repeated";
      }
      if (r.solver && std::isfinite(r.solver->device_bytes)) f["device_mib"] = r.solver->device_bytes / (1 << 20);
    }
    per_row[r.name] = std::move(f);
  }
  report.note(name, {{"rows", std::move(per_row)}});

  // The work each contender did, by one formula over its own ordering, and its answer's residual.
  std::fprintf(text, "%-22s %10s %10s %9s %9s %9s %8s\n", "contender", "nnz(L)", "GFLOP", "GFLOP/s", "min",
               "max", "resid");
  for (std::size_t k = 0; k < cs.size(); ++k) {
    const Row& r = rows[who[k]];
    const auto gflops = tessera::bench::summarize_scaled(res[k].seconds, r.size.flops * 1e-9, true);
    std::fprintf(text, "%-22s %10.4g %10.4g %9.2f %9.2f %9.2f %8.1e\n", r.name.c_str(), r.size.nnz_l,
                 r.size.flops * 1e-9, gflops.median, gflops.min, gflops.max, r.residual);
  }
  for (const Row& r : rows)
    if (r.slow && !r.failed)
      std::fprintf(text, "%-22s %10.4g %10.4g %9.2f  (its warm-up alone: %.1f s)\n", r.name.c_str(), r.size.nnz_l,
                   r.size.flops * 1e-9, r.size.flops * 1e-9 / r.warm_factorize_s, r.warm_factorize_s);
  std::fprintf(text, "own figures:");
  for (const Row& r : rows) {
    if (r.failed || !r.skipped.empty()) continue;
    std::fprintf(text, "  %s nnz(L) %.4g flops %.4g%s%s;", r.name.c_str(), r.solver->own_nnz_l,
                 r.solver->own_flops, r.solver->note.empty() ? "" : ", ", r.solver->note.c_str());
  }
  std::fprintf(text, "\n");
  if (args.indefinite) {
    // The inertia against MUMPS's (the last row when it ran).
    const Row* mumps = rows.back().name.rfind("MUMPS", 0) == 0 && !rows.back().failed ? &rows.back() : nullptr;
    std::fprintf(text, "inertia and delays:");
    for (std::size_t k = 0; k < cs.size(); ++k) {
      Row& r = rows[who[k]];
      std::fprintf(text, "  %s %lld negative, %lld delayed, backward error %.1e;", r.name.c_str(),
                   (long long)r.solver->negative, (long long)r.solver->delayed, r.backward_error);
      if (mumps && r.solver->negative != mumps->solver->negative) {
        r.failed = true;
        r.error = "inertia differs from MUMPS's: " + std::to_string(r.solver->negative) + " negative pivots, MUMPS " +
                  std::to_string(mumps->solver->negative);
      }
    }
    std::fprintf(text, "\n");
  }
  int status = 0;
  for (const Row& r : rows)
    if (r.failed) {
      std::fprintf(stderr, "bench_cholesky: %s on %s FAILED: %s\n", r.name.c_str(), name.c_str(),
                   r.error.c_str());
      status = 3;
    }
  std::fflush(text);
  return status;
}

// The defaults that depend on --quick, once the command line is read.
void settle(Args& a) {
  if (a.matrices.empty() && a.gpu) {
    if (a.quick)
      a.matrices = {"lap2d:200", "lap3d:20", data_file("bcsstk13.mtx")};
    else  // growing 3-D cases first: see --skip-seconds at the top
      a.matrices = {"lap3d:60", "lap3d:80", "lap3d:100", "lap2d:1000", data_file("bcsstk13.mtx")};
  }
  if (a.matrices.empty() && a.indefinite) {
    if (a.quick)
      a.matrices = {"stokes:40:1e-12", "kkt:40:300", "indef3d:14", data_file("hangGlider_2.mtx")};
    else
      a.matrices = {"stokes:150:1e-12", "kkt:120:2000", "indef3d:30", data_file("hangGlider_2.mtx")};
  }
  if (a.matrices.empty()) {
    if (a.quick)
      a.matrices = {"lap2d:200", "lap3d:20", data_file("bcsstk13.mtx")};
    else
      a.matrices = {"lap2d:1000", "lap3d:60", data_file("bcsstk13.mtx")};
  }
  if (a.quick && a.dgemm_n == 4000) a.dgemm_n = 1000;
  if (a.quick && a.device_dgemm_n == 8192) a.device_dgemm_n = 2048;
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  Args args;
  tessera::bench::Cli cli("bench_cholesky",
                          "Sparse Cholesky factorization: Tessera (task DAG and level-set schedulers) against CHOLMOD,\n"
                          "Tacho and MUMPS on the same matrices, with OpenBLAS dgemm as the ceiling (see the comment at\n"
                          "the top of bench_cholesky.cpp).",
                          args.repeats);
  cli.app().add_option("--threads", args.threads, "Tessera's workers and the peers' OpenBLAS threads")
      ->check(tools::integer(1, 4096))
      ->capture_default_str();
  cli.app().add_option("--warmup", args.warmup, "untimed runs before the timed ones")->check(tools::integer(0, 1000));
  cli.app().add_option("--pause-ms", args.pause_ms, "milliseconds between contenders")->check(tools::integer(0, 60000));
  cli.app().add_option("--dgemm-n", args.dgemm_n, "order of the dgemm ceiling")->check(tools::integer(1, 1 << 16));
  cli.app().add_option("--matrix", args.matrices, "a matrix (lap2d:N, lap3d:N, stokes:N[:delta], kkt:N:M, indef3d:N or a .mtx path); repeatable");
  cli.app().add_flag("--quick", args.quick, "small matrices (lap2d:200, lap3d:20, bcsstk13) and dgemm 1000");
  cli.app().add_flag("--indefinite", args.indefinite,
                     "symmetric indefinite matrices: Tessera's LDL^T against MUMPS (SYM = 2), inertia checked");
  cli.app().add_flag("--ablations", args.ablations,
                     "with --gpu: also the rows that attribute Tessera's time (every front through the library; the "
                     "solves' teams at 128 rows)");
  cli.app().add_flag("--gpu", args.gpu,
                     "the GPU rows (CUDA builds): Tessera on Cuda against cuSOLVER's sparse Cholesky and CHOLMOD on "
                     "--threads, cuBLAS dgemm as the device's ceiling");
  cli.app().add_option("--device-dgemm-n", args.device_dgemm_n, "order of the cuBLAS dgemm ceiling (--gpu)")
      ->check(tools::integer(1, 1 << 16));
  cli.app().add_option("--slow-seconds", args.slow_seconds,
                       "a contender whose warm-up factorization took longer is not repeated")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cli.app().add_option("--skip-seconds", args.skip_seconds,
                       "a contender whose rate on an earlier matrix predicts a longer warm-up is not run")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  if (auto status = cli.parse(argc, argv)) return *status;
  args.repeats = cli.repeats;
  args.json = cli.json;
  if (args.gpu && args.indefinite) {
    std::fprintf(stderr, "bench_cholesky: --gpu times Cholesky; --indefinite (LDL^T against MUMPS) runs on the host\n");
    return 2;
  }
  if (args.ablations && !args.gpu) {
    std::fprintf(stderr, "bench_cholesky: --ablations adds rows to the GPU set: give --gpu too\n");
    return 2;
  }
#if !TESSERA_BENCH_HAVE_CUDA
  if (args.gpu) {
    std::fprintf(stderr, "bench_cholesky: --gpu: this bench_cholesky was built without CUDA (configure with "
                         "-DTessera_ENABLE_CUDA=ON)\n");
    return 2;
  }
#endif
  settle(args);
  cli.settings().set_num_threads(args.threads);  // --threads is Tessera's worker count
  tessera::initialize(cli.settings());
#if TESSERA_BENCH_HAVE_CUDA
  if (args.gpu) {
    if (const std::string why = tessera::bench::gpu::unusable_reason(); !why.empty()) {
      std::printf("no CUDA device: %s\n", why.c_str());
      tessera::finalize();
      return 0;
    }
    std::fprintf(args.json ? stderr : stdout, "# device: %s\n", tessera::bench::gpu::device_description().c_str());
  }
#endif
#if TESSERA_BENCH_HAVE_TACHO
  tessera::bench::TachoPeer::initialize_kokkos();
#endif
  const int tessera_threads = Space().concurrency();
  blas::set_blas_threads(args.threads);
  const int blas_threads = blas::blas_threads();

  if (!args.json) {
    std::printf("# sparse %s factorization, %s, contenders interleaved per repeat\n", args.indefinite ? "LDL^T" : "Cholesky",
                args.quick ? "quick sizes" : "full sizes");
    std::printf("# Tessera %s workers: %d; OpenBLAS threads for the peers and dgemm: %d\n", Space::name(),
                tessera_threads, blas_threads);
    std::printf(
        "# GFLOP = sum_j c_j^2 * 1e-9 over the ordering each contender used (one formula for all);\n"
        "# ratio = %s time / peer time per repeat, median (min-max); <= 1: Tessera faster\n",
        args.gpu ? "tessera-Cuda" : args.indefinite ? "tessera-LDLt" : "tessera-tasks");
  }
  const tessera::bench::Report report(args.indefinite ? "sparse_ldlt" : args.gpu ? "sparse_cholesky_gpu" : "sparse_cholesky",
                                      args.json);
#if TESSERA_BENCH_HAVE_CUDA
  // The card names the run's column in docs/performance.md.
  if (args.gpu) report.note("device", {{"device", tessera::bench::gpu::device_name()}});
#endif
  if (!args.indefinite) dgemm_ceiling(report, args.dgemm_n, args.threads, 3);
#if TESSERA_BENCH_HAVE_CUDA
  if (args.gpu) device_dgemm_ceiling(report, args.device_dgemm_n, 5);
#endif

  int status = 0;
  Rates rates;
  for (const std::string& spec : args.matrices) {
    try {
      status = std::max(status, bench_matrix(report, args, spec, tessera_threads, blas_threads, rates));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_cholesky: %s: %s\n", spec.c_str(), e.what());
      status = std::max(status, 2);
    }
  }
#if TESSERA_BENCH_HAVE_TACHO
  tessera::bench::TachoPeer::finalize_kokkos();
#endif
  tessera::finalize();
  return status;
}
