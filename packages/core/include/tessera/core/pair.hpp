#pragma once
// pair / make_pair usable on host and device (std::pair is host-only under nvcc).
#include <tessera/core/macros.hpp>

#include <utility>

namespace tessera {

template <class T1, class T2>
struct pair {
  using first_type = T1;
  using second_type = T2;
  T1 first{};
  T2 second{};

  TESSERA_DEFAULTED_FUNCTION constexpr pair() = default;
  TESSERA_INLINE_FUNCTION constexpr pair(const T1& a, const T2& b) : first(a), second(b) {}
  template <class U1, class U2>
  TESSERA_INLINE_FUNCTION constexpr pair(const pair<U1, U2>& o) : first(o.first), second(o.second) {}
  template <class U1, class U2>
  constexpr pair(const std::pair<U1, U2>& o) : first(o.first), second(o.second) {}
  std::pair<T1, T2> to_std_pair() const { return {first, second}; }

  friend TESSERA_INLINE_FUNCTION constexpr bool operator==(const pair& a, const pair& b) {
    return a.first == b.first && a.second == b.second;
  }
  friend TESSERA_INLINE_FUNCTION constexpr bool operator<(const pair& a, const pair& b) {
    return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
  }
};

template <class T1, class T2>
TESSERA_INLINE_FUNCTION constexpr pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}

}  // namespace tessera
