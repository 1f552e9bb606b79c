#pragma once
// Symbolic factorization of a symmetric pattern under a fill-reducing
// ordering: elimination tree, postorder, column counts, fundamental
// supernodes with relaxed amalgamation, and the supernodal structure of L.
// Everything here depends on the pattern only, so a factorization with new
// values reuses it.
//
// Numbering: the "final" order is the fill-reducing ordering followed by a
// postorder of its elimination tree, so that every supernode is a range of
// consecutive columns. perm[new] = old, iperm[old] = new.
#include <tessera/sparse/ordering.hpp>

#include <cstdint>
#include <vector>

namespace tessera::sparse {

// Relaxed amalgamation (as CHOLMOD's nrelax / zrelax): a child supernode is
// merged into its parent when the merged supernode has at most
// max_columns[0] columns, or at most max_columns[k] columns and a fraction of
// explicit zeros below max_zero_fraction[k] (k = 1, 2), or any size and a
// zero fraction below max_zero_fraction[0]. Larger supernodes mean fewer,
// denser BLAS calls at the price of storing and computing some zeros.
// relax = false keeps the fundamental supernodes.
struct AmalgamationOptions {
  bool relax = true;
  int max_columns[3] = {4, 16, 48};
  double max_zero_fraction[3] = {0.8, 0.1, 0.05};
  // Columns (in the ordering's numbering) that must share a supernode with
  // the next column whenever it is their parent (see PairedOrdering);
  // empty for none. Applied even when relax is false.
  std::vector<char> keep_with_next;
};

struct SymbolicFactor {
  std::int64_t n = 0;
  std::vector<std::int64_t> perm, iperm;  // final order (ordering, then postorder)
  std::vector<std::int64_t> etree;        // parent of each column in the final order, -1 for roots
  std::vector<std::int64_t> colcount;     // nonzeros of each column of L, diagonal included
  double nnz_l = 0;                       // sum of colcount: the exact nonzeros of L
  double flops = 0;                       // sum of colcount^2: the factorization's flop count

  // Supernodes, in postorder: supernode s holds the columns
  // [super_ptr[s], super_ptr[s + 1]).
  std::int64_t nsuper = 0;
  std::vector<std::int64_t> super_ptr;
  std::vector<std::int64_t> col_to_super;
  std::vector<std::int64_t> sparent;               // assembly tree, -1 for roots
  std::vector<std::int64_t> child_ptr, child_list;  // children of s: child_list[child_ptr[s] .. child_ptr[s + 1])
  // Row structure of s: rows[rows_ptr[s] .. rows_ptr[s + 1]), sorted; the
  // first ncols(s) are s's own columns.
  std::vector<std::int64_t> rows_ptr, rows;
  // For each row of s below its own columns: its position in the parent's
  // row list (the extend-add map); relidx[rows_ptr[s] + ncols(s) + a].
  std::vector<std::int32_t> relidx;
  // Offsets of each supernode's dense column-major panel (nrows x ncols,
  // leading dimension nrows) in the factor's value array.
  std::vector<std::int64_t> lx_ptr;
  double stored_l = 0;  // entries stored in the panels' lower trapezoids (>= nnz_l with amalgamation)

  std::int64_t ncols(std::int64_t s) const { return super_ptr[s + 1] - super_ptr[s]; }
  std::int64_t nrows(std::int64_t s) const { return rows_ptr[s + 1] - rows_ptr[s]; }
};

// Elimination tree of the symmetric pattern (both triangles, compressed
// rows) permuted by perm (perm[new] = old): parent[j] in the new numbering.
std::vector<std::int64_t> elimination_tree(std::int64_t n, const std::int64_t* row_map, const std::int32_t* col_idx,
                                           const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm);

// A postorder of a forest given by parent links (children visited in
// increasing order): post[k] = the k-th node.
std::vector<std::int64_t> tree_postorder(const std::vector<std::int64_t>& parent);

// Column counts of L (diagonal included) for a postordered elimination tree,
// by the Gilbert-Ng-Peyton row-subtree algorithm, O(nnz(A) alpha).
std::vector<std::int64_t> column_counts(std::int64_t n, const std::int64_t* row_map, const std::int32_t* col_idx,
                                        const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm,
                                        const std::vector<std::int64_t>& parent);

// The whole symbolic analysis under the given ordering.
SymbolicFactor symbolic_factorization(std::int64_t n, const std::int64_t* row_map, const std::int32_t* col_idx,
                                      const OrderingResult& ordering, const AmalgamationOptions& relax = {});

}  // namespace tessera::sparse
