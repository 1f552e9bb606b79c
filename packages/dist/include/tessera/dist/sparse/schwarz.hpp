#pragma once
// AdditiveSchwarz<T, Space>: the one-level domain-decomposition
// preconditioner of the distributed PCG, each rank's subdomain solved by the
// node-level sparse package.
//
//   overlap 0 (block Jacobi): M^-1 r = A_rr^-1 r_r on each rank r, A_rr the
//       diagonal block of its owned rows (DistCrsMatrix::diagonal_block,
//       factorized where the matrix stores it: no copy); no communication
//       in apply().
//   overlap 1 (additive Schwarz): each subdomain grows by one layer, the
//       rank's ghosts (the rows its rows couple to). Its matrix A_E is A on
//       owned + ghost rows and columns (the ghost rows are fetched once,
//       from their owners); apply() imports r's ghost entries through the
//       matrix's halo plan, solves A_E w = r_E, and sends the ghost part of
//       w back to its owners, who add it: M^-1 = sum_r R_r^T A_E^-1 R_r,
//       symmetric positive definite, as CG needs.
//
// The local solver is tessera::sparse::Cholesky (complete, supernodal, on
// the task DAG of Space) or IncompleteCholesky IC(k). A factorization that
// fails on any rank (a block that is not positive definite, an IC(k)
// breakdown, which can happen on an SPD block that is not an M-matrix) is a
// dist_error on EVERY rank naming the lowest failing rank, its rows and the
// global column of the bad pivot; no rank is left waiting.
#include <tessera/core.hpp>
#include <tessera/dist/sparse/dist_crs_matrix.hpp>
#include <tessera/sparse/cholesky.hpp>
#include <tessera/sparse/incomplete.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tessera::dist {

enum class LocalSolver { Cholesky, IncompleteCholesky };

struct SchwarzOptions {
  int overlap = 0;                                 // 0: block Jacobi, 1: one layer of neighbour rows
  LocalSolver local = LocalSolver::Cholesky;
  sparse::Options cholesky{};                      // ordering, scheduler, ... of the complete factorization
  sparse::IncompleteOptions incomplete{};          // level k, ordering, shift of IC(k)
};

template <class T, class Space = DefaultHostExecutionSpace>
class AdditiveSchwarz {
 public:
  explicit AdditiveSchwarz(SchwarzOptions opt = {}) : m_opt(opt) {
    if (m_opt.overlap != 0 && m_opt.overlap != 1)
      throw dist_error("tessera::dist::AdditiveSchwarz: overlap must be 0 or 1, got " + std::to_string(m_opt.overlap));
  }

  // Collective: builds and factorizes every rank's subdomain matrix. A is
  // kept by reference (its halo plan serves apply()) and must outlive this.
  void setup(const DistCrsMatrix<T>& A);

  // z = M^-1 r on the owned entries (num_owned() each). Collective when
  // overlap = 1 (a halo exchange each way, counted in A.halo_volume()).
  void apply(const T* r, T* z) const;

  const SchwarzOptions& options() const noexcept { return m_opt; }
  // This rank's subdomain: its order and nonzeros, and the factorization's seconds.
  std::int64_t local_rows() const noexcept { return m_block.num_rows(); }
  std::int64_t local_nnz() const noexcept { return m_block.nnz(); }
  double factorize_seconds() const noexcept { return m_factorize_seconds; }
  // The subdomain's matrix (local numbering: owned rows, then ghosts).
  const sparse::CrsMatrix<T>& block() const noexcept { return m_block; }

 private:
  sparse::CrsMatrix<T> overlapped_block(const DistCrsMatrix<T>& A) const;
  void factorize_block(const DistCrsMatrix<T>& A);
  std::string describe_failure(const DistCrsMatrix<T>& A, const sparse::factorization_error& e) const;

  SchwarzOptions m_opt;
  const DistCrsMatrix<T>* m_A = nullptr;
  sparse::CrsMatrix<T> m_block;
  std::unique_ptr<sparse::Cholesky<T, Space>> m_chol;
  std::unique_ptr<sparse::IncompleteCholesky<T, Space>> m_ic;
  double m_factorize_seconds = 0;
  mutable std::vector<T> m_rhs, m_sol, m_packed;
};

// ---------------------------------------------------------------------------

template <class T, class Space>
void AdditiveSchwarz<T, Space>::setup(const DistCrsMatrix<T>& A) {
  m_A = &A;
  m_chol.reset();
  m_ic.reset();
  m_block = m_opt.overlap == 0 ? A.diagonal_block() : overlapped_block(A);
  const std::int64_t m = m_block.num_rows();
  // Work vectors of apply() with overlap (block Jacobi solves from r into z).
  m_rhs.assign(m_opt.overlap == 1 ? std::size_t(m) : 0, T(0));
  m_sol.assign(m_opt.overlap == 1 ? std::size_t(m) : 0, T(0));
  m_packed.assign(m_opt.overlap == 1 ? std::size_t(A.halo().num_sends()) : 0, T(0));
  const double t0 = MPI_Wtime();
  A.comm().agreed([&] { factorize_block(A); });
  m_factorize_seconds = MPI_Wtime() - t0;
}

template <class T, class Space>
void AdditiveSchwarz<T, Space>::factorize_block(const DistCrsMatrix<T>& A) {
  if (m_block.num_rows() == 0) return;  // a rank without rows has nothing to solve
  try {
    if (m_opt.local == LocalSolver::Cholesky) {
      m_chol = std::make_unique<sparse::Cholesky<T, Space>>(m_opt.cholesky);
      m_chol->analyze(m_block);
      m_chol->factorize(m_block);
    } else {
      m_ic = std::make_unique<sparse::IncompleteCholesky<T, Space>>(m_opt.incomplete);
      m_ic->factorize(m_block);
    }
  } catch (const sparse::factorization_error& e) {
    throw dist_error(describe_failure(A, e));
  }
}

template <class T, class Space>
std::string AdditiveSchwarz<T, Space>::describe_failure(const DistCrsMatrix<T>& A,
                                                        const sparse::factorization_error& e) const {
  // The node-level message counts columns in the block's numbering; name
  // the global column instead, 1-based as Matrix Market files count.
  const std::int64_t global = A.global_column(std::int32_t(e.column()));
  const std::string solver = m_opt.local == LocalSolver::Cholesky
                                 ? std::string("Cholesky")
                                 : "IC(" + std::to_string(m_opt.incomplete.level) + ")";
  std::string what = m_opt.overlap == 0 ? "the diagonal block of rows " : "the overlapped block of rows ";
  what += std::to_string(A.row_begin() + 1) + ".." + std::to_string(A.row_end());
  if (m_opt.overlap == 1) what += " and " + std::to_string(A.num_ghosts()) + " ghost rows";
  const std::string pivot = solver + " pivot of global column " + std::to_string(global + 1) + " is " +
                            std::to_string(e.value()) + " (1-based)";
  if (m_opt.local == LocalSolver::Cholesky) return A.origin() + ": " + what + " is not positive definite: " + pivot;
  // An incomplete factorization can break down on a positive definite block.
  return A.origin() + ": incomplete Cholesky broke down on " + what + ": " + pivot +
         " (set SchwarzOptions::incomplete.diagonal_shift, a higher level, or the Cholesky local solver)";
}

template <class T, class Space>
sparse::CrsMatrix<T> AdditiveSchwarz<T, Space>::overlapped_block(const DistCrsMatrix<T>& A) const {
  const Comm& comm = A.comm();
  const HaloPlan& plan = A.halo();
  const int P = comm.size();
  const std::int64_t nloc = A.num_owned(), first = A.row_begin();
  // Owners send each neighbour the rows it holds as ghosts, in its ghost
  // order (the plan's send order): per row its length, then its global
  // columns and values.
  std::vector<std::int64_t> lengths, cols, len_off(std::size_t(P) + 1, 0), ent_off(std::size_t(P) + 1, 0);
  std::vector<T> vals;
  for (std::size_t k = 0; k < plan.send_ranks().size(); ++k) {
    const int q = plan.send_ranks()[k];
    for (auto s = plan.send_offsets()[k]; s < plan.send_offsets()[k + 1]; ++s) {
      const std::int32_t i = plan.send_indices()[std::size_t(s)];
      lengths.push_back(A.row_length(i));
      A.for_each_entry(i, [&](std::int32_t c, T value) {
        cols.push_back(A.global_column(c));
        vals.push_back(value);
      });
    }
    len_off[std::size_t(q) + 1] = std::int64_t(lengths.size());
    ent_off[std::size_t(q) + 1] = std::int64_t(cols.size());
  }
  for (int q = 0; q < P; ++q) {  // ranks without a message keep the running offset
    len_off[std::size_t(q) + 1] = std::max(len_off[std::size_t(q) + 1], len_off[std::size_t(q)]);
    ent_off[std::size_t(q) + 1] = std::max(ent_off[std::size_t(q) + 1], ent_off[std::size_t(q)]);
  }
  const auto ghost_lengths = comm.alltoallv(lengths, len_off);
  const auto ghost_cols = comm.alltoallv(cols, ent_off);
  const auto ghost_vals = comm.alltoallv(vals, ent_off);
  // Owned rows as they are (their columns are all owned or ghosts), then the
  // ghost rows restricted to owned + ghost columns.
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  for (std::int64_t i = 0; i < nloc; ++i)
    A.for_each_entry(i, [&](std::int32_t column, T value) {
      r.push_back(i);
      c.push_back(column);
      v.push_back(value);
    });
  const auto& ghosts = A.ghosts();
  std::size_t e = 0;
  for (std::size_t g = 0; g < ghost_lengths.size(); ++g)
    for (std::int64_t k = 0; k < ghost_lengths[g]; ++k, ++e) {
      const std::int64_t j = ghost_cols[e];
      std::int64_t local = -1;
      if (j >= first && j < first + nloc) {
        local = j - first;
      } else {
        const auto at = std::lower_bound(ghosts.begin(), ghosts.end(), j);
        if (at != ghosts.end() && *at == j) local = nloc + (at - ghosts.begin());
      }
      if (local < 0) continue;  // outside the overlapped subdomain
      r.push_back(nloc + std::int64_t(g));
      c.push_back(local);
      v.push_back(ghost_vals[e]);
    }
  return sparse::CrsMatrix<T>::from_triplets(nloc + A.num_ghosts(), r, c, v, sparse::Storage::Full,
                                             A.origin() + " (overlapped block of rank " + std::to_string(comm.rank()) + ")");
}

template <class T, class Space>
void AdditiveSchwarz<T, Space>::apply(const T* r, T* z) const {
  if (m_A == nullptr) throw dist_error("tessera::dist::AdditiveSchwarz::apply: setup() was not called");
  const DistCrsMatrix<T>& A = *m_A;
  const std::int64_t nloc = A.num_owned(), m = m_block.num_rows();
  const HaloPlan& plan = A.halo();
  if (m_opt.overlap == 1) {
    // r's ghost entries from their owners.
    const std::int32_t* idx = plan.send_indices().data();
    for (std::int64_t k = 0; k < plan.num_sends(); ++k) m_packed[std::size_t(k)] = r[idx[k]];
    plan.start(A.comm(), m_packed.data(), m_rhs.data() + nloc, A.halo_volume());
    std::copy(r, r + nloc, m_rhs.data());
    plan.finish(A.halo_volume());
  } else {
    // Block Jacobi: the block is the owned rows, so the local solve reads r
    // and writes z in place of the two copies through m_rhs and m_sol.
    if (m > 0) {
      if (m_chol) m_chol->solve(z, r, 1);
      else m_ic->apply(r, z);
    }
    return;
  }
  if (m > 0) {
    if (m_chol) m_chol->solve(m_sol.data(), m_rhs.data(), 1);
    else m_ic->apply(m_rhs.data(), m_sol.data());
  }
  std::copy(m_sol.data(), m_sol.data() + nloc, z);
  if (m_opt.overlap == 1) {
    // The ghost part of the local solution goes back to the owners, who add it.
    plan.start_reverse(A.comm(), m_sol.data() + nloc, m_packed.data(), A.halo_volume());
    plan.finish(A.halo_volume());
    const std::int32_t* idx = plan.send_indices().data();
    for (std::int64_t k = 0; k < plan.num_sends(); ++k) z[idx[k]] += m_packed[std::size_t(k)];  // indices repeat across neighbours
  }
}

}  // namespace tessera::dist
