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

// What a braced {begin, end} argument becomes.
struct BraceRange {
  std::int64_t first;
  std::int64_t second;
};

enum class SliceKind { index, all, range };

template <class A>
constexpr SliceKind slice_kind() {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_integral_v<T>) return SliceKind::index;
  else if constexpr (std::is_same_v<T, ALL_t>) return SliceKind::all;
  else return SliceKind::range;
}

template <class SrcLayout, class... Args>
struct SubviewLayout {
  static constexpr std::size_t N = sizeof...(Args);
  static constexpr SliceKind kinds[N] = {slice_kind<Args>()...};
  static constexpr std::size_t R = ((slice_kind<Args>() != SliceKind::index ? 1 : 0) + ... + 0);

  static constexpr bool right_contiguous() {
    if (R == 0) return true;
    // The kept dimensions are the last R, and all but the first of them are ALL.
    for (std::size_t d = 0; d < N; ++d) {
      bool kept = kinds[d] != SliceKind::index;
      if (d < N - R && kept) return false;
      if (d > N - R && kinds[d] != SliceKind::all) return false;
    }
    return true;
  }
  static constexpr bool left_contiguous() {
    if (R == 0) return true;
    for (std::size_t d = 0; d < N; ++d) {
      bool kept = kinds[d] != SliceKind::index;
      if (d >= R && kept) return false;
      if (d + 1 < R && kinds[d] != SliceKind::all) return false;
    }
    return true;
  }
  using type = std::conditional_t<
      std::is_same_v<SrcLayout, LayoutRight> && right_contiguous(), LayoutRight,
      std::conditional_t<std::is_same_v<SrcLayout, LayoutLeft> && left_contiguous(), LayoutLeft, LayoutStride>>;
};

template <class A>
inline void slice_bounds(const A& a, std::size_t extent, std::size_t& b, std::size_t& e) {
  constexpr SliceKind k = slice_kind<A>();
  if constexpr (k == SliceKind::index) {
    b = static_cast<std::size_t>(a);
    e = b + 1;
    if constexpr (std::is_signed_v<std::remove_cvref_t<A>>)
      if (a < 0) b = e = ~std::size_t(0);
  } else if constexpr (k == SliceKind::all) {
    b = 0;
    e = extent;
  } else {
    if (a.first < 0 || a.second < 0) {
      b = e = ~std::size_t(0);
      return;
    }
    b = static_cast<std::size_t>(a.first);
    e = static_cast<std::size_t>(a.second);
  }
}

template <class D, class... P, class... Args>
auto subview_impl(const View<D, P...>& src, const Args&... args) {
  using Src = View<D, P...>;
  static_assert(sizeof...(Args) == Src::rank, "subview takes one argument per dimension of the View");
  static_assert(!is_layout_tiled<typename Src::array_layout>::value,
                "subview of a LayoutTiled View is not supported: use tile(i, j)");
  using LayoutInfo = SubviewLayout<typename Src::array_layout, Args...>;
  using Result = View<typename dynamic_data<typename Src::value_type, LayoutInfo::R>::type, typename LayoutInfo::type,
                      typename Src::device_type, typename Src::memory_traits>;
  typename Result::map_type map;
  std::size_t offset = 0;
  std::size_t out = 0;
  std::size_t d = 0;
  auto one = [&](const auto& a) {
    std::size_t b, e;
    const std::size_t extent = src.extent(d);
    slice_bounds(a, extent, b, e);
    if (b > e || e > extent) {
      throw_runtime_error("tessera::subview of '" + src.label() + "': dimension " + std::to_string(d) +
                          " selects [" + (b == ~std::size_t(0) ? std::string("negative") : std::to_string(b)) +
                          ", " + (e == ~std::size_t(0) ? std::string("negative") : std::to_string(e)) +
                          ") outside the extent " + std::to_string(extent));
    }
    if (e > b) offset += b * src.stride(d);  // an empty range adds no offset
    if constexpr (slice_kind<std::remove_cvref_t<decltype(a)>>() != SliceKind::index) {
      map.m_extent[out] = e - b;
      map.m_stride[out] = src.stride(d);
      ++out;
    }
    ++d;
  };
  (one(args), ...);
  if constexpr (LayoutInfo::R == 0) (void)map;
  return Result(src.data() ? src.data() + offset : nullptr, map, src.impl_track());
}

}  // namespace detail

// One overload per rank: defaulted argument types let braced {b, e} ranges
// be passed without naming a type.
#define TESSERA_IMPL_SV_T(i) class A##i = detail::BraceRange
template <class D, class... P, TESSERA_IMPL_SV_T(0)>
auto subview(const View<D, P...>& v, A0 a0) {
  return detail::subview_impl(v, a0);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1) {
  return detail::subview_impl(v, a0, a1);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2) {
  return detail::subview_impl(v, a0, a1, a2);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3) {
  return detail::subview_impl(v, a0, a1, a2, a3);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5, a6);
}
template <class D, class... P, TESSERA_IMPL_SV_T(0), TESSERA_IMPL_SV_T(1), TESSERA_IMPL_SV_T(2), TESSERA_IMPL_SV_T(3),
          TESSERA_IMPL_SV_T(4), TESSERA_IMPL_SV_T(5), TESSERA_IMPL_SV_T(6), TESSERA_IMPL_SV_T(7)>
auto subview(const View<D, P...>& v, A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7) {
  return detail::subview_impl(v, a0, a1, a2, a3, a4, a5, a6, a7);
}
#undef TESSERA_IMPL_SV_T

template <class DataType, class... Properties>
template <class D2, class... P2, class A0, class... Args>
View<DataType, Properties...>::View(const View<D2, P2...>& src, A0 a0, Args... args)
    : View(detail::subview_impl(src, a0, args...)) {}

}  // namespace tessera
