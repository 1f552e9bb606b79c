#pragma once
// Mirrors: Views of the same shape in another memory space, for moving data
// between host and device. create_mirror always allocates;
// create_mirror_view returns the View itself when it is already reachable.
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/struct_layout.hpp>
#include <tessera/core/view.hpp>

#include <string>
#include <type_traits>

namespace tessera {

namespace detail {

// The layout a mirror allocates with: the source's, except that strided
// sources get compact right-major strides (a mirror never copies holes).
template <class V>
auto mirror_layout(const V& v) {
  if constexpr (std::is_same_v<typename V::array_layout, LayoutStride>) {
    std::size_t n[8];
    for (std::size_t r = 0; r < 8; ++r) n[r] = r < V::rank ? v.extent(r) : 1;
    LayoutStride l;
    std::size_t s = 1;
    for (std::size_t r = V::rank; r-- > 0;) {
      l.dimension[r] = n[r];
      l.stride[r] = s;
      s *= n[r];
    }
    return l;
  } else {
    return v.layout();
  }
}

template <class Space>
struct mirror_device {
  using mem = typename Space::memory_space;
  using exec = std::conditional_t<is_execution_space_v<Space>, Space,
                                  typename default_execution_space_for<mem>::type>;
  using type = Device<exec, mem>;
};

template <class Space, class V>
using mirror_type = std::conditional_t<
    std::is_same_v<typename Space::memory_space, HostSpace>,
    typename V::HostMirror,
    View<typename V::non_const_data_type, typename V::array_layout, typename mirror_device<Space>::type>>;

template <class Space, class V>
auto make_mirror(const V& v, bool initialize) {
  using M = mirror_type<Space, V>;
  std::string label = v.label() + "_mirror";
  if (initialize) return M(view_alloc(label), mirror_layout(v));
  return M(view_alloc(label, WithoutInitializing), mirror_layout(v));
}

}  // namespace detail

template <class D, class... P>
typename View<D, P...>::HostMirror create_mirror(const View<D, P...>& v) {
  return detail::make_mirror<HostSpace>(v, true);
}
template <class D, class... P>
typename View<D, P...>::HostMirror create_mirror(WithoutInitializing_t, const View<D, P...>& v) {
  return detail::make_mirror<HostSpace>(v, false);
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && !detail::struct_view_args<D, P...>)
auto create_mirror(const Space&, const View<D, P...>& v) {
  return detail::make_mirror<Space>(v, true);
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && !detail::struct_view_args<D, P...>)
auto create_mirror(WithoutInitializing_t, const Space&, const View<D, P...>& v) {
  return detail::make_mirror<Space>(v, false);
}

template <class D, class... P>
typename View<D, P...>::HostMirror create_mirror_view(const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename View<D, P...>::memory_space, HostSpace>) {
    return v;
  } else {
    return create_mirror(v);
  }
}
template <class D, class... P>
typename View<D, P...>::HostMirror create_mirror_view(WithoutInitializing_t, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename View<D, P...>::memory_space, HostSpace>) {
    return v;
  } else {
    return create_mirror(WithoutInitializing, v);
  }
}
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && !detail::struct_view_args<D, P...>)
auto create_mirror_view(const Space& space, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename Space::memory_space, typename View<D, P...>::memory_space>) {
    return detail::mirror_type<Space, View<D, P...>>(v);
  } else {
    return create_mirror(space, v);
  }
}

// The view_alloc forms (Kokkos 4): create_mirror(view_alloc(...), v) and
// create_mirror_view(view_alloc(...), v) mirror into the memory space the
// properties name (the host when they name none), initialized unless
// WithoutInitializing; create_mirror_view_and_copy(view_alloc(space, ...), v)
// needs the space, and copies on the properties' execution space when they
// name one (without fencing it, as deep_copy(exec, ...)).
template <class E, class M, class D, class... P>
auto create_mirror(const detail::ViewAllocProp<E, M>& prop, const View<D, P...>& v) {
  using Space = std::conditional_t<std::is_void_v<M>, HostSpace, M>;
  return detail::make_mirror<Space>(v, prop.initialize);
}
template <class E, class M, class D, class... P>
auto create_mirror_view(const detail::ViewAllocProp<E, M>& prop, const View<D, P...>& v) {
  using Space = std::conditional_t<std::is_void_v<M>, HostSpace, M>;
  if constexpr (std::is_same_v<typename Space::memory_space, typename View<D, P...>::memory_space>) {
    return detail::mirror_type<Space, View<D, P...>>(v);
  } else {
    return detail::make_mirror<Space>(v, prop.initialize);
  }
}
template <class E, class M, class D, class... P>
auto create_mirror_view_and_copy(const detail::ViewAllocProp<E, M>& prop, const View<D, P...>& v) {
  static_assert(!std::is_void_v<M>, "create_mirror_view_and_copy(view_alloc(...), v): name the memory space");
  if constexpr (std::is_same_v<M, typename View<D, P...>::memory_space>) {
    return detail::mirror_type<M, View<D, P...>>(v);
  } else {
    auto m = detail::make_mirror<M>(v, false);
    if constexpr (std::is_void_v<E>) deep_copy(m, v);
    else deep_copy(prop.exec, m, v);
    return m;
  }
}

// A View in Space holding a copy of v's values (v itself when it already lives there).
template <class Space, class D, class... P>
  requires((is_execution_space_v<Space> || is_memory_space_v<Space>) && !detail::struct_view_args<D, P...>)
auto create_mirror_view_and_copy(const Space& space, const View<D, P...>& v) {
  if constexpr (std::is_same_v<typename Space::memory_space, typename View<D, P...>::memory_space>) {
    return detail::mirror_type<Space, View<D, P...>>(v);
  } else {
    auto m = create_mirror(WithoutInitializing, space, v);
    deep_copy(m, v);
    return m;
  }
}

namespace detail {

template <class V, class... N>
bool extents_equal(const V& v, N... n) {
  const std::size_t given[] = {static_cast<std::size_t>(n)..., 0};
  std::size_t e[8];
  V::impl_extents_from(given, sizeof...(N), e);
  for (std::size_t r = 0; r < V::rank; ++r)
    if (v.extent(r) != e[r]) return false;
  return true;
}

template <class V, class... N>
void resize_impl(bool initialize, V& v, N... n) {
  static_assert(!V::memory_traits::is_unmanaged, "resize: an Unmanaged View cannot be resized");
  if (v.data() && extents_equal(v, n...)) return;  // nothing to do, as in Kokkos
  const std::string label = v.label();
  V fresh(initialize ? view_alloc(label) : view_alloc(label, WithoutInitializing), static_cast<std::size_t>(n)...);
  if (v.data()) {
    constexpr std::size_t R = V::rank;
    std::size_t count = 1;
    ExtentArray<V> ext(fresh);
    for (std::size_t r = 0; r < R; ++r) {
      ext.e[r] = std::min(v.extent(r), fresh.extent(r));
      count *= ext.e[r];
    }
    auto old_view = v;
    using Exec = typename V::execution_space;
    parallel_for("tessera::resize [" + label + "]", RangePolicy<Exec>(0, count), TESSERA_LAMBDA(std::size_t k) {
      std::size_t idx[R > 0 ? R : 1] = {};
      unflatten<R>(k, ext.e, idx);
      fresh.access_array(idx) = old_view.access_array(idx);
    });
    Exec().fence();
  }
  v = fresh;
}

template <class V, class... N>
void realloc_impl(bool initialize, V& v, N... n) {
  static_assert(!V::memory_traits::is_unmanaged, "realloc: an Unmanaged View cannot be reallocated");
  const std::string label = v.label();
  if (v.data() && v.use_count() == 1 && extents_equal(v, n...)) {
    // Same shape and nobody else holds the memory: reuse it, re-initializing
    // the values as a fresh allocation would.
    if (initialize) deep_copy(v, typename V::non_const_value_type());
    return;
  }
  v = V();  // release first, so peak memory is the new size only
  v = V(initialize ? view_alloc(label) : view_alloc(label, WithoutInitializing), static_cast<std::size_t>(n)...);
}

}  // namespace detail

// resize: new extents, keeping the values of the overlapping region (new
// elements value-initialized, unless WithoutInitializing). Other copies of
// the View keep the old allocation. Same extents: nothing happens.
template <class D, class... P, class... N>
  requires((std::is_integral_v<N> && ...))
void resize(View<D, P...>& v, N... n) {
  detail::resize_impl(true, v, n...);
}
template <class D, class... P, class... N>
  requires((std::is_integral_v<N> && ...))
void resize(WithoutInitializing_t, View<D, P...>& v, N... n) {
  detail::resize_impl(false, v, n...);
}
// realloc: new extents, old values dropped (the memory is released before
// the new allocation, so peak memory is the larger of the two sizes).
template <class D, class... P, class... N>
  requires((std::is_integral_v<N> && ...))
void realloc(View<D, P...>& v, N... n) {
  detail::realloc_impl(true, v, n...);
}
template <class D, class... P, class... N>
  requires((std::is_integral_v<N> && ...))
void realloc(WithoutInitializing_t, View<D, P...>& v, N... n) {
  detail::realloc_impl(false, v, n...);
}

}  // namespace tessera
