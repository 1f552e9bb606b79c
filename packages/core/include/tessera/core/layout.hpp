#pragma once
// Array layouts: how a View's multi-index maps to a memory offset.
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

// Marks an extent left unspecified in a layout's constructor.
inline constexpr std::size_t TESSERA_IMPL_CTOR_DEFAULT_ARG = ~std::size_t(0);

namespace detail {
struct LayoutExtents {
  std::size_t dimension[8];
  constexpr LayoutExtents(std::size_t n0, std::size_t n1, std::size_t n2, std::size_t n3,
                          std::size_t n4, std::size_t n5, std::size_t n6, std::size_t n7)
      : dimension{n0, n1, n2, n3, n4, n5, n6, n7} {}
};
}  // namespace detail

// Row-major: the last index is contiguous (C order). Default on host spaces.
struct LayoutRight : detail::LayoutExtents {
  using array_layout = LayoutRight;
  static constexpr bool is_extent_constructible = true;
  constexpr explicit LayoutRight(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7) {}
};

// Column-major: the first index is contiguous (Fortran order). Default on CUDA
// so that consecutive threads (first index) touch consecutive addresses.
struct LayoutLeft : detail::LayoutExtents {
  using array_layout = LayoutLeft;
  static constexpr bool is_extent_constructible = true;
  constexpr explicit LayoutLeft(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7) {}
};

// Arbitrary strides per dimension, given as (extent, stride) pairs; the
// layout of most subviews.
struct LayoutStride : detail::LayoutExtents {
  using array_layout = LayoutStride;
  static constexpr bool is_extent_constructible = false;
  std::size_t stride[8];
  constexpr explicit LayoutStride(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s0 = 0,
                                  std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s1 = 0,
                                  std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s2 = 0,
                                  std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s3 = 0,
                                  std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s4 = 0,
                                  std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s5 = 0,
                                  std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s6 = 0,
                                  std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG, std::size_t s7 = 0)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7), stride{s0, s1, s2, s3, s4, s5, s6, s7} {}
};

// Rank-2 layout stored tile by tile: each TileRows x TileCols tile is
// contiguous (row-major inside the tile) and tiles are laid out row-major.
// Dense block algorithms hand whole tiles to BLAS through View::tile(i, j).
template <std::size_t TileRows, std::size_t TileCols>
struct LayoutTiled : detail::LayoutExtents {
  static_assert(TileRows > 0 && TileCols > 0, "LayoutTiled: tile extents must be positive");
  using array_layout = LayoutTiled;
  static constexpr bool is_extent_constructible = true;
  static constexpr std::size_t tile_rows = TileRows;
  static constexpr std::size_t tile_cols = TileCols;
  constexpr explicit LayoutTiled(std::size_t n0 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n1 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n2 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n3 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n4 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n5 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n6 = TESSERA_IMPL_CTOR_DEFAULT_ARG,
                                 std::size_t n7 = TESSERA_IMPL_CTOR_DEFAULT_ARG)
      : LayoutExtents(n0, n1, n2, n3, n4, n5, n6, n7) {}
};

template <class T>
struct is_layout_tiled : std::false_type {};
template <std::size_t R, std::size_t C>
struct is_layout_tiled<LayoutTiled<R, C>> : std::true_type {};

}  // namespace tessera
