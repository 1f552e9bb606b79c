#pragma once
// DistCrsMatrix<T>: a square sparse matrix distributed by rows over the ranks
// of a Comm. Rank r owns the contiguous rows [row_begin, row_end) of a
// Partition (balanced by nonzeros, not rows). Its columns are numbered
// LOCALLY:
//
//   0 .. num_owned()-1                       owned columns (the diagonal block)
//   num_owned() .. num_owned()+num_ghosts()-1 ghost columns, owned elsewhere,
//                                             in increasing global index
//
// so that x_local = [x_owned | x_ghosts] is what a row multiplies. The rows
// are stored in two blocks, as PETSc's MPIAIJ does:
//
//   diagonal_block()   owned rows x owned columns, a node-level
//                      sparse::CrsMatrix in local numbering: what block
//                      Jacobi factorizes, in place (no copy per setup);
//   off-diagonal       owned rows x ghost columns, compressed rows of ghost
//                      numbers 0 .. num_ghosts()-1 (increasing, hence in
//                      increasing global column).
//
// Row i in increasing GLOBAL column (the node-level matrix's order, in which
// products sum so that they agree with it to rounding) is: its ghosts
// numbered below ghosts_before() (global columns left of the owned range),
// its diagonal-block entries, its other ghosts; for_each_entry walks it so.
// The rows are split into interior rows (no ghost column: computable before
// the halo arrives) and boundary rows. The HaloPlan says which owned entries
// go to which rank.
//
// Building it (all collective over comm):
//   DistCrsMatrix<double>::from_local_rows(comm, rows, row_map, global_cols, values)   each rank its rows
//   DistCrsMatrix<double>::scatter(comm, A_on_rank0)                                   node-level matrix on rank 0
//   make_dist_matrix<double>(comm, "lap3d:60")                                         (generators.hpp)
#include <tessera/dist/comm.hpp>
#include <tessera/dist/partition.hpp>
#include <tessera/dist/sparse/halo_plan.hpp>
#include <tessera/sparse/crs_matrix.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace tessera::dist {

template <class T>
class DistCrsMatrix {
 public:
  using value_type = T;

  DistCrsMatrix() = default;

  // Collective. This rank's rows rows.begin(rank) .. rows.end(rank)-1, as
  // compressed rows with GLOBAL column indices: row i's entries are
  // [row_map[i], row_map[i+1]) of global_cols / values, in any order
  // (sorted here). A bad entry (column outside the matrix, a repeated
  // column, a wrong row count) is a dist_error on every rank naming the
  // global row and column.
  static DistCrsMatrix from_local_rows(const Comm& comm, const Partition& rows, std::vector<std::int64_t> row_map,
                                       std::vector<std::int64_t> global_cols, std::vector<T> values,
                                       std::string origin = {});

  // Collective. Rank `root` holds the node-level matrix A (other ranks pass
  // nullptr); its rows are sent to their owners. rows: the partition to use,
  // or nullptr for the one balanced by A's nonzeros.
  static DistCrsMatrix scatter(const Comm& comm, const sparse::CrsMatrix<T>* A, const Partition* rows = nullptr,
                               int root = 0);

  const Comm& comm() const noexcept { return m_comm; }
  const Partition& partition() const noexcept { return m_rows; }
  const std::string& origin() const noexcept { return m_origin; }
  std::int64_t num_rows() const noexcept { return m_rows.size(); }  // global order n
  std::int64_t row_begin() const noexcept { return m_rows.begin(m_comm.rank()); }
  std::int64_t row_end() const noexcept { return m_rows.end(m_comm.rank()); }
  std::int64_t num_owned() const noexcept { return row_end() - row_begin(); }
  std::int64_t num_ghosts() const noexcept { return std::int64_t(m_ghosts.size()); }
  std::int64_t local_nnz() const noexcept { return m_diag.nnz() + std::int64_t(m_off_values.size()); }
  std::int64_t global_nnz() const noexcept { return m_global_nnz; }

  // The diagonal block: the owned rows and owned columns, as a node-level
  // matrix in local numbering (what block Jacobi factorizes). A reference to
  // the stored block; a copy of it shares its arrays.
  const sparse::CrsMatrix<T>& diagonal_block() const noexcept { return m_diag; }
  // The off-diagonal block's compressed rows: row i's entries are
  // [off_diagonal_row_map()[i], off_diagonal_row_map()[i + 1]) of
  // off_diagonal_ghosts() (ghost numbers, increasing in a row) and
  // off_diagonal_values().
  const std::vector<std::int64_t>& off_diagonal_row_map() const noexcept { return m_off_row_map; }
  const std::vector<std::int32_t>& off_diagonal_ghosts() const noexcept { return m_off_ghost; }
  const std::vector<T>& off_diagonal_values() const noexcept { return m_off_values; }
  // Ghosts numbered below this have global indices below row_begin().
  std::int32_t ghosts_before() const noexcept { return m_ghosts_before; }

  // Entries of local row i (both blocks).
  std::int64_t row_length(std::int64_t i) const noexcept {
    return m_diag.row_map()[i + 1] - m_diag.row_map()[i] + m_off_row_map[std::size_t(i) + 1] - m_off_row_map[std::size_t(i)];
  }
  // f(local column, value) for each entry of local row i, in increasing
  // global column.
  template <class F>
  void for_each_entry(std::int64_t i, F&& f) const {
    const std::int32_t nloc = std::int32_t(num_owned());
    std::int64_t k = m_off_row_map[std::size_t(i)];
    const std::int64_t k_end = m_off_row_map[std::size_t(i) + 1];
    for (; k < k_end && m_off_ghost[std::size_t(k)] < m_ghosts_before; ++k)
      f(std::int32_t(nloc + m_off_ghost[std::size_t(k)]), m_off_values[std::size_t(k)]);
    for (std::int64_t d = m_diag.row_map()[i]; d < m_diag.row_map()[i + 1]; ++d) f(m_diag.col_idx()[d], m_diag.values()[d]);
    for (; k < k_end; ++k) f(std::int32_t(nloc + m_off_ghost[std::size_t(k)]), m_off_values[std::size_t(k)]);
  }

  // Global index of ghost g (local column num_owned() + g), increasing.
  const std::vector<std::int64_t>& ghosts() const noexcept { return m_ghosts; }
  // Local rows with no ghost column, and those with at least one.
  const std::vector<std::int32_t>& interior_rows() const noexcept { return m_interior; }
  const std::vector<std::int32_t>& boundary_rows() const noexcept { return m_boundary; }
  const HaloPlan& halo() const noexcept { return m_halo; }
  // Global column of local column c.
  std::int64_t global_column(std::int32_t c) const noexcept {
    return c < num_owned() ? row_begin() + c : m_ghosts[std::size_t(c - num_owned())];
  }

  // Bytes and MPI seconds of this matrix's halo exchanges (SpMVs and
  // preconditioners using its plan); kept apart from comm().volume(), which
  // counts the collectives.
  CommVolume& halo_volume() const noexcept { return *m_halo_volume; }

  // Exchange buffers of the SpMV (one product in flight per matrix).
  std::vector<T>& send_buffer() const noexcept { return m_work->send; }
  std::vector<T>& ghost_buffer() const noexcept { return m_work->ghosts; }

 private:
  struct Work {
    std::vector<T> send, ghosts;
  };

  Comm m_comm;
  Partition m_rows;
  std::string m_origin;
  std::int64_t m_global_nnz = 0;
  sparse::CrsMatrix<T> m_diag;
  std::vector<std::int64_t> m_off_row_map{0};
  std::vector<std::int32_t> m_off_ghost;
  std::vector<T> m_off_values;
  std::int32_t m_ghosts_before = 0;
  std::vector<std::int64_t> m_ghosts;
  std::vector<std::int32_t> m_interior, m_boundary;
  HaloPlan m_halo;
  std::shared_ptr<CommVolume> m_halo_volume = std::make_shared<CommVolume>();
  std::shared_ptr<Work> m_work = std::make_shared<Work>();
};

// ---------------------------------------------------------------------------

template <class T>
DistCrsMatrix<T> DistCrsMatrix<T>::from_local_rows(const Comm& comm, const Partition& rows,
                                                   std::vector<std::int64_t> row_map,
                                                   std::vector<std::int64_t> global_cols, std::vector<T> values,
                                                   std::string origin) {
  DistCrsMatrix A;
  A.m_comm = comm;
  A.m_rows = rows;
  A.m_origin = origin.empty() ? std::string("distributed matrix") : std::move(origin);
  const std::string& where = A.m_origin;
  // Everything that can fail on one rank only is agreed on before the first
  // exchange.
  comm.agreed([&] {
    if (rows.ranks() != comm.size())
      throw dist_error(where + ": the partition has " + std::to_string(rows.ranks()) + " ranges for " +
                       std::to_string(comm.size()) + " ranks");
    if (rows.size() > std::int64_t(std::numeric_limits<std::int32_t>::max()))
      throw dist_error(where + ": order " + std::to_string(rows.size()) + " exceeds 32-bit local columns");
    const std::int64_t nloc = A.num_owned(), first = A.row_begin(), n = rows.size();
    if (std::int64_t(row_map.size()) != nloc + 1 || row_map[0] != 0)
      throw dist_error(where + ": rank " + std::to_string(comm.rank()) + " owns " + std::to_string(nloc) +
                       " rows but its row map has " + std::to_string(row_map.size()) + " entries (need rows + 1, from 0)");
    const std::int64_t nnz = row_map.back();
    if (std::int64_t(global_cols.size()) < nnz || std::int64_t(values.size()) < nnz)
      throw dist_error(where + ": rank " + std::to_string(comm.rank()) + ": columns or values shorter than the row map's " +
                       std::to_string(nnz) + " entries");
    // Sort each row by global column; refuse out-of-range and repeated columns.
    std::vector<std::pair<std::int64_t, T>> row;
    for (std::int64_t i = 0; i < nloc; ++i) {
      if (row_map[std::size_t(i) + 1] < row_map[std::size_t(i)])
        throw dist_error(where + ": row map decreases at row " + std::to_string(first + i + 1) + " (1-based)");
      row.clear();
      for (auto k = row_map[std::size_t(i)]; k < row_map[std::size_t(i) + 1]; ++k) {
        const std::int64_t j = global_cols[std::size_t(k)];
        if (j < 0 || j >= n)
          throw dist_error(where + ": row " + std::to_string(first + i + 1) + " holds column " + std::to_string(j + 1) +
                           " outside 1.." + std::to_string(n) + " (1-based)");
        row.emplace_back(j, values[std::size_t(k)]);
      }
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t a = 0; a < row.size(); ++a) {
        if (a > 0 && row[a].first == row[a - 1].first)
          throw dist_error(where + ": row " + std::to_string(first + i + 1) + " holds column " +
                           std::to_string(row[a].first + 1) + " twice (1-based)");
        const auto k = std::size_t(row_map[std::size_t(i)]) + a;
        global_cols[k] = row[a].first;
        values[k] = row[a].second;
      }
    }
    // Ghosts: the off-range columns, sorted and unique.
    std::vector<std::int64_t> ghosts;
    for (std::int64_t k = 0; k < nnz; ++k) {
      const std::int64_t j = global_cols[std::size_t(k)];
      if (j < first || j >= first + nloc) ghosts.push_back(j);
    }
    const std::int64_t nnz_off = std::int64_t(ghosts.size());  // one per off-range entry, before the dedup
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    A.m_ghosts = std::move(ghosts);
    A.m_ghosts_before =
        std::int32_t(std::lower_bound(A.m_ghosts.begin(), A.m_ghosts.end(), first) - A.m_ghosts.begin());
    // Split each row into its owned columns (the diagonal block) and its
    // ghosts (the off-diagonal block); both keep the row's global order.
    using M = sparse::CrsMatrix<T>;
    const std::int64_t nnz_diag = nnz - nnz_off;
    typename M::row_map_view rm("dist::diagonal_row_map", nloc + 1);
    typename M::index_view ci("dist::diagonal_col_idx", nnz_diag);
    typename M::values_view va("dist::diagonal_values", nnz_diag);
    A.m_off_row_map.assign(std::size_t(nloc) + 1, 0);
    A.m_off_ghost.reserve(std::size_t(nnz_off));
    A.m_off_values.reserve(std::size_t(nnz_off));
    std::int64_t d = 0;
    for (std::int64_t i = 0; i < nloc; ++i) {
      rm(i) = d;
      for (auto k = row_map[std::size_t(i)]; k < row_map[std::size_t(i) + 1]; ++k) {
        const std::int64_t j = global_cols[std::size_t(k)];
        if (j >= first && j < first + nloc) {
          ci(d) = std::int32_t(j - first);
          va(d++) = values[std::size_t(k)];
        } else {
          const auto g = std::lower_bound(A.m_ghosts.begin(), A.m_ghosts.end(), j) - A.m_ghosts.begin();
          A.m_off_ghost.push_back(std::int32_t(g));
          A.m_off_values.push_back(values[std::size_t(k)]);
        }
      }
      A.m_off_row_map[std::size_t(i) + 1] = std::int64_t(A.m_off_ghost.size());
      const bool boundary = A.m_off_row_map[std::size_t(i) + 1] > A.m_off_row_map[std::size_t(i)];
      (boundary ? A.m_boundary : A.m_interior).push_back(std::int32_t(i));
    }
    rm(nloc) = d;
    A.m_diag = M(nloc, rm, ci, va,
                 where + " (diagonal block of rows " + std::to_string(first + 1) + ".." + std::to_string(first + nloc) + ")");
  });
  A.m_global_nnz = comm.sum(A.local_nnz());
  A.m_halo = HaloPlan(comm, rows, A.m_ghosts);
  A.m_work->send.resize(std::size_t(A.m_halo.num_sends()));
  A.m_work->ghosts.resize(std::size_t(A.num_ghosts()));
  return A;
}

template <class T>
DistCrsMatrix<T> DistCrsMatrix<T>::scatter(const Comm& comm, const sparse::CrsMatrix<T>* A, const Partition* rows,
                                           int root) {
  const int P = comm.size(), me = comm.rank();
  comm.agreed([&] {
    if (me == root && A == nullptr)
      throw dist_error("tessera::dist::DistCrsMatrix::scatter: rank " + std::to_string(root) + " holds no matrix");
  });
  const std::int64_t n = comm.broadcast<std::int64_t>(me == root ? A->num_rows() : 0, root);
  const std::string origin = comm.broadcast(me == root ? A->origin() : std::string(), root);
  // The partition: the caller's, or the root's balance of A's nonzeros
  // (A's row map is that prefix), sent to everyone.
  Partition part;
  if (rows != nullptr) {
    part = *rows;
  } else {
    std::vector<std::int64_t> offsets;
    if (me == root) offsets = Partition::balanced(std::vector<std::int64_t>(A->row_map(), A->row_map() + n + 1), P).offsets();
    part = Partition(comm.allgatherv(offsets));
  }
  comm.agreed([&] {
    if (part.ranks() != P || part.size() != n)
      throw dist_error("tessera::dist::DistCrsMatrix::scatter: the partition covers " + std::to_string(part.size()) +
                       " rows over " + std::to_string(part.ranks()) + " ranks, the matrix has " + std::to_string(n) +
                       " rows over " + std::to_string(P) + " ranks");
  });
  // The root sends each rank its row lengths, columns and values.
  std::vector<std::int64_t> lengths, cols, len_off(std::size_t(P) + 1, 0), ent_off(std::size_t(P) + 1, 0);
  std::vector<T> vals;
  if (me == root) {
    lengths.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) lengths[std::size_t(i)] = A->row_map()[i + 1] - A->row_map()[i];
    cols.assign(A->col_idx(), A->col_idx() + A->nnz());
    vals.assign(A->values(), A->values() + A->nnz());
    for (int q = 0; q < P; ++q) {
      len_off[std::size_t(q) + 1] = part.end(q);
      ent_off[std::size_t(q) + 1] = A->row_map()[part.end(q)];
    }
  }
  const auto my_lengths = comm.alltoallv(lengths, len_off);
  const auto my_cols = comm.alltoallv(cols, ent_off);
  auto my_vals = comm.alltoallv(vals, ent_off);
  std::vector<std::int64_t> row_map(my_lengths.size() + 1, 0);
  std::partial_sum(my_lengths.begin(), my_lengths.end(), row_map.begin() + 1);
  return from_local_rows(comm, part, std::move(row_map), std::move(my_cols), std::move(my_vals), origin);
}

}  // namespace tessera::dist
