#pragma once
// Layouts for Views of described structs (struct_fields.hpp):
//  - LayoutAoS: array of structs, each element the struct itself;
//  - LayoutSoA: struct of arrays, one array per member (per component of an
//    array member) in a single allocation, each 64-byte aligned.
// Elements are numbered row-major (the last index fastest) in both, so a
// kernel written for one runs unchanged on the other; only the element
// proxy that View::operator() returns differs (see struct_view.hpp).
#include <tessera/core/layout.hpp>
#include <tessera/core/space_traits.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

struct LayoutAoS : detail::LayoutExtents {
  using array_layout = LayoutAoS;
  static constexpr bool is_extent_constructible = true;
  static constexpr bool is_struct_of_arrays = false;
  constexpr explicit LayoutAoS(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7) {}
};

struct LayoutSoA : detail::LayoutExtents {
  using array_layout = LayoutSoA;
  static constexpr bool is_extent_constructible = true;
  static constexpr bool is_struct_of_arrays = true;
  // Member arrays start on this many bytes (cache line, CUDA's 128-byte
  // transactions are two of them): the capacity is rounded up to it.
  static constexpr std::size_t member_alignment = 64;
  constexpr explicit LayoutSoA(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7) {}
};

template <class L>
struct is_struct_layout : std::false_type {};
template <>
struct is_struct_layout<LayoutAoS> : std::true_type {};
template <>
struct is_struct_layout<LayoutSoA> : std::true_type {};
template <class L>
inline constexpr bool is_struct_layout_v = is_struct_layout<L>::value;

namespace detail {
// Whether View<D, P...> names a struct layout, i.e. is a View of structs
// (struct_view.hpp); other View functions step aside for those.
template <class D, class... P>
concept struct_view_args = (is_struct_layout_v<P> || ...);
}  // namespace detail

template <>
struct is_array_layout<LayoutAoS> : std::true_type {};
template <>
struct is_array_layout<LayoutSoA> : std::true_type {};

}  // namespace tessera
