#pragma once
// parallel_for, parallel_reduce and parallel_scan: the front ends. Each
// resolves its arguments (label, policy or count, functor, results) and hands
// the work to the policy's execution space through detail::Backend<Exec>.
#include <tessera/core/detail/backend.hpp>
#include <tessera/core/detail/reduction_ops.hpp>
#include <tessera/core/profiling.hpp>
#include <tessera/core/range_policy.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/team_policy.hpp>
#include <tessera/core/view_fwd.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace tessera {

namespace detail {

template <class T>
concept execution_policy = requires { typename T::policy; typename T::execution_space; };

// A functor that names an execution_space runs there when it is given a
// count rather than a policy (as in Kokkos: parallel_for(n, f) with
// f::execution_space = a host space runs on the host even when the default
// space is Cuda, whose kernels could not reach the functor's host Views).
template <class F>
concept names_execution_space = requires { typename F::execution_space; };
template <class F>
struct count_execution_space {
  using type = DefaultExecutionSpace;
};
template <names_execution_space F>
  requires is_execution_space_v<typename F::execution_space>
struct count_execution_space<F> {
  using type = typename F::execution_space;
};

template <class F, class P>
auto as_policy(const P& p) {
  if constexpr (std::is_integral_v<P>) return RangePolicy<typename count_execution_space<F>::type>(0, p);
  else return p;
}

// The value type a scan functor works on: F::value_type, or the type of the
// second parameter of a non-generic call operator.
template <class F, class = void>
struct scan_value_type_from_call;
template <class C, class R, class I, class V>
struct scan_value_type_from_call<R (C::*)(I, V&, bool) const> {
  using type = V;
};
template <class C, class R, class T, class I, class V>
struct scan_value_type_from_call<R (C::*)(T, I, V&, bool) const> {
  using type = V;
};
template <class F, class Tag>
struct scan_value_type {
  using type = typename scan_value_type_from_call<decltype(&F::operator())>::type;
};
template <class F, class Tag>
  requires has_value_type<F>
struct scan_value_type<F, Tag> {
  using type = typename F::value_type;
};

template <class F, class Fallback>
struct functor_value_or {
  using type = Fallback;
};
template <class F, class Fallback>
  requires has_value_type<F>
struct functor_value_or<F, Fallback> {
  using type = typename F::value_type;
};

// Builds the ReduceOps for parallel_reduce(policy, functor, result).
template <class F, class R>
auto make_reduce_ops_one(const F& f, R& result) {
  using Result = std::remove_cv_t<R>;
  constexpr bool array_functor = has_value_type<F> && std::is_array_v<typename functor_value_or<F, int>::type>;
  if constexpr (is_reducer_v<Result>) {
    return ReducerOps<Result>{result, result.data(), result.references_scalar()};
  } else if constexpr (is_view_v<Result>) {
    constexpr bool memory_on_host = host_accessible<typename Result::memory_space>::value;
    if constexpr (array_functor) {
      using E = std::remove_extent_t<typename F::value_type>;
      static_assert(Result::rank == 1, "an array reduction's result View must be rank 1");
      return FunctorReduceOps<F, E, true>{&f, std::size_t(f.value_count), result.data(), memory_on_host};
    } else {
      static_assert(Result::rank == 0, "a scalar reduction's result View must be rank 0");
      using V = typename functor_value_or<F, typename Result::non_const_value_type>::type;
      return FunctorReduceOps<F, std::remove_cv_t<V>, false>{&f, 1, result.data(), memory_on_host};
    }
  } else if constexpr (std::is_pointer_v<Result>) {
    if constexpr (array_functor) {
      using E = std::remove_extent_t<typename F::value_type>;
      return FunctorReduceOps<F, E, true>{&f, std::size_t(f.value_count), result, true};
    } else {
      return FunctorReduceOps<F, std::remove_pointer_t<Result>, false>{&f, 1, result, true};
    }
  } else {
    static_assert(!std::is_array_v<Result>, "array reductions take a pointer or a rank-1 View as result");
    return FunctorReduceOps<F, Result, false>{&f, 1, &result, true};
  }
}

// In the several-results form a plain scalar or rank-0 View result means
// "sum into it", as in Kokkos: wrap it in a Sum reducer.
template <class R>
auto as_reducer(R& r) {
  using T = std::remove_cv_t<R>;
  if constexpr (is_reducer_v<T>) {
    return T(r);
  } else if constexpr (is_view_v<T>) {
    static_assert(T::traits::rank == 0, "a View among several reduction results must be rank 0");
    return Sum<typename T::non_const_value_type, typename T::memory_space>(r);
  } else {
    static_assert(std::is_arithmetic_v<T>, "a result of a several-results parallel_reduce must be a reducer, "
                                           "an arithmetic scalar or a rank-0 View");
    return Sum<T>(r);
  }
}

template <class F, class... R>
auto make_reduce_ops(const F& f, R&... results) {
  if constexpr (sizeof...(R) > 1) {
    using List = ReducerList<decltype(as_reducer(results))...>;
    const bool any_host_scalar = (as_reducer(results).references_scalar() || ...);
    return CombinedOps<decltype(as_reducer(results))...>{List{as_reducer(results)...}, any_host_scalar};
  } else {
    return make_reduce_ops_one(f, results...);
  }
}

// A functor's team_shmem_size(team_size) (or shmem_size(team_size), its
// older spelling) is level-0 team scratch it needs on top of the policy's
// set_scratch_size: Kokkos adds it to every team's level-0 region, so does
// Tessera, on every back-end. Other policies and functors pass unchanged.
template <class F>
concept has_team_shmem_size = requires(const F& f, int n) {
  { f.team_shmem_size(n) } -> std::convertible_to<std::size_t>;
};
template <class F>
concept has_shmem_size = requires(const F& f, int n) {
  { f.shmem_size(n) } -> std::convertible_to<std::size_t>;
};
template <class Policy, class F>
decltype(auto) with_functor_scratch(const Policy& p, const F& f) {
  if constexpr (is_team_policy_v<Policy> && (has_team_shmem_size<F> || has_shmem_size<F>)) {
    Policy q = p;
    if constexpr (has_team_shmem_size<F>) q.impl_add_functor_scratch(std::size_t(f.team_shmem_size(q.team_size())));
    else q.impl_add_functor_scratch(std::size_t(f.shmem_size(q.team_size())));
    return q;
  } else {
    (void)f;
    return (p);
  }
}

inline const std::string& empty_label() {
  static const std::string empty;
  return empty;
}

}  // namespace detail

// ---- parallel_for -----------------------------------------------------------

template <class Policy, class F>
  requires(detail::execution_policy<Policy> || std::is_integral_v<Policy>)
void parallel_for(const std::string& label, const Policy& policy_or_count, const F& f) {
  auto policy = detail::as_policy<F>(policy_or_count);
  using Exec = typename decltype(policy)::execution_space;
  profiling::KernelScope scope(profiling::Kind::parallel_for, label, Exec::name());
  detail::Backend<Exec>::parallel_for(detail::with_functor_scratch(policy, f), f);
}
template <class Policy, class F>
  requires(detail::execution_policy<Policy> || std::is_integral_v<Policy>)
void parallel_for(const Policy& policy_or_count, const F& f) {
  parallel_for(detail::empty_label(), policy_or_count, f);
}

// ---- parallel_reduce --------------------------------------------------------

// Results: a scalar (summed unless the functor defines join/init), a View
// (rank 0, or rank 1 for array reductions; a View result does not block on
// devices), a pointer (array reductions), one reducer, or several reducers.
template <class Policy, class F, class... R>
  requires((detail::execution_policy<Policy> || std::is_integral_v<Policy>) && sizeof...(R) >= 1)
void parallel_reduce(const std::string& label, const Policy& policy_or_count, const F& f, R&&... results) {
  auto policy = detail::as_policy<F>(policy_or_count);
  using Exec = typename decltype(policy)::execution_space;
  profiling::KernelScope scope(profiling::Kind::parallel_reduce, label, Exec::name());
  auto ops = detail::make_reduce_ops(f, results...);
  detail::Backend<Exec>::parallel_reduce(detail::with_functor_scratch(policy, f), f, ops);
}
template <class Policy, class F, class... R>
  requires((detail::execution_policy<Policy> || std::is_integral_v<Policy>) && sizeof...(R) >= 1)
void parallel_reduce(const Policy& policy_or_count, const F& f, R&&... results) {
  parallel_reduce(detail::empty_label(), policy_or_count, f, std::forward<R>(results)...);
}

// ---- parallel_scan ----------------------------------------------------------

// f(i, update, final): update holds the exclusive prefix on entry; when final
// is true the functor may write it out and must add its own contribution.
template <class Policy, class F>
  requires(detail::execution_policy<Policy> || std::is_integral_v<Policy>)
void parallel_scan(const std::string& label, const Policy& policy_or_count, const F& f) {
  auto policy = detail::as_policy<F>(policy_or_count);
  using P = decltype(policy);
  using Exec = typename P::execution_space;
  using V = typename detail::scan_value_type<F, typename P::work_tag>::type;
  profiling::KernelScope scope(profiling::Kind::parallel_scan, label, Exec::name());
  detail::FunctorReduceOps<F, V, false> ops{&f, 1, nullptr, true};
  detail::Backend<Exec>::parallel_scan(policy, f, ops, static_cast<V*>(nullptr));
}
template <class Policy, class F, class T>
  requires((detail::execution_policy<Policy> || std::is_integral_v<Policy>) && !is_view_v<T>)
void parallel_scan(const std::string& label, const Policy& policy_or_count, const F& f, T& total) {
  auto policy = detail::as_policy<F>(policy_or_count);
  using Exec = typename decltype(policy)::execution_space;
  profiling::KernelScope scope(profiling::Kind::parallel_scan, label, Exec::name());
  detail::FunctorReduceOps<F, T, false> ops{&f, 1, &total, true};
  detail::Backend<Exec>::parallel_scan(policy, f, ops, &total);
}
template <class Policy, class F, class V>
  requires((detail::execution_policy<Policy> || std::is_integral_v<Policy>) && is_view_v<V>)
void parallel_scan(const std::string& label, const Policy& policy_or_count, const F& f, const V& total) {
  static_assert(V::rank == 0, "parallel_scan's total View must be rank 0");
  using T = typename V::non_const_value_type;
  T host_total{};
  parallel_scan(label, policy_or_count, f, host_total);
  detail::Backend<typename decltype(detail::as_policy<F>(policy_or_count))::execution_space>::store_scalar(total.data(),
                                                                                                        host_total);
}
template <class Policy, class F>
  requires(detail::execution_policy<Policy> || std::is_integral_v<Policy>)
void parallel_scan(const Policy& policy_or_count, const F& f) {
  parallel_scan(detail::empty_label(), policy_or_count, f);
}
template <class Policy, class F, class T>
  requires(detail::execution_policy<Policy> || std::is_integral_v<Policy>)
void parallel_scan(const Policy& policy_or_count, const F& f, T&& total) {
  parallel_scan(detail::empty_label(), policy_or_count, f, std::forward<T>(total));
}

}  // namespace tessera
