#pragma once
// Access modifiers of a split kernel on a PartitionedView's halo, given to
// KernelGraph::split / then_split:
//
//   halo_read(v)       the kernel reads v's halo cells (concurrently with
//                      other readers). The graph exchanges the halo first,
//                      one node per (partition, neighbour) pair, and runs the
//                      kernel in two parts: the interior, which needs no
//                      halo and overlaps the transfers, and the boundary
//                      slabs, after the transfers into the partition.
//   halo_exclusive(v)  the same, and the kernel updates v in place: the
//                      boundary part also waits for the transfers that read
//                      the partition's own cells into its neighbours' halos
//                      (write after read) and for the interior part (whose
//                      stencil reads boundary cells).
#include <tessera/core/partitioned_view.hpp>

#include <functional>
#include <string>

namespace tessera {

template <std::size_t R>
struct HaloAccess {
  enum class Mode { read, exclusive };
  Mode mode = Mode::read;
  std::string label;              // the View's, for error messages
  Partitioning<R> partitioning;   // must be the graph's
  std::function<void(int p, int q)> copy;  // p's halo cells that q owns, from q
};

namespace detail {
template <class DT, class... P>
auto make_halo_access(const PartitionedView<DT, P...>& v, typename HaloAccess<PartitionedView<DT, P...>::rank>::Mode m) {
  HaloAccess<PartitionedView<DT, P...>::rank> a{m, v.label(), v.partitioning(), {}};
  // The copy is queued on p's instance and waited for: on a CUDA stream per
  // partition, the node's task completes only once the halo cells have
  // landed, so the kernels after it (on any stream) read them and q's next
  // kernel may overwrite the cells it read. The producing kernels of q were
  // fenced by their own nodes, which this one waits on.
  a.copy = [v](int p, int q) {
    v.copy_halo(p, q);
    v.instance(p).fence("tessera::KernelGraph halo transfer");
  };
  return a;
}
}  // namespace detail

template <class DT, class... P>
auto halo_read(const PartitionedView<DT, P...>& v) {
  return detail::make_halo_access(v, HaloAccess<PartitionedView<DT, P...>::rank>::Mode::read);
}
template <class DT, class... P>
auto halo_exclusive(const PartitionedView<DT, P...>& v) {
  return detail::make_halo_access(v, HaloAccess<PartitionedView<DT, P...>::rank>::Mode::exclusive);
}

}  // namespace tessera
