#pragma once
// Forward declaration of View and the is_view trait, for headers that accept
// Views without needing the whole definition.
#include <type_traits>

namespace tessera {
template <class DataType, class... Properties>
class View;

template <class T>
struct is_view : std::false_type {};
template <class D, class... P>
struct is_view<View<D, P...>> : std::true_type {};
template <class T>
inline constexpr bool is_view_v = is_view<std::remove_cv_t<T>>::value;
}  // namespace tessera
