#pragma once
// The element proxy of a View of a described struct (struct_view.hpp): it
// holds where the element lives and hands out references to its members,
// `p(i).x()`, through the accessors TESSERA_STRUCT_FIELDS generated. The
// whole element is copied out with get() (or a conversion to the struct) and
// written back with set() (or assignment), whatever the storage.
#include <tessera/core/macros.hpp>
#include <tessera/core/struct_fields.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

// The components of an array member stored as a struct of arrays: component
// c of the element is `first[c * stride]` (stride = the View's capacity).
// LayoutAoS hands out the array itself; both are indexed with [c].
template <class E, std::size_t N>
class StridedComponents {
 public:
  TESSERA_FORCEINLINE_FUNCTION StridedComponents(E* first, std::size_t stride) : m_first(first), m_stride(stride) {}
  TESSERA_FORCEINLINE_FUNCTION E& operator[](std::size_t c) const { return m_first[c * m_stride]; }
  static constexpr std::size_t size() { return N; }

 private:
  E* m_first;
  std::size_t m_stride;
};

namespace detail {

// Where element `index` lives: an array of T starting at `base`.
template <class T>
struct AoSAccess {
  static constexpr bool is_struct_of_arrays = false;
  T* m_element;
  TESSERA_FORCEINLINE_FUNCTION AoSAccess(std::byte* base, std::size_t /*capacity*/, std::size_t index)
      : m_element(reinterpret_cast<T*>(base) + index) {}
  template <auto M>
  TESSERA_FORCEINLINE_FUNCTION decltype(auto) tessera_member() const {
    return (m_element->*M);
  }
};

// Where element `index` lives: member M's array starts at a compile-time
// multiple of the capacity (StructFields<T>::soa_bytes_before<M>), so the
// address is base + constant * capacity + index * sizeof(member), which a
// loop hoists to one pointer per member, as for separate Views.
template <class T>
struct SoAAccess {
  static constexpr bool is_struct_of_arrays = true;
  std::byte* m_base;
  std::size_t m_capacity;
  std::size_t m_index;
  TESSERA_FORCEINLINE_FUNCTION SoAAccess(std::byte* base, std::size_t capacity, std::size_t index)
      : m_base(base), m_capacity(capacity), m_index(index) {}
  template <auto M>
  TESSERA_FORCEINLINE_FUNCTION decltype(auto) tessera_member() const {
    using F = typename member_pointer_traits<decltype(M)>::field_type;
    using Shape = field_shape<F>;
    using E = typename Shape::scalar_type;
    E* first = reinterpret_cast<E*>(m_base + StructFields<T>::template soa_bytes_before<M> * m_capacity) + m_index;
    if constexpr (Shape::is_array) return StridedComponents<E, Shape::components>(first, m_capacity);
    else return *first;
  }
};

// The proxy's behaviour common to both storages; the struct's generated
// tessera_accessors<StructRef> adds the named member accessors on top.
// Copying a proxy copies the reference (like a T&); assigning to one writes
// the element, from a T or from another proxy of the same struct.
template <class T, class Access>
class StructRef : public Access {
 public:
  using value_type = T;
  TESSERA_FORCEINLINE_FUNCTION explicit StructRef(const Access& where) : Access(where) {}
  StructRef(const StructRef&) = default;

  // The whole element, as a plain struct.
  TESSERA_FORCEINLINE_FUNCTION T get() const {
    if constexpr (Access::is_struct_of_arrays) {
      T out;
      read_fields(out, typename StructFields<T>::list{});
      return out;
    } else {
      return *this->m_element;
    }
  }
  TESSERA_FORCEINLINE_FUNCTION void set(const T& value) const {
    if constexpr (Access::is_struct_of_arrays) write_fields(value, typename StructFields<T>::list{});
    else *this->m_element = value;
  }
  TESSERA_FORCEINLINE_FUNCTION operator T() const { return get(); }

  TESSERA_FORCEINLINE_FUNCTION StructRef& operator=(const StructRef& other) {
    set(other.get());
    return *this;
  }
  TESSERA_FORCEINLINE_FUNCTION StructRef& operator=(const T& value) {
    set(value);
    return *this;
  }
  template <class OtherAccess>
    requires(!std::is_same_v<OtherAccess, Access>)
  TESSERA_FORCEINLINE_FUNCTION StructRef& operator=(const StructRef<T, OtherAccess>& other) {
    set(other.get());
    return *this;
  }

 private:
  template <auto... M>
  TESSERA_FORCEINLINE_FUNCTION void read_fields(T& plain, field_list<M...>) const {
    (read_field<M>(plain), ...);
  }
  template <auto... M>
  TESSERA_FORCEINLINE_FUNCTION void write_fields(const T& plain, field_list<M...>) const {
    (write_field<M>(plain), ...);
  }
  template <auto M>
  TESSERA_FORCEINLINE_FUNCTION void read_field(T& plain) const {
    if constexpr (field_shape<typename member_pointer_traits<decltype(M)>::field_type>::is_array) {
      auto stored = this->template tessera_member<M>();
      for (std::size_t c = 0; c < stored.size(); ++c) (plain.*M)[c] = stored[c];
    } else {
      plain.*M = this->template tessera_member<M>();
    }
  }
  template <auto M>
  TESSERA_FORCEINLINE_FUNCTION void write_field(const T& plain) const {
    if constexpr (field_shape<typename member_pointer_traits<decltype(M)>::field_type>::is_array) {
      auto stored = this->template tessera_member<M>();
      for (std::size_t c = 0; c < stored.size(); ++c) stored[c] = (plain.*M)[c];
    } else {
      this->template tessera_member<M>() = plain.*M;
    }
  }
};

// The type View::operator() returns for a struct T stored through Access.
template <class T, class Access>
using struct_reference_t = typename T::template tessera_accessors<StructRef<T, Access>>;

}  // namespace detail
}  // namespace tessera
