#pragma once
// ScatterView: scatter-add (or -multiply, -min, -max) into a View from many
// threads without the caller choosing between atomics and per-thread copies.
//
//   auto sv = tessera::create_scatter_view(histogram);
//   parallel_for(n, TESSERA_LAMBDA(int i) {
//     auto acc = sv.access();
//     acc(bin(i)) += 1;
//   });
//   tessera::contribute(histogram, sv);   // histogram += all contributions
//
// Two strategies, chosen per execution space at compile time (Kokkos'
// defaults; both may be forced through the template parameters):
//  - ScatterDuplicated (host spaces with a thread pool: Threads, OpenMP): one
//    private copy per pool thread, updated without atomics; contribute()
//    combines the copies into the destination in parallel, element by
//    element. access() picks the calling thread's copy through
//    the calling thread's rank in ExecSpace's pool (detail::host_rank_in),
//    the physical pool thread also inside nested dispatches that fall back to
//    running serially.
//    Threads of another host space (a Threads kernel scattering into an
//    OpenMP ScatterView, as View<T*, HostSpace> makes when both are enabled)
//    share one extra copy and update it with atomics: right, if slower.
//  - ScatterNonDuplicated (Serial, CUDA): contributions go straight into the
//    original View, with atomics (CUDA) or plain updates (Serial).
// After contribute(dest, sv), dest holds its old values combined with every
// contribution, whichever strategy was used.
//
// Kokkos spells these Kokkos::Experimental::ScatterView etc.; Tessera offers
// both tessera::ScatterView and tessera::Experimental::ScatterView.
#include <tessera/core/atomics.hpp>
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/detail/running_host_space.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/view.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace tessera {

// Operations.
struct ScatterSum {};
struct ScatterProd {};
struct ScatterMin {};
struct ScatterMax {};
// Strategies.
struct ScatterDuplicated {};
struct ScatterNonDuplicated {};
struct ScatterAtomic {};
struct ScatterNonAtomic {};

namespace detail {

template <class Exec>
struct DefaultDuplication {
  using type = std::conditional_t<is_host_execution_space<Exec>::value && !std::is_same_v<Exec, Serial>,
                                  ScatterDuplicated, ScatterNonDuplicated>;
};
// Private copies need no atomics; a shared View does, except on Serial.
template <class Exec, class Duplication>
struct DefaultContribution {
  using type = std::conditional_t<std::is_same_v<Duplication, ScatterDuplicated> || std::is_same_v<Exec, Serial>,
                                  ScatterNonAtomic, ScatterAtomic>;
};

template <class Op, class T>
TESSERA_FORCEINLINE_FUNCTION T scatter_identity() {
  if constexpr (std::is_same_v<Op, ScatterSum>) return reduction_identity<T>::sum();
  else if constexpr (std::is_same_v<Op, ScatterProd>) return reduction_identity<T>::prod();
  else if constexpr (std::is_same_v<Op, ScatterMin>) return reduction_identity<T>::min();
  else return reduction_identity<T>::max();
}
template <class Op, class T>
TESSERA_FORCEINLINE_FUNCTION T scatter_join(const T& a, const T& b) {
  if constexpr (std::is_same_v<Op, ScatterSum>) return a + b;
  else if constexpr (std::is_same_v<Op, ScatterProd>) return a * b;
  else if constexpr (std::is_same_v<Op, ScatterMin>) return b < a ? b : a;
  else return a < b ? b : a;
}

// Offset of the multi-index idx[0..rank) in a map.
template <std::size_t Rank, class Map>
TESSERA_FORCEINLINE_FUNCTION std::size_t map_offset(const Map& map, const std::size_t* idx) {
  return [&]<std::size_t... R>(std::index_sequence<R...>) { return map(idx[R]...); }(std::make_index_sequence<Rank>());
}

// Extents of the region a resize copies; at namespace scope because nvcc
// forbids local types in device lambda captures.
struct ScatterBox {
  std::size_t e[8];
};

}  // namespace detail

// What access()(i...) returns: a proxy whose operators are the ones that make
// sense for Op (+=, -=, ++, -- for sums; *=, /= for products; update() for all).
// `shared`: the element is in a copy other threads update too (a duplicated
// ScatterView used from another space's kernel), so updates are atomic.
template <class T, class Op, class Contribution>
class ScatterValue {
 public:
  TESSERA_FORCEINLINE_FUNCTION explicit ScatterValue(T* p, bool shared = false) : m_p(p), m_shared(shared) {}

  // Combines v into the element with Op.
  TESSERA_FORCEINLINE_FUNCTION void update(const T& v) const {
    if (atomic || m_shared) {
      if constexpr (std::is_same_v<Op, ScatterSum>) atomic_add(m_p, v);
      else if constexpr (std::is_same_v<Op, ScatterProd>) atomic_mul(m_p, v);
      else if constexpr (std::is_same_v<Op, ScatterMin>) atomic_min(m_p, v);
      else atomic_max(m_p, v);
    } else {
      *m_p = detail::scatter_join<Op>(*m_p, v);
    }
  }

  TESSERA_FORCEINLINE_FUNCTION void operator+=(const T& v) const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(v);
  }
  TESSERA_FORCEINLINE_FUNCTION void operator-=(const T& v) const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(T(-v));
  }
  TESSERA_FORCEINLINE_FUNCTION void operator++() const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(T(1));
  }
  TESSERA_FORCEINLINE_FUNCTION void operator++(int) const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(T(1));
  }
  TESSERA_FORCEINLINE_FUNCTION void operator--() const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(T(-1));
  }
  TESSERA_FORCEINLINE_FUNCTION void operator--(int) const
    requires std::is_same_v<Op, ScatterSum>
  {
    update(T(-1));
  }
  TESSERA_FORCEINLINE_FUNCTION void operator*=(const T& v) const
    requires std::is_same_v<Op, ScatterProd>
  {
    update(v);
  }
  TESSERA_FORCEINLINE_FUNCTION void operator/=(const T& v) const
    requires std::is_same_v<Op, ScatterProd>
  {
    if (atomic || m_shared) atomic_div(m_p, v);
    else *m_p /= v;
  }

 private:
  static constexpr bool atomic = std::is_same_v<Contribution, ScatterAtomic>;
  T* m_p;
  bool m_shared;
};

// The accessor access() returns: the calling thread's copy (duplicated) or
// the View itself (non-duplicated), indexed like the original View.
template <class T, class Map, std::size_t Rank, class Op, class Contribution>
class ScatterAccess {
 public:
  using value_type = T;
  TESSERA_FORCEINLINE_FUNCTION ScatterAccess(T* base, const Map& map, bool shared = false)
      : m_base(base), m_map(map), m_shared(shared) {}

  template <class... I>
    requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION ScatterValue<T, Op, Contribution> operator()(I... i) const {
    check(i...);
    return ScatterValue<T, Op, Contribution>(m_base + m_map(i...), m_shared);
  }
  template <class I>
    requires(Rank == 1 && std::is_integral_v<I>)
  TESSERA_FORCEINLINE_FUNCTION ScatterValue<T, Op, Contribution> operator[](I i) const {
    check(i);
    return ScatterValue<T, Op, Contribution>(m_base + m_map(i), m_shared);
  }

 private:
  template <class... I>
  TESSERA_FORCEINLINE_FUNCTION void check(I... i) const {
#if TESSERA_ENABLE_BOUNDS_CHECK
    const long long idx[] = {static_cast<long long>(i)..., 0};
    for (std::size_t r = 0; r < sizeof...(I); ++r)
      if (idx[r] < 0 || static_cast<std::size_t>(idx[r]) >= m_map.extent(r))
        detail::report_bounds_error("ScatterView access", r, idx[r], m_map.extent(r), Rank);
#else
    ((void)i, ...);
#endif
  }
  T* m_base;
  Map m_map;
  bool m_shared;
};

template <class DataType, class Layout = typename DefaultExecutionSpace::array_layout,
          class DeviceType = DefaultExecutionSpace, class Op = ScatterSum,
          class Duplication = typename detail::DefaultDuplication<typename DeviceType::execution_space>::type,
          class Contribution =
              typename detail::DefaultContribution<typename DeviceType::execution_space, Duplication>::type>
class ScatterView {
 public:
  using execution_space = typename DeviceType::execution_space;
  using memory_space = typename DeviceType::memory_space;
  using device_type = Device<execution_space, memory_space>;
  using original_view_type = View<DataType, Layout, device_type>;
  using original_value_type = typename original_view_type::non_const_value_type;
  using value_type = original_value_type;
  using array_layout = Layout;
  using op_type = Op;
  using duplication_type = Duplication;
  using contribution_type = Contribution;
  using map_type = typename original_view_type::map_type;
  static constexpr std::size_t rank = original_view_type::rank;
  static constexpr bool is_duplicated = std::is_same_v<Duplication, ScatterDuplicated>;
  using access_type = ScatterAccess<value_type, map_type, rank, Op, Contribution>;

  static_assert(std::is_same_v<Op, ScatterSum> || std::is_same_v<Op, ScatterProd> || std::is_same_v<Op, ScatterMin> ||
                    std::is_same_v<Op, ScatterMax>,
                "ScatterView: Op must be ScatterSum, ScatterProd, ScatterMin or ScatterMax");
  static_assert(is_duplicated || std::is_same_v<Duplication, ScatterNonDuplicated>,
                "ScatterView: Duplication must be ScatterDuplicated or ScatterNonDuplicated");
  static_assert(std::is_same_v<Contribution, ScatterAtomic> || std::is_same_v<Contribution, ScatterNonAtomic>,
                "ScatterView: Contribution must be ScatterAtomic or ScatterNonAtomic");
  static_assert(!is_duplicated || is_host_execution_space<execution_space>::value,
                "ScatterView: ScatterDuplicated needs a host execution space (one copy per pool thread); "
                "use ScatterNonDuplicated with ScatterAtomic on devices");
  static_assert(!std::is_const_v<typename original_view_type::value_type>, "ScatterView: the value type must not be const");

  TESSERA_DEFAULTED_FUNCTION ScatterView() = default;

  // Scatters into `original`: duplicated — private copies set to Op's
  // identity; non-duplicated — `original` itself receives the contributions.
  template <class RT, class... RP>
  ScatterView(const View<RT, RP...>& original) {
    if constexpr (is_duplicated) {
      std::size_t n[8];
      for (std::size_t r = 0; r < 8; ++r) n[r] = original.extent(r);
      allocate_copies("duplicated_" + original.label(), n);
      reset();
    } else {
      m_view = original;
    }
  }
  // Allocates fresh storage with the given extents, every element the identity.
  template <class... N>
    requires((std::is_integral_v<N> && ...))
  ScatterView(const std::string& label, N... n) {
    std::size_t e[8];
    extents_from(label, e, std::size_t(n)...);
    if constexpr (is_duplicated) {
      allocate_copies("duplicated_" + label, e);
    } else {
      // Extents past the rank must be left unspecified for the View constructor.
      for (std::size_t r = rank; r < 8; ++r) e[r] = TESSERA_IMPL_CTOR_DEFAULT_ARG;
      m_view = original_view_type(view_alloc(label, WithoutInitializing), e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
    }
    reset();
  }

  // Inside a kernel: the accessor for the calling thread.
  TESSERA_INLINE_FUNCTION access_type access() const {
    if constexpr (is_duplicated) {
#if !TESSERA_IMPL_ON_DEVICE
      const int r = detail::host_rank_in<execution_space>();
      // Another space's threads (r < 0) share the copy after the private ones.
      if (TESSERA_IMPL_UNLIKELY(r < 0))
        return access_type(m_dup.data() + std::size_t(m_copies) * m_copy_stride, m_map, true);
      if (TESSERA_IMPL_UNLIKELY(r >= m_copies))
        tessera::abort("tessera::ScatterView::access(): the calling thread's rank exceeds the number of copies "
                       "(the pool grew after the ScatterView was created)");
      return access_type(m_dup.data() + std::size_t(r) * m_copy_stride, m_map);
#else
      return access_type(nullptr, m_map);  // unreachable: duplicated ScatterViews are host-only
#endif
    } else {
      return access_type(m_view.data(), m_view.impl_map());
    }
  }

  // dest = dest Op (every contribution). A no-op for a non-duplicated
  // ScatterView whose destination is its own View.
  template <class DT, class... DP>
  void contribute_into(const View<DT, DP...>& dest) const {
    contribute_into(execution_space(), dest);
    execution_space().fence("tessera::ScatterView::contribute_into");
  }
  template <class Exec, class DT, class... DP>
    requires is_execution_space_v<Exec>
  void contribute_into(const Exec& exec, const View<DT, DP...>& dest) const {
    using DV = View<DT, DP...>;
    static_assert(DV::rank == rank, "contribute: the destination's rank differs from the ScatterView's");
    static_assert(std::is_same_v<typename DV::memory_space, memory_space>,
                  "contribute: the destination must live in the ScatterView's memory space");
    for (std::size_t r = 0; r < rank; ++r)
      if (dest.extent(r) != extent(r))
        detail::throw_runtime_error("tessera::contribute: destination '" + dest.label() + "' has extent " +
                                    std::to_string(dest.extent(r)) + " in dimension " + std::to_string(r) +
                                    " but ScatterView '" + label() + "' has " + std::to_string(extent(r)));
    constexpr std::size_t R = rank;
    detail::ExtentArray<DV> ext(dest);
    const std::size_t n = dest.size();
    if constexpr (is_duplicated) {
      const value_type* copies = m_dup.data();
      const std::size_t stride = m_copy_stride;
      const int ncopies = m_copies;  // private copies; one shared copy follows them
      const map_type map = m_map;
      // Fast path: destination laid out exactly like the copies.
      bool flat = dest.span_is_contiguous() && dest.span() == n && std::is_same_v<typename DV::array_layout, Layout>;
      for (std::size_t r = 0; r < rank; ++r) flat = flat && dest.stride(r) == map.stride(r);
      auto* d = dest.data();
      parallel_for("tessera::ScatterView::contribute [" + dest.label() + "]", RangePolicy<Exec>(exec, 0, n),
                   TESSERA_LAMBDA(std::size_t k) {
                     std::size_t off = k;
                     std::size_t idx[R > 0 ? R : 1] = {};
                     if (!flat) {
                       detail::unflatten<R>(k, ext.e, idx);
                       off = detail::map_offset<R>(map, idx);
                     }
                     value_type v = flat ? d[k] : value_type(dest.access_array(idx));
                     for (int c = 0; c <= ncopies; ++c) v = detail::scatter_join<Op>(v, copies[std::size_t(c) * stride + off]);
                     if (flat) d[k] = v;
                     else dest.access_array(idx) = v;
                   });
    } else {
      if (static_cast<const void*>(dest.data()) == static_cast<const void*>(m_view.data())) return;
      const original_view_type src = m_view;
      parallel_for("tessera::ScatterView::contribute [" + dest.label() + "]", RangePolicy<Exec>(exec, 0, n),
                   TESSERA_LAMBDA(std::size_t k) {
                     std::size_t idx[R > 0 ? R : 1] = {};
                     detail::unflatten<R>(k, ext.e, idx);
                     dest.access_array(idx) = detail::scatter_join<Op>(value_type(dest.access_array(idx)),
                                                                        value_type(src.access_array(idx)));
                   });
    }
  }

  // Sets every contribution slot to Op's identity. Non-duplicated: that is
  // the original View itself (as in Kokkos).
  void reset() { reset(execution_space()); }
  template <class Exec>
    requires is_execution_space_v<Exec>
  void reset(const Exec& exec) {
    const value_type id = detail::scatter_identity<Op, value_type>();
    if constexpr (is_duplicated) {
      if (m_dup.data()) deep_copy(exec, m_dup, id);
    } else {
      if (m_view.data()) deep_copy(exec, m_view, id);
    }
    exec.fence();
  }
  // Like reset(), but leaves `view` alone when it is the storage the
  // contributions go to (non-duplicated): the usual call before scattering
  // again into the same destination.
  template <class DT, class... DP>
  void reset_except(const View<DT, DP...>& view) {
    if constexpr (!is_duplicated) {
      if (static_cast<const void*>(view.data()) == static_cast<const void*>(m_view.data())) return;
    }
    reset();
  }

  // New extents. resize keeps the contributions in the overlapping region
  // (new elements: the identity); realloc drops them all (every element the
  // identity). Non-duplicated: the ScatterView gets a new View of its own,
  // detached from the View it was created from (as in Kokkos).
  template <class... N>
    requires((std::is_integral_v<N> && ...))
  void resize(N... n) {
    if constexpr (is_duplicated) {
      std::size_t e[8];
      extents_from(label(), e, std::size_t(n)...);
      ScatterView fresh;
      fresh.allocate_copies(m_dup.label(), e);
      fresh.reset();
      if (m_dup.data()) copy_overlap(*this, fresh);
      *this = fresh;
    } else {
      const value_type id = detail::scatter_identity<Op, value_type>();
      const original_view_type old = m_view;
      original_view_type fresh(view_alloc(old.label(), WithoutInitializing), std::size_t(n)...);
      deep_copy(fresh, id);
      if (old.data()) {
        std::size_t common[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        for (std::size_t r = 0; r < rank; ++r) common[r] = std::min(old.extent(r), fresh.extent(r));
        copy_box(fresh, old, common);
      }
      m_view = fresh;
    }
  }
  template <class... N>
    requires((std::is_integral_v<N> && ...))
  void realloc(N... n) {
    if constexpr (is_duplicated) {
      std::size_t e[8];
      extents_from(label(), e, std::size_t(n)...);
      const std::string l = m_dup.label();
      m_dup = View<value_type*, device_type>();
      allocate_copies(l, e);
    } else {
      const std::string l = m_view.label();
      m_view = original_view_type();
      m_view = original_view_type(view_alloc(l, WithoutInitializing), std::size_t(n)...);
    }
    reset();
  }

  // --- queries -------------------------------------------------------------------
  TESSERA_INLINE_FUNCTION std::size_t extent(std::size_t r) const {
    if constexpr (is_duplicated) return m_map.extent(r);
    else return m_view.extent(r);
  }
  TESSERA_INLINE_FUNCTION std::size_t size() const {
    if constexpr (is_duplicated) return m_map.size();
    else return m_view.size();
  }
  TESSERA_INLINE_FUNCTION bool is_allocated() const {
    if constexpr (is_duplicated) return m_dup.data() != nullptr;
    else return m_view.data() != nullptr;
  }
  std::string label() const {
    if constexpr (is_duplicated) return m_dup.label();
    else return m_view.label();
  }
  // Number of private copies (1 for non-duplicated).
  int impl_copies() const { return is_duplicated ? m_copies : 1; }
  // The non-duplicated ScatterView's target (Kokkos' subview()).
  original_view_type subview() const
    requires(!is_duplicated)
  {
    return m_view;
  }

 private:
  template <class... N>
  static void extents_from(const std::string& label, std::size_t* e, N... n) {
    constexpr std::size_t count = sizeof...(N);
    const std::size_t given[count > 0 ? count : 1] = {n...};
    if (count != original_view_type::rank_dynamic && count != rank)
      detail::throw_runtime_error("tessera::ScatterView '" + label + "': got " + std::to_string(count) +
                                  " extents, expected " + std::to_string(original_view_type::rank_dynamic));
    for (std::size_t r = 0; r < 8; ++r) {
      if (r >= rank) e[r] = 1;
      else if (r < count) e[r] = given[r];
      else e[r] = original_view_type::traits::extents::values[r];
    }
  }

  // One copy per pool thread and one shared by other spaces' threads, each
  // padded to whole cache lines.
  void allocate_copies(const std::string& label, const std::size_t* n) {
    m_map.set_compact(n);
    m_copies = execution_space().concurrency();
    const std::size_t per_line = 64 / sizeof(value_type) > 0 ? 64 / sizeof(value_type) : 1;
    const std::size_t span = rank == 0 ? 1 : m_map.span();
    m_copy_stride = (span + per_line - 1) / per_line * per_line;
    m_dup = View<value_type*, device_type>(view_alloc(label, WithoutInitializing),
                                           m_copy_stride * std::size_t(m_copies + 1));
  }

 public:
  // Implementation details, public only because nvcc rejects device lambdas
  // (TESSERA_LAMBDA) inside private member functions.
  static void copy_overlap(const ScatterView& from, const ScatterView& to) {
    constexpr std::size_t R = rank;
    std::size_t common[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (std::size_t r = 0; r < R; ++r) common[r] = std::min(from.extent(r), to.extent(r));
    std::size_t box = 1;
    for (std::size_t r = 0; r < R; ++r) box *= common[r];
    // The private copies both have, then the shared copy (each one's last).
    const int copies = std::min(from.m_copies, to.m_copies) + 1;
    const int from_shared = from.m_copies, to_shared = to.m_copies;
    const value_type* src = from.m_dup.data();
    value_type* dst = to.m_dup.data();
    const map_type fm = from.m_map, tm = to.m_map;
    const std::size_t fs = from.m_copy_stride, ts = to.m_copy_stride;
    detail::ScatterBox b;
    for (std::size_t r = 0; r < 8; ++r) b.e[r] = common[r];
    parallel_for("tessera::ScatterView::resize", RangePolicy<execution_space>(0, box * std::size_t(copies)),
                 TESSERA_LAMBDA(std::size_t k) {
                   const std::size_t c = k / (box > 0 ? box : 1), e = k % (box > 0 ? box : 1);
                   const bool shared = c + 1 == std::size_t(copies);
                   const std::size_t cf = shared ? std::size_t(from_shared) : c, ct = shared ? std::size_t(to_shared) : c;
                   std::size_t idx[R > 0 ? R : 1] = {};
                   detail::unflatten<R>(e, b.e, idx);
                   dst[ct * ts + detail::map_offset<R>(tm, idx)] = src[cf * fs + detail::map_offset<R>(fm, idx)];
                 });
    execution_space().fence();
  }
  static void copy_box(const original_view_type& to, const original_view_type& from, const std::size_t* common) {
    constexpr std::size_t R = rank;
    std::size_t box = 1;
    for (std::size_t r = 0; r < R; ++r) box *= common[r];
    detail::ScatterBox b;
    for (std::size_t r = 0; r < 8; ++r) b.e[r] = common[r];
    parallel_for("tessera::ScatterView::resize", RangePolicy<execution_space>(0, box), TESSERA_LAMBDA(std::size_t k) {
      std::size_t idx[R > 0 ? R : 1] = {};
      detail::unflatten<R>(k, b.e, idx);
      to.access_array(idx) = from.access_array(idx);
    });
    execution_space().fence();
  }

 private:
  // Non-duplicated: the View contributions go to.
  original_view_type m_view;
  // Duplicated: m_copies private copies of the compact layout m_map, then the
  // shared copy, m_copy_stride apart.
  View<value_type*, device_type> m_dup;
  map_type m_map{};
  std::size_t m_copy_stride = 0;
  int m_copies = 0;
};

// contribute(dest, sv): dest = dest Op (every contribution made through sv).
template <class DT, class... DP, class SD, class SL, class SE, class SO, class SDup, class SC>
void contribute(const View<DT, DP...>& dest, const ScatterView<SD, SL, SE, SO, SDup, SC>& sv) {
  sv.contribute_into(dest);
}
template <class Exec, class DT, class... DP, class SD, class SL, class SE, class SO, class SDup, class SC>
  requires is_execution_space_v<Exec>
void contribute(const Exec& exec, const View<DT, DP...>& dest, const ScatterView<SD, SL, SE, SO, SDup, SC>& sv) {
  sv.contribute_into(exec, dest);
}

template <class SD, class SL, class SE, class SO, class SDup, class SC, class... N>
  requires((std::is_integral_v<N> && ...))
void resize(ScatterView<SD, SL, SE, SO, SDup, SC>& sv, N... n) {
  sv.resize(n...);
}
template <class SD, class SL, class SE, class SO, class SDup, class SC, class... N>
  requires((std::is_integral_v<N> && ...))
void realloc(ScatterView<SD, SL, SE, SO, SDup, SC>& sv, N... n) {
  sv.realloc(n...);
}

// create_scatter_view(v): the defaults for v's execution space;
// create_scatter_view<Op>(v), create_scatter_view<Op, Duplication, Contribution>(v),
// or create_scatter_view(Op{}, Duplication{}, Contribution{}, v).
template <class Op = ScatterSum, class Duplication = void, class Contribution = void, class RT, class... RP>
auto create_scatter_view(const View<RT, RP...>& original) {
  using V = View<RT, RP...>;
  using Exec = typename V::execution_space;
  using Dup = std::conditional_t<std::is_void_v<Duplication>, typename detail::DefaultDuplication<Exec>::type, Duplication>;
  using Contrib = std::conditional_t<std::is_void_v<Contribution>, typename detail::DefaultContribution<Exec, Dup>::type,
                                     Contribution>;
  return ScatterView<typename V::non_const_data_type, typename V::array_layout, typename V::device_type, Op, Dup,
                     Contrib>(original);
}
template <class Op, class Duplication, class Contribution, class RT, class... RP>
auto create_scatter_view(const Op&, const Duplication&, const Contribution&, const View<RT, RP...>& original) {
  return create_scatter_view<Op, Duplication, Contribution>(original);
}

namespace Experimental {
using tessera::contribute;
using tessera::create_scatter_view;
using tessera::ScatterAtomic;
using tessera::ScatterDuplicated;
using tessera::ScatterMax;
using tessera::ScatterMin;
using tessera::ScatterNonAtomic;
using tessera::ScatterNonDuplicated;
using tessera::ScatterProd;
using tessera::ScatterSum;
using tessera::ScatterView;
}  // namespace Experimental

}  // namespace tessera
