#pragma once
// Cholesky<T, Space>: sparse direct solver for symmetric positive definite
// (Cholesky, A = L L^T) and symmetric indefinite (LDL^T with threshold
// Bunch-Kaufman pivoting and delayed pivots, as MA57 and MUMPS) matrices.
// T = double, or std::complex<double> for Hermitian matrices: positive
// definite (A = L L^H) and indefinite (A = P L D L^H P^T, D real on its 1x1
// pivots and Hermitian on its 2x2 blocks), with the same pivoting, delays,
// solves, refinement and diagnostics (inertia, log_determinant: det of a
// Hermitian matrix is real; rcond by the complex Hager-Higham estimator).
//
//   tessera::sparse::Cholesky<double, tessera::Threads> chol({.ordering = tessera::sparse::Ordering::Metis});
//   chol.analyze(A);        // ordering, symbolic factorization, 2D block layout (pattern only)
//   chol.factorize(A);      // numeric factorization on the task DAG (or the level sets)
//   chol.solve(x, b);       // one or many right-hand sides
//   chol.log_determinant(), chol.inertia(), chol.rcond()   // diagnostics of the factor
//   chol.factorize(A2);     // same pattern, new values: the analysis is reused
//                           // (another pattern is refused, see Options::reanalyze_on_change)
//
// The factorization is supernodal and multifrontal. With Scheduler::Tasks
// (the default) it runs on a TaskScheduler<Space>: a generator task walks
// the assembly tree in postorder and spawns, for each piece of work, a task
// that waits (when_all) on the futures of what it needs:
//   - a small subtree (flops below a share of the total): ONE task that
//     factors it sequentially, so that the many tiny leaves cost no task
//     overhead;
//   - a front of at most max_block rows: one task (assemble + factor);
//   - a larger front: an assemble task, then the 2D blocks of its front as
//     CHOL / TRSM / HERK (syrk) / GEMM tasks, each waiting on the last
//     writers of the blocks it touches; POTRF and TRSM at High priority
//     (the critical path).
// Tree-level and block-level parallelism share one DAG with no barrier.
// After a window of spawns the generator respawns itself at Low priority,
// and when the task pool is full (a null future) it respawns and retries,
// so a fixed task memory is enough for any matrix.
// Scheduler::LevelSet runs the same kernels bulk-synchronously: one
// parallel_for per level of the assembly tree, large fronts block by block.
#include <tessera/core.hpp>
#include <tessera/sparse/cholesky_options.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/analyzed_input.hpp>
#include <tessera/sparse/detail/blas_threads.hpp>
#include <tessera/sparse/detail/cholesky_common.hpp>
#include <tessera/sparse/detail/iterative_refinement.hpp>
#include <tessera/sparse/detail/norm1_estimate.hpp>
#include <tessera/sparse/detail/supernodal_numeric.hpp>
#include <tessera/sparse/detail/task_room.hpp>
#include <tessera/sparse/ordering.hpp>
#include <tessera/sparse/symbolic.hpp>
#include <tessera/tasking.hpp>

#include <chrono>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::sparse {

namespace detail {
std::vector<std::vector<std::int64_t>> assembly_tree_levels(const SymbolicFactor& f);

// A itself for real A; for complex A, the matrix of moduli |a_ij| on the
// same pattern (the row map and columns shared): what the pattern checks
// and the zero-diagonal pairing of the analysis read.
inline const CrsMatrix<double>& moduli(const CrsMatrix<double>& A) { return A; }
inline CrsMatrix<double> moduli(const CrsMatrix<std::complex<double>>& A) {
  View<double*, HostSpace> v(view_alloc(WithoutInitializing, "sparse::moduli"), std::size_t(A.nnz()));
  for (std::int64_t k = 0; k < A.nnz(); ++k) v(k) = std::abs(A.values()[k]);
  return CrsMatrix<double>(A.num_rows(), A.row_map_view_(), A.col_idx_view(), v, A.origin());
}
}

template <class T, class Space = DefaultHostExecutionSpace>
class Cholesky : public detail::CholeskyCommon<Cholesky<T, Space>, T> {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>,
                "tessera::sparse::Cholesky supports double (symmetric) and std::complex<double> (Hermitian) matrices");
  // Cuda has its own specialization (detail/level_cholesky.hpp, included at the end).
  static_assert(is_host_execution_space<Space>::value,
                "tessera::sparse::Cholesky runs on a host execution space (Serial, Threads, OpenMP) or on Cuda "
                "(a CUDA build, compiled by nvcc)");
  using Base = detail::CholeskyCommon<Cholesky<T, Space>, T>;
  friend Base;

 public:
  using value_type = T;
  using execution_space = Space;
  using scheduler_type = TaskScheduler<Space>;

  explicit Cholesky(Options options = {}) : Base(options) {
    if (m_opt.max_block < 8) throw sparse_error("Cholesky: max_block must be at least 8, got " + std::to_string(m_opt.max_block));
    if (!(m_opt.pivot_threshold >= 0 && m_opt.pivot_threshold <= 0.5))
      throw sparse_error("Cholesky: pivot_threshold must be in [0, 0.5], got " + std::to_string(m_opt.pivot_threshold));
    if (!(m_opt.static_pivot >= 0 && m_opt.static_pivot < 1))
      throw sparse_error("Cholesky: static_pivot must be in [0, 1), got " + std::to_string(m_opt.static_pivot));
  }

  void analyze(const CrsMatrix<T>& A);
  void factorize(const CrsMatrix<T>& A);
  // x := A^-1 b on raw column-major arrays (n x nrhs, leading dimension n);
  // the View forms, rank 1 and rank 2, are CholeskyCommon's.
  using Base::solve;
  void solve(T* x, const T* b, std::int64_t nrhs);
  // The factor's supernodal panels (see SymbolicFactor for the layout).
  // LDLt: only fronts that received no delayed column are there.
  const T* factor_values() const { return m_num.values(); }
  // The numeric factorization's state (tests and tools: its memory pools).
  const detail::SupernodalNumeric<T>& numeric() const { return m_num; }

 private:
  using Base::m_opt, Base::m_analyzed, Base::m_factorized, Base::m_ordering, Base::m_sym, Base::m_levels,
      Base::m_input, Base::m_A, Base::m_log_det, Base::m_norm_a, Base::m_rcond, Base::m_stats, Base::norm_a;

  struct Plan;
  struct Generator;
  void run_tasks();
  void run_levels();
  struct SolveGenerator;
  void solve_tasks(T* xp, std::int64_t nrhs);
  void solve_levels(T* xp, std::int64_t nrhs);
  // x := A^-1 b with the factor alone (no refinement); x may be b.
  void solve_with_factor(const T* b, T* x, std::int64_t nrhs);
  // Small subtrees (flops <= this) are one task in the factorization and the solves.
  double small_subtree_flops() const;
  int threads() const { return Space().concurrency(); }
  // One parallel_for over the supernodes of a level; a level of one runs on
  // the calling thread (long chains of single supernodes would otherwise
  // pay a fork/join each).
  template <class F>
  void for_level(const std::vector<std::int64_t>& level, const F& f) const {
    if (level.size() == 1) return f(level[0]);
    parallel_for("sparse::level", RangePolicy<Space>(0, std::int64_t(level.size())),
                 [&](std::int64_t q) { f(level[q]); });
  }

  detail::SupernodalNumeric<T> m_num;
  std::optional<scheduler_type> m_sched;
  std::int64_t m_paired_pivots = 0;
};

// ---------------------------------------------------------------------------

template <class T, class Space>
void Cholesky<T, Space>::analyze(const CrsMatrix<T>& A) {
  const auto t0 = std::chrono::steady_clock::now();
  m_analyzed = m_factorized = false;
  A.check_symmetric_pattern();
  const std::int64_t n = A.num_rows();
  AmalgamationOptions relax = m_opt.amalgamation;
  m_paired_pivots = 0;
  if (m_opt.factorization == Factorization::LDLt && m_opt.pair_zero_diagonals) {
    // Zero diagonal entries (saddle-point systems) need 2x2 pivots with a
    // neighbour: keep each such variable in its neighbour's supernode, so
    // that the pivoting finds the pair without delaying it.
    // The pairing looks at which entries are zero and how large the
    // others are: the moduli, for complex A.
    const auto& M = detail::moduli(A);
    PairedOrdering paired = compute_paired_ordering(m_opt.ordering, n, M.row_map(), M.col_idx(), M.values());
    m_ordering = std::move(paired.ordering);
    // The pairs, (zero-diagonal variable, its mate) in A's numbering: the
    // ordering puts the mate first and the zero-diagonal variable after it.
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    for (std::int64_t k = 0; k + 1 < n; ++k)
      if (paired.pair_next[k]) pairs.push_back({m_ordering.perm[k + 1], m_ordering.perm[k]});
    m_input.record_pattern(M);
    m_input.record_zero_diagonals(M, pairs);
    relax.keep_with_next = std::move(paired.pair_next);
    m_paired_pivots = paired.pairs;
  } else {
    m_input.record_pattern(detail::moduli(A));
    m_ordering = compute_ordering(m_opt.ordering, n, A.row_map(), A.col_idx());
  }
  m_sym = symbolic_factorization(n, A.row_map(), A.col_idx(), m_ordering, relax);
  m_num.analyze(m_sym, A.row_map(), A.col_idx(), m_opt.factorization);
  m_levels = detail::assembly_tree_levels(m_sym);
  m_stats = Stats{};
  m_stats.n = n;
  m_stats.nnz_a = A.nnz();
  m_stats.nnz_l = m_sym.nnz_l;
  m_stats.stored_l = m_sym.stored_l;
  m_stats.flops = m_sym.flops;
  m_stats.supernodes = m_sym.nsuper;
  for (std::int64_t s = 0; s < m_sym.nsuper; ++s) m_stats.max_front_rows = std::max(m_stats.max_front_rows, m_sym.nrows(s));
  m_stats.levels = std::int64_t(m_levels.size());
  m_stats.threads = threads();
  m_stats.paired_variables = m_paired_pivots;
  m_stats.analyze_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m_analyzed = true;
}

template <class T, class Space>
void Cholesky<T, Space>::factorize(const CrsMatrix<T>& A) {
  bool reanalyzed = false;
  if (!m_analyzed) {
    analyze(A);
  } else if (m_input.needs_reanalysis(detail::moduli(A), m_opt.reanalyze_on_change, "factorize",
                                      "Options::reanalyze_on_change")) {
    analyze(A);
    reanalyzed = true;
  }
  m_stats.reanalyzed = reanalyzed;
  A.check_finite();
  const auto t0 = std::chrono::steady_clock::now();
  m_factorized = false;
  m_A = A;
  detail::BlasSingleThreaded one_blas_thread;
  m_num.begin(A.values(), m_opt.pivot_tolerance, {m_opt.pivot_threshold, m_opt.static_pivot});
  m_stats.tasks = m_stats.generator_runs = 0;
  if (m_opt.scheduler == Scheduler::Tasks) run_tasks();
  else run_levels();
  m_stats.factorize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m_stats.peak_update_bytes = m_num.peak_update_bytes();
  m_stats.peak_factor_bytes = m_num.peak_factor_bytes();
  if (m_opt.factorization == Factorization::LDLt && !m_num.failed()) {
    const auto d = m_num.ldlt_summary();
    m_stats.delayed_pivots = d.delayed_pivots;
    m_stats.delayed_fronts = d.delayed_fronts;
    m_stats.max_front_growth = d.max_front_growth;
    m_stats.max_delayed_front_rows = d.max_front_rows;
    m_stats.factor_entries = d.factor_entries;
    m_stats.static_pivots = d.static_pivots;
    m_stats.two_by_two_pivots = d.two_by_two;
  }
  m_num.throw_if_failed();
  Inertia in;
  m_num.inertia(in.positive, in.negative, in.zero);
  m_stats.inertia = in;
  m_num.log_determinant(m_log_det.sign, m_log_det.log_abs);
  m_norm_a = m_rcond = -1;
  m_factorized = true;
}

// The state the generator task walks: units of work in postorder and the
// futures that link them.
template <class T, class Space>
struct Cholesky<T, Space>::Plan {
  using Future = BasicFuture<void, scheduler_type>;
  enum class Kind { Subtree, Front, Blocked };
  struct Unit {
    Kind kind;
    std::int64_t s;
  };
  struct Op {
    enum Type : std::uint8_t { Potrf, Trsm, Update } type;
    std::int32_t i, j, k;
  };

  detail::SupernodalNumeric<T>* num = nullptr;
  scheduler_type sched;
  int window = 256;
  std::vector<Unit> units;
  std::vector<Future> done;  // per supernode: its front is factored and its update matrix complete
  std::vector<std::unique_ptr<detail::FrontBlocks>> blocks;  // blocked fronts, alive until the plan ends
  // Progress of the generator.
  std::size_t unit = 0;
  std::int64_t op = -1;  // -1: the current blocked unit has not started
  std::vector<Op> ops;
  std::vector<Future> last;  // last writer of each block of the current blocked unit
  std::int64_t runs = 0;
  // Pool-full handling and the end of the run (detail/task_room.hpp).
  detail::TaskRoom room;
  bool make_room() { return room.template make_room<Future>({&done, &last}); }

  Future& last_at(std::int64_t i, std::int64_t j) { return last[std::size_t(i * std::int64_t(blocks_count) + j)]; }
  std::int64_t blocks_count = 0;

  // A dependence on all of `deps` (nulls ignored): {true, null} when there
  // is none, {false, _} when the pool is full.
  std::pair<bool, Future> all_of(const std::vector<Future>& deps) {
    std::vector<Future> live;
    for (const auto& f : deps)
      if (!f.is_null()) live.push_back(f);
    if (live.empty()) return {true, Future()};
    if (live.size() == 1) return {true, live.front()};
    Future f = sched.when_all(live);
    return {!f.is_null(), f};
  }
  template <class Body>
  Future spawn(const Future& dep, TaskPriority p, Body body) {
    auto wrapped = [n = num, done = &room.completed, body](typename scheduler_type::member_type&) {
      if (!n->failed()) {
        try {
          body(*n);
        } catch (const std::exception& e) {
          n->record_exception(e.what());
        } catch (...) {
          n->record_exception("unknown exception");
        }
      }
      done->fetch_add(1, std::memory_order_release);
    };
    Future f = dep.is_null() ? Future(task_spawn(TaskSingle(sched, p), wrapped))
                             : Future(task_spawn(TaskSingle(dep, p), wrapped));
    if (!f.is_null()) ++room.spawned;
    return f;
  }
};

template <class T, class Space>
struct Cholesky<T, Space>::Generator {
  Plan* plan;

  void operator()(typename scheduler_type::member_type&) {
    Plan& P = *plan;
    ++P.runs;
    const SymbolicFactor& f = P.num->symbolic();
    int budget = P.window;
    // Out of budget: let other ready work run first.
    auto pause = [&] { respawn(this, P.sched, TaskPriority::Low); };
    // A spawn or when_all found the pool full: retry later, once there is
    // room, or stop and let the host restart the run (TaskRoom).
    auto full = [&] {
      if (P.make_room()) pause();
    };
    auto children_of = [&](std::int64_t s) {
      std::vector<typename Plan::Future> deps;
      for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) deps.push_back(P.done[f.child_list[k]]);
      return deps;
    };
    auto release_children = [&](std::int64_t s) {
      for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) P.done[f.child_list[k]] = {};
    };
    while (P.unit < P.units.size()) {
      if (P.num->failed()) {  // stop generating; what was spawned drains
        P.unit = P.units.size();
        break;
      }
      const auto u = P.units[P.unit];
      const std::int64_t s = u.s;
      if (u.kind != Plan::Kind::Blocked) {
        auto [ok, dep] = u.kind == Plan::Kind::Front ? P.all_of(children_of(s)) : std::pair(true, typename Plan::Future());
        if (!ok) return full();
        typename Plan::Future t;
        if (u.kind == Plan::Kind::Subtree)
          t = P.spawn(dep, TaskPriority::Regular, [s](detail::SupernodalNumeric<T>& n) { n.factor_subtree(s); });
        else
          t = P.spawn(dep, TaskPriority::Regular, [s](detail::SupernodalNumeric<T>& n) {
            n.assemble(s);
            n.factor_front(s);
          });
        if (t.is_null()) return full();
        P.done[s] = t;
        release_children(s);
        ++P.unit;
        if (--budget <= 0) return pause();
        continue;
      }
      // A blocked front: the assemble task, then the block operations.
      const detail::FrontBlocks* fb = P.blocks[s].get();
      const std::int64_t nb = fb->count();
      if (P.op == -1) {
        auto [ok, dep] = P.all_of(children_of(s));
        if (!ok) return full();
        auto a = P.spawn(dep, TaskPriority::High, [s](detail::SupernodalNumeric<T>& n) { n.assemble(s); });
        if (a.is_null()) return full();
        release_children(s);
        P.blocks_count = nb;
        P.last.assign(std::size_t(nb * nb), a);
        P.ops.clear();
        for (std::int32_t k = 0; k < fb->kc; ++k) {
          P.ops.push_back({Plan::Op::Potrf, k, k, k});
          for (std::int32_t i = k + 1; i < nb; ++i) P.ops.push_back({Plan::Op::Trsm, i, k, k});
          for (std::int32_t i = k + 1; i < nb; ++i)
            for (std::int32_t j = k + 1; j <= i; ++j) P.ops.push_back({Plan::Op::Update, i, j, k});
        }
        P.op = 0;
        if (--budget <= 0) return pause();
      }
      while (P.op < std::int64_t(P.ops.size())) {
        const auto o = P.ops[P.op];
        typename Plan::Future t;
        if (o.type == Plan::Op::Potrf) {
          t = P.spawn(P.last_at(o.k, o.k), TaskPriority::High,
                      [s, fb, k = o.k](detail::SupernodalNumeric<T>& n) { n.block_potrf(s, *fb, k); });
        } else if (o.type == Plan::Op::Trsm) {
          auto [ok, dep] = P.all_of({P.last_at(o.k, o.k), P.last_at(o.i, o.k)});
          if (!ok) return full();
          t = P.spawn(dep, TaskPriority::High,
                      [s, fb, i = o.i, k = o.k](detail::SupernodalNumeric<T>& n) { n.block_trsm(s, *fb, i, k); });
        } else {
          auto [ok, dep] = P.all_of({P.last_at(o.i, o.k), P.last_at(o.j, o.k), P.last_at(o.i, o.j)});
          if (!ok) return full();
          t = P.spawn(dep, TaskPriority::Regular, [s, fb, i = o.i, j = o.j, k = o.k](detail::SupernodalNumeric<T>& n) {
            n.block_update(s, *fb, i, j, k);
          });
        }
        if (t.is_null()) return full();
        P.last_at(o.i, o.j) = t;
        ++P.op;
        if (--budget <= 0) return pause();
      }
      // The front is done when every block's last writer is.
      std::vector<typename Plan::Future> lower;
      for (std::int64_t i = 0; i < nb; ++i)
        for (std::int64_t j = 0; j <= i; ++j) lower.push_back(P.last_at(i, j));
      auto [ok, all] = P.all_of(lower);
      if (!ok) return full();
      P.done[s] = all;
      P.last.clear();
      P.op = -1;
      ++P.unit;
      if (--budget <= 0) return pause();
    }
  }
};

template <class T, class Space>
void Cholesky<T, Space>::run_tasks() {
  if (!m_sched) m_sched.emplace(typename scheduler_type::memory_space(), m_opt.task_memory_bytes);
  Plan plan;
  plan.num = &m_num;
  plan.sched = *m_sched;
  plan.window = std::max(1, m_opt.task_window);
  const std::int64_t ns = m_sym.nsuper;
  plan.done.resize(ns);
  plan.blocks.resize(ns);
  const double small = small_subtree_flops();
  for (std::int64_t s = 0; s < ns; ++s) {
    const std::int64_t p = m_sym.sparent[s];
    if (m_num.subtree_flops(s) <= small) {
      if (p == -1 || m_num.subtree_flops(p) > small) plan.units.push_back({Plan::Kind::Subtree, s});
    } else if (m_sym.nrows(s) > m_opt.max_block && m_opt.factorization == Factorization::Cholesky) {
      plan.blocks[s] = std::make_unique<detail::FrontBlocks>(m_num.blocks(s, m_opt.max_block));
      plan.units.push_back({Plan::Kind::Blocked, s});
    } else {
      plan.units.push_back({Plan::Kind::Front, s});
    }
  }
  using Future = typename Plan::Future;
  const bool fits = plan.room.template run<Future>(
      {&plan.done, &plan.last}, [&] { host_spawn(TaskSingle(*m_sched, TaskPriority::Low), Generator{&plan}); },
      [&] { wait(*m_sched); });
  if (!fits)
    m_num.record_exception("the task memory (Options::task_memory_bytes = " +
                           std::to_string(m_sched->memory().capacity()) +
                           " bytes) cannot hold one more task of the factorization: raise it");
  m_stats.tasks = plan.room.spawned;
  m_stats.generator_runs = plan.runs;
}

template <class T, class Space>
double Cholesky<T, Space>::small_subtree_flops() const {
  double total = 0;
  for (std::int64_t s = 0; s < m_sym.nsuper; ++s)
    if (m_sym.sparent[s] == -1) total += m_num.subtree_flops(s);
  return total * m_opt.subtree_fraction / double(std::max(1, threads()));
}

// The solves as one DAG: forward(s) after its children's forward,
// diagonal + backward(s) after its parent's backward (a root's after its own
// forward). Small subtrees are one task each way. Same windowing and
// pool-full handling as the factorization's generator.
template <class T, class Space>
struct Cholesky<T, Space>::SolveGenerator {
  using Future = BasicFuture<void, scheduler_type>;
  struct State {
    detail::SupernodalNumeric<T>* num;
    scheduler_type sched;
    T* x;
    std::int64_t nrhs;
    int window;
    std::vector<std::pair<std::int64_t, bool>> units;  // (supernode, whole subtree?)
    std::vector<Future> fwd, bwd;
    std::size_t next = 0;  // units.size() forward steps, then as many backward
    detail::TaskRoom room;  // pool-full handling and the end of the run
    std::mutex error_mutex;
    std::string error;
  };
  State* st;

  template <class Body>
  Future spawn(const Future& dep, Body body) {
    State* S = st;
    auto wrapped = [S, body](typename scheduler_type::member_type&) {
      try {
        body();
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(S->error_mutex);
        if (S->error.empty()) S->error = e.what();
      }
      S->room.completed.fetch_add(1, std::memory_order_release);
    };
    Future f = dep.is_null() ? Future(task_spawn(TaskSingle(S->sched, TaskPriority::Regular), wrapped))
                             : Future(task_spawn(TaskSingle(dep, TaskPriority::Regular), wrapped));
    if (!f.is_null()) ++S->room.spawned;
    return f;
  }

  void operator()(typename scheduler_type::member_type&) {
    State& S = *st;
    const SymbolicFactor& f = S.num->symbolic();
    int budget = S.window;
    // The pool is full: retry later, or stop and let the host restart the run.
    auto full = [&] {
      if (S.room.template make_room<Future>({&S.fwd, &S.bwd})) respawn(this, S.sched, TaskPriority::Low);
    };
    const std::size_t nu = S.units.size();
    while (S.next < 2 * nu) {
      if (S.next < nu) {
        const auto [s, whole] = S.units[S.next];
        Future dep;
        if (!whole) {
          std::vector<Future> deps;
          for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k)
            if (!S.fwd[f.child_list[k]].is_null()) deps.push_back(S.fwd[f.child_list[k]]);
          if (deps.size() == 1) dep = deps[0];
          else if (deps.size() > 1) {
            dep = S.sched.when_all(deps);
            if (dep.is_null()) return full();
          }
        }
        detail::SupernodalNumeric<T>* num = S.num;
        T* x = S.x;
        const std::int64_t nrhs = S.nrhs;
        const std::int64_t first = whole ? num->subtree_first(s) : s;
        Future t = spawn(dep, [num, x, nrhs, first, s = s] {
          for (std::int64_t q = first; q <= s; ++q) num->forward(q, x, nrhs);
        });
        if (t.is_null()) return full();
        S.fwd[s] = t;
        // A child's forward future is not needed again (only roots' are,
        // by their backward step): let its task's memory go.
        if (!whole)
          for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) S.fwd[f.child_list[k]] = Future();
      } else {
        const auto [s, whole] = S.units[2 * nu - 1 - S.next];
        const std::int64_t p = f.sparent[s];
        const Future dep = p == -1 ? S.fwd[s] : S.bwd[p];
        detail::SupernodalNumeric<T>* num = S.num;
        T* x = S.x;
        const std::int64_t nrhs = S.nrhs;
        const std::int64_t first = whole ? num->subtree_first(s) : s;
        Future t = spawn(dep, [num, x, nrhs, first, s = s] {
          for (std::int64_t q = s; q >= first; --q) {
            num->diagonal(q, x, nrhs);
            num->backward(q, x, nrhs);
          }
        });
        if (t.is_null()) return full();
        S.bwd[s] = t;
      }
      ++S.next;
      if (--budget <= 0) return respawn(this, S.sched, TaskPriority::Low);
    }
  }
};

template <class T, class Space>
void Cholesky<T, Space>::solve_tasks(T* xp, std::int64_t nrhs) {
  if (!m_sched) m_sched.emplace(typename scheduler_type::memory_space(), m_opt.task_memory_bytes);
  typename SolveGenerator::State st;
  st.num = &m_num;
  st.sched = *m_sched;
  st.x = xp;
  st.nrhs = nrhs;
  st.window = std::max(1, m_opt.task_window);
  const double small = small_subtree_flops();
  for (std::int64_t s = 0; s < m_sym.nsuper; ++s) {
    const std::int64_t p = m_sym.sparent[s];
    if (m_num.subtree_flops(s) <= small) {
      if (p == -1 || m_num.subtree_flops(p) > small) st.units.push_back({s, true});
    } else {
      st.units.push_back({s, false});
    }
  }
  st.fwd.resize(m_sym.nsuper);
  st.bwd.resize(m_sym.nsuper);
  using Future = typename SolveGenerator::Future;
  if (!st.room.template run<Future>(
          {&st.fwd, &st.bwd}, [&] { host_spawn(TaskSingle(*m_sched, TaskPriority::Low), SolveGenerator{&st}); },
          [&] { wait(*m_sched); }))
    st.error = "the task memory (Options::task_memory_bytes = " + std::to_string(m_sched->memory().capacity()) +
               " bytes) cannot hold one more task of the solve: raise it";
  if (!st.error.empty()) throw sparse_error("solve failed: " + st.error);
}

template <class T, class Space>
void Cholesky<T, Space>::solve_levels(T* xp, std::int64_t nrhs) {
  for (const auto& level : m_levels) for_level(level, [&](std::int64_t s) { m_num.forward(s, xp, nrhs); });
  if (m_opt.factorization == Factorization::LDLt)
    parallel_for("sparse::diagonal", RangePolicy<Space>(0, m_sym.nsuper),
                 [&](std::int64_t s) { m_num.diagonal(s, xp, nrhs); });
  for (auto level = m_levels.rbegin(); level != m_levels.rend(); ++level)
    for_level(*level, [&](std::int64_t s) { m_num.backward(s, xp, nrhs); });
}

template <class T, class Space>
void Cholesky<T, Space>::run_levels() {
  detail::SupernodalNumeric<T>& num = m_num;
  auto guarded = [&num](auto&& body) {
    if (num.failed()) return;
    try {
      body();
    } catch (const std::exception& e) {
      num.record_exception(e.what());
    }
  };
  std::vector<std::int64_t> whole, blocked;
  for (const auto& level : m_levels) {
    whole.clear();
    blocked.clear();
    for (std::int64_t s : level)
      (m_sym.nrows(s) > m_opt.max_block && m_opt.factorization == Factorization::Cholesky ? blocked : whole).push_back(s);
    for_level(whole, [&](std::int64_t s) {
      guarded([&] {
        num.assemble(s);
        num.factor_front(s);
      });
    });
    for (std::int64_t s : blocked) {
      guarded([&] { num.assemble(s); });
      const detail::FrontBlocks fb = num.blocks(s, m_opt.max_block);
      const std::int64_t nb = fb.count();
      for (std::int64_t k = 0; k < fb.kc && !num.failed(); ++k) {
        guarded([&] { num.block_potrf(s, fb, k); });
        parallel_for("sparse::levelset_trsm", RangePolicy<Space>(k + 1, nb),
                     [&](std::int64_t i) { guarded([&] { num.block_trsm(s, fb, i, k); }); });
        // The trailing blocks (i, j), k < j <= i < nb, numbered row by row.
        const std::int64_t m = nb - k - 1;
        parallel_for("sparse::levelset_update", RangePolicy<Space>(0, m * (m + 1) / 2), [&](std::int64_t q) {
          std::int64_t i = 0;
          while ((i + 1) * (i + 2) / 2 <= q) ++i;
          const std::int64_t j = q - i * (i + 1) / 2;
          guarded([&] { num.block_update(s, fb, k + 1 + i, k + 1 + j, k); });
        });
      }
    }
    if (num.failed()) break;
  }
}

template <class T, class Space>
void Cholesky<T, Space>::solve_with_factor(const T* b, T* x, std::int64_t nrhs) {
  const std::int64_t n = m_sym.n;
  // The solve's tasks call BLAS from every worker: one BLAS thread each.
  detail::BlasSingleThreaded one_blas_thread;
  // b is read whole before x is written: x may be b.
  std::vector<T> xp(std::size_t(n * nrhs));
  for (std::int64_t c = 0; c < nrhs; ++c)
    for (std::int64_t k = 0; k < n; ++k) xp[k + c * n] = b[m_sym.perm[k] + c * n];
  m_num.begin_solve(nrhs);
  if (m_opt.scheduler == Scheduler::Tasks) solve_tasks(xp.data(), nrhs);
  else solve_levels(xp.data(), nrhs);
  m_num.end_solve();
  for (std::int64_t c = 0; c < nrhs; ++c)
    for (std::int64_t k = 0; k < n; ++k) x[m_sym.perm[k] + c * n] = xp[k + c * n];
}

template <class T, class Space>
void Cholesky<T, Space>::solve(T* x, const T* b, std::int64_t nrhs) {
  if (!m_factorized) throw sparse_error("solve: no successful factorize() before it");
  if (nrhs < 0) throw sparse_error("solve: negative number of right-hand sides");
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t n = m_sym.n;
  detail::BlasSingleThreaded one_blas_thread;
  m_stats.refinement_steps_taken = 0;
  m_stats.backward_error = -1;
  if (m_opt.refinement_steps <= 0) {
    solve_with_factor(b, x, nrhs);
  } else {
    std::vector<T> copy;  // refinement needs b after x has overwritten it
    if (x == b) copy.assign(b, b + n * nrhs);
    const T* rhs = x == b ? copy.data() : b;
    solve_with_factor(rhs, x, nrhs);
    const auto r = detail::refine<Space>(m_A, norm_a(), rhs, x, nrhs, m_opt.refinement_steps,
                                         [&](const T* res, T* d) { solve_with_factor(res, d, nrhs); });
    m_stats.refinement_steps_taken = r.steps;
    m_stats.backward_error = r.backward_error;
  }
  m_stats.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace tessera::sparse

// The level-set driver: Cholesky<T, Cuda>, and the host tests' way into the
// code path the GPU runs.
#include <tessera/sparse/detail/level_cholesky.hpp>
