#pragma once
// deep_copy: copies values between Views (any layouts, any spaces that can
// be reached) or fills a View with a scalar. Without an execution-space
// argument it returns once the copy is complete; with one, it is ordered on
// that instance and may return early (call fence() before reading).
#include <tessera/core/detail/memory_copy.hpp>
#include <tessera/core/struct_layout.hpp>
#include <tessera/core/subview.hpp>
#include <tessera/core/view.hpp>

#include <cstring>
#include <string>
#include <type_traits>

namespace tessera {

namespace detail {

// Multi-index of linear element k in row-major order over `ext`.
template <std::size_t Rank>
TESSERA_FORCEINLINE_FUNCTION void unflatten(std::size_t k, const std::size_t* ext, std::size_t* idx) {
  for (std::size_t r = Rank; r-- > 0;) {
    idx[r] = k % ext[r];
    k /= ext[r];
  }
}

template <class V>
struct ExtentArray {
  std::size_t e[8];
  explicit ExtentArray(const V& v) {
    for (std::size_t r = 0; r < 8; ++r) e[r] = v.extent(r);
  }
};

// dst(i...) = src(i...) for every index, run on `exec` (which must reach both).
template <class Exec, class DV, class SV>
void elementwise_copy(const Exec& exec, const DV& dst, const SV& src) {
  constexpr std::size_t R = DV::rank;
  ExtentArray<DV> ext(dst);
  const std::size_t n = dst.size();
  parallel_for("tessera::deep_copy (elementwise)", RangePolicy<Exec>(exec, 0, n), TESSERA_LAMBDA(std::size_t k) {
    std::size_t idx[R > 0 ? R : 1] = {};
    unflatten<R>(k, ext.e, idx);
    dst.access_array(idx) = src.access_array(idx);
  });
}

template <class Exec, class DV>
void elementwise_fill(const Exec& exec, const DV& dst, const typename DV::non_const_value_type& value) {
  constexpr std::size_t R = DV::rank;
  ExtentArray<DV> ext(dst);
  const std::size_t n = dst.size();
  if (dst.span_is_contiguous()) {
    auto* p = dst.data();
    if constexpr (is_host_execution_space<Exec>::value) {
      // A small host fill on the calling thread (see host_inline_init_bytes).
      if (dst.span() * sizeof(*p) <= host_inline_init_bytes) {
        host_inline_kernel<Exec>([] { return std::string("tessera::deep_copy (fill)"); }, [&] {
          for (std::size_t k = 0; k < dst.span(); ++k) p[k] = value;
        });
        return;
      }
    }
    parallel_for("tessera::deep_copy (fill)", RangePolicy<Exec>(exec, 0, dst.span()),
                 TESSERA_LAMBDA(std::size_t k) { p[k] = value; });
    return;
  }
  parallel_for("tessera::deep_copy (fill)", RangePolicy<Exec>(exec, 0, n), TESSERA_LAMBDA(std::size_t k) {
    std::size_t idx[R > 0 ? R : 1] = {};
    unflatten<R>(k, ext.e, idx);
    dst.access_array(idx) = value;
  });
}

template <class V>
std::string describe_extents(const V& v) {
  std::string s = "'" + v.label() + "' (";
  for (std::size_t r = 0; r != V::rank; ++r) s += (r ? " x " : "") + std::to_string(v.extent(r));
  return s + ")";
}

template <class V>
bool same_strides(const V& a, const auto& b) {
  for (std::size_t r = 0; r != V::rank; ++r)
    if (a.extent(r) > 1 && a.stride(r) != b.stride(r)) return false;
  return true;
}

template <class DV, class SV>
bool spans_overlap(const DV& dst, const SV& src) {
  auto* d0 = reinterpret_cast<const char*>(dst.data());
  auto* s0 = reinterpret_cast<const char*>(src.data());
  auto* d1 = d0 + dst.span() * sizeof(typename DV::value_type);
  auto* s1 = s0 + src.span() * sizeof(typename SV::value_type);
  return d0 < s1 && s0 < d1;
}

// A contiguous copy of `src` in its own memory space, in `Layout`.
template <class Layout, class SV>
auto contiguous_copy(const SV& src) {
  using Tmp = View<typename SV::non_const_data_type, Layout, typename SV::device_type>;
  Layout layout;
  for (std::size_t r = 0; r != SV::rank; ++r) layout.dimension[r] = src.extent(r);
  for (std::size_t r = SV::rank; r < 8; ++r) layout.dimension[r] = TESSERA_IMPL_CTOR_DEFAULT_ARG;
  Tmp tmp(view_alloc(std::string("deep_copy temporary of ") + src.label(), WithoutInitializing), layout);
  using Exec = typename SV::execution_space;
  elementwise_copy(Exec(), tmp, src);
  Exec().fence();
  return tmp;
}

template <class Exec, class DV, class SV>
void deep_copy_views(const Exec& exec, const DV& dst, const SV& src) {
  static_assert(std::is_same_v<typename DV::non_const_value_type, typename SV::non_const_value_type>,
                "deep_copy: the Views' value types differ");
  static_assert(!std::is_const_v<typename DV::value_type>, "deep_copy: the destination View is const");
  static_assert(DV::rank == SV::rank, "deep_copy: the Views' ranks differ");
  using T = typename DV::non_const_value_type;
  for (std::size_t r = 0; r != DV::rank; ++r) {
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
  constexpr bool same_layout =
      std::is_same_v<typename DV::array_layout, typename SV::array_layout> || DV::rank <= 1 ||
      (!is_layout_tiled<typename DV::array_layout>::value && !is_layout_tiled<typename SV::array_layout>::value);
  const bool same_order = same_layout && same_strides(dst, src);
  const bool overlap = std::is_same_v<DM, SM> && spans_overlap(dst, src);
  // Copying a View onto itself (same memory, same map) changes nothing.
  if (overlap && static_cast<const void*>(dst.data()) == static_cast<const void*>(src.data()) && same_order &&
      (!is_layout_tiled<typename DV::array_layout>::value ||
       std::is_same_v<typename DV::array_layout, typename SV::array_layout>))
    return;
  // Same element order and both contiguous: one raw copy of bytes. Host
  // memory copies overlapping ranges like memmove; other spaces go through a
  // temporary below.
  if (dst.span_is_contiguous() && src.span_is_contiguous() && dst.span() == src.span() && same_order &&
      (!overlap || host_accessible<DM>::value)) {
    MemoryCopy<DM, SM>::copy(exec, dst.data(), src.data(), dst.span() * sizeof(T));
    return;
  }
  constexpr bool both_host = host_accessible<DM>::value && host_accessible<SM>::value;
  if constexpr (std::is_same_v<DM, SM> || both_host) {
    using Runner = std::conditional_t<SpaceAccessibility<Exec, DM>::accessible &&
                                          SpaceAccessibility<Exec, SM>::accessible,
                                      Exec, typename DV::execution_space>;
    Runner runner{};
    if constexpr (std::is_same_v<Runner, Exec>) runner = exec;
    if (overlap) {
      // Aliasing copy: read every element from a snapshot so that the result
      // is what copying from an untouched source would give.
      auto tmp = contiguous_copy<LayoutRight>(src);
      elementwise_copy(runner, dst, tmp);
      runner.fence();  // `tmp` is released on return
    } else {
      elementwise_copy(runner, dst, src);
    }
  } else {
    // Different spaces and different element orders: make the source
    // contiguous in the destination's order, move the bytes, then scatter.
    using Tmp = View<typename DV::non_const_data_type, LayoutRight, typename SV::device_type>;
    Tmp staged = contiguous_copy<LayoutRight>(src);
    View<typename DV::non_const_data_type, LayoutRight, typename DV::device_type> landed(
        view_alloc(std::string("deep_copy landing of ") + src.label(), WithoutInitializing), staged.layout());
    MemoryCopy<DM, SM>::copy(exec, landed.data(), staged.data(), staged.span() * sizeof(T));
    exec.fence();
    using DExec = typename DV::execution_space;
    elementwise_copy(DExec(), dst, landed);
    DExec().fence();
  }
}

}  // namespace detail

// Fill every element of dst with value.
template <class DT, class... DP>
void deep_copy(const View<DT, DP...>& dst, const typename View<DT, DP...>::non_const_value_type& value) {
  using V = View<DT, DP...>;
  static_assert(!std::is_const_v<typename V::value_type>, "deep_copy: the destination View is const");
  using Exec = typename V::execution_space;
  profiling::KernelScope scope(profiling::Kind::deep_copy, "deep_copy fill " + dst.label(), Exec::name());
  detail::elementwise_fill(Exec(), dst, value);
  Exec().fence();
}
template <class Exec, class DT, class... DP>
  requires(is_execution_space_v<Exec> && !detail::struct_view_args<DT, DP...>)
void deep_copy(const Exec& exec, const View<DT, DP...>& dst,
               const typename View<DT, DP...>::non_const_value_type& value) {
  static_assert(!std::is_const_v<typename View<DT, DP...>::value_type>, "deep_copy: the destination View is const");
  profiling::KernelScope scope(profiling::Kind::deep_copy, "deep_copy fill " + dst.label(), Exec::name());
  detail::elementwise_fill(exec, dst, value);
}

// Read a rank-0 View into a scalar.
template <class T, class ST, class... SP>
  requires(!is_view_v<T> && View<ST, SP...>::rank == 0)
void deep_copy(T& dst, const View<ST, SP...>& src) {
  static_assert(std::is_same_v<T, typename View<ST, SP...>::non_const_value_type>,
                "deep_copy: the scalar's type differs from the View's value type");
  using SM = typename View<ST, SP...>::memory_space;
  if (!src.data())
    detail::throw_runtime_error("tessera::deep_copy: the source rank-0 View '" + src.label() + "' has no data");
  fence();
  detail::MemoryCopy<HostSpace, SM>::copy(DefaultHostExecutionSpace(), &dst, src.data(), sizeof(T));
}
template <class Exec, class T, class ST, class... SP>
  requires(is_execution_space_v<Exec> && !is_view_v<T> && View<ST, SP...>::rank == 0)
void deep_copy(const Exec& exec, T& dst, const View<ST, SP...>& src) {
  exec.fence();
  deep_copy(dst, src);
}

template <class DT, class... DP, class ST, class... SP>
void deep_copy(const View<DT, DP...>& dst, const View<ST, SP...>& src) {
  using Exec = typename View<DT, DP...>::execution_space;
  Exec exec;
  fence();  // all earlier work on either View is complete
  detail::deep_copy_views(exec, dst, src);
  exec.fence();
  fence();
}
// (Views of structs, LayoutAoS/LayoutSoA, have their own: struct_view.hpp.)
template <class Exec, class DT, class... DP, class ST, class... SP>
  requires(is_execution_space_v<Exec> && !detail::struct_view_args<DT, DP...> && !detail::struct_view_args<ST, SP...>)
void deep_copy(const Exec& exec, const View<DT, DP...>& dst, const View<ST, SP...>& src) {
  detail::deep_copy_views(exec, dst, src);
}

}  // namespace tessera
