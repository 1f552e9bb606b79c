#pragma once
// Memory traits of a View: how its elements are accessed.
#include <type_traits>

namespace tessera {

enum MemoryTraitsFlags : unsigned {
  Unmanaged = 0x01,     // no reference counting, no deallocation (user-owned memory)
  RandomAccess = 0x02,  // read-mostly, scattered reads (texture path on CUDA for const data)
  Atomic = 0x04,        // every element access is atomic
  Restrict = 0x08,      // no other View aliases this memory
  Aligned = 0x10,       // data() is aligned to the memory space's alignment (a hint; always true when managed)
};

template <unsigned Flags>
struct MemoryTraits {
  using memory_traits = MemoryTraits;
  static constexpr unsigned flags = Flags;
  static constexpr bool is_unmanaged = (Flags & Unmanaged) != 0;
  static constexpr bool is_random_access = (Flags & RandomAccess) != 0;
  static constexpr bool is_atomic = (Flags & Atomic) != 0;
  static constexpr bool is_restrict = (Flags & Restrict) != 0;
  static constexpr bool is_aligned = (Flags & Aligned) != 0;
  static constexpr unsigned impl_value = Flags;
};

using MemoryManaged = MemoryTraits<0>;
using MemoryUnmanaged = MemoryTraits<Unmanaged>;
using MemoryRandomAccess = MemoryTraits<Unmanaged | RandomAccess>;

template <class T>
struct is_memory_traits : std::false_type {};
template <unsigned F>
struct is_memory_traits<MemoryTraits<F>> : std::true_type {};
template <class T>
inline constexpr bool is_memory_traits_v = is_memory_traits<T>::value;

}  // namespace tessera
