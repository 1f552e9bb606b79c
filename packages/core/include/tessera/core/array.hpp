#pragma once
// Array<T, N>: a fixed-size array usable in kernels on every back-end
// (std::array's members are not __device__ under nvcc). An aggregate, like
// Kokkos::Array: Array<int, 3> a{1, 2, 3}; copies are by value, so capturing
// one in a TESSERA_LAMBDA copies its elements to the device.
#include <tessera/core/error.hpp>
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

template <class T, std::size_t N>
struct Array {
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  // Public so that the type stays an aggregate (brace initialization,
  // trivially copyable when T is); not part of the API.
  T m_internal_implementation_private_member_data[N > 0 ? N : 1];

  TESSERA_INLINE_FUNCTION static constexpr size_type size() { return N; }
  TESSERA_INLINE_FUNCTION static constexpr size_type max_size() { return N; }
  TESSERA_INLINE_FUNCTION static constexpr bool empty() { return N == 0; }

  template <class I>
  TESSERA_FORCEINLINE_FUNCTION constexpr reference operator[](const I& i) {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "Array index must be an integer");
    check(i);
    return m_internal_implementation_private_member_data[i];
  }
  template <class I>
  TESSERA_FORCEINLINE_FUNCTION constexpr const_reference operator[](const I& i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "Array index must be an integer");
    check(i);
    return m_internal_implementation_private_member_data[i];
  }

  TESSERA_INLINE_FUNCTION constexpr pointer data() { return m_internal_implementation_private_member_data; }
  TESSERA_INLINE_FUNCTION constexpr const_pointer data() const { return m_internal_implementation_private_member_data; }
  TESSERA_INLINE_FUNCTION constexpr iterator begin() { return data(); }
  TESSERA_INLINE_FUNCTION constexpr const_iterator begin() const { return data(); }
  TESSERA_INLINE_FUNCTION constexpr const_iterator cbegin() const { return data(); }
  TESSERA_INLINE_FUNCTION constexpr iterator end() { return data() + N; }
  TESSERA_INLINE_FUNCTION constexpr const_iterator end() const { return data() + N; }
  TESSERA_INLINE_FUNCTION constexpr const_iterator cend() const { return data() + N; }
  TESSERA_INLINE_FUNCTION constexpr reference front() { return data()[0]; }
  TESSERA_INLINE_FUNCTION constexpr const_reference front() const { return data()[0]; }
  TESSERA_INLINE_FUNCTION constexpr reference back() { return data()[N > 0 ? N - 1 : 0]; }
  TESSERA_INLINE_FUNCTION constexpr const_reference back() const { return data()[N > 0 ? N - 1 : 0]; }

  TESSERA_INLINE_FUNCTION constexpr void fill(const T& value) {
    for (size_type i = 0; i < N; ++i) m_internal_implementation_private_member_data[i] = value;
  }

  TESSERA_INLINE_FUNCTION friend constexpr bool operator==(const Array& a, const Array& b) {
    for (size_type i = 0; i < N; ++i)
      if (!(a.m_internal_implementation_private_member_data[i] == b.m_internal_implementation_private_member_data[i]))
        return false;
    return true;
  }
  TESSERA_INLINE_FUNCTION friend constexpr bool operator!=(const Array& a, const Array& b) { return !(a == b); }

 private:
  template <class I>
  TESSERA_FORCEINLINE_FUNCTION static constexpr void check(const I& i) {
#if TESSERA_ENABLE_BOUNDS_CHECK
    if (static_cast<long long>(i) < 0 || static_cast<size_type>(i) >= N) tessera::abort("tessera::Array: index out of bounds");
#else
    (void)i;
#endif
  }
};

// Array a{1, 2, 3} deduces Array<int, 3>, as std::array does.
template <class T, class... U>
Array(T, U...) -> Array<T, 1 + sizeof...(U)>;

// Structured bindings and tuple-style access: auto [x, y] = a;
template <std::size_t I, class T, std::size_t N>
TESSERA_INLINE_FUNCTION constexpr T& get(Array<T, N>& a) {
  static_assert(I < N, "get<I>(Array): index out of range");
  return a.m_internal_implementation_private_member_data[I];
}
template <std::size_t I, class T, std::size_t N>
TESSERA_INLINE_FUNCTION constexpr const T& get(const Array<T, N>& a) {
  static_assert(I < N, "get<I>(Array): index out of range");
  return a.m_internal_implementation_private_member_data[I];
}
template <std::size_t I, class T, std::size_t N>
TESSERA_INLINE_FUNCTION constexpr T&& get(Array<T, N>&& a) {
  static_assert(I < N, "get<I>(Array): index out of range");
  return static_cast<T&&>(a.m_internal_implementation_private_member_data[I]);
}

}  // namespace tessera

#include <tuple>
template <class T, std::size_t N>
struct std::tuple_size<tessera::Array<T, N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t I, class T, std::size_t N>
struct std::tuple_element<I, tessera::Array<T, N>> {
  using type = T;
};
