#pragma once
// ViewOffset: the map from a multi-index to an element offset, one per
// layout family. Extents and strides are stored for every rank; the layout
// decides how strides follow from extents and which stride is known to be 1.
// Loops up to a rank test r != Rank, not r < Rank: the rank may be 0, and
// nvcc's front end warns (#186-D) that r < 0 is pointless for an unsigned r.
#include <tessera/core/layout.hpp>
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tessera::detail {

template <std::size_t Rank>
struct OffsetStorage {
  std::size_t m_extent[Rank > 0 ? Rank : 1] = {};
  std::size_t m_stride[Rank > 0 ? Rank : 1] = {};

  TESSERA_FORCEINLINE_FUNCTION std::size_t extent(std::size_t r) const {
    if constexpr (Rank == 0) return 1;
    else return r < Rank ? m_extent[r] : 1;
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride(std::size_t r) const {
    if constexpr (Rank == 0) return 0;
    else return r < Rank ? m_stride[r] : 0;
  }
  TESSERA_INLINE_FUNCTION std::size_t size() const {
    std::size_t s = 1;
    for (std::size_t r = 0; r != Rank; ++r) s *= m_extent[r];
    return s;
  }
  // Smallest number of elements that covers every index (0 for empty views).
  TESSERA_INLINE_FUNCTION std::size_t strided_span() const {
    if constexpr (Rank == 0) {
      return 1;
    } else {
      std::size_t last = 0;
      for (std::size_t r = 0; r != Rank; ++r) {
        if (m_extent[r] == 0) return 0;
        last += (m_extent[r] - 1) * m_stride[r];
      }
      return last + 1;
    }
  }
};

template <class Layout, std::size_t Rank>
struct ViewOffset;

template <std::size_t Rank>
struct ViewOffset<LayoutRight, Rank> : OffsetStorage<Rank> {
  using array_layout = LayoutRight;
  static constexpr bool is_regular = true;
  TESSERA_INLINE_FUNCTION void set_compact(const std::size_t* n) {
    std::size_t s = 1;
    for (std::size_t r = Rank; r-- > 0;) {
      this->m_extent[r] = n[r];
      this->m_stride[r] = s;
      s *= n[r];
    }
  }
  // The last stride of LayoutRight is always 1. A fold over the indices (no
  // index array, no loop) keeps the offset an affine expression of each
  // index, which the compiler's vectorizer needs to see through.
  template <std::size_t R>
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_of() const {
    if constexpr (R + 1 == Rank) return 1;
    else return this->m_stride[R];
  }
  template <class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t operator()(I... i) const {
    return offset(std::index_sequence_for<I...>{}, i...);
  }
  template <std::size_t... R, class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t offset(std::index_sequence<R...>, I... i) const {
    return (std::size_t(0) + ... + (std::size_t(i) * stride_of<R>()));
  }
  TESSERA_INLINE_FUNCTION std::size_t span() const { return this->strided_span(); }
  TESSERA_INLINE_FUNCTION LayoutRight layout() const {
    LayoutRight l;
    for (std::size_t r = 0; r < 8; ++r) l.dimension[r] = this->extent(r);
    return l;
  }
};

template <std::size_t Rank>
struct ViewOffset<LayoutLeft, Rank> : OffsetStorage<Rank> {
  using array_layout = LayoutLeft;
  static constexpr bool is_regular = true;
  TESSERA_INLINE_FUNCTION void set_compact(const std::size_t* n) {
    std::size_t s = 1;
    for (std::size_t r = 0; r != Rank; ++r) {
      this->m_extent[r] = n[r];
      this->m_stride[r] = s;
      s *= n[r];
    }
  }
  // The first stride of LayoutLeft is always 1 (see LayoutRight on the fold).
  template <std::size_t R>
  TESSERA_FORCEINLINE_FUNCTION std::size_t stride_of() const {
    if constexpr (R == 0) return 1;
    else return this->m_stride[R];
  }
  template <class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t operator()(I... i) const {
    return offset(std::index_sequence_for<I...>{}, i...);
  }
  template <std::size_t... R, class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t offset(std::index_sequence<R...>, I... i) const {
    return (std::size_t(0) + ... + (std::size_t(i) * stride_of<R>()));
  }
  TESSERA_INLINE_FUNCTION std::size_t span() const { return this->strided_span(); }
  TESSERA_INLINE_FUNCTION LayoutLeft layout() const {
    LayoutLeft l;
    for (std::size_t r = 0; r < 8; ++r) l.dimension[r] = this->extent(r);
    return l;
  }
};

template <std::size_t Rank>
struct ViewOffset<LayoutStride, Rank> : OffsetStorage<Rank> {
  using array_layout = LayoutStride;
  static constexpr bool is_regular = true;
  TESSERA_INLINE_FUNCTION void set_compact(const std::size_t* n) {  // right-compact strides
    std::size_t s = 1;
    for (std::size_t r = Rank; r-- > 0;) {
      this->m_extent[r] = n[r];
      this->m_stride[r] = s;
      s *= n[r];
    }
  }
  template <class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t operator()(I... i) const {
    return offset(std::index_sequence_for<I...>{}, i...);
  }
  template <std::size_t... R, class... I>
  TESSERA_FORCEINLINE_FUNCTION std::size_t offset(std::index_sequence<R...>, I... i) const {
    return (std::size_t(0) + ... + (std::size_t(i) * this->m_stride[R]));
  }
  TESSERA_INLINE_FUNCTION std::size_t span() const { return this->strided_span(); }
  TESSERA_INLINE_FUNCTION LayoutStride layout() const {
    LayoutStride l;
    for (std::size_t r = 0; r < 8; ++r) {
      l.dimension[r] = this->extent(r);
      l.stride[r] = this->stride(r);
    }
    return l;
  }
};

// Tiles of TR x TC elements, each contiguous and row-major; tiles row-major.
// Extents that are not multiples of the tile are padded up to whole tiles.
template <std::size_t TR, std::size_t TC, std::size_t Rank>
struct ViewOffset<LayoutTiled<TR, TC>, Rank> : OffsetStorage<Rank> {
  static_assert(Rank == 2, "LayoutTiled is rank 2");
  using array_layout = LayoutTiled<TR, TC>;
  static constexpr bool is_regular = false;
  std::size_t m_tiles_per_row = 0;
  TESSERA_INLINE_FUNCTION void set_compact(const std::size_t* n) {
    this->m_extent[0] = n[0];
    this->m_extent[1] = n[1];
    this->m_stride[0] = TC;  // strides inside a tile
    this->m_stride[1] = 1;
    m_tiles_per_row = (n[1] + TC - 1) / TC;
  }
  TESSERA_FORCEINLINE_FUNCTION std::size_t operator()(std::size_t i, std::size_t j) const {
    return ((i / TR) * m_tiles_per_row + j / TC) * (TR * TC) + (i % TR) * TC + (j % TC);
  }
  TESSERA_INLINE_FUNCTION std::size_t tiles(std::size_t r) const {
    return r == 0 ? (this->m_extent[0] + TR - 1) / TR : m_tiles_per_row;
  }
  TESSERA_INLINE_FUNCTION std::size_t span() const {
    return tiles(0) * tiles(1) * TR * TC;
  }
  TESSERA_INLINE_FUNCTION array_layout layout() const {
    return array_layout(this->m_extent[0], this->m_extent[1]);
  }
};

}  // namespace tessera::detail
