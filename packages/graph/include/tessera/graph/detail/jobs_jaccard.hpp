#pragma once
// Jaccard-similarity jobs of a job set, all pairs in one parallel pass
// (graph_jobs.hpp).
//
//   J(u, v) = |N(u) ∩ N(v)| / |N(u) ∪ N(v)|      (0 when both sets are empty)
//
// N(x) is the set of out-neighbours of x (repeated targets count once; a
// self-loop makes x its own neighbour). Each pair is one work item: a merge
// of the two sorted neighbour lists, so the answer is exact (two integer
// counts, one division) and the same on every back-end.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <cstdint>
#include <vector>

namespace tessera::graph::detail {

template <class G>
std::vector<double> jaccard_pairs(const G& g, const std::vector<std::int64_t>& us, const std::vector<std::int64_t>& vs) {
  static_assert(graph_traits<G>::sorted_adjacency && graph_traits<G>::random_access_adjacency,
                "jaccard jobs need sorted, random-access neighbour lists (a CSR graph)");
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  const std::int64_t m = std::int64_t(us.size());
  if (m == 0) return {};
  auto du = to_space<std::int64_t, SS>("graph::jobs::jaccard::u", us);
  auto dv = to_space<std::int64_t, SS>("graph::jobs::jaccard::v", vs);
  tessera::View<double*, SS> out("graph::jobs::jaccard::similarity", m);
  tessera::parallel_for(
      "graph::jobs::jaccard", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, m, 1),
      TESSERA_LAMBDA(std::int64_t i) {
        const auto a = adjacent_vertices(V(du(i)), g);
        const auto b = adjacent_vertices(V(dv(i)), g);
        const std::int64_t na = a.size(), nb = b.size();
        std::int64_t ia = 0, ib = 0, common = 0, ua = 0, ub = 0;  // distinct in a, in b
        while (ia < na || ib < nb) {
          if (ib == nb || (ia < na && a[ia] < b[ib])) {
            const auto x = a[ia];
            while (ia < na && a[ia] == x) ++ia;
            ++ua;
          } else if (ia == na || b[ib] < a[ia]) {
            const auto x = b[ib];
            while (ib < nb && b[ib] == x) ++ib;
            ++ub;
          } else {
            const auto x = a[ia];
            while (ia < na && a[ia] == x) ++ia;
            while (ib < nb && b[ib] == x) ++ib;
            ++common, ++ua, ++ub;
          }
        }
        const std::int64_t uni = ua + ub - common;
        out(i) = uni > 0 ? double(common) / double(uni) : 0.0;
      });
  return to_host_vector(out);
}

}  // namespace tessera::graph::detail
