#pragma once
// View: a reference-counted multidimensional array in a memory space.
#include <tessera/core/atomics.hpp>
#include <tessera/core/detail/memory_copy.hpp>
#include <tessera/core/detail/shared_allocation.hpp>
#include <tessera/core/detail/view_mapping.hpp>
#include <tessera/core/detail/view_traits.hpp>
#include <tessera/core/error.hpp>
#include <tessera/core/parallel.hpp>
#include <tessera/core/view_fwd.hpp>
#if defined(__CUDACC__) && TESSERA_ENABLE_CUDA
#include <tessera/core/backends/cuda/cuda_trap_report.hpp>
#endif

#include <algorithm>
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

// Properties collected by view_alloc(...): label, whether to initialize,
// optionally the execution-space instance that initializes, and optionally
// a memory space (which create_mirror* use as the mirror's space; View
// constructors allocate in their own space).
template <class Exec = void, class Mem = void>
struct ViewAllocProp {
  using execution_space = Exec;
  using memory_space = Mem;
  std::string label;
  bool initialize = true;
  Exec exec{};
};
template <class Mem>
struct ViewAllocProp<void, Mem> {
  using execution_space = void;
  using memory_space = Mem;
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
    ViewAllocProp<T, typename Prop::memory_space> q;
    q.label = p.label;
    q.initialize = p.initialize;
    q.exec = a;
    return q;
  } else {
    static_assert(is_memory_space_v<T>, "view_alloc: unknown property");
    ViewAllocProp<typename Prop::execution_space, T> q;
    q.label = p.label;
    q.initialize = p.initialize;
    if constexpr (!std::is_void_v<typename Prop::execution_space>) q.exec = p.exec;
    return q;
  }
}

template <class T>
struct is_view_alloc_prop : std::false_type {};
template <class E, class M>
struct is_view_alloc_prop<ViewAllocProp<E, M>> : std::true_type {};

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

// Prints a bounds error naming the View, the dimension, the index and the
// extent, then aborts (on a device: traps, ending the kernel with an error
// the host sees at the next fence, which quotes the report: see
// backends/cuda/cuda_trap_report.hpp). `label` may be null for unmanaged Views.
[[noreturn]] TESSERA_INLINE_FUNCTION void report_bounds_error(const char* label, std::size_t dim, long long index,
                                                              std::size_t extent, std::size_t rank) {
  if (!label) label = "(unmanaged)";
#if TESSERA_IMPL_ON_DEVICE
  ::printf("tessera: View bounds error in View '%s': index %lld of dimension %llu is outside [0, %llu) (rank %llu)\n",
           label, index, (unsigned long long)dim, (unsigned long long)extent, (unsigned long long)rank);
#if defined(__CUDACC__) && TESSERA_ENABLE_CUDA
  cuda::report_bounds_error_to_host(label, dim, index, extent, rank);
#endif
  __trap();
  __builtin_unreachable();
#else
  std::fprintf(stderr,
               "tessera: View bounds error in View '%s': index %lld of dimension %zu is outside [0, %zu) (rank %zu)\n",
               label, index, dim, extent, rank);
  std::fflush(stderr);
  std::abort();
#endif
}

// Whether MemSpace offers impl_allocate(label, total, logical) (HostSpace
// does): then profiling tools see the size the user asked for, not the header.
template <class M>
concept has_impl_allocate = requires(const M& m, const char* l, void* p, std::size_t n) {
  m.impl_allocate(l, n, n);
  m.impl_deallocate(l, p, n, n);
};

template <class MemSpace>
void* space_allocate(const char* label, std::size_t total, std::size_t logical) {
  if constexpr (has_impl_allocate<MemSpace>) return MemSpace().impl_allocate(label, total, logical);
  else return MemSpace().allocate(label, total);
}
template <class MemSpace>
void space_deallocate(const char* label, void* base, std::size_t total, std::size_t logical) {
  if constexpr (has_impl_allocate<MemSpace>) MemSpace().impl_deallocate(label, base, total, logical);
  else MemSpace().deallocate(label, base, total);
}

template <class MemSpace, class Exec, class T>
void destroy_record(SharedAllocationRecord* rec) {
  T* data = static_cast<T*>(rec->data);
  const std::size_t n = rec->bytes / sizeof(T);
  if constexpr (!std::is_trivially_destructible_v<T>) {
    if constexpr (host_accessible<MemSpace>::value) {
      for (std::size_t i = 0; i < n; ++i) data[i].~T();
    } else {
      parallel_for("tessera::View::destroy [" + rec->label + "]", RangePolicy<Exec>(0, n),
                   TESSERA_LAMBDA(std::size_t i) { data[i].~T(); });
      Exec().fence();
    }
  }
  (void)n;
  (void)data;
  space_deallocate<MemSpace>(rec->label.c_str(), rec->base, rec->bytes + label_header_bytes, rec->bytes);
  delete rec;
}

// Below this many bytes a host View's elements are initialized on the
// calling thread. A parallel region wakes the pool's threads: microseconds on
// an idle machine, and milliseconds on a VM whose idle virtual CPUs halt
// (miniTri's tasks method on Serial, oregon1, 1 thread: a one-row histogram
// View spent 2.5 ms of a 8 ms run in OpenMP's region start, and the woken
// thread then spun beside the run). Writing 64 KiB takes a few microseconds,
// and first-touch placement matters only for pages other threads will use.
inline constexpr std::size_t host_inline_init_bytes = std::size_t(64) << 10;

// Runs body() on the calling thread in place of a parallel_for on host space
// Exec; a profiling tool sees the kernel make_label() on Exec all the same.
template <class Exec, class MakeLabel, class Body>
void host_inline_kernel(const MakeLabel& make_label, const Body& body) {
  if (profiling::active()) {
    profiling::KernelScope scope(profiling::Kind::parallel_for, make_label(), Exec::name());
    body();
  } else {
    body();
  }
}

// Allocates `n` elements of T in MemSpace behind a label header. The
// elements are value-initialized in parallel on `exec` (first touch: each
// page is first written by the thread that will use it; on the calling
// thread alone for a small host allocation, above) unless `initialize` is
// false; types with a non-trivial default constructor are constructed
// (default-initialized) even then, since a View never holds unconstructed objects.
template <class MemSpace, class Exec, class T>
SharedAllocationRecord* allocate_record(const std::string& label, std::size_t n, bool initialize, const Exec& exec) {
  constexpr std::size_t max_bytes = std::numeric_limits<std::size_t>::max() - label_header_bytes;
  if (n > max_bytes / sizeof(T))
    throw allocation_error("tessera::View '" + label + "': " + std::to_string(n) + " elements of " +
                           std::to_string(sizeof(T)) + " bytes overflow the address space");
  auto* rec = new SharedAllocationRecord;
  rec->label = label;
  rec->bytes = n * sizeof(T);
  try {
    rec->base = space_allocate<MemSpace>(rec->label.c_str(), rec->bytes + label_header_bytes, rec->bytes);
  } catch (...) {
    delete rec;
    throw;
  }
  char* header = static_cast<char*>(rec->base);
  rec->data = header + label_header_bytes;
  rec->label_in_space = header;
  rec->destroy = &destroy_record<MemSpace, Exec, T>;
  {
    char text[label_header_bytes] = {};
    const std::size_t len = std::min(label.size(), label_header_bytes - 1);
    std::memcpy(text, label.data(), len);
    if constexpr (host_accessible<MemSpace>::value) {
      std::memcpy(header, text, label_header_bytes);
    } else {
      MemoryCopy<MemSpace, HostSpace>::copy(exec, header, text, label_header_bytes);
      exec.fence();  // `text` dies at the end of this block
    }
  }
  if (initialize || !std::is_trivially_default_constructible_v<T>) {
    T* data = static_cast<T*>(rec->data);
    try {
      bool done = false;
      if constexpr (is_host_execution_space<Exec>::value) {
        if (rec->bytes <= host_inline_init_bytes) {
          host_inline_kernel<Exec>(
              [&] { return (initialize ? "tessera::View::initialization [" : "tessera::View::construction [") + label + "]"; },
              [&] {
                if (initialize)
                  for (std::size_t i = 0; i < n; ++i) new (data + i) T();
                else
                  for (std::size_t i = 0; i < n; ++i) new (data + i) T;
              });
          done = true;
        }
      }
      if (!done) {
        if (initialize) {
          parallel_for("tessera::View::initialization [" + label + "]", RangePolicy<Exec>(exec, 0, n),
                       TESSERA_LAMBDA(std::size_t i) { new (data + i) T(); });
        } else {
          parallel_for("tessera::View::construction [" + label + "]", RangePolicy<Exec>(exec, 0, n),
                       TESSERA_LAMBDA(std::size_t i) { new (data + i) T; });
        }
        exec.fence();
      }
    } catch (...) {
      space_deallocate<MemSpace>(rec->label.c_str(), rec->base, rec->bytes + label_header_bytes, rec->bytes);
      delete rec;
      throw;
    }
  }
  return rec;
}

template <class L>
constexpr bool is_regular_layout_v =
    std::is_same_v<L, LayoutRight> || std::is_same_v<L, LayoutLeft> || std::is_same_v<L, LayoutStride>;

// Whether a View of layout `From` converts to one of layout `To` at rank R.
// LayoutStride -> LayoutRight/LayoutLeft is allowed as in Kokkos and checked
// at run time (the unit stride must be where the target layout expects it).
template <class To, class From, std::size_t R>
constexpr bool layout_convertible_v =
    std::is_same_v<To, From> || (is_regular_layout_v<To> && is_regular_layout_v<From>);

// Whether View type Src converts implicitly to Dst: same rank, value type
// and memory space, no const dropped, compatible layouts (the static extents
// and strides are then checked at run time).
template <class Dst, class Src>
constexpr bool view_assignable_v = [] {
  using DT = typename Dst::traits;
  using ST = typename Src::traits;
  if constexpr (std::is_same_v<Dst, Src>) {
    return false;  // the copy constructor
  } else {
    return DT::rank == ST::rank &&
           std::is_same_v<typename DT::non_const_value_type, typename ST::non_const_value_type> &&
           (std::is_const_v<typename DT::value_type> || !std::is_const_v<typename ST::value_type>) &&
           std::is_same_v<typename DT::memory_space, typename ST::memory_space> &&
           layout_convertible_v<typename DT::array_layout, typename ST::array_layout, DT::rank>;
  }
}();

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

// Kokkos' shorthand for view_alloc(label, WithoutInitializing).
inline auto ViewAllocateWithoutInitializing(const std::string& label) {
  return view_alloc(label, WithoutInitializing);
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
  // Kokkos' "scalar array" types differ from the data types only for its
  // special scalar types (Sacado); for every other type they are the same.
  using scalar_array_type = data_type;
  using const_scalar_array_type = const_data_type;
  using non_const_scalar_array_type = non_const_data_type;
  using array_type = View<scalar_array_type, array_layout, device_type, memory_traits>;
  using HostMirror = View<non_const_data_type, array_layout, Device<DefaultHostExecutionSpace, HostSpace>>;
  using host_mirror_type = HostMirror;
  using host_mirror_space = Device<DefaultHostExecutionSpace, HostSpace>;
  using map_type = detail::ViewOffset<array_layout, traits::rank>;

  // As in Kokkos 4, both `V::rank` and `V::rank()` work.
  static constexpr std::integral_constant<std::size_t, traits::rank> rank{};
  static constexpr std::integral_constant<std::size_t, traits::rank_dynamic> rank_dynamic{};
  static constexpr bool reference_type_is_lvalue_reference = !memory_traits::is_atomic;

  // --- construction -------------------------------------------------------

  TESSERA_DEFAULTED_FUNCTION View() = default;
  TESSERA_DEFAULTED_FUNCTION View(const View&) = default;
  // A moved-from View is null on the host (Kokkos leaves it pointing at
  // memory it no longer owns). In device code a move is a copy.
  TESSERA_INLINE_FUNCTION View(View&& o) noexcept
      : m_data(o.m_data), m_map(o.m_map), m_track(static_cast<detail::SharedAllocationTracker&&>(o.m_track)),
        m_label(o.m_label) {
    TESSERA_IF_ON_HOST(o.impl_clear_fields();)
  }
  TESSERA_DEFAULTED_FUNCTION View& operator=(const View&) = default;
  TESSERA_INLINE_FUNCTION View& operator=(View&& o) noexcept {
    if (this != &o) {
      m_track = static_cast<detail::SharedAllocationTracker&&>(o.m_track);
      m_data = o.m_data;
      m_map = o.m_map;
      m_label = o.m_label;
      TESSERA_IF_ON_HOST(o.impl_clear_fields();)
    }
    return *this;
  }
  TESSERA_DEFAULTED_FUNCTION ~View() = default;

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

  template <class E, class M>
  explicit View(const detail::ViewAllocProp<E, M>& prop, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
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

  template <class E, class M>
  View(const detail::ViewAllocProp<E, M>& prop, const array_layout& layout) {
    static_assert(!memory_traits::is_unmanaged, "an Unmanaged View cannot allocate");
    std::size_t n[8];
    layout_extents(prop.label, layout, n);
    allocate(prop, n, &layout);
  }
  View(const std::string& label, const array_layout& layout) : View(view_alloc(label), layout) {}
  View(const char* label, const array_layout& layout) : View(view_alloc(std::string(label)), layout) {}

  // Views over memory the caller owns: never reference counted, never freed.
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
    TESSERA_IF_ON_HOST(resolve_extents("(unmanaged)", given, n);)
    TESSERA_IF_ON_DEVICE(resolve_extents_device(given, n);)
    m_map.set_compact(n);
  }
  View(pointer_type ptr, const array_layout& layout) : m_data(ptr) {
    std::size_t n[8];
    layout_extents("(unmanaged)", layout, n);
    set_map_from_layout(layout, n);
  }

  // Views in team scratch memory (Kokkos style), carved from a scratch handle
  // such as member.team_scratch(0) (scratch_memory_space.hpp):
  //   View<double*, Exec::scratch_memory_space, MemoryUnmanaged> a(member.team_scratch(0), n);
  // shmem_size(n...) is what to reserve for one such View with set_scratch_size.
  template <class Scratch>
    requires requires(const Scratch& s) { s.get_shmem_aligned(std::size_t(1), std::size_t(8)); }
  TESSERA_INLINE_FUNCTION View(const Scratch& scratch, std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                               std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : View(static_cast<pointer_type>(scratch.get_shmem_aligned(
                 shmem_bytes(n0, n1, n2, n3, n4, n5, n6, n7),
                 alignof(value_type) > 8 ? alignof(value_type) : std::size_t(8))),
             n0, n1, n2, n3, n4, n5, n6, n7) {}
  TESSERA_INLINE_FUNCTION static std::size_t shmem_size(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                                        std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG) {
    // Scratch handles hand out 8-byte multiples on 8-byte boundaries; a wider
    // alignment may cost up to its size in padding.
    const std::size_t bytes = (shmem_bytes(n0, n1, n2, n3, n4, n5, n6, n7) + 7) / 8 * 8;
    return bytes + (alignof(value_type) > 8 ? alignof(value_type) - 8 : 0);
  }

  // Conversion from a compatible View: T -> const T, Right/Left <-> Stride
  // (checked), runtime -> compile-time extents (checked), another execution
  // space or memory traits over the same memory space. A target with the
  // Unmanaged trait does not hold a reference.
  template <class D2, class... P2,
            std::enable_if_t<detail::view_assignable_v<View, View<D2, P2...>>, int> = 0>
  TESSERA_INLINE_FUNCTION View(const View<D2, P2...>& other)
      : m_data(other.data()), m_label(other.impl_label()) {
    using Other = View<D2, P2...>;
    static_assert(Other::rank == traits::rank, "View conversion: ranks differ");
    static_assert(std::is_same_v<non_const_value_type, typename Other::non_const_value_type>,
                  "View conversion: value types differ");
    static_assert(std::is_const_v<value_type> || !std::is_const_v<typename Other::value_type>,
                  "View conversion: cannot drop const");
    static_assert(std::is_same_v<memory_space, typename Other::memory_space>,
                  "View conversion: memory spaces differ (use deep_copy or create_mirror_view)");
    if constexpr (!memory_traits::is_unmanaged) m_track = other.impl_track();
    if constexpr (is_layout_tiled<array_layout>::value) {
      m_map = other.impl_map();
    } else {
      for (std::size_t r = 0; r != traits::rank; ++r) {
        m_map.m_extent[r] = other.impl_map().m_extent[r];
        m_map.m_stride[r] = other.impl_map().m_stride[r];
        if constexpr (traits::rank > 0) {
          const std::size_t s = traits::extents::at(r);
          if (s != detail::dynamic_extent && s != m_map.m_extent[r]) {
            TESSERA_IF_ON_HOST(detail::throw_runtime_error(
                                   "tessera::View conversion: extent " + std::to_string(r) + " of '" + other.label() +
                                   "' is " + std::to_string(m_map.m_extent[r]) +
                                   " but the target type fixes it to " + std::to_string(s));)
            TESSERA_IF_ON_DEVICE(tessera::abort("tessera::View conversion: static extent mismatch");)
          }
        }
      }
      if constexpr (traits::rank > 0 && !std::is_same_v<array_layout, LayoutStride> &&
                    !std::is_same_v<array_layout, typename Other::array_layout>) {
        // The target layout assumes a unit stride in its last (Right) or
        // first (Left) dimension; that dimension may also be of extent <= 1.
        constexpr std::size_t unit = std::is_same_v<array_layout, LayoutRight> ? traits::rank - 1 : 0;
        if (m_map.m_extent[unit] > 1 && m_map.m_stride[unit] != 1) {
          TESSERA_IF_ON_HOST(detail::throw_runtime_error(
                                 "tessera::View conversion: '" + other.label() + "' has stride " +
                                 std::to_string(m_map.m_stride[unit]) + " in dimension " + std::to_string(unit) +
                                 ", but the target layout needs stride 1 there");)
          TESSERA_IF_ON_DEVICE(tessera::abort("tessera::View conversion: incompatible strides");)
        }
        if (m_map.m_extent[unit] <= 1) m_map.m_stride[unit] = 1;
      }
    }
  }
  template <class D2, class... P2>
  TESSERA_INLINE_FUNCTION View& operator=(const View<D2, P2...>& other) {
    *this = View(other);
    return *this;
  }

  // Subview constructor: View<double*> row(matrix, 3, ALL).
  template <class D2, class... P2, class A0, class... Args>
  View(const View<D2, P2...>& src, A0 a0, Args... args);

  // Internal: assemble from parts (used by subview, tile, mirrors and other
  // packages' containers). `label` is the label text in the allocation's
  // memory space (for bounds errors on a device); the 3-argument form takes it
  // from the tracker, on the host only.
  TESSERA_INLINE_FUNCTION View(pointer_type data, const map_type& map, const detail::SharedAllocationTracker& track,
                               const char* label)
      : m_data(data), m_map(map), m_track(track), m_label(label) {}
  TESSERA_INLINE_FUNCTION View(pointer_type data, const map_type& map, const detail::SharedAllocationTracker& track)
      : m_data(data), m_map(map), m_track(track) {
    TESSERA_IF_ON_HOST(m_label = track.label_in_space();)
  }

  // --- queries --------------------------------------------------------------

  TESSERA_FORCEINLINE_FUNCTION pointer_type data() const { return m_data; }
  TESSERA_FORCEINLINE_FUNCTION std::size_t extent(std::size_t r) const { return m_map.extent(r); }
  TESSERA_FORCEINLINE_FUNCTION int extent_int(std::size_t r) const { return static_cast<int>(m_map.extent(r)); }
  static constexpr std::size_t static_extent(std::size_t r) {
    if constexpr (traits::rank == 0) return 0;  // (r < 0 would be nvcc's pointless comparison #186-D)
    else return r < traits::rank && traits::extents::values[r] != detail::dynamic_extent ? traits::extents::values[r] : 0;
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride(std::size_t r) const { return m_map.stride(r); }
  template <class I>
  TESSERA_INLINE_FUNCTION void stride(I* s) const {
    for (std::size_t r = 0; r != traits::rank; ++r) s[r] = static_cast<I>(m_map.stride(r));
    if constexpr (traits::rank < 8) s[traits::rank] = static_cast<I>(span());
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_0() const { return stride(0); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_1() const { return stride(1); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_2() const { return stride(2); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_3() const { return stride(3); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_4() const { return stride(4); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_5() const { return stride(5); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_6() const { return stride(6); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_7() const { return stride(7); }
  TESSERA_FORCEINLINE_FUNCTION std::size_t size() const { return m_map.size(); }
  // Elements between the first and one past the last reachable element (0 for a null View).
  TESSERA_FORCEINLINE_FUNCTION std::size_t span() const { return m_data ? m_map.span() : 0; }
  TESSERA_INLINE_FUNCTION bool span_is_contiguous() const { return m_map.span() == size(); }
  TESSERA_INLINE_FUNCTION bool is_allocated() const { return m_data != nullptr; }
  std::string label() const { return m_track.label(); }
  int use_count() const { return m_track.use_count(); }
  array_layout layout() const { return m_map.layout(); }

  TESSERA_FORCEINLINE_FUNCTION const map_type& impl_map() const { return m_map; }
  TESSERA_FORCEINLINE_FUNCTION const detail::SharedAllocationTracker& impl_track() const { return m_track; }
  // Extents a constructor given `count` extents would produce (runtime
  // extents only, or all of them).
  TESSERA_INLINE_FUNCTION static void impl_extents_from(const std::size_t* given, std::size_t count, std::size_t* n) {
    fill_extents(given, count, n);
  }
  // The label text in the View's memory space (null for user-owned memory).
  TESSERA_FORCEINLINE_FUNCTION const char* impl_label() const { return m_label; }

  // --- element access -------------------------------------------------------
  //
  // Bounds checking is decided per translation unit by the macro
  // TESSERA_ENABLE_BOUNDS_CHECK (from <tessera/config.hpp> unless defined
  // before it). The choice is a defaulted template parameter, so checked and
  // unchecked accessors are different functions and translation units built
  // either way link together; the View's members never depend on it.

  template <class... I, bool Check = (TESSERA_ENABLE_BOUNDS_CHECK != 0)>
    requires(sizeof...(I) == traits::rank && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION reference_type operator()(I... i) const {
    if constexpr (Check) check_bounds(i...);
    return make_ref(m_data + m_map(i...));
  }
  template <class I, bool Check = (TESSERA_ENABLE_BOUNDS_CHECK != 0)>
    requires(traits::rank == 1 && std::is_integral_v<I>)
  TESSERA_FORCEINLINE_FUNCTION reference_type operator[](I i) const {
    if constexpr (Check) check_bounds(i);
    return make_ref(m_data + m_map(i));
  }
  // Kokkos' access(): missing trailing indices are zero; extra ones are ignored.
  template <class... I, bool Check = (TESSERA_ENABLE_BOUNDS_CHECK != 0)>
    requires(sizeof...(I) <= 8 && (std::is_integral_v<I> && ...))
  TESSERA_FORCEINLINE_FUNCTION reference_type access(I... i) const {
    std::size_t idx[8] = {};
    long long given[8] = {};
    std::size_t k = 0;
    ((idx[k] = static_cast<std::size_t>(i), given[k] = static_cast<long long>(i), ++k), ...);
    if constexpr (Check) check_bounds_array(given);
    return access_array(idx);
  }
  // Element at the multi-index idx[0..rank) (unchecked: for library code
  // whose indices are in range by construction).
  TESSERA_FORCEINLINE_FUNCTION reference_type access_array(const std::size_t* idx) const {
    return [&]<std::size_t... R>(std::index_sequence<R...>) -> reference_type {
      return make_ref(m_data + m_map(idx[R]...));
    }(std::make_index_sequence<traits::rank>());
  }

  // For LayoutTiled: an unmanaged view of tile (i, j), clipped to the extents.
  auto tile(std::size_t ti, std::size_t tj) const
    requires(is_layout_tiled<array_layout>::value)
  {
    using TileView = View<value_type**, LayoutStride, device_type, MemoryTraits<memory_traits::flags | Unmanaged>>;
    constexpr std::size_t TR = array_layout::tile_rows, TC = array_layout::tile_cols;
    if (ti >= m_map.tiles(0) || tj >= m_map.tiles(1)) {
      detail::throw_runtime_error("tessera::View::tile(" + std::to_string(ti) + ", " + std::to_string(tj) +
                                  ") of '" + label() + "': the View has only " + std::to_string(m_map.tiles(0)) +
                                  " x " + std::to_string(m_map.tiles(1)) + " tiles");
    }
    const std::size_t rows = std::min(TR, extent(0) - ti * TR);
    const std::size_t cols = std::min(TC, extent(1) - tj * TC);
    typename TileView::map_type map;
    map.m_extent[0] = rows;
    map.m_extent[1] = cols;
    map.m_stride[0] = TC;
    map.m_stride[1] = 1;
    return TileView(m_data + (ti * m_map.tiles(1) + tj) * TR * TC, map, detail::SharedAllocationTracker(), m_label);
  }
  std::size_t tiles(std::size_t r) const
    requires(is_layout_tiled<array_layout>::value)
  {
    return m_map.tiles(r);
  }

 private:
  TESSERA_INLINE_FUNCTION void impl_clear_fields() {
    m_data = nullptr;
    m_map = map_type{};
    m_label = nullptr;
  }
  TESSERA_FORCEINLINE_FUNCTION static reference_type make_ref(pointer_type p) {
    if constexpr (memory_traits::is_atomic) return AtomicRef<value_type>(p);
    else return *p;
  }

  template <class... I>
  TESSERA_INLINE_FUNCTION void check_bounds(I... i) const {
    const long long idx[] = {static_cast<long long>(i)..., 0};
    check_bounds_array(idx);
  }
  TESSERA_INLINE_FUNCTION void check_bounds_array(const long long* idx) const {
    for (std::size_t r = 0; r != traits::rank; ++r) {
      // Indices are compared as unsigned so that negative values (and
      // unsigned values beyond the signed range) are caught too.
      if (static_cast<unsigned long long>(idx[r]) >= m_map.extent(r))
        detail::report_bounds_error(m_label, r, idx[r], m_map.extent(r), traits::rank);
    }
  }

  // Extents from constructor arguments: either the runtime extents only or
  // all extents (the compile-time ones must then match the type).
  void resolve_extents(const std::string& label, const std::size_t* given, std::size_t* n) const {
    std::size_t count = 0;
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    for (std::size_t r = count; r < 8; ++r)
      if (given[r] != TESSERA_IMPL_CTOR_DEFAULT_ARG)
        detail::throw_runtime_error("tessera::View '" + label + "': extents must be given without gaps");
    if (count != traits::rank_dynamic && count != traits::rank)
      detail::throw_runtime_error("tessera::View '" + label + "': got " + std::to_string(count) +
                                  " extents, expected " + std::to_string(traits::rank_dynamic) + " (the runtime extents)" +
                                  (traits::rank != traits::rank_dynamic ? " or " + std::to_string(traits::rank) + " (all extents)" : ""));
    fill_extents(given, count, n);
    if (count == traits::rank && count != traits::rank_dynamic) check_static_extents(label, given);
  }
  TESSERA_INLINE_FUNCTION static void resolve_extents_device(const std::size_t* given, std::size_t* n) {
    std::size_t count = 0;
    while (count < 8 && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    fill_extents(given, count, n);
  }
  // Bytes of a compact View with these extents (scratch allocation).
  TESSERA_INLINE_FUNCTION static std::size_t shmem_bytes(std::size_t n0, std::size_t n1, std::size_t n2,
                                                         std::size_t n3, std::size_t n4, std::size_t n5,
                                                         std::size_t n6, std::size_t n7) {
    const std::size_t given[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    std::size_t n[8];
    resolve_extents_device(given, n);
    map_type map{};
    map.set_compact(n);
    return (traits::rank == 0 ? 1 : map.span()) * sizeof(value_type);
  }
  TESSERA_INLINE_FUNCTION static void fill_extents(const std::size_t* given, std::size_t count, std::size_t* n) {
    for (std::size_t r = 0; r < 8; ++r) n[r] = 1;
    // Two loops with != (not one with r < rank_dynamic): either count may be
    // 0, where nvcc warns (#186-D) that r < 0 is pointless.
    for (std::size_t r = 0; r != traits::rank_dynamic; ++r) n[r] = r < count ? given[r] : 0;
    for (std::size_t r = traits::rank_dynamic; r != traits::rank; ++r) n[r] = traits::extents::at(r);
  }
  void check_static_extents(const std::string& label, const std::size_t* given) const {
    for (std::size_t r = traits::rank_dynamic; r != traits::rank; ++r)
      if (given[r] != traits::extents::values[r])
        detail::throw_runtime_error("tessera::View '" + label + "': extent " + std::to_string(r) + " given as " +
                                    std::to_string(given[r]) + " but the type fixes it to " +
                                    std::to_string(traits::extents::values[r]));
  }
  // Extents from a layout object: at least the runtime extents; extents
  // given for compile-time dimensions must match the type.
  void layout_extents(const std::string& label, const array_layout& layout, std::size_t* n) const {
    std::size_t given[8];
    std::size_t count = 0;
    for (std::size_t r = 0; r < 8; ++r) given[r] = layout.dimension[r];
    while (count != traits::rank && given[count] != TESSERA_IMPL_CTOR_DEFAULT_ARG) ++count;
    if constexpr (traits::rank_dynamic != 0) {  // (count < 0 would be nvcc's pointless comparison #186-D)
      if (count < traits::rank_dynamic)
        detail::throw_runtime_error("tessera::View '" + label + "': the layout gives " + std::to_string(count) +
                                    " extents but the View has " + std::to_string(traits::rank_dynamic) +
                                    " runtime extents");
    }
    fill_extents(given, count, n);
    for (std::size_t r = traits::rank_dynamic; r < count; ++r)
      if (given[r] != traits::extents::values[r])
        detail::throw_runtime_error("tessera::View '" + label + "': the layout gives extent " + std::to_string(r) +
                                    " as " + std::to_string(given[r]) + " but the type fixes it to " +
                                    std::to_string(traits::extents::values[r]));
  }
  void set_map_from_layout(const array_layout& layout, const std::size_t* n) {
    m_map.set_compact(n);
    if constexpr (std::is_same_v<array_layout, LayoutStride>) {
      for (std::size_t r = 0; r != traits::rank; ++r) m_map.m_stride[r] = layout.stride[r];
    }
  }

  template <class E, class M>
  void allocate(const detail::ViewAllocProp<E, M>& prop, const std::size_t* n, const array_layout* layout) {
    // Guard the element count against overflow before asking for memory.
    std::size_t elements = 1;
    for (std::size_t r = 0; r != traits::rank; ++r) {
      if (n[r] != 0 && elements > std::numeric_limits<std::size_t>::max() / n[r])
        throw allocation_error("tessera::View '" + prop.label + "': extents overflow the address space");
      elements *= n[r];
    }
    if (layout) set_map_from_layout(*layout, n);
    else m_map.set_compact(n);
    const std::size_t span_elems = m_map.span();
    using Exec = std::conditional_t<std::is_void_v<E>, execution_space, E>;
    Exec exec{};
    if constexpr (!std::is_void_v<E>) exec = prop.exec;
    auto* rec = detail::allocate_record<memory_space, Exec, non_const_value_type>(prop.label, span_elems,
                                                                                  prop.initialize, exec);
    m_data = static_cast<pointer_type>(rec->data);
    m_track = detail::SharedAllocationTracker(rec);
    m_label = rec->label_in_space;
  }

  pointer_type m_data = nullptr;
  map_type m_map{};
  detail::SharedAllocationTracker m_track{};
  const char* m_label = nullptr;  // label text in the memory space, for bounds errors

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
