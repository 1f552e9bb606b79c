#pragma once
// ReduceOps: the one interface the back-ends see for every form of
// parallel_reduce (scalar result, functor-defined init/join/final, array
// reductions of runtime length, built-in or user reducers, several reducers
// at once). Back-ends only call:
//   value_type, value_count(), init(v), join(dst, src), final(v),
//   call<Tag>(functor, v, indices...), copy_out(v)
// where v points at value_count() contiguous value_type elements.
#include <tessera/core/macros.hpp>
#include <tessera/core/policy_traits.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/view_fwd.hpp>

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace tessera::detail {

template <class F>
concept has_value_type = requires { typename F::value_type; };

template <class F, class V>
concept has_init = requires(const F& f, V v) { f.init(v); };
template <class F, class V>
concept has_join = requires(const F& f, V dst, V src) { f.join(dst, src); };
template <class F, class V>
concept has_final = requires(const F& f, V v) { f.final(v); };

// Reduction defined by the functor (or by plain summation): scalar or array.
// `Dest` is where the result is copied: a host pointer, or a device pointer
// that the back-end writes directly.
template <class Functor, class Value, bool IsArray>
struct FunctorReduceOps {
  using value_type = Value;
  using arg_type = std::conditional_t<IsArray, value_type*, value_type&>;

  const Functor* functor;
  std::size_t count;
  value_type* dest;
  bool dest_on_host;

  TESSERA_FORCEINLINE_FUNCTION std::size_t value_count() const { return count; }

  TESSERA_FORCEINLINE_FUNCTION static arg_type as_arg(value_type* v) {
    if constexpr (IsArray) return v;
    else return *v;
  }

#if defined(__NVCC__)
#pragma nv_exec_check_disable  // host-only init/join/final on host back-ends (see invoke_tagged)
#endif
  TESSERA_FORCEINLINE_FUNCTION void init(value_type* v) const {
    if constexpr (has_init<Functor, arg_type>) {
      functor->init(as_arg(v));
    } else {
      for (std::size_t i = 0; i < count; ++i) v[i] = value_type();
    }
  }
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // host-only init/join/final on host back-ends (see invoke_tagged)
#endif
  TESSERA_FORCEINLINE_FUNCTION void join(value_type* dst, const value_type* src) const {
    if constexpr (has_join<Functor, arg_type>) {
      functor->join(as_arg(dst), as_arg(const_cast<value_type*>(src)));
    } else {
      for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
    }
  }
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // host-only init/join/final on host back-ends (see invoke_tagged)
#endif
  TESSERA_FORCEINLINE_FUNCTION void final(value_type* v) const {
    if constexpr (has_final<Functor, arg_type>) functor->final(as_arg(v));
  }
  template <class Tag, class F, class... Idx>
  TESSERA_FORCEINLINE_FUNCTION void call(const F& f, value_type* v, Idx... idx) const {
    invoke_tagged<Tag>(f, idx..., as_arg(v));
  }
};

// Reduction through one reducer object.
template <class Reducer>
struct ReducerOps {
  using value_type = typename Reducer::value_type;
  Reducer reducer;
  value_type* dest;
  bool dest_on_host;

  TESSERA_FORCEINLINE_FUNCTION std::size_t value_count() const { return 1; }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type* v) const { reducer.init(*v); }
  TESSERA_FORCEINLINE_FUNCTION void join(value_type* dst, const value_type* src) const {
    reducer.join(*dst, *src);
  }
  TESSERA_FORCEINLINE_FUNCTION void final(value_type*) const {}
  template <class Tag, class F, class... Idx>
  TESSERA_FORCEINLINE_FUNCTION void call(const F& f, value_type* v, Idx... idx) const {
    invoke_tagged<Tag>(f, idx..., *v);
  }
};

// Several reducers at once: the functor takes one reference per reducer.
template <class... Reducers>
struct CombinedValue;
template <>
struct CombinedValue<> {};
template <class R, class... Rest>
struct CombinedValue<R, Rest...> {
  typename R::value_type head;
  CombinedValue<Rest...> tail;
};

// The reducers of a combined reduction, stored as a recursive list
// (std::tuple is not usable on every device compiler).
template <class... Reducers>
struct ReducerList {};
template <class R, class... Rest>
struct ReducerList<R, Rest...> {
  R head;
  ReducerList<Rest...> tail;
  TESSERA_INLINE_FUNCTION ReducerList(const R& h, const Rest&... rest) : head(h), tail(rest...) {}
};

// Where the results go: host back-ends copy every one (copy_results). A
// device back-end cannot write a device View from the host, nor a host
// scalar from a kernel, so there the kernel writes each result that is not
// a host scalar (write_device_results), and the host copies only the host
// scalars (copy_host_results) after waiting, which it skips when there are
// none (any_host_scalar false): several device Views then cost no wait, as
// one does.
template <class... Reducers>
struct CombinedOps {
  using value_type = CombinedValue<Reducers...>;
  ReducerList<Reducers...> reducers;
  bool any_host_scalar = true;

  TESSERA_FORCEINLINE_FUNCTION std::size_t value_count() const { return 1; }

  template <class L, class V>
  TESSERA_FORCEINLINE_FUNCTION static void init_each(const L& l, V& v) {
    if constexpr (!std::is_same_v<V, CombinedValue<>>) {
      l.head.init(v.head);
      init_each(l.tail, v.tail);
    }
  }
  template <class L, class V>
  TESSERA_FORCEINLINE_FUNCTION static void join_each(const L& l, V& d, const V& s) {
    if constexpr (!std::is_same_v<V, CombinedValue<>>) {
      l.head.join(d.head, s.head);
      join_each(l.tail, d.tail, s.tail);
    }
  }
  // Which results the copy writes: all, those in host scalars, those not.
  enum class Which { all, host_scalars, device_memory };
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // user reducers' reference() may be host-only; a kernel calls it only when device-callable
#endif
  template <Which which, class L, class V>
  TESSERA_INLINE_FUNCTION static void copy_each(const L& l, const V& v) {
    if constexpr (!std::is_same_v<V, CombinedValue<>>) {
      const bool host_scalar = l.head.references_scalar();
      if (which == Which::all || (which == Which::host_scalars) == host_scalar) l.head.reference() = v.head;
      copy_each<which>(l.tail, v.tail);
    }
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type* v) const { init_each(reducers, *v); }
  TESSERA_FORCEINLINE_FUNCTION void join(value_type* d, const value_type* s) const {
    join_each(reducers, *d, *s);
  }
  TESSERA_FORCEINLINE_FUNCTION void final(value_type*) const {}

  template <class G, class V, class... Refs>
  TESSERA_FORCEINLINE_FUNCTION static void call_unpack(const G& g, V& v, Refs&... refs) {
    if constexpr (std::is_same_v<V, CombinedValue<>>) {
      g(refs...);
    } else {
      call_unpack(g, v.tail, refs..., v.head);
    }
  }
  template <class Tag, class F, class... Idx>
  TESSERA_FORCEINLINE_FUNCTION void call(const F& f, value_type* v, Idx... idx) const {
    auto bound = [&](auto&... refs) { invoke_tagged<Tag>(f, idx..., refs...); };
    call_unpack(bound, *v);
  }
  void copy_results(const value_type* v) const { copy_each<Which::all>(reducers, *v); }
  void copy_host_results(const value_type* v) const { copy_each<Which::host_scalars>(reducers, *v); }
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // as copy_each
#endif
  TESSERA_INLINE_FUNCTION void write_device_results(const value_type& v) const {
    copy_each<Which::device_memory>(reducers, v);
  }
};

// Copies the final value to its destination when that destination is host
// memory (a device destination is written by the back-end itself).
template <class Ops>
void copy_out_host(const Ops& ops, const typename Ops::value_type* v) {
  if constexpr (requires { ops.copy_results(v); }) {
    ops.copy_results(v);
  } else {
    for (std::size_t i = 0; i < ops.value_count(); ++i) ops.dest[i] = v[i];
  }
}

}  // namespace tessera::detail
