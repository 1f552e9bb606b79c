#pragma once
// Numeric traits as Kokkos spells them (Kokkos::Experimental::finite_max_v
// and friends): std::numeric_limits as constants usable in device code,
// each also as a struct with ::value.
#include <limits>
#include <type_traits>

namespace tessera::Experimental {

#define TESSERA_IMPL_NUMERIC_TRAIT(NAME, EXPR)             \
  template <class T>                                      \
  struct NAME {                                           \
    static constexpr auto value = EXPR;                   \
  };                                                      \
  template <class T>                                      \
  inline constexpr auto NAME##_v = NAME<T>::value;

TESSERA_IMPL_NUMERIC_TRAIT(infinity, std::numeric_limits<T>::infinity())
TESSERA_IMPL_NUMERIC_TRAIT(finite_min, std::numeric_limits<T>::lowest())
TESSERA_IMPL_NUMERIC_TRAIT(finite_max, std::numeric_limits<T>::max())
TESSERA_IMPL_NUMERIC_TRAIT(epsilon, std::numeric_limits<T>::epsilon())
TESSERA_IMPL_NUMERIC_TRAIT(round_error, std::numeric_limits<T>::round_error())
TESSERA_IMPL_NUMERIC_TRAIT(norm_min, std::numeric_limits<T>::min())
TESSERA_IMPL_NUMERIC_TRAIT(denorm_min, std::numeric_limits<T>::denorm_min())
TESSERA_IMPL_NUMERIC_TRAIT(quiet_NaN, std::numeric_limits<T>::quiet_NaN())
TESSERA_IMPL_NUMERIC_TRAIT(signaling_NaN, std::numeric_limits<T>::signaling_NaN())
TESSERA_IMPL_NUMERIC_TRAIT(digits, std::numeric_limits<T>::digits)
TESSERA_IMPL_NUMERIC_TRAIT(digits10, std::numeric_limits<T>::digits10)
TESSERA_IMPL_NUMERIC_TRAIT(max_digits10, std::numeric_limits<T>::max_digits10)
TESSERA_IMPL_NUMERIC_TRAIT(radix, std::numeric_limits<T>::radix)
TESSERA_IMPL_NUMERIC_TRAIT(min_exponent, std::numeric_limits<T>::min_exponent)
TESSERA_IMPL_NUMERIC_TRAIT(max_exponent, std::numeric_limits<T>::max_exponent)
TESSERA_IMPL_NUMERIC_TRAIT(min_exponent10, std::numeric_limits<T>::min_exponent10)
TESSERA_IMPL_NUMERIC_TRAIT(max_exponent10, std::numeric_limits<T>::max_exponent10)
#undef TESSERA_IMPL_NUMERIC_TRAIT

}  // namespace tessera::Experimental
