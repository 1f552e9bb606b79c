#pragma once
// Edge weights copied into the order of a CSR graph's slots.
//
// An edge_property_map is indexed by edge index. An undirected CSR graph
// stores each edge in two slots, one in each end's row, and both carry the
// index of the edge's upper slot (source <= target): reading a row's
// weights by index walks the map in order for the row's upper slots and
// jumps across all of it for the lower ones. A loop that relaxes the same
// rows many times over (the fused shortest-path rounds, tens per job set)
// reads a copy in slot order instead, a row's weights side by side, at the
// price of one double per slot while it runs (twice an undirected graph's
// weight map) and one pass that gathers them. The host delta-stepping
// (sssp.hpp) does the same: its single pass over the edges repays the
// gather within the first buckets. On two host cores, Kronecker 18: 4 fused
// shortest-path jobs 0.51-0.52 s against 0.59-0.60 s; 4 single-job runs
// one after another 0.95-0.99 s against 1.56-1.57 s.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <cstdint>

namespace tessera::graph::detail {

// Whether G's out-edge iterators say which slot of the graph's entries they
// are at (the library's CSR graphs).
template <class G>
inline constexpr bool has_edge_slots_v = requires(const G& g, const typename G::out_edge_iterator& it) {
  it.slot();
  g.entries().extent(0);
};

// w(edge index) as a View indexed by slot. G must have edge slots.
template <class G, class WeightView>
tessera::View<double*, typename G::space_type> weights_in_slot_order(const G& g, const WeightView& w) {
  static_assert(has_edge_slots_v<G>,
                "weights_in_slot_order needs a graph whose out-edge iterators know their slot");
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  tessera::View<double*, SS> by_slot(tessera::view_alloc("graph::slot_weights", tessera::WithoutInitializing),
                                     std::int64_t(g.entries().extent(0)));
  tessera::parallel_for(
      "graph::slot_weights", make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t vi) {
        const auto edges = out_edges(V(vi), g);
        for (auto it = edges.begin(); it != edges.end(); ++it)
          by_slot(it.slot()) = double(w(get_edge_index(*it, g)));
      });
  return by_slot;
}

// The weight of the edge at out-edge iterator it: from by_slot (the copy
// above) where G has slots, else from w by edge index. A function, not an
// `if constexpr` in the kernels that call it: nvcc refuses a device lambda
// whose first use of a capture is inside one.
template <class It, class G, class WeightView, class SlotWeights>
TESSERA_INLINE_FUNCTION double edge_weight_at(const It& it, const G& g, const WeightView& w,
                                              const SlotWeights& by_slot) {
  if constexpr (has_edge_slots_v<G>)
    return by_slot(it.slot());
  else
    return double(w(get_edge_index(*it, g)));
}

}  // namespace tessera::graph::detail
