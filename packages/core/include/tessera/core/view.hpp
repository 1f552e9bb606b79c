#pragma once
// View: a reference-counted multidimensional array in a memory space.
#include <tessera/core/atomics.hpp>
#include <tessera/core/detail/shared_allocation.hpp>
#include <tessera/core/detail/view_mapping.hpp>
#include <tessera/core/detail/view_traits.hpp>
#include <tessera/core/error.hpp>
#include <tessera/core/parallel.hpp>
#include <tessera/core/view_fwd.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera {

// Allocation property: skip the value-initialization of a new View.
struct WithoutInitializing_t {};
inline constexpr WithoutInitializing_t WithoutInitializing{};
// Accepted for Kokkos compatibility; Tessera never pads.
struct AllowPadding_t {};
inline constexpr AllowPadding_t AllowPadding{};

namespace detail {

// Properties collected by view_alloc(...): label, whether to initialize, and
// optionally the execution-space instance that initializes.
template <class Exec = void>
struct ViewAllocProp {
  std::string label;
  bool initialize = true;
  Exec exec{};
};
template <>
struct ViewAllocProp<void> {
  std::string label;
  bool initialize = true;
};

template <class Prop, class A>
auto add_alloc_prop(Prop p, A&& a) {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_same_v<T, WithoutInitializing_t>) {
    p.initialize = false;
    return p;
  } else if constexpr (std::is_same_v<T, AllowPadding_t>) {
    return p;
  } else if constexpr (std::is_convertible_v<A, std::string>) {
    p.label = std::string(std::forward<A>(a));
    return p;
  } else if constexpr (is_execution_space_v<T>) {
    ViewAllocProp<T> q;
    q.label = p.label;
    q.initialize = p.initialize;
    q.exec = a;
    return q;
  } else {
    static_assert(is_memory_space_v<T>, "view_alloc: unknown property");
    return p;
  }
}

template <class T>
struct is_view_alloc_prop : std::false_type {};
template <class E>
struct is_view_alloc_prop<ViewAllocProp<E>> : std::true_type {};

// Replaces the value type inside a data type: rebind_data<double*[3], const double> = const double*[3].
template <class D, class V>
struct rebind_data {
  using type = V;
};
template <class D, class V>
struct rebind_data<D*, V> {
  using type = typename rebind_data<D, V>::type*;
};
template <class D, class V>
struct rebind_data<D[], V> {
  using type = typename rebind_data<D, V>::type[];
};
template <class D, class V, std::size_t N>
struct rebind_data<D[N], V> {
  using type = typename rebind_data<D, V>::type[N];
};

// A data type of `Rank` runtime extents: V**...*.
template <class V, std::size_t Rank>
struct dynamic_data {
  using type = typename dynamic_data<V, Rank - 1>::type*;
};
template <class V>
struct dynamic_data<V, 0> {
  using type = V;
};

// Fixed copy of the label for bounds-check messages printed on a device.
struct LabelCopy {
  char text[48] = {};
  void set(const std::string& s) {
    std::size_t n = s.size() < sizeof(text) - 1 ? s.size() : sizeof(text) - 1;
    std::memcpy(text, s.data(), n);
    text[n] = '\0';
  }
};

TESSERA_INLINE_FUNCTION void report_bounds_error(const char* label, std::size_t dim, long long index,
                                                 std::size_t extent, std::size_t rank) {
#if TESSERA_IMPL_ON_DEVICE
  ::printf("tessera: View bounds error in View '%s': index %lld of dimension %llu is outside [0, %llu) (rank %llu)\n",
           label, index, (unsigned long long)dim, (unsigned long long)extent, (unsigned long long)rank);
  __trap();
#else
  std::fprintf(stderr,
               "tessera: View bounds error in View '%s': index %lld of dimension %zu is outside [0, %zu) (rank %zu)\n",
               label, index, dim, extent, rank);
  std::fflush(stderr);
  std::abort();
#endif
}

template <class MemSpace, class Exec, class T>
void destroy_record(SharedAllocationRecord* rec) {
  T* data = static_cast<T*>(rec->data);
  const std::size_t n = rec->bytes / (sizeof(T) > 0 ? sizeof(T) : 1);
  if constexpr (!std::is_trivially_destructible_v<T>) {
    if constexpr (std::is_same_v<MemSpace, HostSpace>) {
      for (std::size_t i = 0; i < n; ++i) data[i].~T();
    } else {
      parallel_for("tessera::View::destroy", RangePolicy<Exec>(0, n),
                   TESSERA_LAMBDA(std::size_t i) { data[i].~T(); });
      Exec().fence();
    }
  }
  (void)n;
  MemSpace().deallocate(rec->label.c_str(), rec->data, rec->bytes);
  delete rec;
}

// Allocates `n` elements of T in MemSpace, value-initialized in parallel on
// `exec` (first touch) unless `initialize` is false.
template <class MemSpace, class Exec, class T>
SharedAllocationRecord* allocate_record(const std::string& label, std::size_t n, bool initialize, const Exec& exec) {
  if (n > std::numeric_limits<std::size_t>::max() / (sizeof(T) > 0 ? sizeof(T) : 1))
    throw allocation_error("tessera::View '" + label + "': " + std::to_string(n) + " elements of " +
                           std::to_string(sizeof(T)) + " bytes overflow the address space");
  auto* rec = new SharedAllocationRecord;
  rec->label = label;
  rec->bytes = n * sizeof(T);
  try {
    rec->data = MemSpace().allocate(rec->label.c_str(), rec->bytes);
  } catch (...) {
    delete rec;
    throw;
  }
  rec->destroy = &destroy_record<MemSpace, Exec, T>;
  if (initialize || !std::is_trivially_default_constructible_v<T>) {
    T* data = static_cast<T*>(rec->data);
    parallel_for("tessera::View::initialization [" + label + "]", RangePolicy<Exec>(exec, 0, n),
                 TESSERA_LAMBDA(std::size_t i) { new (data + i) T(); });
    exec.fence();
  }
  return rec;
}

template <class L>
constexpr bool is_regular_layout_v =
    std::is_same_v<L, LayoutRight> || std::is_same_v<L, LayoutLeft> || std::is_same_v<L, LayoutStride>;

// Whether a View of layout `From` converts to one of layout `To` at rank R.
template <class To, class From, std::size_t R>
constexpr bool layout_convertible_v =
    std::is_same_v<To, From> || (std::is_same_v<To, LayoutStride> && is_regular_layout_v<From>) ||
    (R <= 1 && is_regular_layout_v<To> && is_regular_layout_v<From> && !std::is_same_v<From, LayoutStride>);

}  // namespace detail

template <class... Args>
auto view_alloc(Args&&... args) {
  detail::ViewAllocProp<void> p;
  if constexpr (sizeof...(Args) == 0) {
    return p;
  } else {
    return [&]<class P>(P start, auto&&... rest) {
      auto fold = [](auto self, auto prop, auto&& first, auto&&... more) {
        auto next = detail::add_alloc_prop(prop, std::forward<decltype(first)>(first));
        if constexpr (sizeof...(more) == 0) return next;
        else return self(self, next, std::forward<decltype(more)>(more)...);
      };
      return fold(fold, start, std::forward<decltype(rest)>(rest)...);
    }(p, std::forward<Args>(args)...);
  }
}

// Unmanaged view over user memory: view_wrap(ptr) is accepted for Kokkos compatibility.
template <class T>
T* view_wrap(T* ptr) {
  return ptr;
}

template <class DataType, class... Properties>
class View {
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
  using pointer_type = value_type*;
  using reference_type = std::conditional_t<memory_traits::is_atomic, AtomicRef<value_type>, value_type&>;
  using const_data_type = typename detail::rebind_data<DataType, const_value_type>::type;
  using non_const_data_type = typename detail::rebind_data<DataType, non_const_value_type>::type;
  using type = View<DataType, array_layout, device_type, memory_traits>;
  using const_type = View<const_data_type, array_layout, device_type, memory_traits>;
  using non_const_type = View<non_const_data_type, array_layout, device_type, memory_traits>;
  using HostMirror = View<non_const_data_type, array_layout, Device<DefaultHostExecutionSpace, HostSpace>>;
  using host_mirror_type = HostMirror;
  using map_type = detail::ViewOffset<array_layout, traits::rank>;

  static constexpr std::size_t rank = traits::rank;
  static constexpr std::size_t rank_dynamic = traits::rank_dynamic;
  static constexpr bool reference_type_is_lvalue_reference = !memory_traits::is_atomic;

  // --- construction -------------------------------------------------------

  TESSERA_INLINE_FUNCTION View() = default;
  TESSERA_INLINE_FUNCTION View(const View&) = default;
  TESSERA_INLINE_FUNCTION View(View&&) = default;
  TESSERA_INLINE_FUNCTION View& operator=(const View&) = default;
  TESSERA_INLINE_FUNCTION View& operator=(View&&) = default;
  TESSERA_INLINE_FUNCTION ~View() = default;

  // Allocating constructors: give the runtime extents (or all extents).
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

  template <class E>
  explicit View(const detail::ViewAllocProp<E>& prop, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG) {
    static_assert(!memory_traits::is_unmanaged, "an Unmanaged View cannot allocate");
    const std::size_t given[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    std::size_t n[8];
    resolve_extents(prop.label, given, n);
    allocate(prop, n, nullptr);
  }

  template <class E>
  View(const detail::ViewAllocProp<E>& prop, const array_layout& layout) {
    static_assert(!memory_traits::is_unmanaged, "an Unmanaged View cannot allocate");
    std::size_t n[8];
    layout_extents(prop.label, layout, n);
    allocate(prop, n, &layout);
  }
  View(const std::string& label, const array_layout& layout) : View(view_alloc(label), layout) {}
  View(const char* label, const array_layout& layout) : View(view_alloc(std::string(label)), layout) {}

  // Unmanaged views over memory the caller owns (no reference count).
  TESSERA_INLINE_FUNCTION explicit View(pointer_type ptr, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                        std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : m_data(ptr) {
    const std::size_t given[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    std::size_t n[8];
    resolve_extents_device_safe(given, n);
    m_map.set_compact(n);
  }
  View(pointer_type ptr, const array_layout& layout) : m_data(ptr) {
    std::size_t n[8];
    layout_extents("(unmanaged)", layout, n);
    set_map_from_layout(layout, n);
  }

  // Conversion from a compatible View: T -> const T, Right/Left -> Stride,
  // runtime -> compile-time extents (checked), same memory space.
  template <class D2, class... P2,
            std::enable_if_t<detail::layout_convertible_v<array_layout, typename View<D2, P2...>::array_layout, rank> &&
                                 !std::is_same_v<View, View<D2, P2...>>,
                             int> = 0>
  TESSERA_INLINE_FUNCTION View(const View<D2, P2...>& other)
      : m_data(other.data()), m_track(other.impl_track()) {
    using Other = View<D2, P2...>;
    static_assert(Other::rank == rank, "View conversion: ranks differ");
    static_assert(std::is_same_v<non_const_value_type, typename Other::non_const_value_type>,
                  "View conversion: value types differ");
    static_assert(std::is_const_v<value_type> || !std::is_const_v<typename Other::value_type>,
                  "View conversion: cannot drop const");
    static_assert(std::is_same_v<memory_space, typename Other::memory_space>,
                  "View conversion: memory spaces differ (use deep_copy or create_mirror_view)");
    for (std::size_t r = 0; r < rank; ++r) {
      m_map.m_extent[r] = other.impl_map().m_extent[r];
      m_map.m_stride[r] = other.impl_map().m_stride[r];
      if constexpr (rank > 0) {
        const std::size_t s = traits::extents::values[r];
        if (s != detail::dynamic_extent && s != m_map.m_extent[r]) {
          TESSERA_IF_ON_HOST(detail::throw_runtime_error("tessera::View conversion: extent " + std::to_string(r) +
                                                         " of '" + other.label() + "' is " +
                                                         std::to_string(m_map.m_extent[r]) +
                                                         " but the target type fixes it to " + std::to_string(s));)
          TESSERA_IF_ON_DEVICE(tessera::abort("tessera::View conversion: static extent mismatch");)
        }
      }
    }
    if constexpr (std::is_same_v<array_layout, typename Other::array_layout> &&
                  is_layout_tiled<array_layout>::value) {
      m_map = other.impl_map();
    }
#if TESSERA_ENABLE_BOUNDS_CHECK
    m_label_copy = other.impl_label_copy();
#endif
    if constexpr (rank == 1 && std::is_same_v<array_layout, LayoutRight>) m_map.m_stride[0] = other.impl_map().m_stride[0];
  }
  template <class D2, class... P2>
  TESSERA_INLINE_FUNCTION View& operator=(const View<D2, P2...>& other) {
    *this = View(other);
    return *this;
  }

  // Subview constructor: View<double*> row(matrix, 3, ALL).
  template <class D2, class... P2, class A0, class... Args>
  View(const View<D2, P2...>& src, A0 a0, Args... args);

  // Internal: assemble from parts (used by subview, tile, mirrors).
  TESSERA_INLINE_FUNCTION View(pointer_type data, const map_type& map, const detail::SharedAllocationTracker& track)
      : m_data(data), m_map(map), m_track(track) {}

  // --- queries --------------------------------------------------------------

  TESSERA_FORCEINLINE_FUNCTION pointer_type data() const { return m_data; }
  TESSERA_FORCEINLINE_FUNCTION std::size_t extent(std::size_t r) const { return m_map.extent(r); }
  TESSERA_FORCEINLINE_FUNCTION int extent_int(std::size_t r) const { return static_cast<int>(m_map.extent(r)); }
  static constexpr std::size_t static_extent(std::size_t r) {
    return r < rank && traits::extents::values[r] != detail::dynamic_extent ? traits::extents::values[r] : 0;
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride(std::size_t r) const { return m_map.stride(r); }
  template <class I>
  TESSERA_INLINE_FUNCTION void stride(I* s) const {
    for (std::size_t r = 0; r < rank; ++r) s[r] = static_cast<I>(m_map.stride(r));
    if constexpr (rank < 8) s[rank] = static_cast<I>(span());
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_0() const { return stride(0); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_1() const { return stride(1); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_2() const { return stride(2); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_3() const { return stride(3); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t size() const { return m_map.size(); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t span() const { return m_data ? m_map.span() : 0; }
  TESSERA_INLINE_FUNCTION bool span_is_contiguous() const {
    if constexpr (is_layout_tiled<array_layout>::value) return m_map.span() == size();
    else return span() == size();
  }
  TESSERA_INLINE_FUNCTION bool is_allocated() const { return m_data != nullptr; }
  std::string label() const { return m_track.label(); }
  int use_count() const { return m_track.use_count(); }
  array_layout layout() const { return m_map.layout(); }

  TESSERA_FORCEINLINE_FUNCTION const map_type& impl_map() const { return m_map; }
  TESSERA_FORCEINLINE_FUNCTION const detail::SharedAllocationTracker& impl_track() const { return m_track; }
#if TESSERA_ENABLE_BOUNDS_CHECK
  TESSERA_INLINE_FUNCTION const detail::LabelCopy& impl_label_copy() const { return m_label_copy; }
#endif

  // --- element access -------------------------------------------------------

  template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION reference_type operator()(I... i) const {
    check_bounds(i...);
    return make_ref(m_data + m_map(i...));
  }
  template <class I>
    requires(rank == 1 && std::is_integral_v<I>)
  TESSERA_FORCEINLINE_FUNCTION reference_type operator[](I i) const {
    check_bounds(i);
    return make_ref(m_data + m_map(i));
  }
  // Kokkos' access(): missing trailing indices are zero.
  template <class... I>
    requires(sizeof...(I) <= 8 && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION reference_type access(I... i) const {
    const std::size_t idx[9] = {std::size_t(i)..., 0, 0, 0, 0, 0, 0, 0, 0, 0};
    return access_array(idx);
  }
  // Element at the multi-index idx[0..rank).
  TESSERA_FORCEINLINE_FUNCTION reference_type access_array(const std::size_t* idx) const {
    return [&]<std::size_t... R>(std::index_sequence<R...>) -> reference_type {
      return make_ref(m_data + m_map(idx[R]...));
    }(std::make_index_sequence<rank>());
  }

  // For LayoutTiled: an unmanaged view of tile (i, j), clipped to the extents.
  auto tile(std::size_t ti, std::size_t tj) const
    requires(is_layout_tiled<array_layout>::value)
  {
    using TileView = View<value_type**, LayoutStride, device_type, MemoryTraits<memory_traits::flags | Unmanaged>>;
    constexpr std::size_t TR = array_layout::tile_rows, TC = array_layout::tile_cols;
    std::size_t rows = ti * TR < extent(0) ? std::min(TR, extent(0) - ti * TR) : 0;
    std::size_t cols = tj * TC < extent(1) ? std::min(TC, extent(1) - tj * TC) : 0;
    if (ti >= m_map.tiles(0) || tj >= m_map.tiles(1)) {
      TESSERA_IF_ON_HOST(detail::throw_runtime_error("tessera::View::tile(" + std::to_string(ti) + ", " +
                                                     std::to_string(tj) + ") of '" + label() + "': only " +
                                                     std::to_string(m_map.tiles(0)) + " x " +
                                                     std::to_string(m_map.tiles(1)) + " tiles");)
    }
    typename TileView::map_type map;
    map.m_extent[0] = rows;
    map.m_extent[1] = cols;
    map.m_stride[0] = TC;
    map.m_stride[1] = 1;
    return TileView(m_data + (ti * m_map.tiles(1) + tj) * TR * TC, map, detail::SharedAllocationTracker());
  }
  std::size_t tiles(std::size_t r) const
    requires(is_layout_tiled<array_layout>::value)
  {
    return m_map.tiles(r);
  }

 private:
  TESSERA_FORCEINLINE_FUNCTION static reference_type make_ref(pointer_type p) {
    if constexpr (memory_traits::is_atomic) return AtomicRef<value_type>(p);
    else return *p;
  }

  template <class... I>
  TESSERA_FORCEINLINE_FUNCTION void check_bounds(I... i) const {
#if TESSERA_ENABLE_BOUNDS_CHECK
    const long long idx[] = {static_cast<long long>(i)..., 0};
    for (std::size_t r = 0; r < sizeof...(I); ++r) {
      if (idx[r] < 0 || static_cast<std::size_t>(idx[r]) >= m_map.extent(r))
        detail::report_bounds_error(m_label_copy.text, r, idx[r], m_map.extent(r), rank);
    }
#else
    ((void)i, ...);
#endif
  }

  void resolve_extents(const std::string& label, const std::size_t* given, std::size_t* n) const {
    std::size_t count = 0;
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    for (std::size_t r = count; r < 8; ++r)
      if (given[r] != TESSERA_IMPL_CTOR_DEFAULT_ARG)
        detail::throw_runtime_error("tessera::View '" + label + "': extents must be given without gaps");
    if (count != rank_dynamic && count != rank)
      detail::throw_runtime_error("tessera::View '" + label + "': got " + std::to_string(count) +
                                  " extents, expected " + std::to_string(rank_dynamic) + " (the runtime extents)" +
                                  (rank != rank_dynamic ? " or " + std::to_string(rank) + " (all extents)" : ""));
    fill_extents(given, count, n);
    if (count == rank)
      for (std::size_t r = rank_dynamic; r < rank; ++r)
        if (given[r] != traits::extents::values[r])
          detail::throw_runtime_error("tessera::View '" + label + "': extent " + std::to_string(r) + " given as " +
                                      std::to_string(given[r]) + " but the type fixes it to " +
                                      std::to_string(traits::extents::values[r]));
  }
  TESSERA_INLINE_FUNCTION void resolve_extents_device_safe(const std::size_t* given, std::size_t* n) const {
    std::size_t count = 0;
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    fill_extents(given, count < rank_dynamic ? count : (count == rank ? rank : rank_dynamic), n);
    for (std::size_t r = count; r < rank_dynamic; ++r) n[r] = 0;
  }
  TESSERA_INLINE_FUNCTION static void fill_extents(const std::size_t* given, std::size_t count, std::size_t* n) {
    for (std::size_t r = 0; r < 8; ++r) n[r] = 1;
    for (std::size_t r = 0; r < rank; ++r) {
      if (r < rank_dynamic) n[r] = r < count ? given[r] : 0;
      else n[r] = traits::extents::values[r];
    }
  }
  void layout_extents(const std::string& label, const array_layout& layout, std::size_t* n) const {
    std::size_t given[8];
    std::size_t count = 0;
    for (std::size_t r = 0; r < 8; ++r) given[r] = layout.dimension[r];
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    if (count < rank_dynamic)
      detail::throw_runtime_error("tessera::View '" + label + "': the layout gives " + std::to_string(count) +
                                  " extents but the View has " + std::to_string(rank_dynamic) + " runtime extents");
    for (std::size_t r = count; r < 8; ++r) given[r] = TESSERA_IMPL_CTOR_DEFAULT_ARG;
    fill_extents(given, count >= rank ? rank : count, n);
    if (count >= rank)
      for (std::size_t r = 0; r < rank; ++r) n[r] = given[r];
  }
  void set_map_from_layout(const array_layout& layout, const std::size_t* n) {
    m_map.set_compact(n);
    if constexpr (std::is_same_v<array_layout, LayoutStride>) {
      for (std::size_t r = 0; r < rank; ++r) m_map.m_stride[r] = layout.stride[r];
    }
  }

  template <class E>
  void allocate(const detail::ViewAllocProp<E>& prop, const std::size_t* n, const array_layout* layout) {
    if (layout) set_map_from_layout(*layout, n);
    else m_map.set_compact(n);
    // Guard the element count against overflow before asking for memory.
    std::size_t elements = 1;
    for (std::size_t r = 0; r < rank; ++r) {
      if (n[r] != 0 && elements > std::numeric_limits<std::size_t>::max() / n[r])
        throw allocation_error("tessera::View '" + prop.label + "': extents overflow the address space");
      elements *= n[r];
    }
    const std::size_t span_elems = m_map.span();
    using Exec = std::conditional_t<std::is_void_v<E>, execution_space, E>;
    Exec exec{};
    if constexpr (!std::is_void_v<E>) exec = prop.exec;
    auto* rec = detail::allocate_record<memory_space, Exec, non_const_value_type>(
        prop.label, rank == 0 ? 1 : span_elems, prop.initialize, exec);
    m_data = static_cast<pointer_type>(rec->data);
    m_track = detail::SharedAllocationTracker(rec);
#if TESSERA_ENABLE_BOUNDS_CHECK
    m_label_copy.set(prop.label);
#endif
  }

  pointer_type m_data = nullptr;
  map_type m_map{};
  detail::SharedAllocationTracker m_track{};
#if TESSERA_ENABLE_BOUNDS_CHECK
  detail::LabelCopy m_label_copy{};
#endif

  template <class, class...>
  friend class View;
};

// Deduction helpers and comparisons.
template <class D1, class... P1, class D2, class... P2>
bool operator==(const View<D1, P1...>& a, const View<D2, P2...>& b) {
  if (a.data() != b.data() || View<D1, P1...>::rank != View<D2, P2...>::rank) return false;
  for (std::size_t r = 0; r < View<D1, P1...>::rank; ++r)
    if (a.extent(r) != b.extent(r) || a.stride(r) != b.stride(r)) return false;
  return true;
}

template <class View>
inline constexpr bool is_view_host_accessible_v = detail::host_accessible<typename View::memory_space>::value;

}  // namespace tessera
