#pragma once
// MDRangePolicy: a rectangular N-dimensional index box [lower, upper) cut into
// tiles, for parallel_for and parallel_reduce (Kokkos semantics).
//
//   MDRangePolicy<Rank<3>>({0, 0, 0}, {n0, n1, n2})              default tiles
//   MDRangePolicy<Rank<2, Iterate::Left>>({0, 0}, {n, m}, {64, 4}) explicit tiles
//
// Rank<N, Outer, Inner>: Outer is the order in which tiles are visited, Inner
// the order of the indices inside a tile. Iterate::Right makes the last index
// the fastest, Iterate::Left the first. Iterate::Default follows the
// execution space's default layout (Right on host, Left on CUDA) so that the
// fastest-moving index is the unit-stride one of a default View.
//
// The policy is back-end neutral: it only stores bounds and tiles. Host
// back-ends run it in detail/host_mdrange.hpp; a device back-end specializes
// Backend<Exec> for it.
#include <tessera/core/error.hpp>
#include <tessera/core/layout.hpp>
#include <tessera/core/policy_traits.hpp>
#include <tessera/core/space_traits.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera {

enum class Iterate { Default, Left, Right };

template <unsigned N, Iterate OuterDir = Iterate::Default, Iterate InnerDir = Iterate::Default>
struct Rank {
  static_assert(N >= 2 && N <= 6, "tessera::Rank<N>: MDRangePolicy supports ranks 2 to 6");
  static constexpr unsigned rank = N;
  static constexpr Iterate outer_direction = OuterDir;
  static constexpr Iterate inner_direction = InnerDir;
};

namespace detail {
template <unsigned N, Iterate O, Iterate I>
struct is_iteration_pattern<Rank<N, O, I>> : std::true_type {};

template <class T>
struct is_rank : std::false_type {};
template <unsigned N, Iterate O, Iterate I>
struct is_rank<Rank<N, O, I>> : std::true_type {};

// Iterate::Default resolved against the execution space's default layout.
template <class Exec, Iterate D>
inline constexpr Iterate resolve_iterate =
    D != Iterate::Default ? D
                          : (std::is_same_v<typename Exec::array_layout, LayoutLeft> ? Iterate::Left : Iterate::Right);

// A fixed-size index array usable on host and device (the policy's point_type).
template <class I, unsigned N>
struct MDIndexArray {
  I values[N];
  TESSERA_FORCEINLINE_FUNCTION constexpr I& operator[](std::size_t r) { return values[r]; }
  TESSERA_FORCEINLINE_FUNCTION constexpr const I& operator[](std::size_t r) const { return values[r]; }
  static constexpr std::size_t size() { return N; }
};

// Visits the collapsed indices first, first + step, ... of an N-D nested
// range, each unflattened in the range's direction and handed to
// call(i0, ..., iN-1): how a GPU team spreads a box over its lanes with the
// partition of a 1-D range of the box's size (core's Cuda team member and
// tasking's warp teams).
template <class Call, int... K>
TESSERA_INLINE_FUNCTION void call_with_indices(const Call& call, const std::int64_t* idx,
                                               std::integer_sequence<int, K...>) {
  call(idx[K]...);
}
template <class R, class Call>
TESSERA_INLINE_FUNCTION void visit_collapsed_md(const R& r, std::int64_t first, std::int64_t step, const Call& call) {
  constexpr int N = int(R::rank);
  constexpr bool right = R::direction == Iterate::Right;
  std::int64_t total = 1;
  for (int d = 0; d < N; ++d) total *= r.extents[d] > 0 ? r.extents[d] : 0;
  for (std::int64_t t = first; t < total; t += step) {
    std::int64_t idx[N];
    std::int64_t rest = t;
    for (int k = 0; k < N; ++k) {  // N is a constant: the loop unrolls
      const int d = right ? N - 1 - k : k;
      idx[d] = rest % r.extents[d];
      rest /= r.extents[d];
    }
    call_with_indices(call, idx, std::make_integer_sequence<int, N>());
  }
}
}  // namespace detail

template <class... Props>
class MDRangePolicy {
 public:
  using traits = detail::ResolvedPolicyTraits<Props...>;
  using iteration_pattern = typename traits::iteration_pattern;
  static_assert(detail::is_rank<iteration_pattern>::value,
                "tessera::MDRangePolicy needs a Rank<N [, Iterate outer [, Iterate inner]]> property");
  using execution_space = typename traits::execution_space;
  using index_type = typename traits::index_type;
  using array_index_type = index_type;
  using work_tag = typename traits::work_tag;
  using schedule_type = typename traits::schedule_type;
  using launch_bounds = typename traits::launch_bounds;
  using policy = MDRangePolicy;
  static constexpr unsigned rank = iteration_pattern::rank;
  static constexpr Iterate outer_direction = detail::resolve_iterate<execution_space, iteration_pattern::outer_direction>;
  static constexpr Iterate inner_direction = detail::resolve_iterate<execution_space, iteration_pattern::inner_direction>;
  using point_type = detail::MDIndexArray<index_type, rank>;
  using tile_type = detail::MDIndexArray<index_type, rank>;

  MDRangePolicy() = default;

  // Bounds as braced lists of one integer type: ({0, 0}, {n, m} [, {t0, t1}]).
  // (Mixed types such as {0, n} with a size_t n fall back to point_type.)
  template <class LT, std::size_t LN, class UT, std::size_t UN,
            std::enable_if_t<std::is_integral_v<LT> && std::is_integral_v<UT>, int> = 0>
  MDRangePolicy(const LT (&lower)[LN], const UT (&upper)[UN])
      : MDRangePolicy(execution_space(), lower, upper) {}
  template <class LT, std::size_t LN, class UT, std::size_t UN, class TT, std::size_t TN,
            std::enable_if_t<std::is_integral_v<LT> && std::is_integral_v<UT> && std::is_integral_v<TT>, int> = 0>
  MDRangePolicy(const LT (&lower)[LN], const UT (&upper)[UN], const TT (&tile)[TN])
      : MDRangePolicy(execution_space(), lower, upper, tile) {}
  template <class LT, std::size_t LN, class UT, std::size_t UN,
            std::enable_if_t<std::is_integral_v<LT> && std::is_integral_v<UT>, int> = 0>
  MDRangePolicy(const execution_space& space, const LT (&lower)[LN], const UT (&upper)[UN]) : m_space(space) {
    static_assert(LN == rank && UN == rank, "tessera::MDRangePolicy: give one lower and one upper bound per dimension");
    init(lower, upper, static_cast<const index_type*>(nullptr), 0);
  }
  template <class LT, std::size_t LN, class UT, std::size_t UN, class TT, std::size_t TN,
            std::enable_if_t<std::is_integral_v<LT> && std::is_integral_v<UT> && std::is_integral_v<TT>, int> = 0>
  MDRangePolicy(const execution_space& space, const LT (&lower)[LN], const UT (&upper)[UN], const TT (&tile)[TN])
      : m_space(space) {
    static_assert(LN == rank && UN == rank, "tessera::MDRangePolicy: give one lower and one upper bound per dimension");
    static_assert(TN <= rank, "tessera::MDRangePolicy: more tile sizes than dimensions");
    init(lower, upper, tile, TN);
  }

  MDRangePolicy(const point_type& lower, const point_type& upper, const tile_type& tile = tile_type{})
      : MDRangePolicy(execution_space(), lower, upper, tile) {}
  MDRangePolicy(const execution_space& space, const point_type& lower, const point_type& upper,
                const tile_type& tile = tile_type{})
      : m_space(space) {
    init(lower.values, upper.values, tile.values, rank);
  }

  const execution_space& space() const { return m_space; }
  TESSERA_INLINE_FUNCTION const point_type& lower() const { return m_lower; }
  TESSERA_INLINE_FUNCTION const point_type& upper() const { return m_upper; }
  TESSERA_INLINE_FUNCTION const tile_type& tile_size() const { return m_tile; }
  // Tiles along dimension r, and in all.
  TESSERA_INLINE_FUNCTION std::int64_t num_tiles(unsigned r) const { return m_num_tiles[r]; }
  TESSERA_INLINE_FUNCTION std::int64_t num_tiles() const { return m_total_tiles; }
  // Number of points in the box.
  TESSERA_INLINE_FUNCTION std::int64_t size() const {
    std::int64_t n = 1;
    for (unsigned r = 0; r < rank; ++r) n *= std::int64_t(m_upper[r] - m_lower[r]);
    return n;
  }
  std::int64_t chunk_size() const { return m_chunk; }
  // Tiles handed out at once by a Dynamic schedule (0: chosen by the back-end).
  MDRangePolicy& set_chunk_size(std::int64_t chunk) {
    if (chunk < 0)
      detail::throw_runtime_error("tessera::MDRangePolicy: negative chunk size " + std::to_string(chunk));
    m_chunk = chunk;
    return *this;
  }

 private:
  template <class LT, class UT, class TT>
  void init(const LT* lower, const UT* upper, const TT* tile, std::size_t ntile) {
    m_total_tiles = 1;
    bool no_tiles_given = true;
    for (std::size_t r = 0; tile && r < ntile && r < rank; ++r) no_tiles_given = no_tiles_given && tile[r] == 0;
    for (unsigned r = 0; r < rank; ++r) {
      if (std::is_signed_v<LT> && std::is_unsigned_v<index_type> && lower[r] < 0)
        detail::throw_runtime_error("tessera::MDRangePolicy: negative lower bound " + std::to_string(lower[r]) +
                                    " in dimension " + std::to_string(r) + " for an unsigned index type");
      if (static_cast<std::int64_t>(lower[r]) > static_cast<std::int64_t>(upper[r]))
        detail::throw_runtime_error("tessera::MDRangePolicy: lower bound " + std::to_string(lower[r]) +
                                    " is past upper bound " + std::to_string(upper[r]) + " in dimension " +
                                    std::to_string(r));
      m_lower[r] = static_cast<index_type>(lower[r]);
      m_upper[r] = static_cast<index_type>(upper[r]);
      std::int64_t t = (tile && r < ntile) ? static_cast<std::int64_t>(tile[r]) : 0;
      if (t < 0)
        detail::throw_runtime_error("tessera::MDRangePolicy: negative tile size " + std::to_string(t) +
                                    " in dimension " + std::to_string(r));
      const std::int64_t extent = std::int64_t(m_upper[r] - m_lower[r]);
      if (t == 0) {
        const bool fastest = inner_direction == Iterate::Right ? r + 1 == rank : r == 0;
        const bool second = rank > 1 && (inner_direction == Iterate::Right ? r + 2 == rank : r == 1);
        if (!is_host_execution_space<execution_space>::value && no_tiles_given) {
          // GPU default tiles (no tile size given at all): 64 along the
          // fastest dimension and 4 along the next, 256 points, one block:
          // rows next to each other share the block's cache, which a stencil
          // reads (lines of 1 x extent left its neighbour rows to L2).
          t = fastest ? std::min<std::int64_t>(extent, 64) : second ? std::min<std::int64_t>(extent, 4) : 1;
          if (t < 1) t = 1;
        } else {
          // Default tiles: the fastest dimension whole (one long unit-stride
          // loop the compiler vectorizes), every other dimension one index
          // wide, so that a contiguous run of tiles is a contiguous slab.
          t = fastest ? (extent > 0 ? extent : 1) : 1;
        }
      }
      m_tile[r] = static_cast<index_type>(t);
      m_num_tiles[r] = (extent + t - 1) / t;
      m_total_tiles *= m_num_tiles[r];
    }
  }

  execution_space m_space{};
  point_type m_lower{};
  point_type m_upper{};
  tile_type m_tile{};
  std::int64_t m_num_tiles[rank] = {};
  std::int64_t m_total_tiles = 0;
  std::int64_t m_chunk = 0;
};

}  // namespace tessera
