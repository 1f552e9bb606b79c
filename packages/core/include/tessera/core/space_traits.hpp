#pragma once
// Relations between execution spaces and memory spaces.
#include <tessera/core/layout.hpp>
#include <tessera/core/memory_space.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace tessera {

// Pairs an execution space with a memory space, e.g. Device<Cuda, CudaUVMSpace>.
template <class ExecSpace, class MemSpace>
struct Device {
  using execution_space = ExecSpace;
  using memory_space = MemSpace;
  using device_type = Device;
};

template <class T, class = void>
struct is_execution_space : std::false_type {};
template <class T>
struct is_execution_space<T, std::void_t<decltype(&T::impl_thread_pool_size)>> : std::true_type {};

template <class T>
struct is_host_execution_space : std::false_type {};

template <class T, class = void>
struct is_memory_space : std::false_type {};
template <class T>
struct is_memory_space<T, std::enable_if_t<std::is_same_v<typename T::memory_space, T>>>
    : std::true_type {};

template <class T, class = void>
struct is_device : std::false_type {};
template <class E, class M>
struct is_device<Device<E, M>> : std::true_type {};

template <class T>
inline constexpr bool is_execution_space_v = is_execution_space<T>::value;
template <class T>
inline constexpr bool is_memory_space_v = is_memory_space<T>::value;
template <class T>
inline constexpr bool is_device_v = is_device<T>::value;

// An execution space, a memory space or a Device (Kokkos::is_space).
template <class T>
struct is_space : std::bool_constant<is_execution_space<T>::value || is_memory_space<T>::value || is_device<T>::value> {};
template <class T>
inline constexpr bool is_space_v = is_space<T>::value;

// LayoutLeft, LayoutRight, LayoutStride, LayoutTiled<R, C>.
template <class T>
struct is_array_layout : std::false_type {};
template <>
struct is_array_layout<LayoutLeft> : std::true_type {};
template <>
struct is_array_layout<LayoutRight> : std::true_type {};
template <>
struct is_array_layout<LayoutStride> : std::true_type {};
template <std::size_t R, std::size_t C>
struct is_array_layout<LayoutTiled<R, C>> : std::true_type {};
template <class T>
inline constexpr bool is_array_layout_v = is_array_layout<T>::value;

// RangePolicy, MDRangePolicy, TeamPolicy (anything naming itself ::policy).
template <class T, class = void>
struct is_execution_policy : std::false_type {};
template <class T>
struct is_execution_policy<T, std::void_t<typename T::policy, typename T::execution_space>>
    : std::bool_constant<std::is_same_v<typename T::policy, T>> {};
template <class T>
inline constexpr bool is_execution_policy_v = is_execution_policy<T>::value;

// A team handle (TeamPolicy<...>::member_type): has league and team ranks
// and sizes, a barrier and team scratch (Kokkos::is_team_handle).
template <class T>
struct is_team_handle
    : std::bool_constant<requires(const T& m) {
        { m.league_rank() } -> std::convertible_to<int>;
        { m.league_size() } -> std::convertible_to<int>;
        { m.team_rank() } -> std::convertible_to<int>;
        { m.team_size() } -> std::convertible_to<int>;
        m.team_barrier();
        m.team_shmem();
      }> {};
template <class T>
inline constexpr bool is_team_handle_v = is_team_handle<T>::value;

// SpaceAccessibility<AccessSpace, MemSpace>::accessible is true when code
// running in AccessSpace (an execution or memory space) may dereference
// memory of MemSpace; ::assignable when a View of MemSpace may be assigned to
// a View whose memory space is AccessSpace's.
template <class AccessSpace, class MemSpace>
struct SpaceAccessibility;

namespace detail {
template <class Space>
struct memory_space_of {
  using type = typename Space::memory_space;
};
// Whether memory of MemSpace can be touched by host code at all.
template <class MemSpace>
struct host_accessible : std::false_type {};
template <>
struct host_accessible<HostSpace> : std::true_type {};
// Whether execution space Exec can touch memory of MemSpace (specialized by
// back-ends with memory of their own).
template <class AccessMem, class MemSpace>
struct memory_reachable : std::bool_constant<std::is_same_v<AccessMem, MemSpace>> {};
}  // namespace detail

template <class AccessSpace, class MemSpace>
struct SpaceAccessibility {
  using access_memory = typename detail::memory_space_of<AccessSpace>::type;
  static constexpr bool accessible =
      detail::memory_reachable<access_memory, typename MemSpace::memory_space>::value;
  static constexpr bool assignable = std::is_same_v<access_memory, typename MemSpace::memory_space>;
  static constexpr bool deepcopy = true;
  using space = std::conditional_t<accessible, typename MemSpace::memory_space, access_memory>;
};

}  // namespace tessera
