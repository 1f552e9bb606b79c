#pragma once
// Relations between execution spaces and memory spaces.
#include <tessera/core/layout.hpp>
#include <tessera/core/memory_space.hpp>

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
