#pragma once
// View<S*, LayoutAoS> and View<S*, LayoutSoA>: Views of a struct S described
// with TESSERA_STRUCT_FIELDS (struct_fields.hpp), stored as an array of
// structs or as a struct of arrays, behind one kernel syntax:
//
//   View<Particle*, LayoutSoA> p("particles", n);     // or LayoutAoS
//   parallel_for(n, TESSERA_LAMBDA(int i) { p(i).x() += p(i).vx() * dt; });
//   Particle q = p(i);  p(i) = q;                      // whole elements
//
// p(i) is a proxy (detail/struct_reference.hpp) whose accessors return
// references into the storage. Both storages number elements row-major and
// live in one allocation: LayoutAoS as S[capacity], LayoutSoA as one array per
// member (per component of an array member), member M's array starting at
// StructFields<S>::soa_bytes_before<M> * capacity bytes, the capacity being
// the element count rounded up to LayoutSoA::member_alignment so that every
// member array is 64-byte aligned. subview, deep_copy (between any two of
// LayoutAoS, LayoutSoA and a plain View<S*>, in any memory spaces) and the
// mirror functions work on these Views; resize, realloc, DualView and
// ScatterView do not.
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/detail/struct_reference.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/struct_fields.hpp>
#include <tessera/core/struct_layout.hpp>
#include <tessera/core/subview.hpp>
#include <tessera/core/view.hpp>

#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

namespace tessera {

namespace detail {
// Value-initializes elements [0, count) of v on exec (a free function: nvcc
// rejects extended lambdas in private member functions); a small host View
// on the calling thread, as allocate_record does (view.hpp).
template <class Exec, class V>
void struct_view_initialize(const std::string& label, const Exec& exec, const V& v, std::size_t count) {
  if constexpr (is_host_execution_space<Exec>::value) {
    if (count * sizeof(typename V::value_type) <= host_inline_init_bytes) {
      host_inline_kernel<Exec>([&] { return label; }, [&] {
        for (std::size_t k = 0; k < count; ++k) v.impl_element(k).set(typename V::value_type());
      });
      return;
    }
  }
  parallel_for(label, RangePolicy<Exec>(exec, 0, count),
               TESSERA_LAMBDA(std::size_t k) { v.impl_element(k).set(typename V::value_type()); });
  exec.fence();
}
}  // namespace detail

template <class DataType, class... Properties>
  requires detail::struct_view_args<DataType, Properties...>
class View<DataType, Properties...> {
 public:
  using traits = detail::ViewTraits<DataType, Properties...>;
  using data_type = DataType;
  using value_type = typename traits::value_type;
  using const_value_type = typename traits::const_value_type;
  using non_const_value_type = typename traits::non_const_value_type;
  using array_layout = typename traits::array_layout;
  using memory_space = typename traits::memory_space;
  using execution_space = typename traits::execution_space;
  using device_type = typename traits::device_type;
  using memory_traits = typename traits::memory_traits;
  using size_type = std::size_t;
  using non_const_data_type = typename detail::rebind_data<DataType, non_const_value_type>::type;
  using type = View<DataType, array_layout, device_type, memory_traits>;
  using non_const_type = View<non_const_data_type, array_layout, device_type, memory_traits>;
  using HostMirror = View<non_const_data_type, array_layout, Device<DefaultHostExecutionSpace, HostSpace>>;
  using host_mirror_type = HostMirror;
  using host_mirror_space = Device<DefaultHostExecutionSpace, HostSpace>;
  using map_type = detail::ViewOffset<LayoutStride, traits::rank>;
  using fields = StructFields<non_const_value_type>;

  static_assert(!std::is_const_v<value_type>,
                "View<const S*, LayoutAoS/LayoutSoA> is not supported: use a View of S and do not write to it");
  static_assert(!memory_traits::is_unmanaged && !memory_traits::is_atomic,
                "Views of structs with LayoutAoS/LayoutSoA are managed and not atomic");
  static_assert(traits::rank >= 1, "Views of structs with LayoutAoS/LayoutSoA have rank 1 or more");

  static constexpr bool is_struct_of_arrays = array_layout::is_struct_of_arrays;
  using access_type = std::conditional_t<is_struct_of_arrays, detail::SoAAccess<value_type>,
                                         detail::AoSAccess<value_type>>;
  // What operator() returns: a proxy with the struct's member accessors.
  using reference_type = detail::struct_reference_t<value_type, access_type>;
  static constexpr bool reference_type_is_lvalue_reference = false;

  static constexpr std::integral_constant<std::size_t, traits::rank> rank{};
  static constexpr std::integral_constant<std::size_t, traits::rank_dynamic> rank_dynamic{};

  // --- construction -------------------------------------------------------

  TESSERA_DEFAULTED_FUNCTION View() = default;
  TESSERA_DEFAULTED_FUNCTION View(const View&) = default;
  TESSERA_DEFAULTED_FUNCTION View& operator=(const View&) = default;
  TESSERA_DEFAULTED_FUNCTION ~View() = default;

  explicit View(const std::string& label, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : View(view_alloc(label), n0, n1, n2, n3, n4, n5, n6, n7) {}
  explicit View(const char* label, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : View(view_alloc(std::string(label)), n0, n1, n2, n3, n4, n5, n6, n7) {}
  template <class E, class M>
  explicit View(const detail::ViewAllocProp<E, M>& prop, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG) {
    const std::size_t given[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    std::size_t n[8];
    resolve_extents(prop.label, given, n);
    allocate(prop, n);
  }
  template <class E, class M>
  View(const detail::ViewAllocProp<E, M>& prop, const array_layout& layout)
      : View(prop, layout.dimension[0], layout.dimension[1], layout.dimension[2], layout.dimension[3],
             layout.dimension[4], layout.dimension[5], layout.dimension[6], layout.dimension[7]) {}
  View(const std::string& label, const array_layout& layout) : View(view_alloc(label), layout) {}

  // The same elements seen through another execution space of the same
  // memory space (what create_mirror_view returns for a reachable View).
  template <class D2, class... P2>
    requires(detail::struct_view_args<D2, P2...> && !std::is_same_v<View<D2, P2...>, View> &&
             std::is_same_v<typename View<D2, P2...>::value_type, value_type> &&
             std::is_same_v<typename View<D2, P2...>::array_layout, array_layout> &&
             std::is_same_v<typename View<D2, P2...>::memory_space, memory_space> && View<D2, P2...>::rank == traits::rank)
  TESSERA_INLINE_FUNCTION View(const View<D2, P2...>& o)
      : m_base(o.m_base), m_capacity(o.m_capacity), m_first(o.m_first), m_map(o.m_map), m_track(o.m_track),
        m_label(o.m_label) {}

  // Internal: assemble from parts (subview, mirrors).
  TESSERA_INLINE_FUNCTION View(std::byte* base, std::size_t capacity, std::size_t first, const map_type& map,
                               const detail::SharedAllocationTracker& track, const char* label)
      : m_base(base), m_capacity(capacity), m_first(first), m_map(map), m_track(track), m_label(label) {}

  // --- queries --------------------------------------------------------------

  TESSERA_FORCEINLINE_FUNCTION std::size_t extent(std::size_t r) const { return m_map.extent(r); }
  TESSERA_FORCEINLINE_FUNCTION int extent_int(std::size_t r) const { return static_cast<int>(m_map.extent(r)); }
  // Distance between neighbouring elements along r, counted in elements.
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride(std::size_t r) const { return m_map.stride(r); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t size() const { return m_map.size(); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t span() const { return m_base ? m_map.span() : 0; }
  TESSERA_INLINE_FUNCTION bool span_is_contiguous() const { return m_map.span() == size(); }
  TESSERA_INLINE_FUNCTION bool is_allocated() const { return m_base != nullptr; }
  // The address of the View's first element (LayoutSoA: of its first
  // member); null for an empty default View.
  TESSERA_FORCEINLINE_FUNCTION std::byte* data() const {
    if constexpr (is_struct_of_arrays) return m_base ? m_base + m_first * first_field_bytes() : nullptr;
    else return m_base ? m_base + m_first * sizeof(value_type) : nullptr;
  }
  // Elements each member array holds (LayoutSoA: the distance between
  // neighbouring components' arrays); the allocation holds capacity() elements.
  TESSERA_FORCEINLINE_FUNCTION std::size_t capacity() const { return m_capacity; }
  // Member M's array (LayoutSoA), at this View's first element.
  template <auto M>
    requires(is_struct_of_arrays)
  TESSERA_FORCEINLINE_FUNCTION auto* member_data() const {
    using F = typename detail::member_pointer_traits<decltype(M)>::field_type;
    using E = typename detail::field_shape<F>::scalar_type;
    return reinterpret_cast<E*>(m_base + fields::template soa_bytes_before<M> * m_capacity) + m_first;
  }
  std::string label() const { return m_track.label(); }
  int use_count() const { return m_track.use_count(); }
  array_layout layout() const {
    array_layout l;
    for (std::size_t r = 0; r < 8; ++r) l.dimension[r] = r < traits::rank ? extent(r) : TESSERA_IMPL_CTOR_DEFAULT_ARG;
    return l;
  }

  TESSERA_FORCEINLINE_FUNCTION const map_type& impl_map() const { return m_map; }
  TESSERA_FORCEINLINE_FUNCTION const detail::SharedAllocationTracker& impl_track() const { return m_track; }
  TESSERA_FORCEINLINE_FUNCTION const char* impl_label() const { return m_label; }
  TESSERA_FORCEINLINE_FUNCTION std::byte* impl_base() const { return m_base; }
  TESSERA_FORCEINLINE_FUNCTION std::size_t impl_first() const { return m_first; }
  // Bytes of the whole allocation's element storage.
  TESSERA_INLINE_FUNCTION std::size_t impl_storage_bytes() const { return storage_bytes(m_capacity); }
  // Whether this View is a whole allocation made by a constructor (not a
  // part of one): then two such Views of equal extents and layout hold their
  // elements at the same byte offsets, and a copy is one memcpy.
  TESSERA_INLINE_FUNCTION bool impl_is_whole() const {
    if (m_first != 0 || m_capacity != capacity_for(m_map.span())) return false;
    map_type compact;
    std::size_t n[8];
    for (std::size_t r = 0; r < 8; ++r) n[r] = m_map.extent(r);
    compact.set_compact(n);
    for (std::size_t r = 0; r < traits::rank; ++r)
      if (m_map.extent(r) > 1 && m_map.stride(r) != compact.stride(r)) return false;
    return true;
  }

  // --- element access -------------------------------------------------------

  template <class... I, bool Check = (TESSERA_ENABLE_BOUNDS_CHECK != 0)>
    requires(sizeof...(I) == traits::rank && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION reference_type operator()(I... i) const {
    if constexpr (Check) check_bounds(i...);
    return impl_element(m_map(i...));
  }
  template <class I, bool Check = (TESSERA_ENABLE_BOUNDS_CHECK != 0)>
    requires(traits::rank == 1 && std::is_integral_v<I>)
  TESSERA_FORCEINLINE_FUNCTION reference_type operator[](I i) const {
    if constexpr (Check) check_bounds(i);
    return impl_element(m_map(i));
  }
  TESSERA_FORCEINLINE_FUNCTION reference_type access_array(const std::size_t* idx) const {
    return [&]<std::size_t... R>(std::index_sequence<R...>) -> reference_type {
      return impl_element(m_map(idx[R]...));
    }(std::make_index_sequence<traits::rank>());
  }

  // The element `offset` storage places past this View's first one.
  TESSERA_FORCEINLINE_FUNCTION reference_type impl_element(std::size_t offset) const {
    return reference_type(access_type(m_base, m_capacity, m_first + offset));
  }

  // Bytes of storage for `capacity` elements and the capacity `span`
  // elements get (LayoutSoA rounds it up so that member arrays stay aligned).
  TESSERA_INLINE_FUNCTION static constexpr std::size_t storage_bytes(std::size_t capacity) {
    return capacity * (is_struct_of_arrays ? fields::bytes_per_element : sizeof(value_type));
  }
  TESSERA_INLINE_FUNCTION static constexpr std::size_t capacity_for(std::size_t span) {
    if constexpr (is_struct_of_arrays) return detail::align_up(span, LayoutSoA::member_alignment);
    else return span;
  }

 private:
  static constexpr std::size_t first_field_bytes() {
    return []<auto M0, auto... M>(field_list<M0, M...>) {
      return sizeof(typename detail::member_pointer_traits<decltype(M0)>::field_type) /
             detail::field_shape<typename detail::member_pointer_traits<decltype(M0)>::field_type>::components;
    }(typename fields::list{});
  }

  template <class... I>
  TESSERA_INLINE_FUNCTION void check_bounds(I... i) const {
    const long long idx[] = {static_cast<long long>(i)...};
    for (std::size_t r = 0; r < traits::rank; ++r)
      if (static_cast<unsigned long long>(idx[r]) >= m_map.extent(r))
        detail::report_bounds_error(m_label, r, idx[r], m_map.extent(r), traits::rank);
  }

  void resolve_extents(const std::string& label, const std::size_t* given, std::size_t* n) const {
    std::size_t count = 0;
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    if (count != traits::rank_dynamic && count != traits::rank)
      detail::throw_runtime_error("tessera::View '" + label + "': got " + std::to_string(count) +
                                  " extents, expected " + std::to_string(traits::rank_dynamic) +
                                  " (the runtime extents)" +
                                  (traits::rank != traits::rank_dynamic
                                       ? " or " + std::to_string(traits::rank) + " (all extents)"
                                       : ""));
    for (std::size_t r = 0; r < 8; ++r) n[r] = 1;
    for (std::size_t r = 0; r < traits::rank; ++r) {
      if (r < traits::rank_dynamic) n[r] = given[r];
      else n[r] = traits::extents::at(r);
      if (count == traits::rank && r >= traits::rank_dynamic && given[r] != n[r])
        detail::throw_runtime_error("tessera::View '" + label + "': extent " + std::to_string(r) + " given as " +
                                    std::to_string(given[r]) + " but the type fixes it to " + std::to_string(n[r]));
    }
  }

  template <class E, class M>
  void allocate(const detail::ViewAllocProp<E, M>& prop, const std::size_t* n) {
    std::size_t elements = 1;
    for (std::size_t r = 0; r < traits::rank; ++r) {
      if (n[r] != 0 && elements > std::numeric_limits<std::size_t>::max() / n[r])
        throw allocation_error("tessera::View '" + prop.label + "': extents overflow the address space");
      elements *= n[r];
    }
    m_map.set_compact(n);
    m_capacity = capacity_for(m_map.span());
    if (m_capacity > std::numeric_limits<std::size_t>::max() / storage_bytes(1))
      throw allocation_error("tessera::View '" + prop.label + "': extents overflow the address space");
    using Exec = std::conditional_t<std::is_void_v<E>, execution_space, E>;
    Exec exec{};
    if constexpr (!std::is_void_v<E>) exec = prop.exec;
    detail::SharedAllocationRecord* rec = nullptr;
    if constexpr (is_struct_of_arrays) {
      rec = detail::allocate_record<memory_space, Exec, std::byte>(prop.label, storage_bytes(m_capacity), false, exec);
    } else {
      rec = detail::allocate_record<memory_space, Exec, value_type>(prop.label, m_capacity, prop.initialize, exec);
    }
    m_base = static_cast<std::byte*>(rec->data);
    m_track = detail::SharedAllocationTracker(rec);
    m_label = rec->label_in_space;
    if constexpr (is_struct_of_arrays) {
      // Each element is written by the thread that will use it (first touch),
      // member by member, as the AoS path does through allocate_record.
      if (prop.initialize || !std::is_trivially_default_constructible_v<value_type>)
        detail::struct_view_initialize("tessera::View::initialization [" + prop.label + "]", exec, *this,
                                       m_map.span());
    }
  }

  std::byte* m_base = nullptr;  // the allocation's element storage
  std::size_t m_capacity = 0;   // elements the storage holds
  std::size_t m_first = 0;      // storage element of this View's index (0, ..., 0)
  map_type m_map{};
  detail::SharedAllocationTracker m_track{};
  const char* m_label = nullptr;

  template <class, class...>
  friend class View;
};

// --- subview --------------------------------------------------------------------
// A subview of a View of structs is a View of structs of the same layout
// sharing the allocation; integers drop dimensions, ranges and ALL keep them.

namespace detail {
template <class D, class... P, class... Args>
auto struct_subview_impl(const View<D, P...>& src, const Args&... args) {
  using Src = View<D, P...>;
  static_assert(sizeof...(Args) == Src::rank, "subview takes one argument per dimension of the View");
  constexpr std::size_t R = ((slice_kind<Args>() != SliceKind::index ? 1 : 0) + ... + 0);
  static_assert(R >= 1, "a subview of a View of structs keeps at least one dimension: use v(i, ...) for one element");
  using Result = View<typename dynamic_data<typename Src::value_type, R>::type, typename Src::array_layout,
                      typename Src::device_type, typename Src::memory_traits>;
  typename Result::map_type map;
  std::size_t offset = 0, out = 0, d = 0;
  (apply_slice(src, map, d++, out, offset, args), ...);
  return Result(src.impl_base(), src.capacity(), src.impl_first() + offset, map, src.impl_track(), src.impl_label());
}
}  // namespace detail

#define TESSERA_IMPL_SV_T(i) class A##i = detail::BraceRange
template <class D, class... P, TESSERA_IMPL_SV_T(0)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0) {
  return detail::struct_subview_impl(v, a0);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1) {
  return detail::struct_subview_impl(v, a0, a1);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2) {
  return detail::struct_subview_impl(v, a0, a1, a2);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3) {
  return detail::struct_subview_impl(v, a0, a1, a2, a3);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4) {
  return detail::struct_subview_impl(v, a0, a1, a2, a3, a4);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5) {
  return detail::struct_subview_impl(v, a0, a1, a2, a3, a4, a5);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6) {
  return detail::struct_subview_impl(v, a0, a1, a2, a3, a4, a5, a6);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6), TESSERA_IMPL_SV_T(7)>
  requires detail::struct_view_args<D, P...>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7) {
  return detail::struct_subview_impl(v, a0, a1, a2, a3, a4, a5, a6, a7);
}
#undef TESSERA_IMPL_SV_T

// --- deep_copy ----------------------------------------------------------------

namespace detail {

template <class V>
constexpr bool is_struct_view_v = false;
template <class D, class... P>
constexpr bool is_struct_view_v<View<D, P...>> = struct_view_args<D, P...>;

// A compact View of structs of layout `Like`'s (a View of structs) in Dev,
// with the extents of `shape`.
template <class Like, class Dev, class Shape>
auto compact_struct_view(const std::string& label, const Shape& shape) {
  using Tmp = View<typename Like::non_const_data_type, typename Like::array_layout, Dev>;
  typename Like::array_layout layout;
  for (std::size_t r = 0; r < Shape::rank; ++r) layout.dimension[r] = shape.extent(r);
  return Tmp(view_alloc(label, WithoutInitializing), layout);
}

// Every element of dst becomes `value` (dst.data() is no array of values).
template <class Exec, class DV>
void struct_fill(const Exec& exec, const DV& dst, const typename DV::non_const_value_type& value) {
  constexpr std::size_t R = DV::rank;
  ExtentArray<DV> ext(dst);
  parallel_for("tessera::deep_copy (fill)", RangePolicy<Exec>(exec, 0, dst.size()), TESSERA_LAMBDA(std::size_t k) {
    std::size_t idx[R] = {};
    unflatten<R>(k, ext.e, idx);
    dst.access_array(idx) = value;
  });
}

// dst = src for Views of the same struct, at least one of them a View of
// structs (the other may be a plain View<S*>), in any two memory spaces.
template <class Exec, class DV, class SV>
void struct_deep_copy(const Exec& exec, const DV& dst, const SV& src) {
  static_assert(std::is_same_v<typename DV::non_const_value_type, typename SV::non_const_value_type>,
                "deep_copy: the Views' value types differ");
  static_assert(!std::is_const_v<typename DV::value_type>, "deep_copy: the destination View is const");
  static_assert(DV::rank == SV::rank, "deep_copy: the Views' ranks differ");
  for (std::size_t r = 0; r < DV::rank; ++r) {
    if (dst.extent(r) != src.extent(r))
      throw_runtime_error("tessera::deep_copy: extents differ: destination " + describe_extents(dst) +
                          ", source " + describe_extents(src));
  }
  if (dst.size() == 0) return;
  if (!dst.data() || !src.data())
    throw_runtime_error("tessera::deep_copy: a View of nonzero size has no data (destination '" + dst.label() +
                        "', source '" + src.label() + "')");
  profiling::KernelScope scope(profiling::Kind::deep_copy, "deep_copy " + src.label() + " -> " + dst.label(),
                               Exec::name());
  using DM = typename DV::memory_space;
  using SM = typename SV::memory_space;
  if constexpr (std::is_same_v<typename DV::array_layout, typename SV::array_layout> && is_struct_view_v<DV>) {
    if (dst.impl_is_whole() && src.impl_is_whole()) {
      if (dst.impl_base() != src.impl_base())
        MemoryCopy<DM, SM>::copy(exec, dst.impl_base(), src.impl_base(), dst.impl_storage_bytes());
      return;
    }
  }
  constexpr bool both_host = host_accessible<DM>::value && host_accessible<SM>::value;
  if constexpr (std::is_same_v<DM, SM> || both_host) {
    using Runner = std::conditional_t<SpaceAccessibility<Exec, DM>::accessible &&
                                          SpaceAccessibility<Exec, SM>::accessible,
                                      Exec, typename DV::execution_space>;
    Runner runner{};
    if constexpr (std::is_same_v<Runner, Exec>) runner = exec;
    bool aliased = false;
    if constexpr (is_struct_view_v<DV> && is_struct_view_v<SV>) aliased = dst.impl_base() == src.impl_base();
    if (aliased) {
      // Parts of one allocation: read every element from a snapshot, so that
      // the result is what copying from an untouched source gives.
      auto snapshot = compact_struct_view<std::conditional_t<is_struct_view_v<SV>, SV, DV>, typename SV::device_type>(
          "deep_copy temporary of " + src.label(), src);
      elementwise_copy(runner, snapshot, src);
      elementwise_copy(runner, dst, snapshot);
      runner.fence();
    } else {
      elementwise_copy(runner, dst, src);
    }
  } else {
    // Different spaces: gather the source into a compact View of structs in
    // its own space, move the bytes, then scatter in the destination's space.
    using Like = std::conditional_t<is_struct_view_v<DV>, DV, SV>;
    auto staged = compact_struct_view<Like, typename SV::device_type>("deep_copy temporary of " + src.label(), src);
    using SExec = typename SV::execution_space;
    elementwise_copy(SExec(), staged, src);
    SExec().fence();
    auto landed = compact_struct_view<Like, typename DV::device_type>("deep_copy landing of " + src.label(), src);
    MemoryCopy<DM, SM>::copy(exec, landed.impl_base(), staged.impl_base(), staged.impl_storage_bytes());
    exec.fence();
    using DExec = typename DV::execution_space;
    elementwise_copy(DExec(), dst, landed);
    DExec().fence();
  }
}

}  // namespace detail

template <class DT, class... DP, class ST, class... SP>
  requires(detail::struct_view_args<DT, DP...> || detail::struct_view_args<ST, SP...>)
void deep_copy(const View<DT, DP...>& dst, const View<ST, SP...>& src) {
  using Exec = typename View<DT, DP...>::execution_space;
  Exec exec;
  fence();
  detail::struct_deep_copy(exec, dst, src);
  exec.fence();
  fence();
}
template <class Exec, class DT, class... DP, class ST, class... SP>
  requires(is_execution_space_v<Exec> && (detail::struct_view_args<DT, DP...> || detail::struct_view_args<ST, SP...>))
void deep_copy(const Exec& exec, const View<DT, DP...>& dst, const View<ST, SP...>& src) {
  detail::struct_deep_copy(exec, dst, src);
}
// Every element of dst becomes `value`.
template <class DT, class... DP>
  requires detail::struct_view_args<DT, DP...>
void deep_copy(const View<DT, DP...>& dst, const typename View<DT, DP...>::non_const_value_type& value) {
  using V = View<DT, DP...>;
  using Exec = typename V::execution_space;
  profiling::KernelScope scope(profiling::Kind::deep_copy, "deep_copy fill " + dst.label(), Exec::name());
  detail::struct_fill(Exec(), dst, value);
  Exec().fence();
}

template <class Exec, class DT, class... DP>
  requires(is_execution_space_v<Exec> && detail::struct_view_args<DT, DP...>)
void deep_copy(const Exec& exec, const View<DT, DP...>& dst,
               const typename View<DT, DP...>::non_const_value_type& value) {
  profiling::KernelScope scope(profiling::Kind::deep_copy, "deep_copy fill " + dst.label(), Exec::name());
  detail::struct_fill(exec, dst, value);
}

// --- mirrors ------------------------------------------------------------------
// A mirror of a View of structs has the same struct layout, compact extents
// and a memory space of its own; create_mirror_view returns the View itself
// when it already lives in that space.

namespace detail {
template <class Space, class V>
auto make_struct_mirror(const V& v, bool initialize) {
  using M = View<typename V::non_const_data_type, typename V::array_layout,
                 std::conditional_t<std::is_same_v<typename Space::memory_space, HostSpace>,
                                    typename V::host_mirror_space, typename mirror_device<Space>::type>>;
  const std::string label = v.label() + "_mirror";
  if (initialize) return M(view_alloc(label), v.layout());
  return M(view_alloc(label, WithoutInitializing), v.layout());
}
}  // namespace detail

template <class D, class... P>
  requires detail::struct_view_args<D, P...>
typename View<D, P...>::HostMirror create_mirror(const View<D, P...>& v) {
  return detail::make_struct_mirror<HostSpace>(v, true);
}
template <class D, class... P>
  requires detail::struct_view_args<D, P...>
typename View<D, P...>::HostMirror create_mirror(WithoutInitializing_t, const View<D, P...>& v) {
  return detail::make_struct_mirror<HostSpace>(v, false);
}
template <class D, class... P>
  requires detail::struct_view_args<D, P...>
typename View<D, P...>::HostMirror create_mirror_view(const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename View<D, P...>::memory_space, HostSpace>) return v;
  else return create_mirror(v);
}
template <class D, class... P>
  requires detail::struct_view_args<D, P...>
typename View<D, P...>::HostMirror create_mirror_view(WithoutInitializing_t, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename View<D, P...>::memory_space, HostSpace>) return v;
  else return create_mirror(WithoutInitializing, v);
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && detail::struct_view_args<D, P...>)
auto create_mirror(const Space&, const View<D, P...>& v) {
  return detail::make_struct_mirror<Space>(v, true);
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && detail::struct_view_args<D, P...>)
auto create_mirror_view(const Space& space, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename Space::memory_space, typename View<D, P...>::memory_space>) {
    using M = decltype(detail::make_struct_mirror<Space>(v, true));
    return M(v);
  } else {
    return create_mirror(space, v);
  }
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && detail::struct_view_args<D, P...>)
auto create_mirror_view_and_copy(const Space&, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename Space::memory_space, typename View<D, P...>::memory_space>) {
    using M = decltype(detail::make_struct_mirror<Space>(v, true));
    return M(v);
  } else {
    auto m = detail::make_struct_mirror<Space>(v, false);
    deep_copy(m, v);
    return m;
  }
}

}  // namespace tessera
