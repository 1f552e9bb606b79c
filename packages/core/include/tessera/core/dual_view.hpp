#pragma once
// DualView: a View on the device and its host mirror, with flags recording
// which side was modified last, so that sync() copies only when needed.
//
//   tessera::DualView<double*> a("a", n);
//   a.modify_host();  fill a.h_view ...;  a.sync_device();   // copies host -> device
//   parallel_for(n, TESSERA_LAMBDA(int i) { a.d_view(i) *= 2; });
//   a.modify_device(); a.sync_host();                         // copies device -> host
//
// Semantics follow Kokkos: modify_X() marks side X as the newer one; sync_X()
// copies from the other side only when the other side was modified after
// the last sync, then clears both flags; need_sync_X() tells whether sync_X()
// would copy. Copies of a DualView share the flags (and the Views).
//
// Differences from Kokkos, on purpose:
//  - Marking one side modified while the other side holds modifications that
//    were never synced throws std::runtime_error naming the DualView. Kokkos
//    accepts it (only a debug build prints a warning) and the next sync
//    silently overwrites one side's changes. To discard the other side's
//    changes deliberately, call clear_sync_state() first.
//  - The flags are kept even when the host and device Views are the same
//    allocation (a host execution space): need_sync_*() then answers exactly
//    as it would on a GPU, and sync() only clears flags. A missing sync is thus
//    caught by tests on the host, before the code first runs on a GPU.
//  - modify<Space>() / sync<Space>() / need_sync<Space>(): Space names the
//    device side when it is the device's execution space or Device type, or
//    a memory space only the device side lives in; otherwise the host side.
//    So modify<HostSpace>() is always the host side, even when both sides
//    are host memory (Kokkos ignores such ambiguous calls).
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/subview.hpp>
#include <tessera/core/view.hpp>

#include <string>
#include <type_traits>

namespace tessera {

template <class DataType, class... Properties>
class DualView {
 public:
  using t_dev = View<DataType, Properties...>;
  using t_host = typename t_dev::HostMirror;
  using traits = typename t_dev::traits;
  // The member types of Kokkos' ViewTraits, which Kokkos' DualView derives from.
  using data_type = DataType;
  using const_data_type = typename t_dev::const_data_type;
  using non_const_data_type = typename t_dev::non_const_data_type;
  using scalar_array_type = typename t_dev::scalar_array_type;
  using const_scalar_array_type = typename t_dev::const_scalar_array_type;
  using non_const_scalar_array_type = typename t_dev::non_const_scalar_array_type;
  using value_type = typename t_dev::value_type;
  using const_value_type = typename t_dev::const_value_type;
  using non_const_value_type = typename t_dev::non_const_value_type;
  using array_layout = typename t_dev::array_layout;
  using execution_space = typename t_dev::execution_space;
  using memory_space = typename t_dev::memory_space;
  using device_type = typename t_dev::device_type;
  using memory_traits = typename t_dev::memory_traits;
  using host_mirror_space = typename t_dev::host_mirror_space;
  using size_type = std::size_t;
  static constexpr bool is_hostspace = std::is_same_v<memory_space, HostSpace>;
  static constexpr bool is_managed = !memory_traits::is_unmanaged;
  static constexpr bool is_random_access = memory_traits::is_random_access;
  static constexpr bool is_atomic = memory_traits::is_atomic;

  // The View types of both sides, as in Kokkos. The host-side const types
  // are const Views (Kokkos' are the non-const HostMirror of the const
  // device type).
  using t_dev_const = typename t_dev::const_type;
  using t_host_const = typename t_host::const_type;
  using t_dev_const_randomread = View<const_data_type, array_layout, device_type, MemoryTraits<RandomAccess>>;
  using t_host_const_randomread =
      View<typename t_host::const_data_type, array_layout, host_mirror_space, MemoryTraits<RandomAccess>>;
  using t_dev_um = View<DataType, array_layout, device_type, MemoryUnmanaged>;
  using t_host_um = View<typename t_host::data_type, array_layout, host_mirror_space, MemoryUnmanaged>;
  using t_dev_const_um = View<const_data_type, array_layout, device_type, MemoryUnmanaged>;
  using t_host_const_um = View<typename t_host::const_data_type, array_layout, host_mirror_space, MemoryUnmanaged>;
  using t_dev_const_randomread_um =
      View<const_data_type, array_layout, device_type, MemoryTraits<Unmanaged | RandomAccess>>;
  using t_host_const_randomread_um =
      View<typename t_host::const_data_type, array_layout, host_mirror_space, MemoryTraits<Unmanaged | RandomAccess>>;
  using const_type = DualView<typename t_dev::const_data_type, Properties...>;
  using non_const_type = DualView<typename t_dev::non_const_data_type, Properties...>;
  // Shared counters: [0] host, [1] device, as in Kokkos.
  using t_modified_flags = View<unsigned int[2], LayoutRight, Device<DefaultHostExecutionSpace, HostSpace>>;

  static constexpr std::size_t rank = t_dev::rank;
  static constexpr std::size_t rank_dynamic = t_dev::rank_dynamic;
  // True when h_view and d_view are the same allocation.
  static constexpr bool impl_single_allocation =
      std::is_same_v<typename t_dev::memory_space, typename t_host::memory_space>;
  // Kokkos' name: both sides are the same Device.
  static constexpr bool impl_dualview_is_single_device =
      std::is_same_v<typename t_dev::device_type, typename t_host::device_type>;

  t_dev d_view;
  t_host h_view;

  // --- construction ----------------------------------------------------------

  DualView() = default;
  DualView(const DualView&) = default;
  DualView(DualView&&) = default;
  DualView& operator=(const DualView&) = default;
  DualView& operator=(DualView&&) = default;

  // Allocates the device View (value-initialized) and its host mirror (the
  // same allocation when the device memory is host memory).
  explicit DualView(const std::string& label, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : d_view(label, n0, n1, n2, n3, n4, n5, n6, n7),
        h_view(create_mirror_view(d_view)),
        m_flags("DualView::modified_flags") {}
  explicit DualView(const char* label, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : DualView(std::string(label), n0, n1, n2, n3, n4, n5, n6, n7) {}
  // With allocation properties, e.g. view_alloc(WithoutInitializing, "a").
  template <class E, class M>
  explicit DualView(const detail::ViewAllocProp<E, M>& prop, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                    std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : d_view(prop, n0, n1, n2, n3, n4, n5, n6, n7), m_flags("DualView::modified_flags") {
    h_view = prop.initialize ? create_mirror_view(d_view) : create_mirror_view(WithoutInitializing, d_view);
  }

  // From existing Views of the same shape (not copied; flags start clear).
  DualView(const t_dev& d, const t_host& h) : d_view(d), h_view(h), m_flags("DualView::modified_flags") {
    for (std::size_t r = 0; r < rank; ++r)
      if (d.extent(r) != h.extent(r))
        detail::throw_runtime_error("tessera::DualView('" + d.label() + "', '" + h.label() + "'): extent " +
                                    std::to_string(r) + " differs (" + std::to_string(d.extent(r)) + " vs " +
                                    std::to_string(h.extent(r)) + ")");
  }
  // From a device View: the host side is create_mirror_view(d) (not copied).
  DualView(const t_dev& d) : d_view(d), h_view(create_mirror_view(d)), m_flags("DualView::modified_flags") {}

  // Conversion, e.g. DualView<T*> -> DualView<const T*>; shares Views and flags.
  template <class D2, class... P2>
    requires(!std::is_same_v<DualView, DualView<D2, P2...>> &&
             std::is_constructible_v<t_dev, typename DualView<D2, P2...>::t_dev>)
  DualView(const DualView<D2, P2...>& other)
      : d_view(other.d_view), h_view(other.h_view), m_flags(other.impl_flags()) {}

  // A subview of both sides (Kokkos' subview constructor): the same
  // arguments as subview(View, ...); shares the flags with `src`.
  template <class D2, class... P2, class Arg0, class... Args>
  DualView(const DualView<D2, P2...>& src, const Arg0& arg0, Args... args)
      : d_view(tessera::subview(src.d_view, arg0, args...)),
        h_view(tessera::subview(src.h_view, arg0, args...)),
        m_flags(src.impl_flags()) {}

  // --- access ------------------------------------------------------------------

  // The View that lives in Space: d_view when Space's memory space is the
  // device's, h_view otherwise (Kokkos' rule).
  template <class Space>
  const auto& view() const {
    if constexpr (std::is_same_v<typename t_dev::memory_space, typename Space::memory_space>) return d_view;
    else return h_view;
  }
  const t_host& view_host() const { return h_view; }
  const t_dev& view_device() const { return d_view; }

  // --- modify / sync -------------------------------------------------------------

  template <class Space>
  void modify() {
    if constexpr (side<Space>() == 1) modify_device();
    else modify_host();
  }
  void modify_host() { mark(0); }
  void modify_device() { mark(1); }

  template <class Space>
  void sync() {
    if constexpr (side<Space>() == 1) sync_device();
    else sync_host();
  }
  template <class Space, class Exec>
  void sync(const Exec& exec) {
    if constexpr (side<Space>() == 1) sync_device(exec);
    else sync_host(exec);
  }
  // Copies device -> host if the device side is newer; returns when done.
  void sync_host() {
    if (need_sync_host()) {
      copy_to(0, DefaultHostExecutionSpace());
      DefaultHostExecutionSpace().fence();
    }
  }
  // Same, ordered on `exec` (fence exec before reading h_view).
  template <class Exec>
    requires is_execution_space_v<Exec>
  void sync_host(const Exec& exec) {
    if (need_sync_host()) copy_to(0, exec);
  }
  void sync_device() {
    if (need_sync_device()) {
      copy_to(1, execution_space());
      execution_space().fence();
    }
  }
  template <class Exec>
    requires is_execution_space_v<Exec>
  void sync_device(const Exec& exec) {
    if (need_sync_device()) copy_to(1, exec);
  }

  template <class Space>
  bool need_sync() const {
    if constexpr (side<Space>() == 1) return need_sync_device();
    else return need_sync_host();
  }
  bool need_sync_host() const { return m_flags.data() && m_flags(0) < m_flags(1); }
  bool need_sync_device() const { return m_flags.data() && m_flags(1) < m_flags(0); }

  // Forgets which side was modified (nothing is copied).
  void clear_sync_state() {
    if (m_flags.data()) m_flags(0) = m_flags(1) = 0;
  }

  // --- resize / realloc --------------------------------------------------------

  // New extents, keeping the overlapping values of the newer side (the
  // device when neither is newer), whose flag is then marked modified, as
  // in Kokkos. The other side is reallocated to match (its values are stale
  // until the next sync).
  void resize(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
              std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
              std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
              std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG) {
    ensure_flags();
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    const bool host_newer = m_flags(0) > m_flags(1);
    if (host_newer && !impl_single_allocation) {
      resize_view(h_view, n);
      realloc_view(d_view, n);
      ++m_flags(0);
    } else {
      resize_view(d_view, n);
      if constexpr (impl_single_allocation) h_view = create_mirror_view(d_view);
      else realloc_view(h_view, n);
      if (host_newer) ++m_flags(0);
      else ++m_flags(1);
    }
  }
  // New extents, values dropped (both sides value-initialized), flags cleared.
  void realloc(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
               std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
               std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
               std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG) {
    ensure_flags();
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    const std::string label = d_view.label();
    h_view = t_host();
    d_view = t_dev();  // release first, so peak memory is the new size only
    d_view = make_view<t_dev>(label, n);
    h_view = create_mirror_view(d_view);
    clear_sync_state();
  }

  // --- queries -----------------------------------------------------------------

  std::size_t extent(std::size_t r) const { return d_view.extent(r); }
  int extent_int(std::size_t r) const { return d_view.extent_int(r); }
  std::size_t size() const { return d_view.size(); }
  std::size_t span() const { return d_view.span(); }
  bool span_is_contiguous() const { return d_view.span_is_contiguous(); }
  std::size_t stride(std::size_t r) const { return d_view.stride(r); }
  template <class I>
  void stride(I* s) const {
    d_view.stride(s);
  }
  bool is_allocated() const { return d_view.is_allocated(); }
  std::string label() const { return d_view.label(); }

  const t_modified_flags& impl_flags() const { return m_flags; }

 private:
  // 1: the device side, 0: the host side (see the header comment).
  template <class Space>
  static constexpr int side() {
    using M = typename Space::memory_space;
    if constexpr (std::is_same_v<Space, typename t_dev::execution_space> ||
                  std::is_same_v<Space, typename t_dev::device_type>)
      return 1;
    else if constexpr (std::is_same_v<M, typename t_host::memory_space>)
      return 0;
    else if constexpr (std::is_same_v<M, typename t_dev::memory_space>)
      return 1;
    else
      static_assert(sizeof(Space) == 0, "DualView: Space is neither the host nor the device side");
    return 0;
  }

  void ensure_flags() {
    if (!m_flags.data()) m_flags = t_modified_flags("DualView::modified_flags");
  }

  void mark(int s) {
    ensure_flags();
    const int other = 1 - s;
    if (m_flags(other) > m_flags(s))
      detail::throw_runtime_error(
          std::string("tessera::DualView '") + d_view.label() + "': modify_" + (s == 0 ? "host" : "device") +
          "() while the " + (other == 0 ? "host" : "device") +
          " side holds modifications that were never synced; call sync_" + (s == 0 ? "host" : "device") +
          "() first, or clear_sync_state() to discard them (Kokkos would silently lose one side's changes)");
    const unsigned int top = m_flags(0) > m_flags(1) ? m_flags(0) : m_flags(1);
    m_flags(s) = top + 1;
  }

  // Brings side `to` up to date from the other side and clears the flags.
  template <class Exec>
  void copy_to(int to, const Exec& exec) {
    if constexpr (!impl_single_allocation) {
      if (to == 0) {
        deep_copy(exec, h_view, d_view);
      } else if constexpr (std::is_const_v<value_type>) {
        detail::throw_runtime_error("tessera::DualView '" + d_view.label() +
                                    "': sync_device() on a DualView of const values (d_view cannot be written)");
      } else {
        deep_copy(exec, d_view, h_view);
      }
    }
    (void)exec;
    m_flags(0) = m_flags(1) = 0;
  }

  template <class V>
  static V make_view(const std::string& label, const std::size_t* n) {
    return V(label, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
  }
  template <class V>
  static void realloc_view(V& v, const std::size_t* n) {
    const std::string label = v.label();
    v = V();
    v = make_view<V>(label, n);
  }
  // Kokkos' resize: overlapping values kept, new ones value-initialized.
  template <class V>
  static void resize_view(V& v, const std::size_t* n) {
    V fresh = make_view<V>(v.label(), n);
    if constexpr (V::rank == 0) {
      if (v.data()) deep_copy(fresh, v);
    } else if (v.data() && fresh.size() > 0) {
      std::size_t common[8] = {1, 1, 1, 1, 1, 1, 1, 1};
      for (std::size_t r = 0; r < V::rank; ++r) common[r] = std::min(v.extent(r), fresh.extent(r));
      auto src = subview_box(v, common);
      auto dst = subview_box(fresh, common);
      deep_copy(dst, src);
    }
    v = fresh;
  }
  // The leading box [0, common[r]) of every dimension, as a strided View.
  template <class V>
  static auto subview_box(const V& v, const std::size_t* common) {
    return [&]<std::size_t... R>(std::index_sequence<R...>) {
      return subview(v, std::pair<std::size_t, std::size_t>(0, common[R])...);
    }(std::make_index_sequence<V::rank>());
  }

  t_modified_flags m_flags;
};

template <class T>
struct is_dual_view : std::false_type {};
template <class D, class... P>
struct is_dual_view<DualView<D, P...>> : std::true_type {};
template <class D, class... P>
struct is_dual_view<const DualView<D, P...>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_view_v = is_dual_view<T>::value;

// subview(dual_view, args...): a DualView of the subviews of both sides,
// sharing the modified flags (Kokkos' subview of a DualView).
template <class D, class... P, class... Args>
auto subview(const DualView<D, P...>& src, Args... args) {
  using Sub = decltype(tessera::subview(src.d_view, args...));
  using Result = DualView<typename Sub::data_type, typename Sub::array_layout, typename Sub::device_type,
                          typename Sub::memory_traits>;
  return Result(src, args...);
}

// deep_copy between DualViews, as in Kokkos: copies the source's newer side
// (the device when it needs no sync from the host) into the same side of
// dst, and marks that side of dst modified.
template <class DD, class... DP, class SD, class... SP>
void deep_copy(DualView<DD, DP...>& dst, const DualView<SD, SP...>& src) {
  if (src.need_sync_device()) {
    deep_copy(dst.h_view, src.h_view);
    dst.modify_host();
  } else {
    deep_copy(dst.d_view, src.d_view);
    dst.modify_device();
  }
}
template <class Exec, class DD, class... DP, class SD, class... SP>
  requires is_execution_space_v<Exec>
void deep_copy(const Exec& exec, DualView<DD, DP...>& dst, const DualView<SD, SP...>& src) {
  if (src.need_sync_device()) {
    deep_copy(exec, dst.h_view, src.h_view);
    dst.modify_host();
  } else {
    deep_copy(exec, dst.d_view, src.d_view);
    dst.modify_device();
  }
}

}  // namespace tessera
