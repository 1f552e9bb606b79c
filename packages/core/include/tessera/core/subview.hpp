#pragma once
// subview(view, args...): a View of part of another, sharing its memory.
// Each argument selects along one dimension: an integer (the dimension goes
// away), ALL, a std::pair / tessera::pair / braced {begin, end} half-open
// range. The result is LayoutRight (LayoutLeft) when the selection is
// contiguous in a LayoutRight (LayoutLeft) source, LayoutStride otherwise.
#include <tessera/core/pair.hpp>
#include <tessera/core/view.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera {

struct ALL_t {
  constexpr const ALL_t& operator()() const { return *this; }
};
inline constexpr ALL_t ALL{};

namespace detail {

// What a braced {begin, end} argument becomes. The constructor is a template
// so that mixed index types ({0, v.extent(0)}) are accepted without a
// narrowing error.
struct BraceRange {
  std::int64_t first;
  std::int64_t second;
  template <class B, class E>
    requires(std::is_integral_v<B> && std::is_integral_v<E>)
  TESSERA_INLINE_FUNCTION constexpr BraceRange(B b, E e)
      : first(static_cast<std::int64_t>(b)), second(static_cast<std::int64_t>(e)) {}
};

enum class SliceKind { index, all, range };

template <class A>
constexpr SliceKind slice_kind() {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_integral_v<T>) return SliceKind::index;
  else if constexpr (std::is_same_v<T, ALL_t>) return SliceKind::all;
  else return SliceKind::range;
}

// The layout of a subview, by Kokkos' rules:
//  - rank 0 result, or the kept dimensions form a contiguous block of the
//    source (LayoutRight: integers, then one range, then ALLs; LayoutLeft:
//    ALLs, then one range, then integers): the source's layout;
//  - a result of rank 1 or 2 keeping the source's unit-stride dimension
//    (the last for LayoutRight, the first for LayoutLeft): the source's
//    layout with a padded stride (span_is_contiguous() may be false);
//  - otherwise LayoutStride.
template <class SrcLayout, class... Args>
struct SubviewLayout {
  static constexpr std::size_t N = sizeof...(Args);
  static constexpr SliceKind kinds[N] = {slice_kind<Args>()...};
  static constexpr std::size_t R = ((slice_kind<Args>() != SliceKind::index ? 1 : 0) + ... + 0);

  // Signed positions: R and N - R may be 0, and nvcc warns (#186-D) that
  // d < 0 or d >= 0 is pointless for an unsigned d.
  static constexpr int n = int(N), r = int(R);
  static constexpr bool right_contiguous() {
    for (int d = 0; d < n; ++d) {
      const bool kept = kinds[d] != SliceKind::index;
      if (d < n - r && kept) return false;
      if (d > n - r && kinds[d] != SliceKind::all) return false;
    }
    return true;
  }
  static constexpr bool left_contiguous() {
    for (int d = 0; d < n; ++d) {
      const bool kept = kinds[d] != SliceKind::index;
      if (d >= r && kept) return false;
      if (d + 1 < r && kinds[d] != SliceKind::all) return false;
    }
    return true;
  }
  static constexpr bool keeps_right =
      std::is_same_v<SrcLayout, LayoutRight> &&
      (R == 0 || right_contiguous() || (R <= 2 && kinds[N - 1] != SliceKind::index));
  static constexpr bool keeps_left =
      std::is_same_v<SrcLayout, LayoutLeft> &&
      (R == 0 || left_contiguous() || (R <= 2 && kinds[0] != SliceKind::index));
  using type = std::conditional_t<keeps_right, LayoutRight, std::conditional_t<keeps_left, LayoutLeft, LayoutStride>>;
};

// [begin, end) selected by one argument along a dimension of extent `extent`;
// returns false (and fills `err` on the host) when it does not fit.
template <class A>
TESSERA_INLINE_FUNCTION bool slice_bounds(const A& a, std::size_t extent, std::size_t& b, std::size_t& e,
                                          std::int64_t& sb, std::int64_t& se) {
  constexpr SliceKind k = slice_kind<A>();
  if constexpr (k == SliceKind::index) {
    sb = static_cast<std::int64_t>(a);
    se = sb + 1;
  } else if constexpr (k == SliceKind::all) {
    sb = 0;
    se = static_cast<std::int64_t>(extent);
  } else {
    sb = static_cast<std::int64_t>(a.first);
    se = static_cast<std::int64_t>(a.second);
  }
  if (sb < 0 || se < sb || static_cast<std::size_t>(se) > extent) return false;
  b = static_cast<std::size_t>(sb);
  e = static_cast<std::size_t>(se);
  return true;
}

template <class Src, class Map, class A>
TESSERA_INLINE_FUNCTION void apply_slice(const Src& src, Map& map, std::size_t d, std::size_t& out,
                                         std::size_t& offset, const A& a) {
  std::size_t b = 0, e = 0;
  std::int64_t sb = 0, se = 0;
  const std::size_t extent = src.extent(d);
  if (!slice_bounds(a, extent, b, e, sb, se)) {
    TESSERA_IF_ON_HOST({
      std::string what;
      if constexpr (slice_kind<A>() == SliceKind::index)
        what = "index " + std::to_string(sb) + " is outside [0, " + std::to_string(extent) + ")";
      else if (se < sb)
        what = "range [" + std::to_string(sb) + ", " + std::to_string(se) + ") ends before it begins";
      else
        what = "range [" + std::to_string(sb) + ", " + std::to_string(se) + ") is outside [0, " +
               std::to_string(extent) + ")";
      throw_runtime_error("tessera::subview of '" + src.label() + "': dimension " + std::to_string(d) + ": " +
                          what);
    })
    TESSERA_IF_ON_DEVICE(tessera::abort("tessera::subview: argument outside the View's extent");)
  }
  if (e > b) offset += b * src.stride(d);  // an empty range adds no offset
  if constexpr (slice_kind<A>() != SliceKind::index) {
    map.m_extent[out] = e - b;
    map.m_stride[out] = src.stride(d);
    ++out;
  }
}

template <class D, class... P, class... Args>
TESSERA_INLINE_FUNCTION auto subview_impl(const View<D, P...>& src, const Args&... args) {
  using Src = View<D, P...>;
  static_assert(sizeof...(Args) == Src::traits::rank, "subview takes one argument per dimension of the View");
  static_assert(!is_layout_tiled<typename Src::array_layout>::value,
                "subview of a LayoutTiled View is not supported: use tile(i, j)");
  using LayoutInfo = SubviewLayout<typename Src::array_layout, Args...>;
  using Result = View<typename dynamic_data<typename Src::value_type, LayoutInfo::R>::type, typename LayoutInfo::type,
                      typename Src::device_type, typename Src::memory_traits>;
  typename Result::map_type map;
  std::size_t offset = 0;
  std::size_t out = 0;
  std::size_t d = 0;
  (apply_slice(src, map, d++, out, offset, args), ...);
  if constexpr (std::is_same_v<typename LayoutInfo::type, LayoutRight> && LayoutInfo::R > 0) {
    if (map.m_extent[LayoutInfo::R - 1] <= 1) map.m_stride[LayoutInfo::R - 1] = 1;
  }
  if constexpr (std::is_same_v<typename LayoutInfo::type, LayoutLeft> && LayoutInfo::R > 0) {
    if (map.m_extent[0] <= 1) map.m_stride[0] = 1;
  }
  return Result(src.data() ? src.data() + offset : nullptr, map, src.impl_track(), src.impl_label());
}

}  // namespace detail

// One overload per rank: defaulted argument types let braced {b, e} ranges
// be passed without naming a type.
#define TESSERA_IMPL_SV_T(i) class A##i = detail::BraceRange
template <class D, class... P, TESSERA_IMPL_SV_T(0)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0) {
  return detail::subview_impl(v, a0);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1) {
  return detail::subview_impl(v, a0, a1);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2) {
  return detail::subview_impl(v, a0, a1, a2);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3) {
  return detail::subview_impl(v, a0, a1, a2, a3);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5, a6);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6), TESSERA_IMPL_SV_T(7)>
TESSERA_INLINE_FUNCTION auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5, a6, a7);
}
#undef TESSERA_IMPL_SV_T

template <class DataType, class... Properties>
template <class D2, class... P2, class A0, class... Args>
View<DataType, Properties...>::View(const View<D2, P2...>& src, A0 a0, Args... args)
    : View(detail::subview_impl(src, a0, args...)) {}

}  // namespace tessera
