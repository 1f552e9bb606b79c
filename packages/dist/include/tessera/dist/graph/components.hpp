#pragma once
// Connected components of a DistGraph, each labelled by its smallest global
// vertex id (as the node-level graph::connected_components labels them, so
// results compare exactly).
//
//   tessera::dist::ComponentsResult c = tessera::dist::connected_components<tessera::Threads>(g);
//   c.component[v]   for owned vertex v (local id);   c.count, c.largest
//
// Two levels: first the components of each rank's owned subgraph (the edges
// between owned vertices) by the node-level Afforest on Exec, so a label
// crosses a whole local piece at once; then rounds of label propagation
// across the ghost edges (Shiloach-Vishkin's hooking on the local pieces):
// each round refreshes the ghosts' labels through the exchange plan, every
// local piece takes the smallest label seen across its ghost edges, and the
// rounds stop when no label changed on any rank. Rounds are bounded by the
// number of local pieces on a path, not by its length in vertices.
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/graph/components.hpp>
#include <tessera/graph/csr_graph.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::dist {

struct ComponentsResult {
  std::vector<std::int64_t> component;  // per owned vertex: the smallest global id of its component
  std::int64_t count = 0;               // global: number of components
  std::int64_t largest = 0;             // global: vertices of the largest component
  int rounds = 0;                       // label exchanges run
};

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
ComponentsResult connected_components(const DistGraph& g) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::connected_components runs on a host execution space");
  using V = local_vertex;
  using Local = graph::compressed_sparse_row_graph<graph::undirectedS, Exec, V, std::int64_t>;
  const Comm& comm = g.comm();
  const std::int64_t owned = g.num_owned(), begin = g.owned_begin();
  const std::int64_t* rm = g.row_map().data();
  const V* adj = g.adjacency().data();

  // 1. Components of the owned subgraph (rows keep their owned entries,
  //    which are sorted: owned local ids follow the global order).
  std::vector<V> root(static_cast<std::size_t>(owned));
  {
    typename Local::row_map_type lrm("dist::cc::row_map", owned + 1);
    std::int64_t kept = 0;
    for (std::int64_t v = 0; v < owned; ++v) {
      for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k) kept += adj[k] < owned ? 1 : 0;
      lrm(v + 1) = kept;
    }
    typename Local::entries_type lent(tessera::view_alloc("dist::cc::entries", tessera::WithoutInitializing), kept);
    std::int64_t at = 0;
    for (std::int64_t k = 0; k < g.num_local_entries(); ++k)
      if (adj[k] < owned) lent(at++) = adj[k];
    // Rows must be sorted for the CSR graph: owned entries of a row are.
    const Local local(graph::csr_arrays_t{}, owned, lrm, lent);
    graph::vertex_property_map<Local, V> comp(local);
    graph::connected_components(local, comp);
    for (std::int64_t v = 0; v < owned; ++v) root[std::size_t(v)] = comp[V(v)];
  }

  // 2. Labels across ghost edges. best[c]: the label of the local piece
  //    whose smallest vertex is c.
  ComponentsResult r;
  std::vector<std::int64_t> label(std::size_t(g.num_local()));
  std::vector<std::int64_t> best(static_cast<std::size_t>(owned));
  std::vector<V> boundary;  // owned vertices with a ghost neighbour
  for (std::int64_t v = 0; v < owned; ++v) {
    label[std::size_t(v)] = best[std::size_t(root[std::size_t(v)])] = begin + root[std::size_t(v)];
    for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k)
      if (adj[k] >= owned) {
        boundary.push_back(V(v));
        break;
      }
  }
  for (;;) {
    ++r.rounds;
    g.update_ghosts(label);
    {
      const std::int64_t* lab = label.data();
      const V* rt = root.data();
      const V* bd = boundary.data();
      std::int64_t* b = best.data();
      tessera::parallel_for("dist::cc::hook", tessera::RangePolicy<Exec>(0, std::int64_t(boundary.size())), [=](std::int64_t i) {
        const V v = bd[i];
        std::int64_t m = std::numeric_limits<std::int64_t>::max();
        for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k)
          if (adj[k] >= owned) m = std::min(m, lab[adj[k]]);
        if (m < lab[v]) tessera::atomic_fetch_min(&b[rt[v]], m);
      });
    }
    std::int64_t changed = 0;
    {
      std::int64_t* lab = label.data();
      const V* rt = root.data();
      const std::int64_t* b = best.data();
      tessera::parallel_reduce(
          "dist::cc::relabel", tessera::RangePolicy<Exec>(0, owned),
          [=](std::int64_t v, std::int64_t& ch) {
            const std::int64_t x = b[rt[v]];
            if (x != lab[v]) {
              lab[v] = x;
              ++ch;
            }
          },
          changed);
    }
    if (comm.sum(changed) == 0) break;
  }
  label.resize(std::size_t(owned));
  r.component = std::move(label);

  // Count (the vertices that are their component's label) and the largest
  // component: each rank counts its labels and sends the counts to the
  // labels' owners, which add them up.
  std::int64_t roots = 0;
  for (std::int64_t v = 0; v < owned; ++v) roots += r.component[std::size_t(v)] == begin + v ? 1 : 0;
  r.count = comm.sum(roots);
  struct Tally {
    std::int64_t label, count;
  };
  std::vector<std::int64_t> sorted(r.component);
  std::sort(sorted.begin(), sorted.end());
  std::vector<Tally> tallies;
  for (const std::int64_t x : sorted) {
    if (tallies.empty() || tallies.back().label != x) tallies.push_back({x, 0});
    ++tallies.back().count;
  }
  std::vector<std::int64_t> offsets(std::size_t(comm.size()) + 1, 0);
  for (int q = 0; q <= comm.size(); ++q)
    offsets[std::size_t(q)] = std::lower_bound(tallies.begin(), tallies.end(), g.partition().offsets()[std::size_t(q)],
                                               [](const Tally& t, std::int64_t x) { return t.label < x; }) -
                              tallies.begin();
  offsets.back() = std::int64_t(tallies.size());
  std::vector<std::int64_t> size(std::size_t(owned), 0);
  for (const Tally& t : comm.alltoallv(tallies, offsets)) size[std::size_t(t.label - begin)] += t.count;
  r.largest = comm.max(size.empty() ? std::int64_t(0) : *std::max_element(size.begin(), size.end()));
  return r;
}

}  // namespace tessera::dist
