// Approximate minimum degree ordering on the quotient graph (after Amestoy,
// Davis and Duff, "An approximate minimum degree ordering algorithm", 1996):
// eliminated variables become elements, a variable's degree is bounded by
// |its variable neighbours| + |Lp \ i| + sum over its other elements e of
// |Le \ Lp|, and elements that Lp covers are absorbed. Kept simpler than
// the published AMD: no supervariables (indistinguishable nodes are not
// merged) and no dense-row handling, so it is slower on large 3-D meshes;
// it is exact on the fill for trees and close to AMD elsewhere. METIS or
// Scotch is the choice for large problems.
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/ordering.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::sparse {

OrderingResult approximate_minimum_degree(std::int64_t n64, const std::int64_t* rm, const std::int32_t* ci) {
  const int n = int(n64);
  enum : char { Variable, Element, Absorbed };
  std::vector<std::vector<int>> adjv(n), adje(n), elem(n);
  std::vector<char> status(n, Variable);
  std::vector<int> degree(n), head(n + 1, -1), next(n, -1), prev(n, -1);
  std::vector<std::int64_t> mark(n, -1), wstamp(n, -1);
  std::vector<int> w(n, 0);
  std::int64_t stamp = 0;

  for (int i = 0; i < n; ++i) {
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k)
      if (ci[k] != i) adjv[i].push_back(ci[k]);
    degree[i] = int(adjv[i].size());
  }
  auto insert = [&](int i) {
    const int d = degree[i];
    prev[i] = -1;
    next[i] = head[d];
    if (head[d] != -1) prev[head[d]] = i;
    head[d] = i;
  };
  auto remove = [&](int i) {
    if (prev[i] != -1) next[prev[i]] = next[i];
    else head[degree[i]] = next[i];
    if (next[i] != -1) prev[next[i]] = prev[i];
  };
  for (int i = n - 1; i >= 0; --i) insert(i);  // ties broken by the lower index

  OrderingResult r;
  r.method = Ordering::Amd;
  r.perm.reserve(n);
  int mindeg = 0;
  std::vector<int> lp;
  for (int k = 0; k < n; ++k) {
    while (head[mindeg] == -1) ++mindeg;
    const int p = head[mindeg];
    remove(p);
    r.perm.push_back(p);

    // Lp: p's variable neighbours and the variables of its elements.
    ++stamp;
    mark[p] = stamp;
    lp.clear();
    for (int v : adjv[p])
      if (status[v] == Variable && mark[v] != stamp) {
        mark[v] = stamp;
        lp.push_back(v);
      }
    for (int e : adje[p]) {
      if (status[e] != Element) continue;
      for (int v : elem[e])
        if (status[v] == Variable && mark[v] != stamp) {
          mark[v] = stamp;
          lp.push_back(v);
        }
      status[e] = Absorbed;  // e is inside the new element p
      std::vector<int>().swap(elem[e]);
    }
    status[p] = Element;
    std::vector<int>().swap(adjv[p]);
    std::vector<int>().swap(adje[p]);
    elem[p] = lp;

    // |Le \ Lp| for every element touching Lp.
    for (int i : lp) {
      remove(i);
      for (int e : adje[i]) {
        if (status[e] != Element) continue;
        if (wstamp[e] != stamp) {
          wstamp[e] = stamp;
          w[e] = int(elem[e].size());
        }
        --w[e];
      }
    }
    const int remaining = n - k - 1;
    for (int i : lp) {
      int d = int(lp.size()) - 1;
      // Elements: drop absorbed ones and those Lp covers (w == 0), add p.
      auto& ae = adje[i];
      std::size_t out = 0;
      for (int e : ae) {
        if (status[e] != Element) continue;
        if (w[e] == 0) {
          status[e] = Absorbed;  // aggressive absorption: Le is inside Lp
          std::vector<int>().swap(elem[e]);
          continue;
        }
        d += w[e];
        ae[out++] = e;
      }
      ae.resize(out);
      ae.push_back(p);
      // Variables: drop p, eliminated ones and those now reached through p.
      auto& av = adjv[i];
      out = 0;
      for (int v : av)
        if (status[v] == Variable && mark[v] != stamp) av[out++] = v;
      av.resize(out);
      d += int(out);
      d = std::min({d, remaining - 1 < 0 ? 0 : remaining - 1, degree[i] + int(lp.size())});
      degree[i] = std::max(d, 0);
      insert(i);
      mindeg = std::min(mindeg, degree[i]);
    }
  }
  r.iperm = invert_permutation(r.perm, "approximate minimum degree");
  return r;
}

}  // namespace tessera::sparse
