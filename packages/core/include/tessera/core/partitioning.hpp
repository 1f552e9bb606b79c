#pragma once
// Partitioning<R>: how a tensor of R dimensions is cut into a grid of
// partitions (blocks of nearly equal size along chosen dimensions), each
// padded with halo cells, and each cut again into sub-partitions.
//
// Pure geometry in global index coordinates: no memory, no execution. The
// data structure over it is PartitionedView (partitioned_view.hpp); the graph
// of kernels over partitions is tasking's KernelGraph.
#include <tessera/core/macros.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

// A box of cells [lo[d], hi[d]) in each of R dimensions.
template <std::size_t R>
struct Box {
  std::array<std::int64_t, R> lo{}, hi{};

  std::int64_t extent(std::size_t d) const { return hi[d] > lo[d] ? hi[d] - lo[d] : 0; }
  std::int64_t size() const {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < R; ++d) n *= extent(d);
    return n;
  }
  bool empty() const { return size() == 0; }
  friend bool operator==(const Box&, const Box&) = default;
};

// The cells two boxes have in common (possibly empty).
template <std::size_t R>
Box<R> intersect(const Box<R>& a, const Box<R>& b) {
  Box<R> c;
  for (std::size_t d = 0; d < R; ++d) {
    c.lo[d] = std::max(a.lo[d], b.lo[d]);
    c.hi[d] = std::max(c.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return c;
}

template <std::size_t R>
std::string to_string(const Box<R>& b) {
  std::string s = "[";
  for (std::size_t d = 0; d < R; ++d)
    s += (d ? ", " : "") + std::to_string(b.lo[d]) + ":" + std::to_string(b.hi[d]);
  return s + ")";
}

template <std::size_t R>
class Partitioning {
 public:
  using extents_type = std::array<std::int64_t, R>;
  using counts_type = std::array<int, R>;

  // `extents`: the global tensor; `parts[d]`: partitions along dimension d
  // (1: that dimension is not split); `halo[d]`: halo cells on each side of
  // every partition along d; `subpartitions`: pieces each partition is cut
  // into along its first dimension of extent > 1 (the unit of work a
  // partition's kernels are spawned by).
  Partitioning(const extents_type& extents, const counts_type& parts, const extents_type& halo = {},
               int subpartitions = 1)
      : m_extents(extents), m_parts(parts), m_halo(halo), m_sub(subpartitions) {
    for (std::size_t d = 0; d < R; ++d) {
      const std::string dim = "tessera::Partitioning: dimension " + std::to_string(d) + ": ";
      if (extents[d] < 0) throw std::invalid_argument(dim + "extent " + std::to_string(extents[d]) + " is negative");
      if (parts[d] < 1)
        throw std::invalid_argument(dim + std::to_string(parts[d]) + " partitions (at least 1 is needed)");
      if (parts[d] > 1 && parts[d] > extents[d])
        throw std::invalid_argument(dim + std::to_string(parts[d]) + " partitions of an extent of " +
                                    std::to_string(extents[d]) + " would leave some empty");
      if (halo[d] < 0) throw std::invalid_argument(dim + "halo width " + std::to_string(halo[d]) + " is negative");
    }
    if (subpartitions < 1)
      throw std::invalid_argument("tessera::Partitioning: " + std::to_string(subpartitions) +
                                  " sub-partitions (at least 1 is needed)");
    m_count = 1;
    for (std::size_t d = 0; d < R; ++d) m_count *= m_parts[d];
    for (int p = 0; p < m_count; ++p) {
      const Box<R> o = owned(p);
      std::size_t d = split_dim_of(o);
      if (o.extent(d) < m_sub && o.size() > 0)
        throw std::invalid_argument("tessera::Partitioning: partition " + std::to_string(p) + " " + to_string(o) +
                                    " has " + std::to_string(o.extent(d)) + " cells along dimension " +
                                    std::to_string(d) + ", fewer than its " + std::to_string(m_sub) +
                                    " sub-partitions");
    }
    // Neighbours: every other partition whose owned cells meet p's halo
    // (faces, edges and corners; several layers when the halo is wider than
    // a neighbour).
    m_neighbors.resize(std::size_t(m_count));
    for (int p = 0; p < m_count; ++p)
      for (int q = 0; q < m_count; ++q)
        if (q != p && !intersect(padded(p), owned(q)).empty()) m_neighbors[std::size_t(p)].push_back(q);
  }

  static constexpr std::size_t rank = R;
  int size() const { return m_count; }
  const extents_type& extents() const { return m_extents; }
  const counts_type& parts() const { return m_parts; }
  const extents_type& halo() const { return m_halo; }
  int subpartitions() const { return m_sub; }
  // The whole tensor.
  Box<R> domain() const {
    Box<R> b;
    b.hi = m_extents;
    return b;
  }

  // Grid coordinates of partition p (the last dimension varies fastest).
  counts_type coords(int p) const {
    check(p, "coords");
    counts_type c{};
    for (std::size_t d = R; d-- > 0;) {
      c[d] = p % m_parts[d];
      p /= m_parts[d];
    }
    return c;
  }

  // The cells partition p owns (global coordinates): along each dimension
  // the extent is cut into parts[d] contiguous blocks, the first
  // (extent % parts) one cell longer.
  Box<R> owned(int p) const {
    const counts_type c = coords(p);
    Box<R> b;
    for (std::size_t d = 0; d < R; ++d) {
      const std::int64_t n = m_extents[d], k = m_parts[d], q = n / k, r = n % k, i = c[d];
      b.lo[d] = i * q + std::min<std::int64_t>(i, r);
      b.hi[d] = b.lo[d] + q + (i < r ? 1 : 0);
    }
    return b;
  }
  // The owned cells grown by the halo on every side (may reach outside the
  // domain: those cells hold boundary values).
  Box<R> padded(int p) const {
    Box<R> b = owned(p);
    for (std::size_t d = 0; d < R; ++d) {
      b.lo[d] -= m_halo[d];
      b.hi[d] += m_halo[d];
    }
    return b;
  }
  // Partitions owning cells of p's halo, in increasing order.
  const std::vector<int>& neighbors(int p) const {
    check(p, "neighbors");
    return m_neighbors[std::size_t(p)];
  }
  // The cells of p's halo that q owns (empty unless q is a neighbour of p).
  Box<R> halo_from(int p, int q) const {
    check(q, "halo_from");
    return p == q ? Box<R>{} : intersect(padded(p), owned(q));
  }
  // Cells of p that no neighbour's halo reads and whose stencil (of the halo
  // width) stays inside p: the owned box shrunk by the halo on every side.
  Box<R> interior(int p) const {
    Box<R> b = owned(p);
    for (std::size_t d = 0; d < R; ++d) {
      b.lo[d] = std::min(b.lo[d] + m_halo[d], b.hi[d]);
      b.hi[d] = std::max(b.hi[d] - m_halo[d], b.lo[d]);
    }
    return b;
  }
  // owned(p) minus interior(p) as at most 2R disjoint slabs (empty ones left
  // out): along dimension d the low and high slabs, restricted to the
  // interior range in the dimensions before d.
  std::vector<Box<R>> boundary(int p) const {
    const Box<R> o = owned(p), in = interior(p);
    std::vector<Box<R>> slabs;
    Box<R> rest = o;
    for (std::size_t d = 0; d < R; ++d) {
      Box<R> low = rest, high = rest;
      low.hi[d] = in.lo[d];
      high.lo[d] = std::max(in.hi[d], in.lo[d]);
      if (!low.empty()) slabs.push_back(low);
      if (!high.empty()) slabs.push_back(high);
      rest.lo[d] = in.lo[d];
      rest.hi[d] = std::max(in.hi[d], in.lo[d]);
    }
    return slabs;
  }
  // Sub-partition s of p: p's owned box cut into subpartitions() nearly
  // equal blocks along its first dimension of extent > 1.
  Box<R> subpartition(int p, int s) const {
    if (s < 0 || s >= m_sub)
      throw std::out_of_range("tessera::Partitioning::subpartition: sub-partition " + std::to_string(s) +
                              " of " + std::to_string(m_sub));
    Box<R> b = owned(p);
    const std::size_t d = split_dim_of(b);
    const std::int64_t n = b.extent(d), q = n / m_sub, r = n % m_sub, lo = b.lo[d];
    b.lo[d] = lo + s * q + std::min<std::int64_t>(s, r);
    b.hi[d] = b.lo[d] + q + (s < r ? 1 : 0);
    return b;
  }

  friend bool operator==(const Partitioning& a, const Partitioning& b) {
    return a.m_extents == b.m_extents && a.m_parts == b.m_parts && a.m_halo == b.m_halo && a.m_sub == b.m_sub;
  }
  std::string describe() const {
    std::string s = "extents " + to_string(domain()) + ", partitions";
    for (std::size_t d = 0; d < R; ++d) s += (d ? "x" : " ") + std::to_string(m_parts[d]);
    s += ", halo";
    for (std::size_t d = 0; d < R; ++d) s += (d ? "x" : " ") + std::to_string(m_halo[d]);
    return s + ", " + std::to_string(m_sub) + " sub-partition(s)";
  }

 private:
  static std::size_t split_dim_of(const Box<R>& b) {
    for (std::size_t d = 0; d < R; ++d)
      if (b.extent(d) > 1) return d;
    return 0;
  }
  void check(int p, const char* what) const {
    if (p < 0 || p >= m_count)
      throw std::out_of_range(std::string("tessera::Partitioning::") + what + ": partition " + std::to_string(p) +
                              " of " + std::to_string(m_count));
  }

  extents_type m_extents;
  counts_type m_parts;
  extents_type m_halo;
  int m_sub = 1;
  int m_count = 1;
  std::vector<std::vector<int>> m_neighbors;
};

}  // namespace tessera
