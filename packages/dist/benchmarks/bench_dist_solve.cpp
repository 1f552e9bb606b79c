// Distributed PCG against PETSc and hypre, side by side in one MPI program,
// contenders interleaved within each repetition (tessera::bench::run_interleaved):
//  * tessera::dist::pcg + AdditiveSchwarz (overlap 0 = block Jacobi), each
//    rank's block by sparse::IncompleteCholesky IC(0), natural order;
//  * PETSc KSPCG + PCBJACOBI, sub-solver PCICC (level 0, natural order);
//  * the same two with complete Cholesky blocks (tessera: sparse::Cholesky,
//    METIS order; PETSc: PCCHOLESKY with its nested-dissection order);
//  * hypre's ParCSR PCG preconditioned by one BoomerAMG V-cycle (when hypre
//    was found at configure: TESSERA_BENCH_HAVE_HYPRE; see hypre_solve for
//    its settings), the algebraic-multigrid peer a one-level Schwarz method
//    is up against: its iterations barely grow with the rank count;
//  * on one rank, the node-level tessera::sparse::pcg + IC(0): the overhead
//    of dist at one rank.
// One timed run = preconditioner setup (the block factorizations, the AMG
// hierarchy) + the solve from x = 0 to ||b - A x|| <= tol ||b|| of the
// recurrence's residual (PETSc: unpreconditioned norm; hypre: two-norm
// test, which stops at ||r|| < tol ||b||: the same test), b = A * 1. The
// matrix is built once, outside the timing (PETSc's and hypre's from the
// same distributed rows). Each run starts and ends with a barrier, so every
// rank times the slowest rank; inside the run each contender also clocks its
// setup and its solve, and the slowest rank's medians are reported beside
// the table. Inside a rank: one thread (tessera::Serial), as PETSc and hypre
// run. Ratio column: the tessera contender's time / the row's time (<= 1:
// tessera took at most the peer's time; hypre's reference is tessera IC(0)).
// Each contender's last solution is checked afterwards: the true residual
// ||b - A x|| / ||b|| (tessera's SpMV) must be below 100 tol, and the
// largest error against the known solution 1 is reported. The per-rank
// iterations and halo/allreduce volume of the tessera solves are printed
// after the table (with --json: a case note that also holds the peers'
// configurations as options).
//   mpiexec -n P bench_dist_solve [--matrix lap3d:30] [--tolerance 1e-8] [--repeats 5] [--json]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/bench/stats.hpp>
#include <tessera/dist.hpp>
#include <tessera/sparse.hpp>

#include <petscksp.h>
#ifdef TESSERA_BENCH_HAVE_HYPRE
#include <HYPRE.h>
#include <HYPRE_krylov.h>
#include <HYPRE_parcsr_ls.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace td = tessera::dist;
namespace ts = tessera::sparse;
using Space = tessera::Serial;

void petsc_check(PetscErrorCode ierr, const char* what) {
  if (ierr != 0) {
    std::fprintf(stderr, "bench_dist_solve: PETSc call %s failed (%d)\n", what, int(ierr));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// A wrong answer stops the benchmark rather than printing a time for it.
void check_converged(bool converged, int iterations, const char* who) {
  if (!converged) {
    std::fprintf(stderr, "bench_dist_solve: %s did not converge (%d iterations)\n", who, iterations);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// This rank's setup and solve seconds of each timed run of one contender
// (the warm-up run included; phase_medians drops it).
struct Phases {
  std::vector<double> setup, solve;
  void add(double t0, double t1, double t2) {
    setup.push_back(t1 - t0);
    solve.push_back(t2 - t1);
  }
};

// The medians over the timed runs of the slowest rank's setup and solve.
std::pair<double, double> phase_medians(const td::Comm& comm, const Phases& ph, int warmup) {
  auto slowest = [&](const std::vector<double>& mine) {
    std::vector<double> v(mine.begin() + std::min<std::ptrdiff_t>(warmup, std::ptrdiff_t(mine.size())), mine.end());
    for (auto& t : v) t = comm.max(t);
    return v.empty() ? 0.0 : tessera::bench::summarize(v).median;
  };
  return {slowest(ph.setup), slowest(ph.solve)};
}

// PETSc's copy of the distributed matrix: the same rows on the same ranks.
Mat petsc_matrix(const td::DistCrsMatrix<double>& A) {
  const PetscInt nloc = PetscInt(A.num_owned()), n = PetscInt(A.num_rows());
  std::vector<PetscInt> d_nnz(std::size_t(nloc), 0), o_nnz(std::size_t(nloc), 0);
  for (PetscInt i = 0; i < nloc; ++i) {
    d_nnz[std::size_t(i)] = PetscInt(A.diagonal_block().row_map()[i + 1] - A.diagonal_block().row_map()[i]);
    o_nnz[std::size_t(i)] = PetscInt(A.off_diagonal_row_map()[std::size_t(i) + 1] - A.off_diagonal_row_map()[std::size_t(i)]);
  }
  Mat M;
  petsc_check(MatCreateAIJ(A.comm().raw(), nloc, nloc, n, n, 0, d_nnz.data(), 0, o_nnz.data(), &M), "MatCreateAIJ");
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  for (PetscInt i = 0; i < nloc; ++i) {
    cols.clear();
    vals.clear();
    A.for_each_entry(i, [&](std::int32_t c, double v) {
      cols.push_back(PetscInt(A.global_column(c)));
      vals.push_back(v);
    });
    const PetscInt row = PetscInt(A.row_begin()) + i;
    petsc_check(MatSetValues(M, 1, &row, PetscInt(cols.size()), cols.data(), vals.data(), INSERT_VALUES), "MatSetValues");
  }
  petsc_check(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  petsc_check(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  return M;
}

// One PETSc solve from x = 0: KSPCG, block Jacobi with `sub` (PCICC or
// PCCHOLESKY) on each rank's block; returns the iterations. Setup = KSPSetUp
// and the block factorizations (KSPSetUpOnBlocks, which KSPSolve would
// otherwise do first).
int petsc_solve(Mat M, Vec b, Vec x, PCType sub, double tolerance, Phases& ph) {
  const double t0 = MPI_Wtime();
  KSP ksp;
  PC pc;
  petsc_check(KSPCreate(PetscObjectComm(PetscObject(M)), &ksp), "KSPCreate");
  petsc_check(KSPSetOperators(ksp, M, M), "KSPSetOperators");
  petsc_check(KSPSetType(ksp, KSPCG), "KSPSetType");
  petsc_check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  petsc_check(KSPSetTolerances(ksp, tolerance, 0.0, PETSC_DEFAULT, 100000), "KSPSetTolerances");
  petsc_check(KSPGetPC(ksp, &pc), "KSPGetPC");
  petsc_check(PCSetType(pc, PCBJACOBI), "PCSetType");
  petsc_check(KSPSetUp(ksp), "KSPSetUp");
  PetscInt blocks = 0, first = 0;
  KSP* sub_ksp = nullptr;
  petsc_check(PCBJacobiGetSubKSP(pc, &blocks, &first, &sub_ksp), "PCBJacobiGetSubKSP");
  for (PetscInt k = 0; k < blocks; ++k) {
    PC sub_pc;
    petsc_check(KSPSetType(sub_ksp[k], KSPPREONLY), "KSPSetType(sub)");
    petsc_check(KSPGetPC(sub_ksp[k], &sub_pc), "KSPGetPC(sub)");
    petsc_check(PCSetType(sub_pc, sub), "PCSetType(sub)");
    if (std::strcmp(sub, PCCHOLESKY) == 0) petsc_check(PCFactorSetMatOrderingType(sub_pc, MATORDERINGND), "ordering");
  }
  petsc_check(KSPSetUpOnBlocks(ksp), "KSPSetUpOnBlocks");
  const double t1 = MPI_Wtime();
  petsc_check(VecSet(x, 0.0), "VecSet");
  petsc_check(KSPSolve(ksp, b, x), "KSPSolve");
  PetscInt its = 0;
  KSPConvergedReason reason;
  petsc_check(KSPGetIterationNumber(ksp, &its), "KSPGetIterationNumber");
  petsc_check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
  petsc_check(KSPDestroy(&ksp), "KSPDestroy");
  ph.add(t0, t1, MPI_Wtime());
  check_converged(reason > 0, int(its), std::strcmp(sub, PCICC) == 0 ? "PETSc ICC" : "PETSc Cholesky");
  return int(its);
}

#ifdef TESSERA_BENCH_HAVE_HYPRE
void hypre_check(HYPRE_Int ierr, const char* what) {
  if (ierr != 0) {
    char text[256] = {};
    HYPRE_DescribeError(ierr, text);
    std::fprintf(stderr, "bench_dist_solve: hypre call %s failed (%d: %s)\n", what, int(ierr), text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// hypre's copy of the distributed matrix and of b, x: the same rows on the
// same ranks (IJ interface, ParCSR objects).
struct HypreSystem {
  HYPRE_IJMatrix ij_A = nullptr;
  HYPRE_IJVector ij_b = nullptr, ij_x = nullptr;
  HYPRE_ParCSRMatrix A = nullptr;
  HYPRE_ParVector b = nullptr, x = nullptr;

  HypreSystem(const td::DistCrsMatrix<double>& M, const std::vector<double>& rhs) {
    const MPI_Comm comm = M.comm().raw();
    const auto nloc = HYPRE_Int(M.num_owned());
    const auto lo = HYPRE_BigInt(M.row_begin()), hi = HYPRE_BigInt(M.row_begin() + M.num_owned() - 1);
    hypre_check(HYPRE_IJMatrixCreate(comm, lo, hi, lo, hi, &ij_A), "HYPRE_IJMatrixCreate");
    hypre_check(HYPRE_IJMatrixSetObjectType(ij_A, HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
    std::vector<HYPRE_Int> d_nnz(std::size_t(nloc), 0), o_nnz(std::size_t(nloc), 0), ncols(static_cast<std::size_t>(nloc));
    std::vector<HYPRE_BigInt> rows(static_cast<std::size_t>(nloc)), cols;
    std::vector<double> vals;
    for (HYPRE_Int i = 0; i < nloc; ++i) {
      rows[std::size_t(i)] = lo + i;
      ncols[std::size_t(i)] = HYPRE_Int(M.row_length(i));
      M.for_each_entry(i, [&](std::int32_t c, double v) {
        ++(c < nloc ? d_nnz : o_nnz)[std::size_t(i)];
        cols.push_back(HYPRE_BigInt(M.global_column(c)));
        vals.push_back(v);
      });
    }
    hypre_check(HYPRE_IJMatrixSetDiagOffdSizes(ij_A, d_nnz.data(), o_nnz.data()), "HYPRE_IJMatrixSetDiagOffdSizes");
    hypre_check(HYPRE_IJMatrixInitialize(ij_A), "HYPRE_IJMatrixInitialize");
    if (nloc > 0)
      hypre_check(HYPRE_IJMatrixSetValues(ij_A, nloc, ncols.data(), rows.data(), cols.data(), vals.data()),
                  "HYPRE_IJMatrixSetValues");
    hypre_check(HYPRE_IJMatrixAssemble(ij_A), "HYPRE_IJMatrixAssemble");
    void* obj = nullptr;
    hypre_check(HYPRE_IJMatrixGetObject(ij_A, &obj), "HYPRE_IJMatrixGetObject");
    A = static_cast<HYPRE_ParCSRMatrix>(obj);
    auto vector = [&](HYPRE_IJVector& ij, HYPRE_ParVector& par, const double* values) {
      hypre_check(HYPRE_IJVectorCreate(comm, lo, hi, &ij), "HYPRE_IJVectorCreate");
      hypre_check(HYPRE_IJVectorSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJVectorSetObjectType");
      hypre_check(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
      if (nloc > 0) hypre_check(HYPRE_IJVectorSetValues(ij, nloc, rows.data(), values), "HYPRE_IJVectorSetValues");
      hypre_check(HYPRE_IJVectorAssemble(ij), "HYPRE_IJVectorAssemble");
      void* o = nullptr;
      hypre_check(HYPRE_IJVectorGetObject(ij, &o), "HYPRE_IJVectorGetObject");
      par = static_cast<HYPRE_ParVector>(o);
    };
    const std::vector<double> zero(std::size_t(nloc), 0.0);
    vector(ij_b, b, rhs.data());
    vector(ij_x, x, zero.data());
  }
  HypreSystem(const HypreSystem&) = delete;
  HypreSystem& operator=(const HypreSystem&) = delete;
  ~HypreSystem() {
    HYPRE_IJVectorDestroy(ij_x);
    HYPRE_IJVectorDestroy(ij_b);
    HYPRE_IJMatrixDestroy(ij_A);
  }
  // This rank's entries of x.
  std::vector<double> solution(std::int64_t row_begin, std::int64_t nloc) const {
    std::vector<HYPRE_BigInt> rows(static_cast<std::size_t>(nloc));
    for (std::int64_t i = 0; i < nloc; ++i) rows[std::size_t(i)] = HYPRE_BigInt(row_begin + i);
    std::vector<double> out(static_cast<std::size_t>(nloc));
    if (nloc > 0)
      hypre_check(HYPRE_IJVectorGetValues(ij_x, HYPRE_Int(nloc), rows.data(), out.data()), "HYPRE_IJVectorGetValues");
    return out;
  }
};

// The BoomerAMG settings, spelled out (most are hypre 2.26's defaults, so
// that a newer hypre with other defaults measures the same method): HMIS
// coarsening, extended+i interpolation truncated to 4 entries a row,
// strength threshold 0.5 (hypre's advice for 3-D Laplacians; its default
// 0.25 is for 2-D), l1-Gauss-Seidel forward on the way down and backward on
// the way up (a symmetric V-cycle, as CG needs), one sweep each, Gaussian
// elimination on the coarsest level; as a preconditioner one V-cycle with
// tolerance 0.
constexpr const char* hypre_options =
    "hypre PCG two-norm, BoomerAMG -coarsen_type 10 (HMIS) -interp_type 6 (ext+i) -Pmx 4 -strong_threshold 0.5 "
    "-relax_down 13 -relax_up 14 -relax_coarse 9 -num_sweeps 1 -max_iter 1 -tol 0";

// One hypre solve from x = 0: ParCSR PCG + one BoomerAMG V-cycle; returns
// the iterations. Setup = the AMG hierarchy (HYPRE_ParCSRPCGSetup calls
// HYPRE_BoomerAMGSetup).
int hypre_solve(const td::Comm& comm, HypreSystem& sys, double tolerance, Phases& ph) {
  const double t0 = MPI_Wtime();
  HYPRE_Solver amg = nullptr, pcg = nullptr;
  hypre_check(HYPRE_BoomerAMGCreate(&amg), "HYPRE_BoomerAMGCreate");
  HYPRE_BoomerAMGSetPrintLevel(amg, 0);
  HYPRE_BoomerAMGSetCoarsenType(amg, 10);
  HYPRE_BoomerAMGSetInterpType(amg, 6);
  HYPRE_BoomerAMGSetPMaxElmts(amg, 4);
  HYPRE_BoomerAMGSetStrongThreshold(amg, 0.5);
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 13, 1);
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 14, 2);
  HYPRE_BoomerAMGSetCycleRelaxType(amg, 9, 3);
  HYPRE_BoomerAMGSetNumSweeps(amg, 1);
  HYPRE_BoomerAMGSetMaxIter(amg, 1);
  HYPRE_BoomerAMGSetTol(amg, 0.0);
  hypre_check(HYPRE_ParCSRPCGCreate(comm.raw(), &pcg), "HYPRE_ParCSRPCGCreate");
  HYPRE_PCGSetTol(pcg, tolerance);
  HYPRE_PCGSetAbsoluteTol(pcg, 0.0);
  HYPRE_PCGSetMaxIter(pcg, 100000);
  HYPRE_PCGSetTwoNorm(pcg, 1);  // ||r||_2 against tol ||b||_2, not the preconditioned norm
  HYPRE_PCGSetPrintLevel(pcg, 0);
  HYPRE_PCGSetLogging(pcg, 1);
  hypre_check(HYPRE_ParCSRPCGSetPrecond(pcg, HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGSetup, amg),
              "HYPRE_ParCSRPCGSetPrecond");
  hypre_check(HYPRE_ParCSRPCGSetup(pcg, sys.A, sys.b, sys.x), "HYPRE_ParCSRPCGSetup");
  const double t1 = MPI_Wtime();
  hypre_check(HYPRE_ParVectorSetConstantValues(sys.x, 0.0), "HYPRE_ParVectorSetConstantValues");
  const HYPRE_Int solved = HYPRE_ParCSRPCGSolve(pcg, sys.A, sys.b, sys.x);
  HYPRE_Int its = 0;
  double rel = 0;
  HYPRE_PCGGetNumIterations(pcg, &its);
  HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &rel);
  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_BoomerAMGDestroy(amg);
  ph.add(t0, t1, MPI_Wtime());
  if (solved & HYPRE_ERROR_CONV) HYPRE_ClearAllErrors();
  else hypre_check(solved, "HYPRE_ParCSRPCGSolve");
  check_converged(!(solved & HYPRE_ERROR_CONV) && rel <= tolerance, int(its), "hypre BoomerAMG-PCG");
  return int(its);
}
#else
constexpr const char* hypre_options = "hypre not compiled in (libhypre-dev not found at configure): no BoomerAMG row";
#endif

// ||b - A x|| / ||b|| and max |x_i - 1| (the known solution), over all ranks.
struct Check {
  double residual = 0, error = 0;
};
Check check_solution(const td::DistCrsMatrix<double>& A, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> ax(b.size());
  td::multiply<Space>(A, x.data(), ax.data());
  std::vector<double> sums(2, 0.0);
  double err = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    sums[0] += (b[i] - ax[i]) * (b[i] - ax[i]);
    sums[1] += b[i] * b[i];
    err = std::max(err, std::abs(x[i] - 1.0));
  }
  A.comm().sum_in_place(sums);
  return {std::sqrt(sums[0] / sums[1]), A.comm().max(err)};
}

}  // namespace

int main(int argc, char* argv[]) {
  td::Environment mpi(argc, argv);
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_dist_solve",
                          "mpiexec -n P bench_dist_solve: PCG with block Jacobi (IC(0) and Cholesky blocks) against PETSc's\n"
                          "KSPCG + PCBJACOBI and hypre's PCG + BoomerAMG on the same rows.",
                          5);
  cli.set_quiet(td::Comm().rank() != 0);  // every rank parses the same words: rank 0 speaks for all
  std::string spec = "lap3d:30";
  double tolerance = 1e-8;
  cli.app().add_option("--matrix", spec, "lap2d:N, lap3d:N, lap3d27:N or a .mtx file");
  cli.app().add_option("--tolerance", tolerance, "relative residual to reach")->check(tools::real(0, 1, true));
  if (auto status = cli.parse(argc, argv)) return *status;
  const int repeats = cli.repeats;
  const bool json = cli.json;
  tessera::initialize(cli.settings());
  petsc_check(PetscInitialize(&argc, &argv, nullptr, nullptr), "PetscInitialize");
#ifdef TESSERA_BENCH_HAVE_HYPRE
  hypre_check(HYPRE_Init(), "HYPRE_Init");
#endif
  {
    const td::Comm comm;
    const int P = comm.size(), me = comm.rank();
    const auto A = td::make_dist_matrix<double>(comm, spec);
    const std::int64_t nloc = A.num_owned();
    // b = A * 1 (the distributed product).
    const std::vector<double> ones(std::size_t(nloc), 1.0);
    const auto len = static_cast<std::size_t>(nloc);
    std::vector<double> b(len), x(len);
    td::multiply<Space>(A, ones.data(), b.data());
    Mat M = petsc_matrix(A);
    Vec pb, px;
    petsc_check(MatCreateVecs(M, &px, &pb), "MatCreateVecs");
    {
      PetscScalar* p = nullptr;
      petsc_check(VecGetArray(pb, &p), "VecGetArray");
      std::copy(b.begin(), b.end(), p);
      petsc_check(VecRestoreArray(pb, &p), "VecRestoreArray");
    }
#ifdef TESSERA_BENCH_HAVE_HYPRE
    HypreSystem hypre_sys(A, b);
#endif
    // The node-level matrix for the one-rank overhead row.
    ts::CrsMatrix<double> whole;
    if (P == 1) whole = ts::make_matrix<double>(spec);

    int it_tessera_ic = 0, it_petsc_ic = 0, it_tessera_chol = 0, it_petsc_chol = 0, it_node = 0, it_hypre = 0;
    td::PcgResult last_ic, last_chol;
    Phases ph_tessera_ic, ph_petsc_ic, ph_tessera_chol, ph_petsc_chol, ph_hypre;
    auto tessera_solve = [&](td::LocalSolver local, int& its, td::PcgResult& out, Phases& ph) {
      const double t0 = MPI_Wtime();
      td::AdditiveSchwarz<double, Space> pre({.overlap = 0, .local = local});
      pre.setup(A);
      const double t1 = MPI_Wtime();
      std::fill(x.begin(), x.end(), 0.0);
      out = td::pcg<Space>(A, b.data(), x.data(), pre, {.tolerance = tolerance, .max_iterations = 100000});
      ph.add(t0, t1, MPI_Wtime());
      check_converged(out.converged, out.iterations, "tessera");
      its = out.iterations;
    };
    auto timed = [&](auto&& f) {
      return [&comm, f] {
        comm.barrier();
        f();
        comm.barrier();
      };
    };
    const auto ranks = [P] { return P; };
    using tessera::bench::Contender;
    std::vector<Contender> cs;
    cs.push_back({"tessera dist PCG, bjacobi IC(0)", timed([&] {
                    tessera_solve(td::LocalSolver::IncompleteCholesky, it_tessera_ic, last_ic, ph_tessera_ic);
                  }),
                  ranks});
    cs.push_back({"PETSc CG, bjacobi ICC(0)",
                  timed([&] { it_petsc_ic = petsc_solve(M, pb, px, PCICC, tolerance, ph_petsc_ic); }), ranks, 0});
    cs.push_back({"tessera dist PCG, bjacobi Cholesky", timed([&] {
                    tessera_solve(td::LocalSolver::Cholesky, it_tessera_chol, last_chol, ph_tessera_chol);
                  }),
                  ranks});
    cs.push_back({"PETSc CG, bjacobi Cholesky",
                  timed([&] { it_petsc_chol = petsc_solve(M, pb, px, PCCHOLESKY, tolerance, ph_petsc_chol); }), ranks,
                  2});
#ifdef TESSERA_BENCH_HAVE_HYPRE
    cs.push_back({"hypre PCG, BoomerAMG V-cycle",
                  timed([&] { it_hypre = hypre_solve(comm, hypre_sys, tolerance, ph_hypre); }), ranks, 0});
#endif
    if (P == 1)
      cs.push_back({"tessera node-level sparse::pcg, IC(0)", timed([&] {
                      ts::IncompleteCholesky<double, Space> ic({.level = 0});
                      ic.factorize(whole);
                      std::vector<double> xs(std::size_t(nloc), 0.0);
                      const auto r = ts::pcg<Space>(whole, b.data(), xs.data(), ic,
                                                    {.tolerance = tolerance, .max_iterations = 100000});
                      check_converged(r.converged, r.iterations, "node-level");
                      it_node = r.iterations;
                    }),
                    ranks, 0});

    tessera::bench::InterleaveOptions opt;
    opt.repeats = repeats;
    const auto results = tessera::bench::run_interleaved(cs, opt);

    // The last solutions, checked against b and the known solution 1: x holds
    // the last tessera (Cholesky-block) solve, px the last PETSc one.
    struct Checked {
      const char* who;
      Check c;
    };
    std::vector<Checked> checks;
    checks.push_back({"tessera", check_solution(A, b, x)});
    {
      std::vector<double> xp(len);
      const PetscScalar* p = nullptr;
      petsc_check(VecGetArrayRead(px, &p), "VecGetArrayRead");
      std::copy(p, p + nloc, xp.begin());
      petsc_check(VecRestoreArrayRead(px, &p), "VecRestoreArrayRead");
      checks.push_back({"petsc", check_solution(A, b, xp)});
    }
#ifdef TESSERA_BENCH_HAVE_HYPRE
    checks.push_back({"hypre", check_solution(A, b, hypre_sys.solution(A.row_begin(), nloc))});
#endif
    for (const auto& c : checks)
      if (!(c.c.residual <= 100 * tolerance)) {
        if (me == 0)
          std::fprintf(stderr, "bench_dist_solve: %s's solution has ||b - A x|| / ||b|| = %.3g > 100 tol\n", c.who,
                       c.c.residual);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    struct Split {
      const char* key;
      std::pair<double, double> s;
    };
    std::vector<Split> splits = {{"tessera_ic0", phase_medians(comm, ph_tessera_ic, opt.warmup)},
                                 {"petsc_icc0", phase_medians(comm, ph_petsc_ic, opt.warmup)},
                                 {"tessera_cholesky", phase_medians(comm, ph_tessera_chol, opt.warmup)},
                                 {"petsc_cholesky", phase_medians(comm, ph_petsc_chol, opt.warmup)}};
#ifdef TESSERA_BENCH_HAVE_HYPRE
    splits.push_back({"hypre_boomeramg", phase_medians(comm, ph_hypre, opt.warmup)});
    const bool have_hypre = true;
#else
    const bool have_hypre = false;
#endif

    // Per-rank communication of the last tessera solves, gathered to rank 0.
    const auto halo_ic = comm.allgather(last_ic.halo), red_ic = comm.allgather(last_ic.reductions);
    const auto halo_ch = comm.allgather(last_chol.halo);
    if (me == 0) {
      const std::string case_name = spec + ", " + std::to_string(P) + " ranks, tol " + [&] {
        char t[32];
        std::snprintf(t, sizeof t, "%.0e", tolerance);
        return std::string(t);
      }();
      const tessera::bench::Report report("dist_solve", json);
      report.add(case_name, tessera::bench::Measure{"s"}, cs, results);
      if (json) {
        // One case note: the peers' configurations as options (shown under
        // the case by ci/perf_report.py), the iterations, the setup/solve
        // split, the checks of the solutions and each rank's communication
        // in the last tessera IC(0) solve.
        char command[1024];
        std::snprintf(command, sizeof command,
                      "mpiexec -n %d: -ksp_type cg -ksp_norm_type unpreconditioned -ksp_rtol %g -pc_type bjacobi "
                      "-sub_ksp_type preonly -sub_pc_type icc | cholesky -sub_pc_factor_mat_ordering_type nd; %s",
                      P, tolerance, hypre_options);
        tools::json iterations = {{"tessera_ic0", it_tessera_ic},
                                  {"petsc_icc0", it_petsc_ic},
                                  {"tessera_cholesky", it_tessera_chol},
                                  {"petsc_cholesky", it_petsc_chol}};
        if (have_hypre) iterations["hypre_boomeramg"] = it_hypre;
        tools::json split = tools::json::object(), checked = tools::json::object(), ranks = tools::json::array();
        for (const auto& sp : splits) split[sp.key] = {tools::rounded(sp.s.first, 6), tools::rounded(sp.s.second, 6)};
        for (const auto& c : checks)
          checked[c.who] = {{"relative_residual", tools::rounded(c.c.residual, 3)},
                            {"max_error", tools::rounded(c.c.error, 3)}};
        for (int r = 0; r < P; ++r)
          ranks.push_back({{"rank", r},
                           {"halo_bytes_sent", halo_ic[std::size_t(r)].bytes_sent},
                           {"halo_seconds", tools::rounded(halo_ic[std::size_t(r)].seconds, 6)},
                           {"allreduce_calls", red_ic[std::size_t(r)].calls},
                           {"allreduce_seconds", tools::rounded(red_ic[std::size_t(r)].seconds, 6)}});
        report.note(case_name, {{"command", command},
                                {"iterations", std::move(iterations)},
                                {"setup_solve_seconds", std::move(split)},
                                {"checks", std::move(checked)},
                                {"ranks", std::move(ranks)}});
      } else {
        std::printf("# iterations: tessera IC(0) %d, PETSc ICC(0) %d, tessera Cholesky %d, PETSc Cholesky %d", it_tessera_ic,
                    it_petsc_ic, it_tessera_chol, it_petsc_chol);
        if (have_hypre) std::printf(", hypre BoomerAMG %d", it_hypre);
        if (P == 1) std::printf(", node-level IC(0) %d", it_node);
        std::printf("\n");
        std::printf("# hypre: %s\n", hypre_options);
        std::printf("# setup / solve, median s of the slowest rank:");
        for (std::size_t k = 0; k < splits.size(); ++k)
          std::printf("%s %s %.4g / %.4g", k ? "," : "", splits[k].key, splits[k].s.first, splits[k].s.second);
        std::printf("\n# last solutions, ||b - A x|| / ||b|| and max |x - 1|:");
        for (std::size_t k = 0; k < checks.size(); ++k)
          std::printf("%s %s %.2g, %.2g", k ? ";" : "", checks[k].who, checks[k].c.residual, checks[k].c.error);
        std::printf("\n# per rank, last IC(0) solve: halo bytes sent / MPI s, allreduces / s (Cholesky solve: halo bytes)\n");
        for (int r = 0; r < P; ++r)
          std::printf("#   rank %d: %lld B / %.4f s, %lld / %.4f s (%lld B)\n", r,
                      (long long)halo_ic[std::size_t(r)].bytes_sent, halo_ic[std::size_t(r)].seconds,
                      (long long)red_ic[std::size_t(r)].calls, red_ic[std::size_t(r)].seconds,
                      (long long)halo_ch[std::size_t(r)].bytes_sent);
      }
    }
    petsc_check(VecDestroy(&pb), "VecDestroy");
    petsc_check(VecDestroy(&px), "VecDestroy");
    petsc_check(MatDestroy(&M), "MatDestroy");
  }
#ifdef TESSERA_BENCH_HAVE_HYPRE
  HYPRE_Finalize();
#endif
  petsc_check(PetscFinalize(), "PetscFinalize");
  tessera::finalize();
  return 0;
}
