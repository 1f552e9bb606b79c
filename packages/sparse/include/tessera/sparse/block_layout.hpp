#pragma once
// A picture of the factor's 2D block layout in the reordered matrix (as
// Fig. 5.1 of the Tacho chapter draws it): every supernode's diagonal block
// and its off-diagonal blocks (contiguous runs of its rows), coloured by
// kind; supernodes larger than max_block are drawn with their 2D block grid.
#include <tessera/sparse/symbolic.hpp>

#include <string>

namespace tessera::sparse {

struct BlockLayoutSummary {
  std::int64_t diagonal_blocks = 0, offdiagonal_blocks = 0, blocked_supernodes = 0;
};

// Writes the SVG to `path` (throws sparse_error naming the path when it
// cannot be written) and returns what it drew.
BlockLayoutSummary write_block_layout_svg(const std::string& path, const SymbolicFactor& f, int max_block);

}  // namespace tessera::sparse
