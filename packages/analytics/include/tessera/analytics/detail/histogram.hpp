#pragma once
// Histogram helpers shared by the methods: the number of bins (k is at most
// the largest degree + 1: k - 2 <= t_e <= degree - 1), and the conversion of
// a counts array into the result's map of the k that occur.
#include <tessera/core.hpp>

#include <cstdint>
#include <map>

namespace tessera::analytics::detail {

// Bins 0 .. max_degree + 1 (k <= min t_e + 2 <= max_degree + 1).
template <class G>
std::int64_t histogram_bins(const G& g) {
  using V = typename G::vertex_descriptor;
  std::int64_t maxdeg = 0;
  tessera::parallel_reduce(
      "analytics::max_degree", tessera::RangePolicy<typename G::execution_space>(0, g.num_vertices()),
      TESSERA_LAMBDA(std::int64_t v, std::int64_t & m) {
        const std::int64_t d = g.out_degree(V(v));
        if (d > m) m = d;
      },
      tessera::Max<std::int64_t>(maxdeg));
  return (maxdeg > 0 ? maxdeg : 0) + 2;  // Max starts at the lowest value: an empty graph has none
}

// counts(k) for every k -> {k: counts(k)} for the nonzero ones; the total
// goes to *total.
template <class View1D>
std::map<int, std::int64_t> histogram_map(const View1D& counts, std::int64_t* total) {
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), counts);
  std::map<int, std::int64_t> out;
  std::int64_t t = 0;
  for (std::size_t k = 0; k < h.extent(0); ++k)
    if (h(k) != 0) {
      out[int(k)] = std::int64_t(h(k));
      t += std::int64_t(h(k));
    }
  if (total) *total = t;
  return out;
}

}  // namespace tessera::analytics::detail
