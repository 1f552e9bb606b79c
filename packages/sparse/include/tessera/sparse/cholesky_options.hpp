#pragma once
// What a sparse Cholesky or LDL^T is asked to do and what it reports: the
// kind of factorization, the scheduler, Options, Stats, the inertia and
// the log determinant. Shared by Cholesky<T, Space> (cholesky.hpp), its
// level-set driver for Cuda (detail/level_cholesky.hpp), tessera-solve and
// the distributed solver.
#include <tessera/sparse/ordering.hpp>
#include <tessera/sparse/symbolic.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::sparse {

enum class Factorization { Cholesky, LDLt };

enum class Scheduler { Tasks, LevelSet };

const char* to_string(Scheduler s);
const char* to_string(Factorization f);
// "tasks" / "levelset"; throws sparse_error naming the word.
Scheduler parse_scheduler(const std::string& word);

struct Options {
  Ordering ordering = Ordering::Metis;
  Factorization factorization = Factorization::Cholesky;
  Scheduler scheduler = Scheduler::Tasks;
  // Largest 2D block (rows and columns) of a front; fronts with more rows
  // are factored block by block.
  int max_block = 256;
  AmalgamationOptions amalgamation{};
  // A Cholesky pivot d_j with d_j <= pivot_tolerance * |a_jj| is reported as
  // a failure (singular to working precision); 0 accepts any positive pivot.
  // Cholesky only: LDLt uses pivot_threshold and static_pivot.
  double pivot_tolerance = 0;
  // LDLt: the threshold u of the pivot test (MA57's CNTL(1), MUMPS's
  // CNTL(1)): inside a front, a 1x1 pivot a_kk is taken only when
  // |a_kk| >= u max_{i != k} |a_ik| over its whole column, the rows below
  // the fully-summed ones included, and a 2x2 pivot only when it bounds
  // its columns' multipliers by 1/u; a column that passes neither is
  // delayed to the parent front. The entries of L are bounded by 1/u:
  // larger u is more stable and delays more. 0 <= u <= 0.5; 0 accepts any
  // pivot above eps max|a_ij| (no threshold test, delays only for such
  // tiny pivots).
  double pivot_threshold = 0.01;
  // LDLt static pivoting (0: off). At a root front, where no parent can
  // take a delayed column, a pivot below static_pivot * max|a_ij| is
  // replaced by +-static_pivot * max|a_ij| instead of being reported as a
  // zero pivot: the factor is then that of a nearby matrix, and iterative
  // refinement (refinement_steps) recovers the solution when A is
  // nonsingular enough; Stats::static_pivots counts them. 1e-8
  // (about sqrt(eps)) is the usual choice.
  double static_pivot = 0;
  // LDLt: before ordering, match each zero-diagonal variable with a
  // neighbour and keep the pair in one supernode (a compressed ordering
  // after Duff and Pralet), so that the 2x2 pivot it needs is found
  // without delays. Optional since delayed pivoting, and off by default:
  // the inertia is the same either way, and ordering the pattern alone
  // gives less fill on the saddle-point and KKT systems measured (stokes:150
  // 44 ms against 70, kkt:120:2000 229 against 357; the manual's LDLt
  // section). On, the analysis depends on which diagonals are zero, and
  // factorize checks them (see reanalyze_on_change).
  bool pair_zero_diagonals = false;
  // At most this many steps of iterative refinement in solve (r = b - A x,
  // x += A^-1 r, the SpMV in parallel on Space). They stop once the normwise
  // backward error ||b - A x|| / (||A|| ||x|| + ||b||) (infinity norms) is
  // at most eps or a step fails to halve it (see
  // detail/iterative_refinement.hpp); Stats::refinement_steps_taken and
  // Stats::backward_error report them. 0: no refinement, nothing measured.
  int refinement_steps = 0;
  // Task DAG: the task memory pool, the spawns between the generator's
  // respawns, and the subtree size (as a fraction of the total flops per
  // thread) below which a whole subtree is one task.
  std::size_t task_memory_bytes = std::size_t(16) << 20;
  int task_window = 256;
  double subtree_fraction = 1.0 / 8;
  // factorize(A2) checks that A2 is a matrix the analysis holds for: the
  // same pattern and, for LDLt with pair_zero_diagonals, the same zero
  // diagonals (the analysis pairs them with neighbours) and nonzero paired
  // couplings. A difference throws
  // analysis_mismatch naming the first differing row, and the previous
  // analysis and factor stay usable; with this set, factorize analyzes A2
  // instead (Stats::reanalyzed says so).
  bool reanalyze_on_change = false;
  // Cholesky on Cuda (the level-set path): fronts of at most this many rows
  // are factored by a team of threads each, all of a level's in one kernel;
  // larger ones by cuSOLVER and cuBLAS, one call after another (the solves
  // split the fronts by solve_small_front_rows).
  // 0: every front by the library. LDLt fronts always go to the library.
  // The task-DAG Cholesky of the host spaces does not read it. 512 since an
  // H200 run (2026-12-04): lap3d:100 factorized in 0.479 s against 0.730 s
  // at 128 rows, 7,439 fronts and about 22,000 library calls fewer.
  int small_front_rows = 512;
  // Cholesky on Cuda, the solves: fronts of at most this many rows are
  // solved by a team each, all of a level's in one kernel per sweep; larger
  // ones by cuBLAS (trsm and gemm per front and sweep). Separate from
  // small_front_rows because a solve does about two flops per entry of the
  // factor read: the library's calls cost their latency each (about 10 us)
  // for little work, where the factorization's do many flops each. 0: every
  // front by the library. The default (2048) leaves 142 of lap3d:100's
  // 227,480 fronts to the library, against 8,554 at 128 rows. LDLt fronts
  // always go to the library; host spaces' task-DAG Cholesky does not read it.
  int solve_small_front_rows = 2048;
  // Cholesky on Cuda: the library fronts of one level (they are independent)
  // are spread round-robin over this many streams, each with its own cuBLAS
  // and cuSOLVER handles, so that their calls overlap each other and the
  // level's team kernel; 1 keeps them one after another on the solver's
  // stream. 1 to 64. LDLt fronts stay on one stream (they share a
  // workspace); host spaces run the calls in order whatever it says.
  int dense_streams = 1;
};

struct Inertia {
  std::int64_t positive = 0, negative = 0, zero = 0;
};

// det(A) = sign * exp(log_abs). The logarithm, because det itself over- or
// underflows for all but small matrices (the 3-D Laplacian of order 1000
// has det around 10^700).
struct LogDeterminant {
  int sign = 1;  // -1, 0 or 1
  double log_abs = 0;
};

struct Stats {
  std::int64_t n = 0, nnz_a = 0;
  double nnz_l = 0;     // exact nonzeros of L (diagonal included)
  double stored_l = 0;  // entries stored in the supernodal panels (with amalgamation zeros)
  double flops = 0;     // sum over the columns of L of count^2
  std::int64_t supernodes = 0, max_front_rows = 0, levels = 0;
  std::int64_t tasks = 0, generator_runs = 0;  // last factorization (Tasks scheduler)
  std::size_t peak_update_bytes = 0;           // largest total of live update matrices
  // The most memory the last factorization held at once: the factor's
  // panels plus the update buffers, live or kept for the next
  // factorization (the arena they are carved from, as far as it was
  // touched; LDLt: plus the fronts grown by delayed pivots).
  std::size_t peak_factor_bytes = 0;
  double analyze_seconds = 0, factorize_seconds = 0, solve_seconds = 0;
  int threads = 1;
  std::int64_t paired_variables = 0;  // LDLt: zero-diagonal variables kept with a neighbour
  bool reanalyzed = false;            // the last factorize analyzed again (Options::reanalyze_on_change)
  std::int64_t team_fronts = 0;       // Cholesky on Cuda: fronts factored by teams (Options::small_front_rows)
  std::int64_t solve_team_fronts = 0;  // Cholesky on Cuda: fronts solved by teams (Options::solve_small_front_rows)
  Inertia inertia;  // LDLt (Cholesky: all positive)
  // LDLt, the last factorization: columns passed up to the parent front
  // because no pivot passed the threshold test (a column delayed twice
  // counts twice, as MUMPS's INFOG(13)); the fronts that received some,
  // the most one front received, the largest front with them
  // (max_front_rows is without), the entries stored in the factor with
  // them (stored_l is without), pivots replaced by static pivoting, and
  // 2x2 pivots.
  std::int64_t delayed_pivots = 0;
  std::int64_t delayed_fronts = 0, max_front_growth = 0, max_delayed_front_rows = 0;
  double factor_entries = 0;
  std::int64_t static_pivots = 0, two_by_two_pivots = 0;
  // The last solve's iterative refinement (Options::refinement_steps > 0):
  // the solves with the factor after the first, and the normwise backward
  // error of the returned x (the largest over the right-hand sides); -1
  // when the solve did not refine.
  int refinement_steps_taken = 0;
  double backward_error = -1;
};

}  // namespace tessera::sparse
