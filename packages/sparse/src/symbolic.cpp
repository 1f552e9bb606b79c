// Symbolic factorization: elimination tree (Liu's algorithm with path
// compression), postorder, column counts (Gilbert, Ng and Peyton), fundamental
// supernodes, relaxed amalgamation and the supernodal row structure.
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/symbolic.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace tessera::sparse {

std::vector<std::int64_t> elimination_tree(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci,
                                           const std::vector<std::int64_t>& perm,
                                           const std::vector<std::int64_t>& iperm) {
  std::vector<std::int64_t> parent(n, -1), ancestor(n, -1);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t old = perm[k];
    for (std::int64_t p = rm[old]; p < rm[old + 1]; ++p) {
      std::int64_t i = iperm[ci[p]];
      // Walk from i up to the root of its current subtree, pointing every
      // node on the way at k (path compression).
      while (i != -1 && i < k) {
        const std::int64_t next = ancestor[i];
        ancestor[i] = k;
        if (next == -1) parent[i] = k;
        i = next;
      }
    }
  }
  return parent;
}

std::vector<std::int64_t> tree_postorder(const std::vector<std::int64_t>& parent) {
  const std::int64_t n = std::int64_t(parent.size());
  std::vector<std::int64_t> head(n, -1), next(n, -1), post, stack;
  post.reserve(n);
  // Children lists in increasing order: insert in decreasing order at the head.
  for (std::int64_t j = n - 1; j >= 0; --j)
    if (parent[j] != -1) {
      next[j] = head[parent[j]];
      head[parent[j]] = j;
    }
  for (std::int64_t root = 0; root < n; ++root) {
    if (parent[root] != -1) continue;
    stack.push_back(root);
    while (!stack.empty()) {
      const std::int64_t top = stack.back();
      const std::int64_t child = head[top];
      if (child == -1) {
        stack.pop_back();
        post.push_back(top);
      } else {
        head[top] = next[child];  // consume the child
        stack.push_back(child);
      }
    }
  }
  return post;
}

std::vector<std::int64_t> column_counts(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci,
                                        const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm,
                                        const std::vector<std::int64_t>& parent) {
  // The tree is postordered (node k is the k-th in postorder), so first[j],
  // the first descendant of j, is the smallest index in j's subtree.
  std::vector<std::int64_t> delta(n), first(n, -1), maxfirst(n, -1), prevleaf(n, -1), ancestor(n);
  std::iota(ancestor.begin(), ancestor.end(), std::int64_t(0));
  for (std::int64_t k = 0; k < n; ++k) {
    delta[k] = first[k] == -1 ? 1 : 0;  // a leaf of the tree: its own diagonal
    for (std::int64_t j = k; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    if (parent[j] != -1) --delta[parent[j]];
    const std::int64_t old = perm[j];
    for (std::int64_t p = rm[old]; p < rm[old + 1]; ++p) {
      const std::int64_t i = iperm[ci[p]];
      // Is j a leaf of row i's subtree? (Only rows below the diagonal.)
      if (i <= j || first[j] <= maxfirst[i]) continue;
      maxfirst[i] = first[j];
      const std::int64_t jprev = prevleaf[i];
      prevleaf[i] = j;
      ++delta[j];
      if (jprev != -1) {
        // Not the first leaf: the least common ancestor of jprev and j
        // would be counted twice.
        std::int64_t q = jprev;
        while (q != ancestor[q]) q = ancestor[q];
        for (std::int64_t s = jprev; s != q;) {
          const std::int64_t up = ancestor[s];
          ancestor[s] = q;
          s = up;
        }
        --delta[q];
      }
    }
    if (parent[j] != -1) ancestor[j] = parent[j];
  }
  for (std::int64_t j = 0; j < n; ++j)
    if (parent[j] != -1) delta[parent[j]] += delta[j];
  return delta;
}

namespace {

std::int64_t find_root(std::vector<std::int64_t>& rep, std::int64_t s) {
  std::int64_t r = s;
  while (rep[r] != r) r = rep[r];
  while (rep[s] != r) {
    const std::int64_t up = rep[s];
    rep[s] = r;
    s = up;
  }
  return r;
}

}  // namespace

SymbolicFactor symbolic_factorization(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci,
                                      const OrderingResult& ordering, const AmalgamationOptions& relax) {
  SymbolicFactor f;
  f.n = n;
  if (std::int64_t(ordering.perm.size()) != n)
    throw sparse_error("symbolic_factorization: the ordering has " + std::to_string(ordering.perm.size()) +
                       " entries for a matrix of order " + std::to_string(n));
  // 1. Elimination tree under the ordering, then renumber by its postorder.
  const auto parent0 = elimination_tree(n, rm, ci, ordering.perm, ordering.iperm);
  const auto post = tree_postorder(parent0);
  std::vector<std::int64_t> post_inv(n);
  for (std::int64_t k = 0; k < n; ++k) post_inv[post[k]] = k;
  f.perm.resize(n);
  f.iperm.resize(n);
  f.etree.resize(n);
  for (std::int64_t k = 0; k < n; ++k) {
    f.perm[k] = ordering.perm[post[k]];
    f.iperm[f.perm[k]] = k;
    const std::int64_t p = parent0[post[k]];
    f.etree[k] = p == -1 ? -1 : post_inv[p];
  }
  // 2. Column counts.
  f.colcount = column_counts(n, rm, ci, f.perm, f.iperm, f.etree);
  for (std::int64_t j = 0; j < n; ++j) {
    f.nnz_l += double(f.colcount[j]);
    f.flops += double(f.colcount[j]) * double(f.colcount[j]);
  }
  // 3. Fundamental supernodes: j + 1 continues j's supernode when it is j's
  // parent, j is its only child, and its column is j's minus the diagonal.
  std::vector<std::int64_t> nchild(n, 0);
  for (std::int64_t j = 0; j < n; ++j)
    if (f.etree[j] != -1) ++nchild[f.etree[j]];
  std::vector<std::int64_t> fstart;  // first column of each fundamental supernode
  for (std::int64_t j = 0; j < n; ++j)
    if (j == 0 || !(f.etree[j - 1] == j && nchild[j] == 1 && f.colcount[j - 1] == f.colcount[j] + 1)) fstart.push_back(j);
  const std::int64_t nf = std::int64_t(fstart.size());
  fstart.push_back(n);
  std::vector<std::int64_t> fcol_to_super(n);
  for (std::int64_t s = 0; s < nf; ++s)
    for (std::int64_t j = fstart[s]; j < fstart[s + 1]; ++j) fcol_to_super[j] = s;
  // 4. Relaxed amalgamation over the fundamental supernode tree.
  std::vector<std::int64_t> rep(nf), first_col(nf), ncol(nf), nrow(nf);
  std::vector<double> true_nz(nf, 0);
  for (std::int64_t s = 0; s < nf; ++s) {
    rep[s] = s;
    first_col[s] = fstart[s];
    ncol[s] = fstart[s + 1] - fstart[s];
    nrow[s] = f.colcount[fstart[s]];
    for (std::int64_t j = fstart[s]; j < fstart[s + 1]; ++j) true_nz[s] += double(f.colcount[j]);
  }
  auto stored = [](double nc, double nr) { return nc * nr - nc * (nc - 1) / 2; };
  // A pair kept together: last column of s and its parent, the next column.
  auto forced = [&](std::int64_t last) {
    if (relax.keep_with_next.empty() || last + 1 >= n) return false;
    const std::int64_t a = post[last], b = post[last + 1];
    return b == a + 1 && relax.keep_with_next[a] && f.etree[last] == last + 1;
  };
  if (relax.relax || !relax.keep_with_next.empty()) {
    for (std::int64_t s = nf - 2; s >= 0; --s) {
      const std::int64_t last = fstart[s + 1] - 1;
      if (f.etree[last] == -1) continue;
      const std::int64_t p = find_root(rep, fcol_to_super[f.etree[last]]);
      if (last + 1 != first_col[p]) continue;  // not adjacent: merging would break contiguity
      if (!relax.relax && !forced(last)) continue;
      const double nc = double(ncol[s] + ncol[p]);
      const double nr = double(ncol[s] + nrow[p]);
      const double nz = true_nz[s] + true_nz[p];
      const double z = (stored(nc, nr) - nz) / stored(nc, nr);
      const bool merge = forced(last) || nc <= relax.max_columns[0] ||
                         (nc <= relax.max_columns[1] && z < relax.max_zero_fraction[0]) ||
                         (nc <= relax.max_columns[2] && z < relax.max_zero_fraction[1]) || z < relax.max_zero_fraction[2];
      if (!merge) continue;
      rep[s] = p;
      first_col[p] = first_col[s];
      ncol[p] += ncol[s];
      nrow[p] += ncol[s];
      true_nz[p] += true_nz[s];
    }
  }
  // 5. The final supernodes, their tree and children.
  f.super_ptr.clear();
  for (std::int64_t s = 0; s < nf; ++s)
    if (find_root(rep, s) == s) f.super_ptr.push_back(first_col[s]);
  std::sort(f.super_ptr.begin(), f.super_ptr.end());
  f.nsuper = std::int64_t(f.super_ptr.size());
  f.super_ptr.push_back(n);
  f.col_to_super.resize(n);
  for (std::int64_t s = 0; s < f.nsuper; ++s)
    for (std::int64_t j = f.super_ptr[s]; j < f.super_ptr[s + 1]; ++j) f.col_to_super[j] = s;
  f.sparent.assign(f.nsuper, -1);
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t p = f.etree[f.super_ptr[s + 1] - 1];
    f.sparent[s] = p == -1 ? -1 : f.col_to_super[p];
  }
  f.child_ptr.assign(f.nsuper + 1, 0);
  for (std::int64_t s = 0; s < f.nsuper; ++s)
    if (f.sparent[s] != -1) ++f.child_ptr[f.sparent[s] + 1];
  std::partial_sum(f.child_ptr.begin(), f.child_ptr.end(), f.child_ptr.begin());
  f.child_list.resize(f.child_ptr[f.nsuper]);
  {
    std::vector<std::int64_t> pos(f.child_ptr.begin(), f.child_ptr.end() - 1);
    for (std::int64_t s = 0; s < f.nsuper; ++s)
      if (f.sparent[s] != -1) f.child_list[pos[f.sparent[s]]++] = s;
  }
  // 6. Row structure: own columns, A's entries below them, children's rows.
  f.rows_ptr.assign(f.nsuper + 1, 0);
  f.rows.clear();
  std::vector<std::int64_t> mark(n, -1), below;
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t c0 = f.super_ptr[s], c1 = f.super_ptr[s + 1];
    below.clear();
    for (std::int64_t j = c0; j < c1; ++j) {
      const std::int64_t old = f.perm[j];
      for (std::int64_t p = rm[old]; p < rm[old + 1]; ++p) {
        const std::int64_t i = f.iperm[ci[p]];
        if (i >= c1 && mark[i] != s) {
          mark[i] = s;
          below.push_back(i);
        }
      }
    }
    for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) {
      const std::int64_t c = f.child_list[k];
      for (std::int64_t q = f.rows_ptr[c] + f.ncols(c); q < f.rows_ptr[c + 1]; ++q) {
        const std::int64_t i = f.rows[q];
        if (i >= c1 && mark[i] != s) {
          mark[i] = s;
          below.push_back(i);
        }
      }
    }
    std::sort(below.begin(), below.end());
    for (std::int64_t j = c0; j < c1; ++j) f.rows.push_back(j);
    f.rows.insert(f.rows.end(), below.begin(), below.end());
    f.rows_ptr[s + 1] = std::int64_t(f.rows.size());
    // The structure theory says the rows are the first column's count plus
    // the amalgamated columns; anything else is a bug, not bad input.
    if (!below.empty() && f.col_to_super[below.front()] != f.sparent[s])
      throw sparse_error("symbolic_factorization: internal error: supernode " + std::to_string(s) +
                         " has its first off-diagonal row outside its parent");
  }
  // 7. Extend-add maps and panel offsets.
  f.relidx.assign(f.rows.size(), -1);
  f.lx_ptr.assign(f.nsuper + 1, 0);
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t p = f.sparent[s];
    const auto pb = f.rows.begin() + (p == -1 ? 0 : f.rows_ptr[p]);
    const auto pe = f.rows.begin() + (p == -1 ? 0 : f.rows_ptr[p + 1]);
    for (std::int64_t q = f.rows_ptr[s] + f.ncols(s); q < f.rows_ptr[s + 1]; ++q) {
      const auto it = std::lower_bound(pb, pe, f.rows[q]);
      if (p == -1 || it == pe || *it != f.rows[q])
        throw sparse_error("symbolic_factorization: internal error: row " + std::to_string(f.rows[q]) + " of supernode " +
                           std::to_string(s) + " is missing from its parent");
      f.relidx[q] = std::int32_t(it - pb);
    }
    f.lx_ptr[s + 1] = f.lx_ptr[s] + f.nrows(s) * f.ncols(s);
    f.stored_l += stored(double(f.ncols(s)), double(f.nrows(s)));
  }
  return f;
}

}  // namespace tessera::sparse
