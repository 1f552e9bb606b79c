#pragma once
// ViewTraits: decodes View<DataType, Properties...> into value type, rank,
// static extents, layout, memory space, execution space and memory traits.
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/layout.hpp>
#include <tessera/core/memory_traits.hpp>
#include <tessera/core/scratch_memory_space.hpp>
#include <tessera/core/space_traits.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera::detail {

inline constexpr std::size_t dynamic_extent = ~std::size_t(0);

template <std::size_t... E>
struct ExtentList {
  static constexpr std::size_t size = sizeof...(E);
  static constexpr std::size_t values[size > 0 ? size : 1] = {E...};
  // values[r] for code that also runs on a GPU: a static member array read at
  // a runtime index has no device definition under nvcc.
  TESSERA_FORCEINLINE_FUNCTION static constexpr std::size_t at(std::size_t r) {
    const std::size_t v[size > 0 ? size : 1] = {E...};
    return v[r];
  }
};
template <class A, class B>
struct concat_extents;
template <std::size_t... A, std::size_t... B>
struct concat_extents<ExtentList<A...>, ExtentList<B...>> {
  using type = ExtentList<A..., B...>;
};

// Splits DataType into the value type and the list of extents in index
// order. Pointers are the runtime extents and always come first:
// double*[3] is (runtime, 3); double**[2][4] is (runtime, runtime, 2, 4).
template <class T>
struct DataAnalysis {
  using value_type = T;
  using dynamic = ExtentList<>;
  using fixed = ExtentList<>;
};
template <class T>
struct DataAnalysis<T*> {
  using inner = DataAnalysis<T>;
  using value_type = typename inner::value_type;
  using dynamic = typename concat_extents<ExtentList<dynamic_extent>, typename inner::dynamic>::type;
  using fixed = typename inner::fixed;
  static_assert(inner::fixed::size == 0, "View data type: '*' extents must precede '[N]' extents");
};
template <class T, std::size_t N>
struct DataAnalysis<T[N]> {
  using inner = DataAnalysis<T>;
  using value_type = typename inner::value_type;
  using dynamic = typename inner::dynamic;
  using fixed = typename concat_extents<ExtentList<N>, typename inner::fixed>::type;
};
template <class T>
struct DataAnalysis<T[]> {  // T[] is an alias for T*
  using inner = DataAnalysis<T>;
  using value_type = typename inner::value_type;
  using dynamic = typename concat_extents<ExtentList<dynamic_extent>, typename inner::dynamic>::type;
  using fixed = typename inner::fixed;
};

template <class T>
using is_layout = is_array_layout<T>;

// ScratchMemorySpace<E> (a team member's scratch_memory_space) names the
// scratch memory of E: as a View property it means Device<E,
// E::scratch_memory_space>, so View<T*, Member::scratch_memory_space> is the
// same View as View<T*, E::scratch_memory_space> (Kokkos accepts both).
template <class P>
struct normalize_view_prop {
  using type = P;
};
template <class E>
struct normalize_view_prop<ScratchMemorySpace<E>> {
  using type = Device<E, typename E::scratch_memory_space>;
};

template <class... Props>
struct ViewProps {
  using layout = void;
  using exec = void;
  using mem = void;
  using traits = void;
};
template <class P0, class... Rest>
struct ViewProps<P0, Rest...> {
  using P = typename normalize_view_prop<P0>::type;
  using rest = ViewProps<Rest...>;
  static constexpr bool is_lay = is_layout<P>::value;
  static constexpr bool is_dev = is_device<P>::value;
  static constexpr bool is_exec = !is_dev && is_execution_space<P>::value;
  static constexpr bool is_mem = !is_dev && !is_exec && is_memory_space<P>::value;
  static constexpr bool is_tr = is_memory_traits<P>::value;
  static_assert(is_lay || is_dev || is_exec || is_mem || is_tr || std::is_void_v<P>,
                "View: unknown property (expected a layout, space, Device<> or MemoryTraits<>)");
  template <class D>
  struct dev_exec {
    using type = typename D::execution_space;
  };
  template <class D>
  struct dev_mem {
    using type = typename D::memory_space;
  };
  using layout = std::conditional_t<is_lay, P, typename rest::layout>;
  using exec = std::conditional_t<is_exec, P,
                                  std::conditional_t<is_dev, typename std::conditional_t<is_dev, dev_exec<P>, std::type_identity<void>>::type,
                                                     typename rest::exec>>;
  using mem = std::conditional_t<is_mem, P,
                                 std::conditional_t<is_dev, typename std::conditional_t<is_dev, dev_mem<P>, std::type_identity<void>>::type,
                                                    typename rest::mem>>;
  using traits = std::conditional_t<is_tr, P, typename rest::traits>;
};

template <class DataType, class... Props>
struct ViewTraits {
  using analysis = DataAnalysis<DataType>;
  using props = ViewProps<Props...>;

  using value_type = typename analysis::value_type;
  using const_value_type = std::add_const_t<value_type>;
  using non_const_value_type = std::remove_const_t<value_type>;
  static_assert(!std::is_reference_v<value_type>, "View value type cannot be a reference");

  using extents = typename concat_extents<typename analysis::dynamic, typename analysis::fixed>::type;
  static constexpr std::size_t rank = extents::size;
  static constexpr std::size_t rank_dynamic = analysis::dynamic::size;
  static_assert(rank <= 8, "View rank is limited to 8");

  using execution_space = std::conditional_t<
      !std::is_void_v<typename props::exec>, typename props::exec,
      std::conditional_t<!std::is_void_v<typename props::mem>,
                         typename default_execution_space_for<std::conditional_t<
                             std::is_void_v<typename props::mem>, HostSpace, typename props::mem>>::type,
                         DefaultExecutionSpace>>;
  using memory_space = std::conditional_t<!std::is_void_v<typename props::mem>, typename props::mem,
                                          typename execution_space::memory_space>;
  using device_type = Device<execution_space, memory_space>;
  using array_layout = std::conditional_t<!std::is_void_v<typename props::layout>,
                                          typename props::layout, typename execution_space::array_layout>;
  using memory_traits = std::conditional_t<!std::is_void_v<typename props::traits>,
                                           typename props::traits, MemoryManaged>;
  static_assert(!is_layout_tiled<array_layout>::value || rank == 2, "LayoutTiled Views must be rank 2");

  static constexpr std::size_t static_extent(std::size_t r) {
    return r < rank ? extents::values[r] : 1;
  }
};

}  // namespace tessera::detail
