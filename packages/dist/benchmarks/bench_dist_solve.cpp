// Distributed PCG against PETSc, side by side in one MPI program, contenders
// interleaved within each repetition (tessera::bench::run_interleaved):
//  * tessera::dist::pcg + AdditiveSchwarz (overlap 0 = block Jacobi), each
//    rank's block by sparse::IncompleteCholesky IC(0), natural order;
//  * PETSc KSPCG + PCBJACOBI, sub-solver PCICC (level 0, natural order);
//  * the same two with complete Cholesky blocks (tessera: sparse::Cholesky,
//    METIS order; PETSc: PCCHOLESKY with its nested-dissection order);
//  * on one rank, the node-level tessera::sparse::pcg + IC(0): the overhead
//    of dist at one rank.
// One timed run = preconditioner setup (the block factorizations) + the
// solve from x = 0 to ||b - A x|| <= tol ||b|| (PETSc: unpreconditioned
// norm, so both stop on the same test), b = A * 1. The matrix is built once,
// outside the timing (PETSc's from the same distributed rows). Each run
// starts and ends with a barrier, so every rank times the slowest rank.
// Inside a rank: one thread (tessera::Serial), as PETSc runs. Ratio column:
// the tessera contender's time / the row's time (<= 1: tessera took at most
// the peer's time). The per-rank iterations and halo/allreduce volume of the
// tessera solves are printed after the table (with --json: a case note that
// also holds the peer's configuration as PETSc options).
//   mpiexec -n P bench_dist_solve [--matrix lap3d:30] [--tolerance 1e-8] [--repeats 5] [--json]
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/dist.hpp>
#include <tessera/sparse.hpp>

#include <petscksp.h>

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

// PETSc's copy of the distributed matrix: the same rows on the same ranks.
Mat petsc_matrix(const td::DistCrsMatrix<double>& A) {
  const PetscInt nloc = PetscInt(A.num_owned()), n = PetscInt(A.num_rows());
  std::vector<PetscInt> d_nnz(std::size_t(nloc), 0), o_nnz(std::size_t(nloc), 0);
  for (PetscInt i = 0; i < nloc; ++i)
    for (auto k = A.row_map()[std::size_t(i)]; k < A.row_map()[std::size_t(i) + 1]; ++k)
      ++(A.col_idx()[std::size_t(k)] < nloc ? d_nnz : o_nnz)[std::size_t(i)];
  Mat M;
  petsc_check(MatCreateAIJ(A.comm().raw(), nloc, nloc, n, n, 0, d_nnz.data(), 0, o_nnz.data(), &M), "MatCreateAIJ");
  std::vector<PetscInt> cols;
  for (PetscInt i = 0; i < nloc; ++i) {
    const auto b = A.row_map()[std::size_t(i)], e = A.row_map()[std::size_t(i) + 1];
    cols.clear();
    for (auto k = b; k < e; ++k) cols.push_back(PetscInt(A.global_column(A.col_idx()[std::size_t(k)])));
    const PetscInt row = PetscInt(A.row_begin()) + i;
    petsc_check(MatSetValues(M, 1, &row, PetscInt(cols.size()), cols.data(), A.values().data() + b, INSERT_VALUES),
                "MatSetValues");
  }
  petsc_check(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  petsc_check(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  return M;
}

// One PETSc solve from x = 0: KSPCG, block Jacobi with `sub` (PCICC or
// PCCHOLESKY) on each rank's block; returns the iterations.
int petsc_solve(Mat M, Vec b, Vec x, PCType sub, double tolerance) {
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
  petsc_check(VecSet(x, 0.0), "VecSet");
  petsc_check(KSPSolve(ksp, b, x), "KSPSolve");
  PetscInt its = 0;
  KSPConvergedReason reason;
  petsc_check(KSPGetIterationNumber(ksp, &its), "KSPGetIterationNumber");
  petsc_check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
  petsc_check(KSPDestroy(&ksp), "KSPDestroy");
  check_converged(reason > 0, int(its), std::strcmp(sub, PCICC) == 0 ? "PETSc ICC" : "PETSc Cholesky");
  return int(its);
}

}  // namespace

int main(int argc, char* argv[]) {
  td::Environment mpi(argc, argv);
  tessera::initialize(argc, argv);
  petsc_check(PetscInitialize(&argc, &argv, nullptr, nullptr), "PetscInitialize");
  std::string spec = "lap3d:30";
  double tolerance = 1e-8;
  int repeats = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) json = true;
    else if (i + 1 < argc && !std::strcmp(argv[i], "--matrix")) spec = argv[++i];
    else if (i + 1 < argc && !std::strcmp(argv[i], "--tolerance")) tolerance = std::atof(argv[++i]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[++i]);
  }
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
    // The node-level matrix for the one-rank overhead row.
    ts::CrsMatrix<double> whole;
    if (P == 1) whole = ts::make_matrix<double>(spec);

    int it_tessera_ic = 0, it_petsc_ic = 0, it_tessera_chol = 0, it_petsc_chol = 0, it_node = 0;
    td::PcgResult last_ic, last_chol;
    auto tessera_solve = [&](td::LocalSolver local, int& its, td::PcgResult& out) {
      td::AdditiveSchwarz<double, Space> pre({.overlap = 0, .local = local});
      pre.setup(A);
      std::fill(x.begin(), x.end(), 0.0);
      out = td::pcg<Space>(A, b.data(), x.data(), pre, {.tolerance = tolerance, .max_iterations = 100000});
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
    cs.push_back({"tessera dist PCG, bjacobi IC(0)",
                  timed([&] { tessera_solve(td::LocalSolver::IncompleteCholesky, it_tessera_ic, last_ic); }), ranks});
    cs.push_back({"PETSc CG, bjacobi ICC(0)", timed([&] { it_petsc_ic = petsc_solve(M, pb, px, PCICC, tolerance); }),
                  ranks, 0});
    cs.push_back({"tessera dist PCG, bjacobi Cholesky",
                  timed([&] { tessera_solve(td::LocalSolver::Cholesky, it_tessera_chol, last_chol); }), ranks});
    cs.push_back({"PETSc CG, bjacobi Cholesky",
                  timed([&] { it_petsc_chol = petsc_solve(M, pb, px, PCCHOLESKY, tolerance); }), ranks, 2});
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
        // One case note: the peer's configuration as PETSc options (shown
        // under the case by ci/perf_report.py), the iterations, and each
        // rank's communication in the last tessera IC(0) solve.
        std::printf("{\"bench\":\"dist_solve\",\"case\":\"%s\",\"command\":\"mpiexec -n %d: -ksp_type cg "
                    "-ksp_norm_type unpreconditioned -ksp_rtol %g -pc_type bjacobi -sub_ksp_type preonly -sub_pc_type "
                    "icc | cholesky -sub_pc_factor_mat_ordering_type nd\",\"iterations\":{\"tessera_ic0\":%d,"
                    "\"petsc_icc0\":%d,\"tessera_cholesky\":%d,\"petsc_cholesky\":%d},\"ranks\":[",
                    tessera::bench::json_escape(case_name).c_str(), P, tolerance, it_tessera_ic, it_petsc_ic,
                    it_tessera_chol, it_petsc_chol);
        for (int r = 0; r < P; ++r)
          std::printf("%s{\"rank\":%d,\"halo_bytes_sent\":%lld,\"halo_seconds\":%.6g,\"allreduce_calls\":%lld,"
                      "\"allreduce_seconds\":%.6g}",
                      r ? "," : "", r, (long long)halo_ic[std::size_t(r)].bytes_sent, halo_ic[std::size_t(r)].seconds,
                      (long long)red_ic[std::size_t(r)].calls, red_ic[std::size_t(r)].seconds);
        std::printf("]}\n");
      } else {
        std::printf("# iterations: tessera IC(0) %d, PETSc ICC(0) %d, tessera Cholesky %d, PETSc Cholesky %d", it_tessera_ic,
                    it_petsc_ic, it_tessera_chol, it_petsc_chol);
        if (P == 1) std::printf(", node-level IC(0) %d", it_node);
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
  petsc_check(PetscFinalize(), "PetscFinalize");
  tessera::finalize();
  return 0;
}
