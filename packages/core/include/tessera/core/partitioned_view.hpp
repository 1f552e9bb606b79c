#pragma once
// PartitionedView<DataType, Properties...>: a tensor stored as one View per
// partition of a Partitioning, each View holding the partition's owned cells
// plus its halo (padding) cells, each partition with its own execution-space
// instance.
//
// Why one allocation per partition rather than subviews of one View: a
// partition's data must be able to live where its instance runs (a CUDA
// stream today, a device of its own where the back-end has several), and
// halo cells are copies, so that a partition never reads memory another
// partition writes in the same step. Halo copies are what the kernel graph
// (tasking's KernelGraph) schedules as nodes of their own.
//
// Indexing: partition p's View is indexed in local coordinates, local =
// global - padded(p).lo, so its owned cells start at the halo width. A
// kernel written in global coordinates uses at(p, i, j, ...).
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/partitioning.hpp>
#include <tessera/core/subview.hpp>
#include <tessera/core/view.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tessera {

namespace detail {
// subview(v, {lo[0], hi[0]}, ..., {lo[R-1], hi[R-1]}) for a box in v's coordinates.
template <class V, std::size_t R, std::size_t... I>
auto box_subview(const V& v, const Box<R>& b, std::index_sequence<I...>) {
  return subview(v, std::pair<std::int64_t, std::int64_t>(b.lo[I], b.hi[I])...);
}
template <class V, std::size_t R>
auto box_subview(const V& v, const Box<R>& b) {
  return box_subview(v, b, std::make_index_sequence<R>());
}
template <std::size_t R>
Box<R> shift(Box<R> b, const std::array<std::int64_t, R>& origin) {
  for (std::size_t d = 0; d < R; ++d) {
    b.lo[d] -= origin[d];
    b.hi[d] -= origin[d];
  }
  return b;
}
}  // namespace detail

template <class DataType, class... Properties>
class PartitionedView {
 public:
  using view_type = View<DataType, Properties...>;
  using execution_space = typename view_type::execution_space;
  using memory_space = typename view_type::memory_space;
  using value_type = typename view_type::non_const_value_type;
  static constexpr std::size_t rank = view_type::rank;
  using partitioning_type = Partitioning<rank>;
  static_assert(rank >= 1, "tessera::PartitionedView: a rank-0 View has nothing to partition");

  PartitionedView() = default;
  // Allocates one View per partition (labelled "label[p]"), zero-filled,
  // halo cells included; every partition on the default instance of the
  // View's execution space (see set_instance).
  PartitionedView(const std::string& label, const partitioning_type& parts)
      : m_label(label), m_parts(parts), m_spaces(std::size_t(parts.size())) {
    m_views.reserve(std::size_t(parts.size()));
    for (int p = 0; p < parts.size(); ++p) m_views.push_back(allocate(label + "[" + std::to_string(p) + "]", p));
  }

  const std::string& label() const { return m_label; }
  const partitioning_type& partitioning() const { return m_parts; }
  int size() const { return m_parts.size(); }

  // Partition p's View, halo included (local coordinates).
  const view_type& view(int p) const { return m_views.at(std::size_t(p)); }
  // The global coordinates of local index 0 of partition p.
  const std::array<std::int64_t, rank>& origin(int p) const { return m_origins.at(std::size_t(p)); }
  // Element at global coordinates (i, ...) held by partition p (owned or
  // halo); host code on host-accessible memory (kernels index view(p)).
  template <class... I>
  value_type& at(int p, I... i) const {
    static_assert(sizeof...(I) == rank, "tessera::PartitionedView::at: one index per dimension");
    return at_impl(m_views[std::size_t(p)], m_origins[std::size_t(p)], std::make_index_sequence<rank>(), i...);
  }
  // A subview of partition p's View over a box given in global coordinates.
  auto box(int p, const Box<rank>& global) const {
    return detail::box_subview(view(p), detail::shift(global, origin(p)));
  }

  // The instance partition p's halo copies and scatter/gather run on (a CUDA
  // stream per partition, for example). Host instances share one pool; the
  // kernel graph gives each partition its own group of threads. On Cuda the
  // caller creates the streams (and keeps them alive); tasking's
  // KernelGraph::set_instances launches partition p's kernels on instance(p).
  // Set instances before copying the view: copies keep the instances they had.
  const execution_space& instance(int p) const { return m_spaces.at(std::size_t(p)); }
  void set_instance(int p, const execution_space& exec) { m_spaces.at(std::size_t(p)) = exec; }

  // Copies into p's halo the cells neighbour q owns (on p's instance).
  void copy_halo(int p, int q) const {
    const Box<rank> cells = m_parts.halo_from(p, q);
    if (cells.empty()) return;
    deep_copy(instance(p), box(p, cells), box(q, cells));
  }
  // Every partition's halo from its neighbours (halo cells outside the
  // domain are left as they are: boundary values).
  void exchange_halos() const {
    for (int p = 0; p < size(); ++p)
      for (int q : m_parts.neighbors(p)) copy_halo(p, q);
    fence();
  }
  // Sets every cell, halo included, of every partition.
  void fill(const value_type& value) const {
    for (int p = 0; p < size(); ++p) deep_copy(instance(p), m_views[std::size_t(p)], value);
    fence();
  }
  // Each partition's owned cells from / to a single View of the global
  // extents (any layout, any space deep_copy can reach).
  template <class V>
  void scatter(const V& global) const {
    check_global(global, "scatter");
    for (int p = 0; p < size(); ++p) {
      const Box<rank> o = m_parts.owned(p);
      deep_copy(instance(p), box(p, o), detail::box_subview(global, o));
    }
    fence();
  }
  template <class V>
  void gather(const V& global) const {
    check_global(global, "gather");
    for (int p = 0; p < size(); ++p) {
      const Box<rank> o = m_parts.owned(p);
      deep_copy(instance(p), detail::box_subview(global, o), box(p, o));
    }
    fence();
  }
  void fence() const {
    for (const auto& e : m_spaces) e.fence("tessera::PartitionedView " + m_label);
  }

 private:
  view_type allocate(const std::string& label, int p) {
    const Box<rank> b = m_parts.padded(p);
    m_origins.push_back(b.lo);
    std::size_t e[8];
    for (auto& x : e) x = TESSERA_IMPL_CTOR_DEFAULT_ARG;
    for (std::size_t d = 0; d < rank; ++d) e[d] = std::size_t(b.extent(d));
    return view_type(label, e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
  }
  template <class... I, std::size_t... D>
  static value_type& at_impl(const view_type& v,
                                                           const std::array<std::int64_t, rank>& o,
                                                           std::index_sequence<D...>, I... i) {
    return v(std::int64_t(i) - o[D]...);
  }
  template <class V>
  void check_global(const V& global, const char* what) const {
    static_assert(V::rank == rank, "tessera::PartitionedView: the global View's rank differs");
    for (std::size_t d = 0; d < rank; ++d)
      if (std::int64_t(global.extent(d)) != m_parts.extents()[d])
        throw std::invalid_argument("tessera::PartitionedView::" + std::string(what) + " '" + m_label +
                                    "': View '" + global.label() + "' has extent " +
                                    std::to_string(global.extent(d)) + " in dimension " + std::to_string(d) +
                                    ", the partitioning " + m_parts.describe());
  }

  std::string m_label;
  partitioning_type m_parts{{}, [] {
                              std::array<int, rank> one{};
                              one.fill(1);
                              return one;
                            }()};
  std::vector<view_type> m_views;
  std::vector<std::array<std::int64_t, rank>> m_origins;
  std::vector<execution_space> m_spaces;
};

}  // namespace tessera
