#pragma once
// The numeric work of a supernodal (multifrontal) factorization, one
// supernode or one 2D block at a time, with no scheduling: the task DAG and
// the level-set scheduler (cholesky.hpp) decide what runs when and call
// these. Supernode s owns a dense front
//     F = [ F11   .  ]   F11: ncols x ncols, F21: (nrows - ncols) x ncols,
//         [ F21  F22 ]   both stored in s's panel of the factor (column-major);
//                        F22, the update matrix, is a temporary buffer that
//                        s's parent adds into its own front (extend-add)
//                        and then frees.
// Large fronts are cut into square blocks of at most max_block rows and
// columns ("2D blocks"); every block is a view (pointer + leading dimension)
// into the panel or the update buffer, never a copy.
//
// LDL^T (src/supernodal_ldlt.cpp) pivots with a threshold test against the
// whole column (detail/threshold_ldlt.hpp) and passes the columns that fail
// it to the parent front (delayed pivots). The front of s then has
// nfs = ncols(s) + nd fully-summed rows and columns, nd the columns its
// children delayed, in the order
//     [ s's own columns | the delayed columns, child by child | the rows below ]
// and its panel is (nfs + rows below) x nfs. Fronts that receive no delayed
// column keep the panel the symbolic analysis sized; the others get one of
// their own, allocated by the task that assembles them (LdltFront::grown),
// so memory follows the delays actually met, with no headroom to guess and
// no limit to exceed. The delayed columns stay in the child's panel (the
// columns [npiv, nfs)) until the parent has assembled them.
//
// The scalar T is double (symmetric A: L L^T, L D L^T) or
// std::complex<double> (Hermitian A: L L^H, L D L^H, with D real on its
// 1x1 pivots and Hermitian on its 2x2 blocks); the code is written once
// (detail/scalar.hpp) and instantiated for both in src/supernodal_numeric.cpp
// and src/supernodal_ldlt.cpp, so that a translation unit using the solver
// compiles none of it.
#include <tessera/sparse/cholesky_options.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/buffer_pool.hpp>
#include <tessera/sparse/detail/dense_kernels.hpp>
#include <tessera/sparse/detail/host_array.hpp>
#include <tessera/sparse/detail/hermitian_pivot_2x2.hpp>
#include <tessera/sparse/detail/threshold_ldlt.hpp>
#include <tessera/sparse/symbolic.hpp>

#include <atomic>
#include <complex>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::sparse {

namespace detail {

// The 2D blocks of one front: block row/column b spans
// [bounds[b], bounds[b + 1]); blocks with column index < kc lie in the
// panel, the others in the update buffer.
struct FrontBlocks {
  std::vector<std::int64_t> bounds;
  std::int64_t kc = 0;
  std::int64_t count() const { return std::int64_t(bounds.size()) - 1; }
};

// LDL^T pivoting: the threshold u and static pivoting (see
// Options::pivot_threshold, Options::static_pivot).
struct LdltControls {
  double threshold = 0.01;
  double static_pivot = 0;
};

template <class T>
class SupernodalNumeric {
 public:
  using value_type = T;

  SupernodalNumeric() = default;
  ~SupernodalNumeric() { release_all_updates(); }
  SupernodalNumeric(const SupernodalNumeric&) = delete;
  SupernodalNumeric& operator=(const SupernodalNumeric&) = delete;
  // Precomputes where each entry of A lands in the panels (pattern only).
  void analyze(const SymbolicFactor& sym, const std::int64_t* row_map, const std::int32_t* col_idx, Factorization kind);

  // Starts a factorization of A's values (same pattern as analyzed). The
  // values must stay alive until the factorization ends.
  void begin(const T* a_values, double pivot_tolerance, const LdltControls& ldlt = {});

  // Supernode level: assemble = zero the panel, scatter A's entries, add the
  // children's update matrices, free them; factor_front = the dense
  // factorization of the whole front (Cholesky: potrf, trsm, syrk; LDLt:
  // threshold_ldlt on the front, delaying the columns that fail).
  void assemble(std::int64_t s);
  void factor_front(std::int64_t s);
  // Every supernode of the subtree rooted at `root`, in postorder (a
  // contiguous range of supernodes ending at root).
  void factor_subtree(std::int64_t root);
  std::int64_t subtree_first(std::int64_t s) const { return m_first_desc[s]; }

  // Block level (Cholesky only): the blocks of s's front and the three
  // block kernels of a right-looking blocked Cholesky over them.
  FrontBlocks blocks(std::int64_t s, std::int64_t max_block) const;
  void block_potrf(std::int64_t s, const FrontBlocks& b, std::int64_t k);
  void block_trsm(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t k);
  void block_update(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t j, std::int64_t k);
  // Flops of the front of s (for task granularity).
  double front_flops(std::int64_t s) const;
  double subtree_flops(std::int64_t s) const { return m_subtree_flops[s]; }

  // Failure state of the current factorization: the first failing pivot
  // (column in the final order, its value: real for either scalar, a
  // Cholesky pivot of a Hermitian matrix being real) or an exception's message.
  bool failed() const { return m_failed.load(std::memory_order_relaxed); }
  void record_pivot_failure(std::int64_t column, double value, bool singular);
  void record_exception(const std::string& what);
  // Throws factorization_error (or sparse_error) describing the failure, if any.
  void throw_if_failed() const;

  // LDL^T: what the pivoting did in the last factorization.
  struct LdltSummary {
    std::int64_t delayed_pivots = 0;    // columns passed to a parent (a column passed twice counts twice)
    std::int64_t delayed_fronts = 0;    // fronts that received delayed columns
    std::int64_t max_front_growth = 0;  // the most delayed columns one front received
    std::int64_t max_front_rows = 0;    // the largest front, delayed rows included
    double factor_entries = 0;          // entries stored in the panels' lower trapezoids, delays included
    std::int64_t static_pivots = 0;     // zero pivots replaced by static pivoting
    std::int64_t two_by_two = 0;        // 2x2 pivots
  };
  LdltSummary ldlt_summary() const;

  // Solves with the factor, x holding nrhs columns of length n (ld n), in the
  // final order. forward: x := L^-1 x (LDLt: L^-1 P^T); diagonal: x := D^-1 x
  // (LDLt only); backward: x := L^-T x (LDLt: P L^-T). The forward step of s
  // adds its children's contributions (kept in per-supernode buffers by
  // begin_solve) so that supernodes in different subtrees never write the
  // same rows.
  void begin_solve(std::int64_t nrhs);
  void forward(std::int64_t s, T* x, std::int64_t nrhs);
  void diagonal(std::int64_t s, T* x, std::int64_t nrhs) const;
  void backward(std::int64_t s, T* x, std::int64_t nrhs) const;
  void end_solve();

  // The inertia of the factored matrix: counts of positive, negative and
  // zero eigenvalues of D (LDLt; = of A, by Sylvester's law), all positive
  // for Cholesky.
  void inertia(std::int64_t& positive, std::int64_t& negative, std::int64_t& zero) const;
  // det(A) = sign * exp(log_abs), from L's diagonal (Cholesky) or D's 1x1
  // and 2x2 blocks (LDLt); sign 0 and log_abs = -inf for a zero pivot. The
  // determinant of a Hermitian matrix is real: the same two numbers.
  void log_determinant(int& sign, double& log_abs) const;

  const SymbolicFactor& symbolic() const { return *m_sym; }
  Factorization kind() const { return m_kind; }
  std::size_t peak_update_bytes() const { return m_peak_update.load(); }
  // The most memory the last factorization held at once: the panels,
  // LDL^T's grown panels (kept and only grown from one factorization to the
  // next, so their total at the end is their most), and the update buffers
  // live or kept for the next factorization (the arena's touched part and
  // the live small buffers at their peak: see detail/buffer_pool.hpp).
  // Exact for Cholesky; for LDL^T a bound that counts every grown panel
  // from the start.
  std::size_t peak_factor_bytes() const;
  const BufferPool& update_pool() const { return m_buffers; }
  // The panels, uninitialized until a factorization assembles them.
  const T* values() const { return m_lx.get(); }
  std::size_t values_size() const { return m_lx_size; }

 private:
  T* panel(std::int64_t s) { return m_lx.get() + m_sym->lx_ptr[s]; }
  const T* panel(std::int64_t s) const { return m_lx.get() + m_sym->lx_ptr[s]; }
  Block<T> block_at(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t j);
  void check_pivots(std::int64_t s, std::int64_t c0, std::int64_t count);
  // Forward solve: the children's contributions L21 y (their solve
  // buffers, freed here) subtracted from s's own entries of x; those for
  // s's rows below are summed into the returned mu x nrhs buffer (null
  // when mu = 0), which s adds its own to and passes to its parent.
  std::unique_ptr<T[]> gather_children(std::int64_t s, T* x, std::int64_t nrhs);
  // LDL^T (src/supernodal_ldlt.cpp).
  void assemble_ldlt(std::int64_t s);
  void factor_front_ldlt(std::int64_t s);
  void forward_ldlt(std::int64_t s, T* x, std::int64_t nrhs);
  void diagonal_ldlt(std::int64_t s, T* x, std::int64_t nrhs) const;
  void backward_ldlt(std::int64_t s, T* x, std::int64_t nrhs) const;
  // Calls one(d) for each 1x1 pivot (Cholesky: each L(j, j); real) and
  // two(PivotBlock<T>) for each 2x2 block of D, in column order.
  template <class One, class Two>
  void for_each_pivot(One one, Two two) const;
  // s's update matrix (mu x mu, zeroed: the lower triangle, or all of it),
  // from the pool, with the peak accounted.
  T* acquire_update(std::int64_t s, bool whole);
  void release_update(std::int64_t s);
  void release_all_updates();
  std::size_t update_count(std::int64_t s) const {
    const std::int64_t mu = m_sym->nrows(s) - m_sym->ncols(s);
    return std::size_t(mu * mu);
  }

  const SymbolicFactor* m_sym = nullptr;
  Factorization m_kind = Factorization::Cholesky;
  // A's entries grouped by supernode: (position in A's values, offset in the panel).
  std::vector<std::int64_t> m_a_ptr;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_a_map;
  std::vector<double> m_a_diag_scale;  // |a_jj| in the final order, for the pivot tolerance
  std::vector<std::int64_t> m_first_desc;
  std::vector<double> m_subtree_flops;

  const T* m_a = nullptr;
  double m_tol = 0;
  // Allocated without touching it: each panel is first written by the
  // thread that assembles it (first touch, no serial zeroing pass).
  host_array<T> m_lx;  // the factor: panels of all supernodes
  std::size_t m_lx_size = 0;
  // Update matrices (F22) of the supernodes whose parent has not consumed
  // them yet, from m_buffers.
  std::vector<T*> m_update;
  std::vector<std::size_t> m_update_size;  // the count each was acquired with
  BufferPool m_buffers;  // doubles: complex buffers through detail/typed_buffer.hpp
  std::atomic<std::size_t> m_update_bytes{0}, m_peak_update{0};
  // LDLt: each front as factorized (see the layout above).
  struct LdltFront {
    std::int64_t nd = 0;    // delayed columns received from the children
    std::int64_t nfs = 0;   // fully-summed columns: ncols + nd
    std::int64_t ld = 0;    // rows of the front: nfs + the rows below
    T* panel = nullptr;  // ld x nfs; columns [npiv, nfs) are the delayed ones
    std::unique_ptr<T[]> grown;  // the panel when nd > 0
    std::size_t grown_size = 0;
    std::vector<std::int64_t> vars;  // the fully-summed variables (final order), in pivot order
    FrontPivots<T> piv;              // npiv, the 2x2 blocks, zero pivots
  };
  std::vector<LdltFront> m_ldlt;
  LdltControls m_ldlt_controls;
  double m_a_max = 0;  // max |a_ij|: the scale of a zero pivot
  // Zero pivots (root fronts of a matrix singular to working precision):
  // columns in the final order.
  std::vector<std::int64_t> m_zero_pivots;

  std::vector<std::unique_ptr<T[]>> m_solve_buf;
  std::int64_t m_nrhs = 0;

  mutable std::mutex m_fail_mutex;
  std::atomic<bool> m_failed{false};
  std::int64_t m_fail_column = -1;
  double m_fail_value = 0;
  bool m_fail_singular = false;
  std::string m_fail_message;
};

// Compiled once, in src/supernodal_numeric.cpp and src/supernodal_ldlt.cpp.
extern template class SupernodalNumeric<double>;
extern template class SupernodalNumeric<std::complex<double>>;

}  // namespace detail

}  // namespace tessera::sparse
