#pragma once
// Reducers: the built-in reductions of parallel_reduce and the nested team
// reductions. A reducer names a value_type, init() and join(), and where the
// result goes (a scalar reference or a rank-0 View). User reducers follow the
// same concept.
#include <tessera/core/macros.hpp>
#include <tessera/core/memory_space.hpp>
#include <tessera/core/view_fwd.hpp>

#include <cfloat>
#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

// Identity elements, usable on host and device.
template <class T>
struct reduction_identity {
  TESSERA_FORCEINLINE_FUNCTION static constexpr T sum() { return static_cast<T>(0); }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T prod() { return static_cast<T>(1); }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T max() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T min() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T land() { return static_cast<T>(1); }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T lor() { return static_cast<T>(0); }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T band() { return static_cast<T>(~T(0)); }
  TESSERA_FORCEINLINE_FUNCTION static constexpr T bor() { return static_cast<T>(0); }
};

template <class T, class I>
struct ValLocScalar {
  T val;
  I loc;
};
template <class T>
struct MinMaxScalar {
  T min_val;
  T max_val;
};
template <class T, class I>
struct MinMaxLocScalar {
  T min_val;
  T max_val;
  I min_loc;
  I max_loc;
};

namespace detail {
// Common storage of every built-in reducer: where the result goes.
template <class Derived, class Value, class Space>
class ReducerBase {
 public:
  using value_type = std::remove_cv_t<Value>;
  using memory_space = typename Space::memory_space;
  using reducer = Derived;

  TESSERA_INLINE_FUNCTION ReducerBase(value_type& ref) : m_ptr(&ref), m_on_host(true) {}
  template <class V, std::enable_if_t<is_view_v<V>, int> = 0>
  ReducerBase(const V& view) : m_ptr(view.data()), m_on_host(std::is_same_v<typename V::memory_space, HostSpace>) {
    static_assert(V::rank == 0, "a reducer's result View must be rank 0");
  }

  TESSERA_INLINE_FUNCTION value_type& reference() const { return *m_ptr; }
  TESSERA_INLINE_FUNCTION value_type* data() const { return m_ptr; }
  TESSERA_INLINE_FUNCTION bool references_scalar() const { return m_on_host; }

 private:
  value_type* m_ptr;
  bool m_on_host;
};
}  // namespace detail

#define TESSERA_IMPL_SIMPLE_REDUCER(NAME, IDENTITY, JOIN)                                  \
  template <class Scalar, class Space = HostSpace>                                        \
  struct NAME : detail::ReducerBase<NAME<Scalar, Space>, Scalar, Space> {                 \
    using base = detail::ReducerBase<NAME<Scalar, Space>, Scalar, Space>;                 \
    using typename base::value_type;                                                      \
    using base::base;                                                                     \
    TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const { \
      JOIN;                                                                               \
    }                                                                                     \
    TESSERA_FORCEINLINE_FUNCTION void init(value_type& val) const {                       \
      val = reduction_identity<value_type>::IDENTITY();                                   \
    }                                                                                     \
  };                                                                                      \
  template <class Scalar>                                                                 \
  NAME(Scalar&)->NAME<Scalar, HostSpace>;

TESSERA_IMPL_SIMPLE_REDUCER(Sum, sum, dest += src)
TESSERA_IMPL_SIMPLE_REDUCER(Prod, prod, dest *= src)
TESSERA_IMPL_SIMPLE_REDUCER(Min, min, if (src < dest) dest = src)
TESSERA_IMPL_SIMPLE_REDUCER(Max, max, if (src > dest) dest = src)
TESSERA_IMPL_SIMPLE_REDUCER(LAnd, land, dest = dest && src)
TESSERA_IMPL_SIMPLE_REDUCER(LOr, lor, dest = dest || src)
TESSERA_IMPL_SIMPLE_REDUCER(BAnd, band, dest = dest & src)
TESSERA_IMPL_SIMPLE_REDUCER(BOr, bor, dest = dest | src)
#undef TESSERA_IMPL_SIMPLE_REDUCER

// Ties go to the smaller index, so results do not depend on the schedule.
template <class Scalar, class Index, class Space = HostSpace>
struct MinLoc : detail::ReducerBase<MinLoc<Scalar, Index, Space>,
                                    ValLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space> {
  using base = detail::ReducerBase<MinLoc, ValLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.val < dest.val || (src.val == dest.val && src.loc < dest.loc)) dest = src;
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.val = reduction_identity<std::remove_cv_t<Scalar>>::min();
    v.loc = std::numeric_limits<std::remove_cv_t<Index>>::max();
  }
};

template <class Scalar, class Index, class Space = HostSpace>
struct MaxLoc : detail::ReducerBase<MaxLoc<Scalar, Index, Space>,
                                    ValLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space> {
  using base = detail::ReducerBase<MaxLoc, ValLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.val > dest.val || (src.val == dest.val && src.loc < dest.loc)) dest = src;
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.val = reduction_identity<std::remove_cv_t<Scalar>>::max();
    v.loc = std::numeric_limits<std::remove_cv_t<Index>>::max();
  }
};

template <class Scalar, class Space = HostSpace>
struct MinMax : detail::ReducerBase<MinMax<Scalar, Space>, MinMaxScalar<std::remove_cv_t<Scalar>>, Space> {
  using base = detail::ReducerBase<MinMax, MinMaxScalar<std::remove_cv_t<Scalar>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.min_val < dest.min_val) dest.min_val = src.min_val;
    if (src.max_val > dest.max_val) dest.max_val = src.max_val;
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.min_val = reduction_identity<std::remove_cv_t<Scalar>>::min();
    v.max_val = reduction_identity<std::remove_cv_t<Scalar>>::max();
  }
};

template <class Scalar, class Index, class Space = HostSpace>
struct MinMaxLoc
    : detail::ReducerBase<MinMaxLoc<Scalar, Index, Space>,
                          MinMaxLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space> {
  using base = detail::ReducerBase<MinMaxLoc, MinMaxLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.min_val < dest.min_val || (src.min_val == dest.min_val && src.min_loc < dest.min_loc)) {
      dest.min_val = src.min_val;
      dest.min_loc = src.min_loc;
    }
    if (src.max_val > dest.max_val || (src.max_val == dest.max_val && src.max_loc < dest.max_loc)) {
      dest.max_val = src.max_val;
      dest.max_loc = src.max_loc;
    }
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.min_val = reduction_identity<std::remove_cv_t<Scalar>>::min();
    v.max_val = reduction_identity<std::remove_cv_t<Scalar>>::max();
    v.min_loc = std::numeric_limits<std::remove_cv_t<Index>>::max();
    v.max_loc = std::numeric_limits<std::remove_cv_t<Index>>::max();
  }
};

// Kokkos' "first" variants: MinLoc and MaxLoc already take the smallest
// index among equal values, which is what MinFirstLoc / MaxFirstLoc promise.
template <class Scalar, class Index, class Space = HostSpace>
using MinFirstLoc = MinLoc<Scalar, Index, Space>;
template <class Scalar, class Index, class Space = HostSpace>
using MaxFirstLoc = MaxLoc<Scalar, Index, Space>;

// The minimum at its first (smallest) index and the maximum at its last
// (largest) index.
template <class Scalar, class Index, class Space = HostSpace>
struct MinMaxFirstLastLoc
    : detail::ReducerBase<MinMaxFirstLastLoc<Scalar, Index, Space>,
                          MinMaxLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space> {
  using base =
      detail::ReducerBase<MinMaxFirstLastLoc, MinMaxLocScalar<std::remove_cv_t<Scalar>, std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.min_val < dest.min_val || (src.min_val == dest.min_val && src.min_loc < dest.min_loc)) {
      dest.min_val = src.min_val;
      dest.min_loc = src.min_loc;
    }
    if (src.max_val > dest.max_val || (src.max_val == dest.max_val && src.max_loc > dest.max_loc)) {
      dest.max_val = src.max_val;
      dest.max_loc = src.max_loc;
    }
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.min_val = reduction_identity<std::remove_cv_t<Scalar>>::min();
    v.max_val = reduction_identity<std::remove_cv_t<Scalar>>::max();
    v.min_loc = std::numeric_limits<std::remove_cv_t<Index>>::max();
    v.max_loc = std::numeric_limits<std::remove_cv_t<Index>>::lowest();
  }
};

// The first / last index at which a predicate holds: the functor lowers
// update.min_loc_true (raises update.max_loc_true) to i when it holds at i.
// Nothing found leaves the numeric_limits max (lowest) of the index type.
template <class Index>
struct FirstLocScalar {
  Index min_loc_true;
};
template <class Index>
struct LastLocScalar {
  Index max_loc_true;
};
template <class Index, class Space = HostSpace>
struct FirstLoc : detail::ReducerBase<FirstLoc<Index, Space>, FirstLocScalar<std::remove_cv_t<Index>>, Space> {
  using base = detail::ReducerBase<FirstLoc, FirstLocScalar<std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.min_loc_true < dest.min_loc_true) dest.min_loc_true = src.min_loc_true;
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.min_loc_true = std::numeric_limits<std::remove_cv_t<Index>>::max();
  }
};
template <class Index, class Space = HostSpace>
struct LastLoc : detail::ReducerBase<LastLoc<Index, Space>, LastLocScalar<std::remove_cv_t<Index>>, Space> {
  using base = detail::ReducerBase<LastLoc, LastLocScalar<std::remove_cv_t<Index>>, Space>;
  using typename base::value_type;
  using base::base;
  TESSERA_FORCEINLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.max_loc_true > dest.max_loc_true) dest.max_loc_true = src.max_loc_true;
  }
  TESSERA_FORCEINLINE_FUNCTION void init(value_type& v) const {
    v.max_loc_true = std::numeric_limits<std::remove_cv_t<Index>>::lowest();
  }
};

template <class T, class = void>
struct is_reducer : std::false_type {};
template <class T>
struct is_reducer<T, std::void_t<typename T::reducer>> : std::true_type {};
template <class T>
inline constexpr bool is_reducer_v = is_reducer<std::remove_cv_t<T>>::value;

}  // namespace tessera
