#pragma once
// Connected components of a DistGraph, each labelled by its smallest global
// vertex id (as the node-level graph::connected_components labels them, so
// results compare exactly).
//
//   tessera::dist::ComponentsResult c = tessera::dist::connected_components<tessera::Threads>(g);
//   c.component[v]   for owned vertex v (local id);   c.count, c.largest
//
// Two levels: first the components of each rank's owned subgraph (the edges
// between owned vertices) with the node-level Afforest link and compress on
// Exec, so a label
// crosses a whole local piece at once; then rounds of label propagation
// across the ghost edges (Shiloach-Vishkin's hooking on the local pieces):
// each round refreshes the ghosts' labels through the exchange plan, every
// local piece takes the smallest label seen across its ghost edges, and the
// rounds stop when no label changed on any rank. As in Shiloach-Vishkin,
// each round also hooks the labels themselves (a piece whose label L drops
// to m tells L's owner, whose piece holding L drops to m) and jumps every
// piece's label to that label's own label (asked of its owner), so chains
// of pieces across the ranks collapse in far fewer rounds than a label
// needs to walk them.
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/graph/components.hpp>

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
  const Comm& comm = g.comm();
  const std::int64_t owned = g.num_owned(), begin = g.owned_begin();
  const std::int64_t* rm = g.row_map().data();
  const V* adj = g.adjacency().data();

  // 1. Components of the owned subgraph (its edges: the owned entries of
  //    the rows) by the node-level Afforest steps: link along each vertex's
  //    first two owned neighbours, compress, find the most frequent label
  //    in a sample (the giant piece), link the other edges of the vertices
  //    outside it, compress. Links hook the larger root under the smaller,
  //    so each vertex ends at the smallest local id, hence the smallest
  //    global id, of its piece.
  // root[v]: the smallest local id of v's local piece (the array the
  // Afforest steps link and compress in place).
  tessera::View<V*, tessera::HostSpace> comp;
  if (owned > 0) {
    comp = tessera::View<V*, tessera::HostSpace>(
        tessera::view_alloc("dist::cc::local", tessera::WithoutInitializing), owned);
    V* c = comp.data();
    using Dyn = tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>;
    constexpr int sampled = 2;
    tessera::parallel_for("dist::cc::init", tessera::RangePolicy<Exec>(0, owned),
                          [=](std::int64_t v) { c[v] = V(v); });
    for (int round = 0; round < sampled; ++round) {
      tessera::parallel_for("dist::cc::sample_link", Dyn(0, owned, 1024), [=](std::int64_t v) {
        int seen = 0;
        for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k)
          if (adj[k] < owned && seen++ == round) {
            graph::detail::afforest_link(c, V(v), adj[k]);
            break;
          }
      });
      graph::detail::compress<Exec>(comp, owned);
    }
    const std::int64_t ns = std::min<std::int64_t>(owned, 1024);
    std::vector<V> sample(static_cast<std::size_t>(ns));
    for (std::int64_t i = 0; i < ns; ++i)
      sample[std::size_t(i)] =
          c[std::int64_t(((std::uint64_t(i) + 1) * 0x9e3779b97f4a7c15ULL >> 11) % std::uint64_t(owned))];
    std::sort(sample.begin(), sample.end());
    V giant = sample[0];
    for (std::size_t i = 0, best_run = 0; i < sample.size();) {
      std::size_t j = i;
      while (j < sample.size() && sample[j] == sample[i]) ++j;
      if (j - i > best_run) best_run = j - i, giant = sample[i];
      i = j;
    }
    // Skipping the giant piece's vertices is safe: each owned-owned edge is
    // seen from both ends.
    tessera::parallel_for("dist::cc::finish_link", Dyn(0, owned, 1024), [=](std::int64_t v) {
      if (graph::detail::load_relaxed(&c[v]) == giant) return;
      int seen = 0;
      for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k)
        if (adj[k] < owned && seen++ >= sampled) graph::detail::afforest_link(c, V(v), adj[k]);
    });
    graph::detail::compress<Exec>(comp, owned);
  }
  const V* root = comp.data();

  // 2. Labels across ghost edges. best[c]: the label of the local piece
  //    whose smallest vertex is c.
  ComponentsResult r;
  std::vector<std::int64_t> label(std::size_t(g.num_local()));
  std::vector<std::int64_t> best(static_cast<std::size_t>(owned));
  std::vector<V> boundary;  // owned vertices with a ghost neighbour
  std::vector<V> pieces;    // the local pieces' smallest vertices
  const bool has_ghosts = g.num_ghosts() > 0;
  for (std::int64_t v = 0; v < owned; ++v) {
    label[std::size_t(v)] = best[std::size_t(root[v])] = begin + root[v];
    if (root[v] == V(v)) pieces.push_back(V(v));
    // A row is in increasing global id, and the owned ids are one range:
    // a ghost neighbour, if any, is the row's first or last entry (no scan
    // of the row, which at one rank cost as much as the search itself).
    // Without ghosts (one rank) the two loads per row, each a cache miss
    // on a large graph, are skipped.
    if (has_ghosts && rm[v + 1] > rm[v] && (adj[rm[v]] >= owned || adj[rm[v + 1] - 1] >= owned))
      boundary.push_back(V(v));
  }
  // Without a ghost edge on any rank (one rank; a graph whose components
  // the partition does not cut) the local pieces are the components and
  // their labels final: no round runs.
  const bool cut = comm.sum(std::int64_t(boundary.size())) > 0;
  while (cut) {
    ++r.rounds;
    g.update_ghosts(label);
    {
      const std::int64_t* lab = label.data();
      const V* rt = root;
      const V* bd = boundary.data();
      std::int64_t* b = best.data();
      tessera::parallel_for("dist::cc::hook", tessera::RangePolicy<Exec>(0, std::int64_t(boundary.size())),
                            [=](std::int64_t i) {
                              const V v = bd[i];
                              std::int64_t m = std::numeric_limits<std::int64_t>::max();
                              for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k)
                                if (adj[k] >= owned) m = std::min(m, lab[adj[k]]);
                              if (m < lab[v]) tessera::atomic_fetch_min(&b[rt[v]], m);
                            });
    }
    // Hook the labels themselves (Shiloach-Vishkin's hooking of roots): a
    // piece whose label L dropped to m tells L's owner, whose piece holding
    // L drops to m too.
    {
      struct Hook {
        std::int64_t label, to;
      };
      std::vector<Hook> hooks;
      for (const V c : pieces)
        if (best[std::size_t(c)] < label[std::size_t(c)])
          hooks.push_back({label[std::size_t(c)], best[std::size_t(c)]});
      std::sort(hooks.begin(), hooks.end(), [](const Hook& a, const Hook& b) { return a.label < b.label; });
      std::vector<std::int64_t> hook_offsets(std::size_t(comm.size()) + 1, 0);
      for (int q = 0; q <= comm.size(); ++q)
        hook_offsets[std::size_t(q)] =
            std::lower_bound(hooks.begin(), hooks.end(), g.partition().offsets()[std::size_t(q)],
                             [](const Hook& h, std::int64_t x) { return h.label < x; }) -
            hooks.begin();
      hook_offsets.back() = std::int64_t(hooks.size());
      for (const Hook& h : comm.alltoallv(hooks, hook_offsets)) {
        std::int64_t& b = best[std::size_t(root[h.label - begin])];
        b = std::min(b, h.to);
      }
    }
    auto relabel = [&] {
      std::int64_t changed = 0;
      std::int64_t* lab = label.data();
      const V* rt = root;
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
      return changed;
    };
    std::int64_t changed = relabel();
    // Shortcut (Shiloach-Vishkin's pointer jumping, across ranks): a piece's
    // label L is a vertex whose own label may be smaller by now; ask L's
    // owner. Labels stay ids of the component and only decrease, so the
    // fixed point is its smallest id; this cuts the rounds on graphs whose
    // pieces chain across the ranks.
    {
      std::vector<std::int64_t> asked;
      for (const V c : pieces) {
        const std::int64_t L = best[std::size_t(c)];
        if (g.is_owned(L))
          best[std::size_t(c)] = std::min(L, label[std::size_t(L - begin)]);
        else
          asked.push_back(L);
      }
      std::sort(asked.begin(), asked.end());
      asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
      std::vector<std::int64_t> ask_offsets(std::size_t(comm.size()) + 1, 0), in_offsets;
      for (int q = 0; q <= comm.size(); ++q)
        ask_offsets[std::size_t(q)] =
            std::lower_bound(asked.begin(), asked.end(), g.partition().offsets()[std::size_t(q)]) -
            asked.begin();
      ask_offsets.back() = std::int64_t(asked.size());
      std::vector<std::int64_t> answers = comm.alltoallv(asked, ask_offsets, &in_offsets);
      for (auto& x : answers) x = label[std::size_t(x - begin)];
      const std::vector<std::int64_t> got = comm.alltoallv(answers, in_offsets);
      for (const V c : pieces) {
        const std::int64_t L = best[std::size_t(c)];
        if (g.is_owned(L)) continue;
        const auto at = std::lower_bound(asked.begin(), asked.end(), L) - asked.begin();
        best[std::size_t(c)] = std::min(L, got[std::size_t(at)]);
      }
    }
    changed += relabel();
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
  // Labels this rank owns are counted in place; the others are sorted.
  // (best's array, no longer needed, holds the counts)
  std::vector<std::int64_t> size = std::move(best), sorted;
  std::fill(size.begin(), size.end(), std::int64_t(0));
  for (const std::int64_t x : r.component) {
    if (x >= begin)
      ++size[std::size_t(x - begin)];  // a label is never above its vertex
    else
      sorted.push_back(x);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<Tally> tallies;
  for (const std::int64_t x : sorted) {
    if (tallies.empty() || tallies.back().label != x) tallies.push_back({x, 0});
    ++tallies.back().count;
  }
  std::vector<std::int64_t> offsets(std::size_t(comm.size()) + 1, 0);
  for (int q = 0; q <= comm.size(); ++q)
    offsets[std::size_t(q)] =
        std::lower_bound(tallies.begin(), tallies.end(), g.partition().offsets()[std::size_t(q)],
                         [](const Tally& t, std::int64_t x) { return t.label < x; }) -
        tallies.begin();
  offsets.back() = std::int64_t(tallies.size());
  for (const Tally& t : comm.alltoallv(tallies, offsets)) size[std::size_t(t.label - begin)] += t.count;
  r.largest = comm.max(size.empty() ? std::int64_t(0) : *std::max_element(size.begin(), size.end()));
  return r;
}

}  // namespace tessera::dist
