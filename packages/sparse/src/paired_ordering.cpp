// Orderings that keep each zero-diagonal variable next to a matched
// neighbour (after Duff and Pralet's compressed orderings for symmetric
// indefinite matrices), so that the supernodal LDL^T finds the 2x2 pivots
// a saddle-point matrix needs in the front that holds the pair, without
// delaying them (Options::pair_zero_diagonals; optional since delayed
// pivoting).
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/ordering.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::sparse {

PairedOrdering compute_paired_ordering(Ordering method, std::int64_t n, const std::int64_t* rm, const std::int32_t* ci,
                                       const double* val) {
  PairedOrdering out;
  std::vector<std::int64_t> mate(n, -1);
  std::vector<char> zero(n, 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k)
      if (ci[k] == i && val[k] != 0.0) zero[i] = 0;
  // Fewest choices first, so that a variable with one neighbour gets it.
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < n; ++i)
    if (zero[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return rm[a + 1] - rm[a] < rm[b + 1] - rm[b]; });
  for (std::int64_t i : order) {
    std::int64_t best = -1;
    double best_value = 0;
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k) {
      const std::int64_t j = ci[k];
      if (j == i || mate[j] != -1 || mate[i] != -1) continue;
      const double a = std::abs(val[k]);
      // Prefer a partner with a nonzero diagonal, then the largest coupling.
      const bool better = best == -1 || (zero[best] && !zero[j]) || (zero[best] == zero[j] && a > best_value);
      if (a > 0 && better) {
        best = j;
        best_value = a;
      }
    }
    if (best != -1) {
      mate[i] = best;
      mate[best] = i;
      ++out.pairs;
    } else if (mate[i] == -1) {
      ++out.unmatched_zero_diagonals;
    }
  }
  // Compressed graph: one vertex per pair or single variable.
  std::vector<std::int64_t> node(n, -1), first_member, second_member;
  for (std::int64_t i = 0; i < n; ++i) {
    if (node[i] != -1) continue;
    node[i] = std::int64_t(first_member.size());
    first_member.push_back(i);
    second_member.push_back(mate[i]);
    if (mate[i] != -1) node[mate[i]] = node[i];
  }
  const std::int64_t nc = std::int64_t(first_member.size());
  std::vector<std::int64_t> crm(nc + 1, 0);
  std::vector<std::int32_t> cci;
  std::vector<std::int64_t> mark(nc, -1);
  for (std::int64_t v = 0; v < nc; ++v) {
    mark[v] = v;  // no self edge
    cci.push_back(std::int32_t(v));  // diagonal, as a matrix pattern has one
    for (std::int64_t member : {first_member[v], second_member[v]}) {
      if (member == -1) continue;
      for (std::int64_t k = rm[member]; k < rm[member + 1]; ++k) {
        const std::int64_t w = node[ci[k]];
        if (mark[w] != v) {
          mark[w] = v;
          cci.push_back(std::int32_t(w));
        }
      }
    }
    std::sort(cci.begin() + crm[v], cci.end());
    crm[v + 1] = std::int64_t(cci.size());
  }
  const OrderingResult compressed = compute_ordering(method, nc, crm.data(), cci.data());
  out.ordering.method = method;
  out.ordering.perm.reserve(n);
  out.pair_next.assign(n, 0);
  for (std::int64_t k = 0; k < nc; ++k) {
    const std::int64_t v = compressed.perm[k];
    // The variable with the nonzero diagonal first, its zero-diagonal mate next.
    std::int64_t a = first_member[v], b = second_member[v];
    if (b != -1 && zero[a] && !zero[b]) std::swap(a, b);
    out.ordering.perm.push_back(a);
    if (b != -1) {
      out.pair_next[out.ordering.perm.size() - 1] = 1;
      out.ordering.perm.push_back(b);
    }
  }
  out.ordering.iperm = invert_permutation(out.ordering.perm, "paired ordering");
  return out;
}

}  // namespace tessera::sparse
