#pragma once
// Describing a user struct once, so that a View can store it as an array of
// structs (LayoutAoS) or a struct of arrays (LayoutSoA) behind one accessor
// syntax (see struct_view.hpp):
//
//   struct Particle {
//     double x, y, z, vx, vy, vz;
//     float mass;
//     TESSERA_STRUCT_FIELDS(Particle, x, y, z, vx, vy, vz, mass)
//   };
//
// The macro goes inside the struct, after its data members, and lists every
// data member in declaration order. It adds no data member and no virtual
// function, so the struct keeps its size, layout and triviality. It adds:
//  - tessera_fields(): the member pointers, as a tessera::field_list type;
//  - tessera_accessors<Base>: a class template with one accessor per member,
//    `x()`, ..., that the View's element proxies derive from.
// A member is a scalar (any trivially copyable type: float, double, int,
// bool, ...) or a one-dimensional array of scalars (`double u[4]`), which
// LayoutSoA stores as one array per component. Inside a class template the
// first argument is the template's name (`State` in State<T, D>).
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

// The member pointers of a described struct, in declaration order.
template <auto... Members>
struct field_list {
  static constexpr std::size_t size = sizeof...(Members);
};

namespace detail {

template <class M>
struct member_pointer_traits;
template <class C, class F>
struct member_pointer_traits<F C::*> {
  using class_type = C;
  using field_type = F;
};

// A field is a scalar or an array of `components` scalars.
template <class F>
struct field_shape {
  using scalar_type = F;
  static constexpr std::size_t components = 1;
  static constexpr bool is_array = false;
};
template <class E, std::size_t N>
struct field_shape<E[N]> {
  using scalar_type = E;
  static constexpr std::size_t components = N;
  static constexpr bool is_array = true;
};

template <auto A, auto B>
constexpr bool same_member() {
  if constexpr (std::is_same_v<decltype(A), decltype(B)>) return A == B;
  else return false;
}

constexpr std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

template <class T>
concept has_struct_fields = requires { T::tessera_fields(); };

}  // namespace detail

// Compile-time facts about a described struct T: its fields, the bytes one
// element takes in LayoutSoA storage, and where each member's array starts
// (in bytes per element of capacity: member M's array begins at
// soa_bytes_before<M> * capacity from the start of the allocation).
template <class T>
struct StructFields {
  static_assert(detail::has_struct_fields<T>,
                "tessera: this type was not described with TESSERA_STRUCT_FIELDS(Type, members...) inside its "
                "definition, so it cannot be stored with LayoutAoS or LayoutSoA");
  using list = decltype(T::tessera_fields());
  static constexpr std::size_t count = list::size;

 private:
  template <auto... M>
  static constexpr std::size_t sum_bytes(field_list<M...>) {
    return (std::size_t(0) + ... + sizeof(typename detail::member_pointer_traits<decltype(M)>::field_type));
  }
  template <auto Wanted, auto... M>
  static constexpr std::size_t bytes_before(field_list<M...>) {
    std::size_t bytes = 0;
    bool found = false;
    ((found = found || detail::same_member<M, Wanted>(),
      bytes += found ? 0 : sizeof(typename detail::member_pointer_traits<decltype(M)>::field_type)),
     ...);
    return found ? bytes : ~std::size_t(0);
  }
  template <auto Wanted, auto... M>
  static constexpr std::size_t occurrences(field_list<M...>) {
    return (std::size_t(0) + ... + (detail::same_member<M, Wanted>() ? 1 : 0));
  }
  // Size of a struct with exactly these members in this order, by the
  // usual alignment rules: it differs from sizeof(T) when a member was left
  // out of the list (the usual mistake).
  template <auto... M>
  static constexpr std::size_t laid_out_size(field_list<M...>) {
    std::size_t offset = 0, align = 1;
    ((offset = detail::align_up(offset, alignof(typename detail::member_pointer_traits<decltype(M)>::field_type)) +
               sizeof(typename detail::member_pointer_traits<decltype(M)>::field_type),
      align = alignof(typename detail::member_pointer_traits<decltype(M)>::field_type) > align
                  ? alignof(typename detail::member_pointer_traits<decltype(M)>::field_type)
                  : align),
     ...);
    return detail::align_up(offset, align);
  }
  template <auto... M>
  static constexpr bool all_valid(field_list<M...>) {
    return ((std::is_same_v<typename detail::member_pointer_traits<decltype(M)>::class_type, T> &&
             occurrences<M>(list{}) == 1 &&
             std::is_trivially_copyable_v<
                 typename detail::field_shape<typename detail::member_pointer_traits<decltype(M)>::field_type>::scalar_type> &&
             !std::is_array_v<
                 typename detail::field_shape<typename detail::member_pointer_traits<decltype(M)>::field_type>::scalar_type>) &&
            ...);
  }

 public:
  static_assert(count > 0, "TESSERA_STRUCT_FIELDS: list at least one member");
  static_assert(all_valid(list{}),
                "TESSERA_STRUCT_FIELDS: each member must be listed once, belong to the struct itself and be a "
                "trivially copyable scalar or a one-dimensional array of them");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "TESSERA_STRUCT_FIELDS: the struct must be trivially copyable and default constructible");
  static_assert(laid_out_size(list{}) == sizeof(T),
                "TESSERA_STRUCT_FIELDS: the listed members do not make up the whole struct: list every data "
                "member, in declaration order");

  // Bytes of one element in LayoutSoA storage (no padding between members).
  static constexpr std::size_t bytes_per_element = sum_bytes(list{});
  // Bytes per element of capacity before member M's array in LayoutSoA.
  template <auto M>
  static constexpr std::size_t soa_bytes_before = [] {
    constexpr std::size_t b = bytes_before<M>(list{});
    static_assert(b != ~std::size_t(0), "tessera: this member is not in the struct's TESSERA_STRUCT_FIELDS list");
    return b;
  }();
};

}  // namespace tessera

// --- the macro ----------------------------------------------------------------
// TESSERA_IMPL_FOR_EACH(m, a, b, c) expands to m(a) m(b) m(c), for up to 64
// arguments: each rescan of TESSERA_IMPL_EXPAND lets the helper call itself
// once more through the deferred TESSERA_IMPL_FOR_EACH_AGAIN.
#define TESSERA_IMPL_PARENS ()
#define TESSERA_IMPL_EXPAND(...) TESSERA_IMPL_EXPAND3(TESSERA_IMPL_EXPAND3(TESSERA_IMPL_EXPAND3(__VA_ARGS__)))
#define TESSERA_IMPL_EXPAND3(...) TESSERA_IMPL_EXPAND2(TESSERA_IMPL_EXPAND2(TESSERA_IMPL_EXPAND2(__VA_ARGS__)))
#define TESSERA_IMPL_EXPAND2(...) TESSERA_IMPL_EXPAND1(TESSERA_IMPL_EXPAND1(TESSERA_IMPL_EXPAND1(__VA_ARGS__)))
#define TESSERA_IMPL_EXPAND1(...) __VA_ARGS__
#define TESSERA_IMPL_FOR_EACH(m, t, ...) __VA_OPT__(TESSERA_IMPL_EXPAND(TESSERA_IMPL_FOR_EACH_HELPER(m, t, __VA_ARGS__)))
#define TESSERA_IMPL_FOR_EACH_HELPER(m, t, a, ...) \
  m(t, a) __VA_OPT__(TESSERA_IMPL_FOR_EACH_AGAIN TESSERA_IMPL_PARENS(m, t, __VA_ARGS__))
#define TESSERA_IMPL_FOR_EACH_AGAIN() TESSERA_IMPL_FOR_EACH_HELPER

#define TESSERA_IMPL_FIELD_POINTER(Type, member) , &Type::member
#define TESSERA_IMPL_FIELD_ACCESSOR(Type, member)                         \
  TESSERA_FORCEINLINE_FUNCTION decltype(auto) member() const {            \
    return this->template tessera_member<&Type::member>();                \
  }

// The leading `0` lets every member pointer bring its own comma; the builder
// drops it.
#define TESSERA_STRUCT_FIELDS(Type, ...)                                                         \
  static constexpr auto tessera_fields() {                                                       \
    return ::tessera::detail::drop_first_field(                                                  \
        ::tessera::detail::field_list_builder<0 TESSERA_IMPL_FOR_EACH(TESSERA_IMPL_FIELD_POINTER, Type, __VA_ARGS__)>{}); \
  }                                                                                              \
  template <class TesseraBase>                                                                   \
  struct tessera_accessors : TesseraBase {                                                       \
    using TesseraBase::TesseraBase;                                                              \
    using TesseraBase::operator=;                                                                \
    TESSERA_IMPL_FOR_EACH(TESSERA_IMPL_FIELD_ACCESSOR, Type, __VA_ARGS__)                        \
  };

namespace tessera::detail {
// field_list_builder<0, &T::a, &T::b> -> field_list<&T::a, &T::b>.
template <auto... M>
struct field_list_builder {};
template <auto First, auto... M>
constexpr field_list<M...> drop_first_field(field_list_builder<First, M...>) {
  return {};
}
}  // namespace tessera::detail
