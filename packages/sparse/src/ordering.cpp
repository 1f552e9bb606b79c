// Fill-reducing orderings: METIS and Scotch nested dissection and
// SuiteSparse's approximate minimum degree through their C APIs, and the
// identity.
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/ordering.hpp>

#include <cstdint>
#include <mutex>
#include <numeric>
#include <vector>

#include <metis.h>
extern "C" {
#include <scotch/scotch.h>
}
#include <suitesparse/amd.h>

namespace tessera::sparse {

const char* to_string(Ordering o) {
  switch (o) {
    case Ordering::Metis: return "metis";
    case Ordering::Scotch: return "scotch";
    case Ordering::Amd: return "amd";
    case Ordering::Natural: return "natural";
  }
  return "?";
}

Ordering parse_ordering(const std::string& w) {
  if (w == "metis") return Ordering::Metis;
  if (w == "scotch") return Ordering::Scotch;
  if (w == "amd") return Ordering::Amd;
  if (w == "natural") return Ordering::Natural;
  throw sparse_error("unknown ordering '" + w + "' (expected metis, scotch, amd or natural)");
}

std::vector<std::int64_t> invert_permutation(const std::vector<std::int64_t>& perm, const char* what) {
  const std::int64_t n = std::int64_t(perm.size());
  std::vector<std::int64_t> inv(perm.size(), -1);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t p = perm[k];
    if (p < 0 || p >= n)
      throw sparse_error(std::string(what) + ": entry " + std::to_string(k) + " is " + std::to_string(p) +
                         ", outside 0.." + std::to_string(n - 1));
    if (inv[p] != -1)
      throw sparse_error(std::string(what) + ": index " + std::to_string(p) + " appears twice (entries " +
                         std::to_string(inv[p]) + " and " + std::to_string(k) + ")");
    inv[p] = k;
  }
  return inv;
}

namespace {

// The adjacency without the diagonal, in the index types the libraries take.
template <class I>
void adjacency_without_diagonal(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci, std::vector<I>& xadj,
                                std::vector<I>& adj) {
  xadj.assign(std::size_t(n) + 1, 0);
  adj.clear();
  adj.reserve(std::size_t(rm[n]));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k)
      if (ci[k] != i) adj.push_back(I(ci[k]));
    if (adj.size() > std::size_t(std::numeric_limits<I>::max()))
      throw sparse_error("ordering: " + std::to_string(adj.size()) + " adjacency entries overflow the library's " +
                         std::to_string(sizeof(I) * 8) + "-bit indices");
    xadj[i + 1] = I(adj.size());
  }
}

OrderingResult metis_order(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci) {
  std::vector<idx_t> xadj, adj;
  adjacency_without_diagonal(n, rm, ci, xadj, adj);
  idx_t nv = idx_t(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> perm(n), iperm(n);
  const int rc = METIS_NodeND(&nv, xadj.data(), adj.data(), nullptr, options, perm.data(), iperm.data());
  if (rc != METIS_OK)
    throw sparse_error("METIS_NodeND failed (" +
                       std::string(rc == METIS_ERROR_MEMORY ? "out of memory" : rc == METIS_ERROR_INPUT ? "bad input" : "error") +
                       ", code " + std::to_string(rc) + ")");
  OrderingResult r;
  r.method = Ordering::Metis;
  r.perm.assign(perm.begin(), perm.end());  // METIS perm: new -> old
  r.iperm = invert_permutation(r.perm, "METIS_NodeND perm");
  return r;
}

OrderingResult scotch_order(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci) {
  static_assert(sizeof(SCOTCH_Num) == 4 || sizeof(SCOTCH_Num) == 8);
  std::vector<SCOTCH_Num> xadj, adj;
  adjacency_without_diagonal(n, rm, ci, xadj, adj);
  SCOTCH_Graph graph;
  SCOTCH_Strat strat;
  if (SCOTCH_graphInit(&graph) != 0) throw sparse_error("SCOTCH_graphInit failed");
  struct Cleanup {
    SCOTCH_Graph* g;
    SCOTCH_Strat* s = nullptr;
    ~Cleanup() {
      if (s) SCOTCH_stratExit(s);
      SCOTCH_graphExit(g);
    }
  } cleanup{&graph};
  if (SCOTCH_graphBuild(&graph, 0, SCOTCH_Num(n), xadj.data(), nullptr, nullptr, nullptr, SCOTCH_Num(adj.size()),
                        adj.data(), nullptr) != 0)
    throw sparse_error("SCOTCH_graphBuild rejected the matrix graph");
  if (SCOTCH_stratInit(&strat) != 0) throw sparse_error("SCOTCH_stratInit failed");
  cleanup.s = &strat;
  std::vector<SCOTCH_Num> permtab(n), peritab(n), rangtab(n + 1), treetab(n);
  SCOTCH_Num cblknbr = 0;
  if (SCOTCH_graphOrder(&graph, &strat, permtab.data(), peritab.data(), &cblknbr, rangtab.data(), treetab.data()) != 0)
    throw sparse_error("SCOTCH_graphOrder failed");
  OrderingResult r;
  r.method = Ordering::Scotch;
  r.perm.assign(peritab.begin(), peritab.end());  // Scotch peritab: new -> old (permtab is old -> new)
  r.iperm = invert_permutation(r.perm, "SCOTCH_graphOrder peritab");
  for (std::int64_t k = 0; k < n; ++k)
    if (r.iperm[k] != permtab[k])
      throw sparse_error("SCOTCH_graphOrder: permtab and peritab are not inverse at " + std::to_string(k));
  r.tree.range.assign(rangtab.begin(), rangtab.begin() + cblknbr + 1);
  r.tree.parent.assign(treetab.begin(), treetab.begin() + cblknbr);
  return r;
}

// SuiteSparse's AMD (Amestoy, Davis and Duff, "An approximate minimum
// degree ordering algorithm", SIAM J. Matrix Anal. Appl. 17, 1996; Algorithm
// 837, ACM TOMS 30, 2004) with its default controls: aggressive absorption,
// and rows denser than 10 sqrt(n) ordered last. It orders the pattern of
// A + A^T and ignores the diagonal, so our full symmetric rows go in as
// they are; amd_l_order's 64-bit indices (SuiteSparse_long) take any order
// our 32-bit columns allow.
OrderingResult suitesparse_amd(std::int64_t n, const std::int64_t* rm, const std::int32_t* ci) {
  const std::int64_t nnz = rm[n];
  std::vector<SuiteSparse_long> ap(rm, rm + n + 1), ai(ci, ci + nnz), p(static_cast<std::size_t>(n));
  double control[AMD_CONTROL], info[AMD_INFO];
  amd_l_defaults(control);
  const SuiteSparse_long status =
      amd_l_order(SuiteSparse_long(n), ap.data(), ai.data(), p.data(), control, info);
  // AMD_OK_BUT_JUMBLED (unsorted or repeated columns) cannot happen for a
  // CrsMatrix; the order it returns would be right anyway.
  if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
    throw sparse_error("amd_l_order failed (" +
                       std::string(status == AMD_OUT_OF_MEMORY ? "out of memory"
                                   : status == AMD_INVALID     ? "invalid matrix"
                                                               : "error") +
                       ", status " + std::to_string(status) + ") on a matrix of order " + std::to_string(n) +
                       " with " + std::to_string(nnz) + " entries");
  OrderingResult r;
  r.method = Ordering::Amd;
  r.perm.assign(p.begin(), p.end());  // AMD's P: P[k] = the row eliminated k-th, new -> old
  r.iperm = invert_permutation(r.perm, "amd_l_order P");
  return r;
}

}  // namespace

OrderingResult compute_ordering(Ordering method, std::int64_t n, const std::int64_t* rm, const std::int32_t* ci) {
  if (n == 0) {
    OrderingResult r;
    r.method = method;
    return r;
  }
  switch (method) {
    case Ordering::Metis: return metis_order(n, rm, ci);
    case Ordering::Scotch: return scotch_order(n, rm, ci);
    case Ordering::Amd: return suitesparse_amd(n, rm, ci);
    case Ordering::Natural: {
      OrderingResult r;
      r.method = Ordering::Natural;
      r.perm.resize(n);
      std::iota(r.perm.begin(), r.perm.end(), std::int64_t(0));
      r.iperm = r.perm;
      return r;
    }
  }
  throw sparse_error("compute_ordering: unknown method");
}

}  // namespace tessera::sparse
