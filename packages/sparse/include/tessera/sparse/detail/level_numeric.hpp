#pragma once
// LevelNumeric<Space>: a supernodal multifrontal Cholesky whose factor,
// update matrices and right-hand sides live in Space's memory, scheduled
// bulk-synchronously level by level of the assembly tree (as Tacho does on
// GPUs). It is the numeric half of Cholesky<double, Cuda>; host spaces run
// the same code (LevelCholesky<double, Serial> and friends), so that the
// orchestration the GPU runs is tested on every machine.
//
// The analysis is the host's (SymbolicFactor: ordering, supernodes, panel
// layout, extend-add maps); analyze() uploads what the kernels read, once.
// One factorization, level by level (leaves first):
//   1. assemble: a kernel scatters A's entries into the level's panels (a
//      map computed at analyze), then one kernel per "round" adds the r-th
//      child's update matrix of every front into the front's panel and
//      update matrix (extend-add, by the symbolic relative indices), its
//      columns split among several teams on narrow levels. No two threads
//      ever add into the same entry at once: no atomics, and the same sums
//      in the same order on every run and every back-end;
//   2. dense work: potrf of the diagonal block (its info into a device
//      array), trsm of the rows below, syrk into the update matrix. The
//      level's small fronts (at most small_front_rows rows) are done by one
//      kernel, a team per front (detail/team_front_kernels.hpp); the others
//      front by front through DenseBackend<Space> (cuSOLVER and cuBLAS on
//      Cuda);
//   3. one reduction over the level's fronts finds the first failed pivot
//      (potrf's info, or a pivot under the tolerance) and is read back: the
//      only host-device synchronization of a level. A failure stops the
//      factorization there.
// The update matrices of one level share one buffer (an "arena"), freed
// after the last level that reads it, i.e. the highest level of a parent
// of its fronts. A device table holds each live arena's address, so the
// kernels find a child's update matrix from its level and offset.
//
// Solves: x (n x nrhs, column-major) is permuted into the final order on
// the device; forward substitution goes up the levels (per front a trsm of
// its own rows and a gemm of the rows below into a level workspace: one
// team kernel for the level's small fronts, library calls for the others;
// then
// one kernel subtracts those from x: fronts of one level may share
// ancestor rows, so a thread per (row, right-hand side) sums that row's
// entries of the workspace in the fronts' order and subtracts the sum once:
// no atomics, and the same solution bits on every run whatever the thread
// timing; the atomic adds this replaced summed in the order the threads
// came, and a threaded LDL^T solve's backward error moved from run to run),
// backward substitution down the levels
// (one kernel gathers the ancestor rows of x, then per front a gemm and a
// trsm, small fronts again by teams). Fronts of one level write disjoint
// rows of their own.
//
// LDL^T (analyze(..., ldlt = true)): front s = [F11 F21^T; F21 F22], F11
// its nc x nc fully-summed block. Step 2 is then sytrf of F11 (Bunch-Kaufman
// inside F11 only: no pivot leaves its front, there are no delayed
// columns), X := F11^-1 F21^T by sytrs into a workspace, and F22 -= F21 X
// into the update matrix. F21 stays as assembled, so L21 = F21 F11^-1 is
// never formed and the solves use F11's factor and F21 directly:
//   forward (leaves first):   t := F11^-1 b1, b2 -= F21 t (b1 kept);
//   backward (root first):    x1 := F11^-1 (b1 - F21^T x2),
// since with S = F22 - F21 F11^-1 F21^T, A x = b is S x2 = b2 - F21 F11^-1 b1
// and F11 x1 = b1 - F21^T x2. Step 3 reads sytrf's info (an exactly zero
// pivot); the inertia and determinant come from D (ldlt_summary). Every
// LDL^T front goes through the library: there is no team Bunch-Kaufman.
//
// Not yet done (see the sparse manual, "Cholesky on Cuda"): the library
// calls of a level's large fronts are a loop, one front after another on
// one stream (several streams are the next step); large fronts are not cut
// into 2D blocks.
#include <tessera/core.hpp>
#include <tessera/sparse/detail/dense_backend.hpp>
#include <tessera/sparse/detail/iterative_refinement.hpp>
#include <tessera/sparse/detail/team_front_kernels.hpp>
#include <tessera/sparse/symbolic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tessera::sparse::detail {

template <class Space>
class LevelNumeric {
 public:
  using execution_space = Space;
  using memory_space = typename Space::memory_space;
  template <class T>
  using Array = View<T*, LayoutLeft, memory_space>;
  using team_member = typename TeamPolicy<Space>::member_type;

  explicit LevelNumeric(const Space& exec = Space()) : m_exec(exec), m_dense(exec) {}

  // Uploads the symbolic structure and the map from A's entries (pattern
  // row_map / col_idx) to the panels. `sym` and `levels` must outlive this
  // object's use (the owning solver keeps them). Cholesky fronts of at most
  // small_front_rows rows are factored by teams, and fronts of at most
  // solve_small_front_rows rows solved by teams, the others by the dense
  // library (Options::small_front_rows, Options::solve_small_front_rows).
  void analyze(const SymbolicFactor& sym, const std::vector<std::vector<std::int64_t>>& levels,
               const std::int64_t* row_map, const std::int32_t* col_idx, bool ldlt = false,
               std::int64_t small_front_rows = 0, std::int64_t solve_small_front_rows = 0);
  bool ldlt() const { return m_ldlt; }
  // Streams over which each level's library fronts are spread (Options::
  // dense_streams): the fronts of one level are independent, and on Cuda
  // one call after another leaves the device mostly idle on mid-sized
  // fronts. LDL^T fronts share one workspace, so they stay on one stream.
  void set_dense_streams(int streams) { m_dense_streams = streams < 1 ? 1 : streams; }
  // How many fronts the teams take in the factorization and in the solves
  // (the rest go to the dense library).
  std::int64_t team_fronts() const { return m_factor_split.team_fronts(); }
  std::int64_t solve_team_fronts() const { return m_solve_split.team_fronts(); }

  // The first failed pivot: its column in the final order, its value, and
  // whether it failed the tolerance test (a positive pivot too small)
  // rather than potrf (a pivot that is not positive).
  struct PivotFailure {
    std::int64_t column = -1;
    double value = 0;
    bool below_tolerance = false;
  };
  // Factors A's values (host memory, the analyzed pattern). A pivot d_j
  // with d_j <= pivot_tolerance * |a_jj| fails too (0: any positive pivot).
  std::optional<PivotFailure> factorize(const double* a_values, std::int64_t nnz, double pivot_tolerance);

  // x := A^-1 b for nrhs columns (host memory, column-major, ld n, the
  // matrix's own numbering); x may be b.
  void solve(const double* b, double* x, std::int64_t nrhs);
  // The same on Space's memory: v := A^-1 v.
  void solve_in_place(Array<double> v, std::int64_t nrhs);
  // solve() followed by iterative refinement on Space, with the stopping
  // rule of detail/iterative_refinement.hpp: the residuals by an SpMV with
  // A's values of the last factorization (already in Space's memory), the
  // corrections by solve_in_place; only each column's three norms come back
  // to the host per step. anorm = ||A||_inf.
  RefinementResult solve_refined(const double* b, double* x, std::int64_t nrhs, int max_steps, double anorm);

  // 2 sum log L(j, j) of the last factorization (Cholesky).
  double log_determinant() const;

  // LDL^T: what D of the last factorization says. Its 1x1 pivots d with
  // |d| <= zero_pivot give `zero_columns` (final order, ascending) and
  // count as zero eigenvalues.
  struct LdltSummary {
    std::int64_t positive = 0, negative = 0, zero = 0, two_by_two = 0;
    int sign = 1;
    double log_abs = 0;
    std::vector<std::int64_t> zero_columns;
  };
  LdltSummary ldlt_summary(double zero_pivot) const;
  // LDL^T: the column of front s (final order) that sytrf moved to the
  // 1-based position `position` of F11 (its interchanges undone).
  std::int64_t ldlt_column_at(std::int64_t s, std::int64_t position) const;
  // The panels, copied to the host (the layout of SymbolicFactor::lx_ptr).
  std::vector<double> factor_values() const;
  // The most bytes of update matrices alive at once in the last factorization.
  std::size_t peak_update_bytes() const { return m_peak_update_bytes; }
  // The panels' bytes (in Space's memory for the whole factorization).
  std::size_t factor_bytes() const { return m_lx.size() * sizeof(double); }

  // The steps of one level. Public only because nvcc requires the function
  // around an extended __host__ __device__ lambda to be.
  void assemble_level(std::size_t level);
  std::int64_t first_failure(std::size_t level, double pivot_tolerance) const;
  void forward_level(std::size_t level, double* x, Array<double> w, std::int64_t nrhs);
  void backward_level(std::size_t level, double* x, Array<double> w, std::int64_t nrhs);
  template <class F>
  void for_rows_below(std::size_t level, std::int64_t nrhs, const F& f);
  void subtract_rows_below(std::size_t level, double* x, Array<double> w, std::int64_t nrhs);
  void factor_small_fronts(std::size_t level);
  // Refinement: the berr of column c of x, leaving b - A x in r's column c;
  // d's column c += x's.
  double residual_column(Array<double> x, Array<double> b, Array<double> r, std::int64_t c, double anorm) const;
  void add_column(Array<double> d, Array<double> x, std::int64_t c) const;
  void solve_small_fronts(std::size_t level, bool forward, double* x, Array<double> w, std::int64_t nrhs);

 private:
  template <class T>
  Array<T> upload(const std::vector<T>& host, const char* label) const;
  double* update_arena(std::size_t level) const { return m_arena[level].data(); }
  // Host spaces: the dense calls below run on the calling thread at once,
  // so the kernels queued before them must have finished (Cuda: stream order).
  void order_dense_calls() const {
    if constexpr (is_host_execution_space<Space>::value) m_exec.fence("sparse::level_dense");
  }
  // One level's dense work: `teams` (the small fronts' kernel, on the
  // instance) and `per_front(s)` for each of `fronts`, the level's library
  // fronts (of the factorization or of the solves),
  // spread round-robin over the dense streams, which start after the work
  // queued before this call (so the team kernel and the library calls may
  // overlap: they touch disjoint fronts) and end before the work queued
  // after it.
  template <class Teams, class PerFront>
  void level_dense_work(const std::vector<std::int64_t>& fronts, const Teams& teams, const PerFront& per_front) {
    const int streams = m_ldlt ? 1 : int(std::min<std::size_t>(std::size_t(m_dense_streams), fronts.size()));
    m_dense.fork(streams);
    try {
      teams();
      order_dense_calls();
      for (std::size_t k = 0; k < fronts.size(); ++k) {
        if (streams > 1) m_dense.use_stream(int(k % std::size_t(streams)));
        per_front(fronts[k]);
      }
    } catch (...) {
      // A library call that failed leaves the others queued on their
      // streams: later work (the next factorization, freeing the fronts)
      // must still come after them, and on the first stream again.
      try {
        m_dense.join(streams);
      } catch (...) {
      }
      throw;
    }
    m_dense.join(streams);
  }
  std::optional<PivotFailure> factor_levels(double pivot_tolerance);
  void factor_level(std::size_t level);
  void release_updates();
  // What the factorization holds in Space's memory and how to lower it, for
  // an allocation failure's message.
  std::string memory_advice() const;
  // A team policy with one team per front of a level: a warp of lanes per
  // thread on Cuda (the rows of a column), one lane on the host.
  TeamPolicy<Space> per_front(std::int64_t fronts) const {
    const int lanes = std::min(32, TeamPolicy<Space>::vector_length_max());
    return TeamPolicy<Space>(m_exec, fronts, AUTO, lanes);
  }
  // The small fronts' dense work: a team per front. On Cuda 4 warps (a
  // front of at most a few hundred rows keeps 128 threads busy, and many
  // blocks fit an SM); host: AUTO, one pool thread per front on wide levels.
  TeamPolicy<Space> per_small_front(std::int64_t fronts) const {
    const int lanes = std::min(32, TeamPolicy<Space>::vector_length_max());
    if constexpr (is_host_execution_space<Space>::value) return TeamPolicy<Space>(m_exec, fronts, AUTO, lanes);
    else return TeamPolicy<Space>(m_exec, fronts, 4, lanes);
  }

  Space m_exec;
  DenseBackend<Space> m_dense;
  int m_dense_streams = 1;
  const SymbolicFactor* m_sym = nullptr;
  const std::vector<std::vector<std::int64_t>>* m_levels = nullptr;

  // The symbolic structure, on the device.
  Array<std::int64_t> m_super_ptr, m_rows_ptr, m_rows, m_lx_ptr, m_child_ptr, m_child_list, m_perm;
  Array<std::int32_t> m_relidx;
  // The fronts of each level, level after level (host: m_level_ptr).
  Array<std::int64_t> m_level_fronts;
  std::vector<std::int64_t> m_level_ptr;
  // How a level's fronts are dealt between the teams and the dense library:
  // the small ones (the teams' fronts, level after level; host: team_ptr,
  // level l's at [team_ptr[l], team_ptr[l + 1])) and, per level, the others
  // (the library's). One split for the factorization, one for the solves,
  // where a front costs the library two calls per sweep for little
  // arithmetic, so that the teams take larger fronts there.
  struct FrontSplit {
    Array<std::int64_t> team;
    std::vector<std::int64_t> team_ptr;
    std::vector<std::vector<std::int64_t>> library;
    std::int64_t team_fronts() const { return team_ptr.empty() ? 0 : team_ptr.back(); }
  };
  FrontSplit m_factor_split, m_solve_split;
  // Each front's level and the offset of its update matrix in that level's
  // arena; per level, the arena's size, the level after which it is freed,
  // and the offset of each front's rows below in the solve's workspace.
  Array<std::int64_t> m_level_of, m_update_off, m_solve_off;
  std::vector<std::int64_t> m_level_of_host, m_update_off_host, m_solve_off_host;
  std::vector<std::int64_t> m_arena_size, m_level_rows_below;
  // The forward solve's gather: per level (host: m_gather_level, into
  // m_gather_row), the distinct rows below its fronts; per such row j, its
  // entries m_gather_ptr(j) .. m_gather_ptr(j + 1) - 1 in the order of the
  // level's fronts, each a front (m_gather_front) and a row of that front's
  // rows below (m_gather_r).
  Array<std::int64_t> m_gather_row, m_gather_ptr;
  Array<std::int32_t> m_gather_front, m_gather_r;
  std::vector<std::int64_t> m_gather_level;
  // LDL^T: the largest F11 order and nc x mu block of a front (the
  // workspaces of the update X and of the solve's t).
  bool m_ldlt = false;
  std::int64_t m_max_ncols = 0, m_max_ldlt_work = 0;
  std::vector<std::vector<std::int64_t>> m_free_after;
  // The most children a front of each level has: the extend-add rounds.
  std::vector<std::int64_t> m_level_max_children;
  // How many teams fill the device (Cuda) or the threads (host): narrow
  // levels split each child's extend-add among that many.
  std::int64_t m_teams_wanted = 1;
  // Each level's arena address as copied to m_arena_table, kept on the host
  // until the copy is surely done.
  std::vector<std::uintptr_t> m_arena_address;
  // A's lower triangle (final order) by front: entries [a_ptr[s], a_ptr[s+1])
  // go from A's values a_src[q] to the factor's a_dst[q]; the position of
  // each diagonal entry in A's values (-1: absent), for the tolerance test.
  Array<std::int64_t> m_a_ptr, m_a_src, m_a_dst, m_diag_pos;
  // A's pattern as given (all of it, both triangles), for refinement's SpMV.
  Array<std::int64_t> m_a_row_map;
  Array<std::int32_t> m_a_col;

  // The numeric state.
  Array<double> m_lx;        // the panels
  Array<double> m_a_values;  // A's values of the current factorization
  Array<double> m_diag_scale;  // |a_jj| in the final order (tolerance test)
  Array<int> m_info;         // potrf's (sytrf's) info per front
  Array<std::int64_t> m_ipiv;  // LDL^T: sytrf's interchanges, front s's at super_ptr[s]
  Array<double> m_ldlt_work;   // LDL^T: X = F11^-1 F21^T of one front at a time (factorize only)
  std::vector<Array<double>> m_arena;  // the update matrices of each level, while alive
  Array<std::uintptr_t> m_arena_table;  // their addresses, read by the kernels
  std::size_t m_live_update_bytes = 0, m_peak_update_bytes = 0;
};

// ---------------------------------------------------------------------------

template <class Space>
template <class T>
typename LevelNumeric<Space>::template Array<T> LevelNumeric<Space>::upload(const std::vector<T>& host,
                                                                             const char* label) const {
  Array<T> d(view_alloc(label, WithoutInitializing), host.size());
  if (!host.empty()) deep_copy(m_exec, d, View<const T*, LayoutLeft, HostSpace>(host.data(), host.size()));
  return d;
}

template <class Space>
void LevelNumeric<Space>::analyze(const SymbolicFactor& f, const std::vector<std::vector<std::int64_t>>& levels,
                                  const std::int64_t* rm, const std::int32_t* ci, bool ldlt,
                                  std::int64_t small_front_rows, std::int64_t solve_small_front_rows) {
  m_sym = &f;
  m_levels = &levels;
  m_ldlt = ldlt;
  m_max_ncols = m_max_ldlt_work = 0;
  const std::int64_t n = f.n, ns = f.nsuper, nl = std::int64_t(levels.size());

  // A's lower triangle in the final order, grouped by the front whose panel
  // holds it; the diagonal's position in A's values.
  std::vector<std::int64_t> a_ptr(std::size_t(ns + 1), 0), diag_pos(std::size_t(n), -1);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t k = rm[r]; k < rm[r + 1]; ++k) {
      const std::int64_t i = f.iperm[r], j = f.iperm[ci[k]];
      if (i >= j) ++a_ptr[std::size_t(f.col_to_super[j] + 1)];
      if (i == j) diag_pos[std::size_t(i)] = k;
    }
  for (std::int64_t s = 0; s < ns; ++s) a_ptr[s + 1] += a_ptr[s];
  std::vector<std::int64_t> a_src(static_cast<std::size_t>(a_ptr[ns])), a_dst(static_cast<std::size_t>(a_ptr[ns]));
  std::vector<std::int64_t> fill_at(a_ptr.begin(), a_ptr.end() - 1);
  std::int64_t* src = a_src.data();
  std::int64_t* dst = a_dst.data();
  const std::int64_t* front_rows = f.rows.data();
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t k = rm[r]; k < rm[r + 1]; ++k) {
      const std::int64_t i = f.iperm[r], j = f.iperm[ci[k]];
      if (i < j) continue;
      const std::int64_t s = f.col_to_super[j];
      const std::int64_t* lo = front_rows + f.rows_ptr[s];
      const std::int64_t row_in_front = std::lower_bound(lo, front_rows + f.rows_ptr[s + 1], i) - lo;
      const std::int64_t q = fill_at[std::size_t(s)]++;
      src[q] = k;
      dst[q] = f.lx_ptr[s] + (j - f.super_ptr[s]) * f.nrows(s) + row_in_front;
    }

  // Levels: each front's level, its update matrix's place in its level's
  // arena, its rows below in the solve's level workspace.
  m_level_ptr.assign(1, 0);
  for (FrontSplit* split : {&m_factor_split, &m_solve_split}) {
    split->team_ptr.assign(1, 0);
    split->library.assign(std::size_t(nl), {});
  }
  std::vector<std::int64_t> fronts, small, solve_small;
  m_level_of_host.assign(std::size_t(ns), 0);
  m_update_off_host.assign(std::size_t(ns), 0);
  m_solve_off_host.assign(std::size_t(ns), 0);
  m_arena_size.assign(std::size_t(nl), 0);
  m_level_rows_below.assign(std::size_t(nl), 0);
  for (std::int64_t l = 0; l < nl; ++l) {
    for (std::int64_t s : levels[l]) {
      const std::int64_t mu = f.nrows(s) - f.ncols(s);
      fronts.push_back(s);
      m_level_of_host[s] = l;
      m_update_off_host[s] = m_arena_size[l];
      m_arena_size[l] += mu * mu;
      m_solve_off_host[s] = m_level_rows_below[l];
      m_level_rows_below[l] += mu;
      if (!ldlt && f.nrows(s) <= solve_small_front_rows) solve_small.push_back(s);
      else m_solve_split.library[l].push_back(s);
      if (!ldlt && f.nrows(s) <= small_front_rows) {
        small.push_back(s);
        continue;
      }
      m_factor_split.library[l].push_back(s);
      if (ldlt) m_dense.reserve_sytrf(f.ncols(s), f.nrows(s));
      else m_dense.reserve_potrf(f.ncols(s), f.nrows(s));
      m_max_ncols = std::max(m_max_ncols, f.ncols(s));
      m_max_ldlt_work = std::max(m_max_ldlt_work, f.ncols(s) * mu);
    }
    m_level_ptr.push_back(std::int64_t(fronts.size()));
    m_factor_split.team_ptr.push_back(std::int64_t(small.size()));
    m_solve_split.team_ptr.push_back(std::int64_t(solve_small.size()));
  }
  // The forward solve's gather (see m_gather_row): entries sorted by row,
  // stably, so that each row's entries keep the level's front order.
  {
    std::vector<std::int64_t> g_row, g_ptr(1, 0);
    std::vector<std::int32_t> g_front, g_r;
    m_gather_level.assign(1, 0);
    struct Entry {
      std::int64_t row;
      std::int32_t front, r;
    };
    std::vector<Entry> entries;
    for (std::int64_t l = 0; l < nl; ++l) {
      entries.clear();
      for (std::int64_t s : levels[l]) {
        const std::int64_t nc = f.ncols(s), mu = f.nrows(s) - nc;
        for (std::int64_t r = 0; r < mu; ++r)
          entries.push_back({f.rows[std::size_t(f.rows_ptr[s] + nc + r)], std::int32_t(s), std::int32_t(r)});
      }
      std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.row < b.row; });
      for (std::size_t e = 0; e < entries.size(); ++e) {
        if (e > 0 && entries[e].row != entries[e - 1].row) g_ptr.push_back(std::int64_t(g_front.size()));
        if (e == 0 || entries[e].row != entries[e - 1].row) g_row.push_back(entries[e].row);
        g_front.push_back(entries[e].front);
        g_r.push_back(entries[e].r);
      }
      if (!entries.empty()) g_ptr.push_back(std::int64_t(g_front.size()));
      m_gather_level.push_back(std::int64_t(g_row.size()));
    }
    m_gather_row = upload(g_row, "sparse::gather_row");
    m_gather_ptr = upload(g_ptr, "sparse::gather_ptr");
    m_gather_front = upload(g_front, "sparse::gather_front");
    m_gather_r = upload(g_r, "sparse::gather_r");
  }
  // A level's arena is read last when the highest of its fronts' parents
  // assembles (roots and fronts without rows below read nothing).
  m_level_max_children.assign(std::size_t(nl), 0);
  for (std::int64_t l = 0; l < nl; ++l)
    for (std::int64_t s : levels[l])
      m_level_max_children[l] = std::max(m_level_max_children[l], f.child_ptr[s + 1] - f.child_ptr[s]);
  // Cuda: concurrency() is the resident threads of the whole device, and a
  // team is 256 of them; host: one team per thread.
  if constexpr (is_host_execution_space<Space>::value) m_teams_wanted = std::max(1, m_exec.concurrency());
  else m_teams_wanted = std::max(1, m_exec.concurrency() / 256);
  m_free_after.assign(std::size_t(nl), {});
  for (std::int64_t l = 0; l < nl; ++l) {
    std::int64_t last = l;
    for (std::int64_t s : levels[l])
      if (f.sparent[s] != -1) last = std::max(last, m_level_of_host[f.sparent[s]]);
    m_free_after[last].push_back(l);
  }

  m_super_ptr = upload(f.super_ptr, "sparse::super_ptr");
  m_rows_ptr = upload(f.rows_ptr, "sparse::rows_ptr");
  m_rows = upload(f.rows, "sparse::rows");
  m_lx_ptr = upload(f.lx_ptr, "sparse::lx_ptr");
  m_child_ptr = upload(f.child_ptr, "sparse::child_ptr");
  m_child_list = upload(f.child_list, "sparse::child_list");
  m_perm = upload(f.perm, "sparse::perm");
  m_relidx = upload(f.relidx, "sparse::relidx");
  m_level_fronts = upload(fronts, "sparse::level_fronts");
  m_factor_split.team = upload(small, "sparse::small_fronts");
  m_solve_split.team = upload(solve_small, "sparse::solve_small_fronts");
  m_level_of = upload(m_level_of_host, "sparse::level_of");
  m_update_off = upload(m_update_off_host, "sparse::update_off");
  m_solve_off = upload(m_solve_off_host, "sparse::solve_off");
  m_a_ptr = upload(a_ptr, "sparse::a_ptr");
  m_a_src = upload(a_src, "sparse::a_src");
  m_a_dst = upload(a_dst, "sparse::a_dst");
  m_diag_pos = upload(diag_pos, "sparse::diag_pos");
  m_a_row_map = upload(std::vector<std::int64_t>(rm, rm + n + 1), "sparse::a_row_map");
  m_a_col = upload(std::vector<std::int32_t>(ci, ci + rm[n]), "sparse::a_col");
  try {
    m_lx = Array<double>(view_alloc("sparse::factor", WithoutInitializing), std::size_t(f.lx_ptr[ns]));
  } catch (const allocation_error& e) {
    throw allocation_error(std::string("Cholesky on ") + Space::name() + ": " + e.what() + "; the factor takes " +
                           std::to_string(f.lx_ptr[ns] * std::int64_t(sizeof(double))) +
                           " bytes: a fill-reducing ordering (Ordering::Metis) or less amalgamation "
                           "(Options::amalgamation) lowers it");
  }
  m_info = Array<int>("sparse::potrf_info", std::size_t(ns));
  m_ipiv = ldlt ? Array<std::int64_t>("sparse::sytrf_ipiv", std::size_t(n)) : Array<std::int64_t>();
  m_arena.assign(std::size_t(nl), Array<double>());
  m_arena_address.assign(std::size_t(nl), 0);
  m_arena_table = Array<std::uintptr_t>("sparse::arena_table", std::size_t(nl));
  m_exec.fence("sparse::LevelNumeric::analyze");
}

template <class Space>
std::optional<typename LevelNumeric<Space>::PivotFailure> LevelNumeric<Space>::factorize(const double* a_values,
                                                                                         std::int64_t nnz,
                                                                                         double pivot_tolerance) {
  const SymbolicFactor& f = *m_sym;
  if (m_a_values.extent(0) != std::size_t(nnz))
    m_a_values = Array<double>(view_alloc("sparse::a_values", WithoutInitializing), std::size_t(nnz));
  if (nnz > 0) deep_copy(m_exec, m_a_values, View<const double*, LayoutLeft, HostSpace>(a_values, std::size_t(nnz)));
  deep_copy(m_exec, m_lx, 0.0);
  deep_copy(m_exec, m_info, 0);
  if (pivot_tolerance > 0) {
    if (m_diag_scale.extent(0) != std::size_t(f.n)) m_diag_scale = Array<double>("sparse::diag_scale", std::size_t(f.n));
    auto scale = m_diag_scale;
    auto pos = m_diag_pos;
    auto a = m_a_values;
    parallel_for(
        "sparse::level_diag_scale", RangePolicy<Space>(m_exec, 0, f.n),
        TESSERA_LAMBDA(std::int64_t j) { scale(j) = pos(j) < 0 ? 0.0 : tessera::fabs(a(pos(j))); });
  }
  m_live_update_bytes = m_peak_update_bytes = 0;
  std::optional<PivotFailure> failure;
  try {
    if (m_ldlt)
      m_ldlt_work = Array<double>(view_alloc("sparse::ldlt_update_work", WithoutInitializing),
                                  std::size_t(std::max<std::int64_t>(m_max_ldlt_work, 1)));
    failure = factor_levels(pivot_tolerance);
  } catch (const allocation_error& e) {
    const std::string advice = memory_advice();  // before the release: it counts what was alive
    release_updates();
    throw allocation_error(std::string("Cholesky on ") + Space::name() + ": " + e.what() + "; " + advice);
  } catch (...) {
    release_updates();
    throw;
  }
  release_updates();
  m_exec.fence("sparse::LevelNumeric::factorize");
  return failure;
}

template <class Space>
void LevelNumeric<Space>::release_updates() {
  for (auto& arena : m_arena) arena = Array<double>();
  m_ldlt_work = Array<double>();
  m_live_update_bytes = 0;
}

template <class Space>
std::string LevelNumeric<Space>::memory_advice() const {
  std::int64_t widest = 0;
  for (std::int64_t size : m_arena_size) widest = std::max(widest, size);
  return "the factor takes " + std::to_string(m_lx.size() * sizeof(double)) +
         " bytes and the update matrices of one level up to " + std::to_string(widest * std::int64_t(sizeof(double))) +
         " (" + std::to_string(m_live_update_bytes) +
         " were alive): a fill-reducing ordering (Ordering::Metis) or less amalgamation (Options::amalgamation) "
         "lowers both";
}

template <class Space>
std::optional<typename LevelNumeric<Space>::PivotFailure> LevelNumeric<Space>::factor_levels(double pivot_tolerance) {
  const SymbolicFactor& f = *m_sym;
  const std::size_t nl = m_levels->size();
  for (std::size_t l = 0; l < nl; ++l) {
    if (m_arena_size[l] > 0) {
      // Zeroed: each update matrix receives its children's, then syrk adds to it.
      m_arena[l] = Array<double>("sparse::update_matrices", std::size_t(m_arena_size[l]));
      m_arena_address[l] = reinterpret_cast<std::uintptr_t>(m_arena[l].data());
      deep_copy(m_exec, subview(m_arena_table, std::make_pair(l, l + 1)),
                View<const std::uintptr_t*, LayoutLeft, HostSpace>(&m_arena_address[l], 1));
      m_live_update_bytes += std::size_t(m_arena_size[l]) * sizeof(double);
      m_peak_update_bytes = std::max(m_peak_update_bytes, m_live_update_bytes);
    }
    assemble_level(l);
    factor_level(l);
    const std::int64_t bad = first_failure(l, pivot_tolerance);
    for (std::int64_t done : m_free_after[l]) {
      m_live_update_bytes -= m_arena[done].size() * sizeof(double);
      m_arena[done] = Array<double>();
    }
    if (bad < f.n && m_ldlt) {
      // sytrf's info: D(k, k) is exactly zero at position k of the front,
      // the column its interchanges moved there.
      const std::int64_t s = f.col_to_super[bad];
      return PivotFailure{ldlt_column_at(s, bad - f.super_ptr[s] + 1), 0.0, false};
    }
    if (bad < f.n) {
      // The pivot's value: what potrf left on the diagonal (LAPACK's dpotrf
      // leaves the failed pivot there; cuSOLVER documents only info). The
      // tolerance test compared L(j,j)^2.
      const std::int64_t s = f.col_to_super[bad], c = bad - f.super_ptr[s];
      const std::int64_t at = f.lx_ptr[s] + c * f.nrows(s) + c;
      double l_jj = 0;
      deep_copy(View<double*, LayoutLeft, HostSpace>(&l_jj, 1), subview(m_lx, std::make_pair(at, at + 1)));
      int info = 0;
      deep_copy(View<int*, LayoutLeft, HostSpace>(&info, 1), subview(m_info, std::make_pair(s, s + 1)));
      const bool tolerance = info == 0;
      return PivotFailure{bad, tolerance ? l_jj * l_jj : l_jj, tolerance};
    }
  }
  return std::nullopt;
}

template <class Space>
void LevelNumeric<Space>::assemble_level(std::size_t level) {
  const std::int64_t first = m_level_ptr[level], count = m_level_ptr[level + 1] - first;
  auto fronts = m_level_fronts;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto child_ptr = m_child_ptr;
  auto child_list = m_child_list;
  auto relidx = m_relidx;
  auto level_of = m_level_of;
  auto update_off = m_update_off;
  auto arena_table = m_arena_table;
  auto a_ptr = m_a_ptr;
  auto a_src = m_a_src;
  auto a_dst = m_a_dst;
  auto a = m_a_values;
  double* lx = m_lx.data();
  // A's entries: each lands on its own slot.
  parallel_for(
      "sparse::level_scatter_a", per_front(count), TESSERA_LAMBDA(const team_member& t) {
        const std::int64_t s = fronts(first + t.league_rank());
        parallel_for(TeamVectorRange(t, a_ptr(s), a_ptr(s + 1)), [&](std::int64_t q) { lx[a_dst(q)] = a(a_src(q)); });
      });
  // The children's update matrices, in rounds: round r adds the r-th child
  // of every front of the level. Siblings add into the same entries, so
  // they take turns (a kernel boundary between them); inside one child
  // column b lands in column rel[b] of the front and row r in row rel[r],
  // so the `split` teams that share a child, taking its columns in turn,
  // never write the same entry. Narrow levels (the top of the tree, the
  // largest fronts) get more teams per child than wide ones.
  const std::int64_t split = std::max<std::int64_t>(1, m_teams_wanted / std::max<std::int64_t>(count, 1));
  for (std::int64_t round = 0; round < m_level_max_children[level]; ++round) {
    parallel_for(
        "sparse::level_extend_add", per_front(count * split), TESSERA_LAMBDA(const team_member& t) {
          const std::int64_t s = fronts(first + t.league_rank() / split), part = t.league_rank() % split;
          if (child_ptr(s) + round >= child_ptr(s + 1)) return;
          const std::int64_t c = child_list(child_ptr(s) + round);
          const std::int64_t ncc = super_ptr(c + 1) - super_ptr(c), muc = rows_ptr(c + 1) - rows_ptr(c) - ncc;
          if (muc <= part) return;
          const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s), nc = super_ptr(s + 1) - super_ptr(s), mu = m - nc;
          double* panel = lx + lx_ptr(s);
          double* update = mu > 0 ? reinterpret_cast<double*>(arena_table(level_of(s))) + update_off(s) : nullptr;
          const double* uc = reinterpret_cast<const double*>(arena_table(level_of(c))) + update_off(c);
          const std::int32_t* rel = relidx.data() + rows_ptr(c) + ncc;
          // This team's columns of the child's lower triangle: part, part + split, ...
          parallel_for(TeamThreadRange(t, (muc - part + split - 1) / split), [&](std::int64_t k) {
            const std::int64_t b = part + k * split, lb = rel[b];
            double* dst = lb < nc ? panel + lb * m : update + (lb - nc) * mu - nc;
            parallel_for(ThreadVectorRange(t, b, muc), [&](std::int64_t r) { dst[rel[r]] += uc[r + b * muc]; });
          });
        });
  }
}

template <class Space>
void LevelNumeric<Space>::factor_level(std::size_t level) {
  const SymbolicFactor& f = *m_sym;
  // Small and large fronts of a level touch disjoint panels and update
  // matrices: the teams' kernel goes first, the library calls after it.
  if (m_ldlt) {
    factor_small_fronts(level);
    order_dense_calls();
    for (std::int64_t s : m_factor_split.library[level]) {
      const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
      double* panel = m_lx.data() + f.lx_ptr[s];
      std::int64_t* ipiv = m_ipiv.data() + f.super_ptr[s];
      m_dense.sytrf_lower(nc, panel, m, ipiv, m_info.data() + s);
      if (mu == 0) continue;
      // X := F11^-1 F21^T, then F22 -= F21 X (the whole mu x mu block: the
      // extend-add reads its lower triangle). One workspace for the level's
      // fronts, one after another (Cuda: in stream order).
      double* x = m_ldlt_work.data();
      m_dense.copy(true, nc, mu, panel + nc, m, x, nc);
      m_dense.sytrs_lower(nc, mu, panel, m, ipiv, x, nc);
      double* update = update_arena(std::size_t(m_level_of_host[s])) + m_update_off_host[s];
      m_dense.gemm_ab_minus(mu, mu, nc, panel + nc, m, x, nc, update, mu);
    }
    return;
  }
  level_dense_work(
      m_factor_split.library[level], [&] { factor_small_fronts(level); },
      [&](std::int64_t s) {
        const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
        double* panel = m_lx.data() + f.lx_ptr[s];
        m_dense.potrf_lower(nc, panel, m, m_info.data() + s);
        if (mu == 0) return;
        // After a failed potrf these compute garbage that nothing reads: the
        // factorization stops at this level.
        m_dense.trsm_right_lower_trans(mu, nc, panel, m, panel + nc, m);
        double* update = update_arena(std::size_t(m_level_of_host[s])) + m_update_off_host[s];
        m_dense.syrk_lower_minus(mu, nc, panel + nc, m, update, mu);
      });
}

template <class Space>
void LevelNumeric<Space>::factor_small_fronts(std::size_t level) {
  const std::int64_t first = m_factor_split.team_ptr[level], count = m_factor_split.team_ptr[level + 1] - first;
  if (count == 0) return;
  auto fronts = m_factor_split.team;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto level_of = m_level_of;
  auto update_off = m_update_off;
  auto arena_table = m_arena_table;
  auto info = m_info;
  double* lx = m_lx.data();
  parallel_for(
      "sparse::level_team_fronts", per_small_front(count), TESSERA_LAMBDA(const team_member& t) {
        const std::int64_t s = fronts(first + t.league_rank());
        const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s), nc = super_ptr(s + 1) - super_ptr(s);
        double* update = m > nc ? reinterpret_cast<double*>(arena_table(level_of(s))) + update_off(s) : nullptr;
        const int failed = team_front_cholesky(t, lx + lx_ptr(s), m, nc, update);
        single(PerTeam(t), [&]() { info(s) = failed; });
      });
}

template <class Space>
void LevelNumeric<Space>::solve_small_fronts(std::size_t level, bool forward, double* x, Array<double> w,
                                             std::int64_t nrhs) {
  const std::int64_t first = m_solve_split.team_ptr[level], count = m_solve_split.team_ptr[level + 1] - first,
                     n = m_sym->n;
  if (count == 0) return;
  auto fronts = m_solve_split.team;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto solve_off = m_solve_off;
  const double* lx = m_lx.data();
  double* wd = w.data();
  parallel_for(
      forward ? "sparse::solve_team_forward" : "sparse::solve_team_backward", per_small_front(count),
      TESSERA_LAMBDA(const team_member& t) {
        const std::int64_t s = fronts(first + t.league_rank());
        const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s), nc = super_ptr(s + 1) - super_ptr(s);
        double* x1 = x + super_ptr(s);
        double* ws = wd + solve_off(s) * nrhs;
        if (forward) team_front_forward(t, lx + lx_ptr(s), m, nc, x1, n, nrhs, ws);
        else team_front_backward(t, lx + lx_ptr(s), m, nc, x1, n, nrhs, ws);
      });
}

template <class Space>
std::int64_t LevelNumeric<Space>::first_failure(std::size_t level, double tol) const {
  const std::int64_t first = m_level_ptr[level], count = m_level_ptr[level + 1] - first, n = m_sym->n;
  auto fronts = m_level_fronts;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto info = m_info;
  auto lx = m_lx;
  auto scale = m_diag_scale;
  std::int64_t bad = n;
  parallel_reduce(
      "sparse::level_pivots", RangePolicy<Space>(m_exec, 0, count),
      TESSERA_LAMBDA(std::int64_t q, std::int64_t & lowest) {
        const std::int64_t s = fronts(first + q), c0 = super_ptr(s), nc = super_ptr(s + 1) - c0;
        std::int64_t col = n;
        if (info(s) > 0) {
          col = c0 + info(s) - 1;
        } else if (tol > 0) {
          const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s);
          for (std::int64_t c = 0; c < nc; ++c) {
            const double l = lx(lx_ptr(s) + c * m + c);
            if (l * l <= tol * scale(c0 + c)) {
              col = c0 + c;
              break;
            }
          }
        }
        if (col < lowest) lowest = col;
      },
      Min<std::int64_t>(bad));
  return std::min(bad, n);
}

template <class Space>
void LevelNumeric<Space>::solve(const double* b, double* x, std::int64_t nrhs) {
  const std::int64_t total = m_sym->n * nrhs;
  if (total == 0) return;
  // b is read whole before x is written: x may be b.
  Array<double> in;
  try {
    in = Array<double>(view_alloc("sparse::solve_b", WithoutInitializing), std::size_t(total));
  } catch (const allocation_error& e) {
    throw allocation_error(std::string("Cholesky on ") + Space::name() + ": " + e.what() + "; the solve of " +
                           std::to_string(nrhs) + " right-hand sides takes " +
                           std::to_string(total * std::int64_t(sizeof(double))) +
                           " bytes for them beside the factor: solve fewer at once");
  }
  deep_copy(m_exec, in, View<const double*, LayoutLeft, HostSpace>(b, std::size_t(total)));
  solve_in_place(in, nrhs);
  deep_copy(m_exec, View<double*, LayoutLeft, HostSpace>(x, std::size_t(total)), in);
  m_exec.fence("sparse::LevelNumeric::solve");
}

template <class Space>
void LevelNumeric<Space>::solve_in_place(Array<double> in, std::int64_t nrhs) {
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, total = n * nrhs;
  if (total == 0) return;
  Array<double> xd, w;
  std::int64_t widest = 0;
  for (std::int64_t rows : m_level_rows_below) widest = std::max(widest, rows);
  // LDL^T: t of one front at a time beside the rows below.
  const std::int64_t t_rows = m_ldlt ? m_max_ncols : 0;
  widest += t_rows;
  try {
    xd = Array<double>(view_alloc("sparse::solve_x", WithoutInitializing), std::size_t(total));
    w = Array<double>(view_alloc("sparse::solve_workspace", WithoutInitializing),
                      std::size_t(std::max<std::int64_t>(widest * nrhs, 1)));
  } catch (const allocation_error& e) {
    throw allocation_error(std::string("Cholesky on ") + Space::name() + ": " + e.what() + "; the solve of " +
                           std::to_string(nrhs) + " right-hand sides takes " +
                           std::to_string((total + widest * nrhs) * std::int64_t(sizeof(double))) +
                           " bytes of workspace beside the factor: solve fewer at once");
  }
  auto perm = m_perm;
  parallel_for(
      "sparse::solve_permute", RangePolicy<Space>(m_exec, 0, total),
      TESSERA_LAMBDA(std::int64_t q) { xd(q) = in(perm(q % n) + (q / n) * n); });
  const std::size_t nl = m_levels->size();
  for (std::size_t l = 0; l < nl; ++l) forward_level(l, xd.data(), w, nrhs);
  for (std::size_t l = nl; l-- > 0;) backward_level(l, xd.data(), w, nrhs);
  parallel_for(
      "sparse::solve_unpermute", RangePolicy<Space>(m_exec, 0, total),
      TESSERA_LAMBDA(std::int64_t q) { in(perm(q % n) + (q / n) * n) = xd(q); });
}

// The refinement's operations (see refinement_steps) on Space's arrays,
// n x nrhs column-major each.
template <class Space>
struct LevelRefinementOps {
  using Array = typename LevelNumeric<Space>::template Array<double>;
  LevelNumeric<Space>& num;
  const Space& exec;
  Array b, x, r, d;
  std::int64_t n, nrhs;
  double anorm;

  auto column(const Array& v, std::int64_t c) const { return subview(v, std::make_pair(c * n, (c + 1) * n)); }
  double measure_x(std::int64_t c) { return num.residual_column(x, b, r, c, anorm); }
  void clear_residual(std::int64_t c) { deep_copy(exec, column(r, c), 0.0); }
  void correct() {
    deep_copy(exec, d, r);
    num.solve_in_place(d, nrhs);
  }
  double measure_candidate(std::int64_t c) {
    num.add_column(d, x, c);
    return num.residual_column(d, b, r, c, anorm);
  }
  void accept(std::int64_t c) { deep_copy(exec, column(x, c), column(d, c)); }
};

template <class Space>
RefinementResult LevelNumeric<Space>::solve_refined(const double* b, double* x, std::int64_t nrhs, int max_steps,
                                                    double anorm) {
  const std::int64_t n = m_sym->n, total = n * nrhs;
  if (total == 0) return {};
  Array<double> bd, xd, r, d;
  try {
    bd = Array<double>(view_alloc("sparse::refine_b", WithoutInitializing), std::size_t(total));
    xd = Array<double>(view_alloc("sparse::refine_x", WithoutInitializing), std::size_t(total));
    r = Array<double>(view_alloc("sparse::refine_r", WithoutInitializing), std::size_t(total));
    d = Array<double>(view_alloc("sparse::refine_d", WithoutInitializing), std::size_t(total));
  } catch (const allocation_error& e) {
    throw allocation_error(std::string("Cholesky on ") + Space::name() + ": " + e.what() +
                           "; refining the solve of " + std::to_string(nrhs) + " right-hand sides takes " +
                           std::to_string(4 * total * std::int64_t(sizeof(double))) +
                           " bytes beside the factor: solve fewer at once, or without refinement");
  }
  // b is read whole before x is written: x may be b.
  deep_copy(m_exec, bd, View<const double*, LayoutLeft, HostSpace>(b, std::size_t(total)));
  deep_copy(m_exec, xd, bd);
  solve_in_place(xd, nrhs);
  LevelRefinementOps<Space> ops{*this, m_exec, bd, xd, r, d, n, nrhs, anorm};
  const RefinementResult out = refinement_steps(ops, nrhs, max_steps);
  deep_copy(m_exec, View<double*, LayoutLeft, HostSpace>(x, std::size_t(total)), xd);
  m_exec.fence("sparse::LevelNumeric::solve_refined");
  return out;
}

template <class Space>
double LevelNumeric<Space>::residual_column(Array<double> x, Array<double> b, Array<double> r, std::int64_t c,
                                            double anorm) const {
  const std::int64_t n = m_sym->n;
  auto row_map = m_a_row_map;
  auto col = m_a_col;
  auto a = m_a_values;
  const double* xc = x.data() + c * n;
  const double* bc = b.data() + c * n;
  double* rc = r.data() + c * n;
  double rmax = 0, xmax = 0, bmax = 0;
  parallel_reduce(
      "sparse::level_refinement_residual", RangePolicy<Space>(m_exec, 0, n),
      TESSERA_LAMBDA(std::int64_t i, double& rm, double& xm, double& bm) {
        double ax = 0;
        for (std::int64_t k = row_map(i); k < row_map(i + 1); ++k) ax += a(k) * xc[col(k)];
        rc[i] = bc[i] - ax;
        rm = tessera::fmax(rm, tessera::fabs(rc[i]));
        xm = tessera::fmax(xm, tessera::fabs(xc[i]));
        bm = tessera::fmax(bm, tessera::fabs(bc[i]));
      },
      Max<double>(rmax), Max<double>(xmax), Max<double>(bmax));
  // n = 0 leaves the maxima at -inf.
  return normwise_backward_error(std::max(rmax, 0.0), anorm, std::max(xmax, 0.0), std::max(bmax, 0.0));
}

template <class Space>
void LevelNumeric<Space>::add_column(Array<double> d, Array<double> x, std::int64_t c) const {
  const std::int64_t n = m_sym->n;
  double* dc = d.data() + c * n;
  const double* xc = x.data() + c * n;
  parallel_for(
      "sparse::level_refinement_add", RangePolicy<Space>(m_exec, 0, n),
      TESSERA_LAMBDA(std::int64_t i) { dc[i] += xc[i]; });
}

template <class Space>
void LevelNumeric<Space>::forward_level(std::size_t level, double* x, Array<double> w, std::int64_t nrhs) {
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, below = m_level_rows_below[level];
  if (m_ldlt) {
    // Per front: t := F11^-1 x1 (x1 kept), w_s := F21 t. t sits after the
    // widest level's rows below in w.
    order_dense_calls();
    double* t = w.data() + (w.size() - std::size_t(m_max_ncols * nrhs));
    for (std::int64_t s : m_solve_split.library[level]) {
      const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
      if (mu == 0) continue;
      const double* panel = m_lx.data() + f.lx_ptr[s];
      m_dense.copy(false, nc, nrhs, x + f.super_ptr[s], n, t, nc);
      m_dense.sytrs_lower(nc, nrhs, panel, m, m_ipiv.data() + f.super_ptr[s], t, nc);
      m_dense.gemm_ab(mu, nrhs, nc, panel + nc, m, t, nc, 0.0, w.data() + m_solve_off_host[s] * nrhs, mu);
    }
  } else {
    // Per front: x1 := L11^-1 x1 on its own rows, w_s := L21 x1.
    level_dense_work(
        m_solve_split.library[level], [&] { solve_small_fronts(level, true, x, w, nrhs); },
        [&](std::int64_t s) {
          const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
          const double* panel = m_lx.data() + f.lx_ptr[s];
          double* x1 = x + f.super_ptr[s];
          m_dense.trsm_left_lower(false, nc, nrhs, panel, m, x1, n);
          if (mu > 0)
            m_dense.gemm_ab(mu, nrhs, nc, panel + nc, m, x1, n, 0.0, w.data() + m_solve_off_host[s] * nrhs, mu);
        });
  }
  if (below == 0) return;
  // x(rows below) -= w: fronts of a level may share ancestor rows.
  subtract_rows_below(level, x, w, nrhs);
}

// x(j, c) -= the sum of the level's workspace entries of row j, for each
// distinct row j below the level's fronts and each right-hand side c: one
// thread per (row, c), the entries in the fronts' order (deterministic).
template <class Space>
void LevelNumeric<Space>::subtract_rows_below(std::size_t level, double* x, Array<double> w, std::int64_t nrhs) {
  const std::int64_t n = m_sym->n, first = m_gather_level[level];
  const std::int64_t rows = m_gather_level[level + 1] - first;
  if (rows == 0) return;
  auto g_row = m_gather_row;
  auto g_ptr = m_gather_ptr;
  auto g_front = m_gather_front;
  auto g_r = m_gather_r;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto solve_off = m_solve_off;
  parallel_for(
      "sparse::solve_subtract_below", RangePolicy<Space>(m_exec, 0, rows * nrhs), TESSERA_LAMBDA(std::int64_t q) {
        const std::int64_t j = first + q % rows, c = q / rows;
        double sum = 0;
        for (std::int64_t e = g_ptr(j); e < g_ptr(j + 1); ++e) {
          const std::int64_t s = g_front(e);
          const std::int64_t mu = rows_ptr(s + 1) - rows_ptr(s) - (super_ptr(s + 1) - super_ptr(s));
          sum += w(solve_off(s) * nrhs + g_r(e) + c * mu);
        }
        x[g_row(j) + c * n] -= sum;
      });
}

// f(x index, workspace index) for each row below each front of the level
// and each right-hand side: x(rows[rows_ptr[s] + ncols(s) + r], c) and
// w_s(r, c), w_s a mu x nrhs block at solve_off[s] * nrhs.
template <class Space>
template <class F>
void LevelNumeric<Space>::for_rows_below(std::size_t level, std::int64_t nrhs, const F& f) {
  const std::int64_t n = m_sym->n, first = m_level_ptr[level], count = m_level_ptr[level + 1] - first;
  auto fronts = m_level_fronts;
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto rows = m_rows;
  auto solve_off = m_solve_off;
  parallel_for(
      "sparse::solve_rows_below", per_front(count), TESSERA_LAMBDA(const team_member& t) {
        const std::int64_t s = fronts(first + t.league_rank());
        const std::int64_t nc = super_ptr(s + 1) - super_ptr(s), mu = rows_ptr(s + 1) - rows_ptr(s) - nc;
        const std::int64_t* below_rows = rows.data() + rows_ptr(s) + nc;
        const std::int64_t ws = solve_off(s) * nrhs;
        parallel_for(TeamThreadRange(t, nrhs), [&](std::int64_t c) {
          parallel_for(ThreadVectorRange(t, mu), [&](std::int64_t r) { f(below_rows[r] + c * n, ws + r + c * mu); });
        });
      });
}

template <class Space>
void LevelNumeric<Space>::backward_level(std::size_t level, double* x, Array<double> w, std::int64_t nrhs) {
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, below = m_level_rows_below[level];
  // w_s := x(rows below s), final already (they belong to higher levels).
  if (below > 0) for_rows_below(level, nrhs, TESSERA_LAMBDA(std::int64_t xi, std::int64_t wi) { w(wi) = x[xi]; });
  // Per front: x1 := L11^-T (x1 - L21^T w_s); LDL^T: F11^-1 (x1 - F21^T w_s).
  level_dense_work(
      m_solve_split.library[level], [&] { solve_small_fronts(level, false, x, w, nrhs); },
      [&](std::int64_t s) {
        const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
        const double* panel = m_lx.data() + f.lx_ptr[s];
        double* x1 = x + f.super_ptr[s];
        if (mu > 0)
          m_dense.gemm_atb(-1.0, nc, nrhs, mu, panel + nc, m, w.data() + m_solve_off_host[s] * nrhs, mu, x1, n);
        if (m_ldlt) m_dense.sytrs_lower(nc, nrhs, panel, m, m_ipiv.data() + f.super_ptr[s], x1, n);
        else m_dense.trsm_left_lower(true, nc, nrhs, panel, m, x1, n);
      });
}

template <class Space>
double LevelNumeric<Space>::log_determinant() const {
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto lx = m_lx;
  double sum = 0;
  parallel_reduce(
      "sparse::level_log_det", RangePolicy<Space>(m_exec, 0, m_sym->nsuper),
      TESSERA_LAMBDA(std::int64_t s, double& acc) {
        const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s), nc = super_ptr(s + 1) - super_ptr(s);
        for (std::int64_t c = 0; c < nc; ++c) acc += tessera::log(lx(lx_ptr(s) + c * m + c));
      },
      Sum<double>(sum));
  return 2 * sum;
}

template <class Space>
typename LevelNumeric<Space>::LdltSummary LevelNumeric<Space>::ldlt_summary(double zero_pivot) const {
  const std::int64_t n = m_sym->n;
  LdltSummary out;
  if (n == 0) return out;
  // D's diagonal and subdiagonal, gathered on the device and read back with
  // the interchanges: 3n numbers, against the factor's many more.
  Array<double> dd(view_alloc("sparse::ldlt_d", WithoutInitializing), std::size_t(n)),
      ee(view_alloc("sparse::ldlt_e", WithoutInitializing), std::size_t(n));
  auto super_ptr = m_super_ptr;
  auto rows_ptr = m_rows_ptr;
  auto lx_ptr = m_lx_ptr;
  auto lx = m_lx;
  parallel_for(
      "sparse::level_ldlt_d", RangePolicy<Space>(m_exec, 0, m_sym->nsuper), TESSERA_LAMBDA(std::int64_t s) {
        const std::int64_t m = rows_ptr(s + 1) - rows_ptr(s), c0 = super_ptr(s), nc = super_ptr(s + 1) - c0;
        for (std::int64_t c = 0; c < nc; ++c) {
          dd(c0 + c) = lx(lx_ptr(s) + c * m + c);
          ee(c0 + c) = c + 1 < nc ? lx(lx_ptr(s) + c * m + c + 1) : 0.0;
        }
      });
  std::vector<double> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n));
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
  deep_copy(m_exec, View<double*, LayoutLeft, HostSpace>(d.data(), d.size()), dd);
  deep_copy(m_exec, View<double*, LayoutLeft, HostSpace>(e.data(), e.size()), ee);
  deep_copy(m_exec, View<std::int64_t*, LayoutLeft, HostSpace>(ipiv.data(), ipiv.size()), m_ipiv);
  m_exec.fence("sparse::LevelNumeric::ldlt_summary");
  const SymbolicFactor& f = *m_sym;
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t c0 = f.super_ptr[s], c1 = f.super_ptr[s + 1];
    for (std::int64_t k = c0; k < c1; ++k) {
      if (ipiv[k] < 0 && k + 1 < c1) {
        // A 2x2 block [a b; b c]: its eigenvalues have the signs of det and
        // trace (det < 0: one of each).
        const double a = d[k], b = e[k], c = d[k + 1];
        const double det = a * c - b * b;
        if (det < 0) ++out.positive, ++out.negative;
        else if (det > 0) (a + c > 0 ? out.positive : out.negative) += 2;
        else out.zero += 2;  // Bunch-Kaufman never takes a singular 2x2 block
        out.sign *= det > 0 ? 1 : det < 0 ? -1 : 0;
        out.log_abs += std::log(std::abs(det));
        ++out.two_by_two;
        ++k;
        continue;
      }
      const double p = d[k];
      if (std::abs(p) <= zero_pivot) {
        ++out.zero;
        out.zero_columns.push_back(ldlt_column_at(s, k - c0 + 1));
      } else {
        ++(p > 0 ? out.positive : out.negative);
      }
      out.sign *= p > 0 ? 1 : p < 0 ? -1 : 0;
      out.log_abs += std::log(std::abs(p));
    }
  }
  std::sort(out.zero_columns.begin(), out.zero_columns.end());
  return out;
}

template <class Space>
std::int64_t LevelNumeric<Space>::ldlt_column_at(std::int64_t s, std::int64_t position) const {
  // Replays sytrf's interchanges (lower: k = 1, 2, ...; a 1x1 pivot swaps
  // k with ipiv(k), a 2x2 one k + 1 with -ipiv(k + 1)) on the identity.
  const SymbolicFactor& f = *m_sym;
  const std::int64_t c0 = f.super_ptr[s], nc = f.ncols(s);
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(nc)), col(static_cast<std::size_t>(nc));
  deep_copy(m_exec, View<std::int64_t*, LayoutLeft, HostSpace>(ipiv.data(), ipiv.size()),
            subview(m_ipiv, std::make_pair(c0, c0 + nc)));
  m_exec.fence("sparse::LevelNumeric::ldlt_column_at");
  for (std::int64_t k = 0; k < nc; ++k) col[std::size_t(k)] = k;
  for (std::int64_t k = 0; k < nc; ++k) {
    if (ipiv[k] > 0) {
      std::swap(col[std::size_t(k)], col[std::size_t(ipiv[k] - 1)]);
    } else if (k + 1 < nc) {
      std::swap(col[std::size_t(k + 1)], col[std::size_t(-ipiv[k + 1] - 1)]);
      ++k;
    }
  }
  return c0 + col[std::size_t(position - 1)];
}

template <class Space>
std::vector<double> LevelNumeric<Space>::factor_values() const {
  std::vector<double> host(m_lx.size());
  if (!host.empty()) deep_copy(View<double*, LayoutLeft, HostSpace>(host.data(), host.size()), m_lx);
  return host;
}

}  // namespace tessera::sparse::detail
