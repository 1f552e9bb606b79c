#pragma once
// Decoding of policy properties: execution space, schedule, index type, work
// tag and launch bounds may be given in any order.
#include <tessera/core/default_spaces.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {

struct Static {};
struct Dynamic {};
template <class S>
struct Schedule {
  static_assert(std::is_same_v<S, Static> || std::is_same_v<S, Dynamic>,
                "Schedule<> takes tessera::Static or tessera::Dynamic");
  using type = S;
};

template <class I>
struct IndexType {
  static_assert(std::is_integral_v<I>, "IndexType<> takes an integral type");
  using type = I;
};

// Launch bounds hint for CUDA kernels (ignored on host back-ends).
template <unsigned MaxThreads = 0, unsigned MinBlocks = 0>
struct LaunchBounds {
  static constexpr unsigned max_threads = MaxThreads;
  static constexpr unsigned min_blocks = MinBlocks;
};

namespace detail {

template <class T>
struct is_schedule : std::false_type {};
template <class S>
struct is_schedule<Schedule<S>> : std::true_type {};
template <class T>
struct is_index_type : std::false_type {};
template <class I>
struct is_index_type<IndexType<I>> : std::true_type {};
template <class T>
struct is_launch_bounds : std::false_type {};
template <unsigned A, unsigned B>
struct is_launch_bounds<LaunchBounds<A, B>> : std::true_type {};

template <class... Props>
struct PolicyTraits;

template <>
struct PolicyTraits<> {
  using execution_space = void;
  using schedule_type = void;
  using index_type = void;
  using work_tag = void;
  using launch_bounds = void;
  using iteration_pattern = void;
};

template <class T>
struct is_iteration_pattern : std::false_type {};  // specialized by MDRange's Rank<>

template <class P, class... Rest>
struct PolicyTraits<P, Rest...> {
  using rest = PolicyTraits<Rest...>;
  static constexpr bool is_exec = is_execution_space_v<P>;
  static constexpr bool is_sched = is_schedule<P>::value;
  static constexpr bool is_index = is_index_type<P>::value;
  static constexpr bool is_lb = is_launch_bounds<P>::value;
  static constexpr bool is_pattern = is_iteration_pattern<P>::value;
  static constexpr bool is_tag = !(is_exec || is_sched || is_index || is_lb || is_pattern);

  using execution_space = std::conditional_t<is_exec, P, typename rest::execution_space>;
  using schedule_type = std::conditional_t<is_sched, P, typename rest::schedule_type>;
  using index_type = std::conditional_t<is_index, P, typename rest::index_type>;
  using work_tag = std::conditional_t<is_tag, P, typename rest::work_tag>;
  using launch_bounds = std::conditional_t<is_lb, P, typename rest::launch_bounds>;
  using iteration_pattern = std::conditional_t<is_pattern, P, typename rest::iteration_pattern>;
  static_assert(!(is_exec && !std::is_void_v<typename rest::execution_space>),
                "a policy takes at most one execution space");
  static_assert(!(is_tag && !std::is_void_v<typename rest::work_tag>),
                "a policy takes at most one work tag (unknown policy property?)");
};

template <class T, class Default>
using or_default = std::conditional_t<std::is_void_v<T>, Default, T>;

// The resolved properties of a policy.
template <class... Props>
struct ResolvedPolicyTraits {
  using raw = PolicyTraits<Props...>;
  using execution_space = or_default<typename raw::execution_space, DefaultExecutionSpace>;
  using schedule_type = or_default<typename raw::schedule_type, Schedule<Static>>;
  using index_type = typename or_default<typename raw::index_type, IndexType<std::int64_t>>::type;
  using work_tag = typename raw::work_tag;
  using launch_bounds = or_default<typename raw::launch_bounds, LaunchBounds<>>;
  using iteration_pattern = typename raw::iteration_pattern;
  static constexpr bool is_dynamic = std::is_same_v<typename schedule_type::type, Dynamic>;
};

// Calls f(args...) or, with a work tag, f(Tag{}, args...).
// Host back-ends instantiate it with host-only functors; nvcc would warn
// (#20011/#20014) that the __host__ __device__ wrapper calls a __host__
// function although only the host side ever runs it.
#if defined(__NVCC__)
#pragma nv_exec_check_disable
#endif
template <class Tag, class F, class... Args>
TESSERA_FORCEINLINE_FUNCTION void invoke_tagged(const F& f, Args&&... args) {
  if constexpr (std::is_void_v<Tag>) {
    f(static_cast<Args&&>(args)...);
  } else {
    f(Tag{}, static_cast<Args&&>(args)...);
  }
}

}  // namespace detail
}  // namespace tessera
