#pragma once
// Fill-reducing orderings of a symmetric pattern.
//
//   Ordering::Metis    METIS_NodeND nested dissection
//   Ordering::Scotch   SCOTCH_graphOrder nested dissection, with its separator tree
//   Ordering::Amd      SuiteSparse's approximate minimum degree (amd_l_order)
//   Ordering::Natural  the identity
//
// Direction conventions, because the libraries disagree: METIS's `perm` and
// Scotch's `peritab` map a NEW index to the OLD one; Scotch's `permtab` and
// METIS's `iperm` map OLD to NEW. Here, always:
//   perm[new] = old,   iperm[old] = new.
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::sparse {

enum class Ordering { Metis, Scotch, Amd, Natural };

const char* to_string(Ordering o);
// "metis", "scotch", "amd", "natural"; throws sparse_error naming the word.
Ordering parse_ordering(const std::string& word);

// Scotch's column-block tree: block b holds the new columns
// [range[b], range[b + 1]) and its parent block is parent[b] (-1 for a root).
// Separators are the blocks with children. Empty for other orderings.
struct SeparatorTree {
  std::vector<std::int64_t> range;
  std::vector<std::int64_t> parent;
  std::int64_t num_blocks() const { return parent.empty() ? 0 : std::int64_t(parent.size()); }
};

struct OrderingResult {
  Ordering method = Ordering::Natural;
  std::vector<std::int64_t> perm;   // perm[new] = old
  std::vector<std::int64_t> iperm;  // iperm[old] = new
  SeparatorTree tree;               // Scotch only
};

// The ordering of the symmetric pattern given in compressed rows (both
// triangles; diagonal entries are ignored). Throws sparse_error if the
// library reports a failure.
OrderingResult compute_ordering(Ordering method, std::int64_t n, const std::int64_t* row_map,
                                const std::int32_t* col_idx);

// For symmetric indefinite matrices with zero diagonal entries (saddle-point
// and KKT systems): each variable whose diagonal is zero is matched with a
// neighbour (largest |a_ij| first), the graph is compressed so that a pair
// is one vertex, ordered with `method`, and expanded with the two members
// next to each other. pair_next[k] (new numbering) says that k and k + 1
// form a pair, so that the symbolic analysis keeps them in one supernode and
// the LDL^T pivoting can pick there the 2x2 pivot a zero diagonal needs
// instead of delaying it (optional: Options::pair_zero_diagonals).
struct PairedOrdering {
  OrderingResult ordering;
  std::vector<char> pair_next;
  std::int64_t pairs = 0, unmatched_zero_diagonals = 0;
};
PairedOrdering compute_paired_ordering(Ordering method, std::int64_t n, const std::int64_t* row_map,
                                       const std::int32_t* col_idx, const double* values);

// Checks that perm is a permutation of 0..n-1 (sparse_error naming the first
// repeated or out-of-range index otherwise) and returns its inverse.
std::vector<std::int64_t> invert_permutation(const std::vector<std::int64_t>& perm, const char* what);

}  // namespace tessera::sparse
