// Parameter resolution and validation for tessera::MemoryPool.
#include <tessera/mempool/detail/pool_geometry.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tessera::detail::mempool {

namespace {

std::uint32_t lg_ceil(std::size_t n) {
  std::uint32_t lg = 0;
  while ((std::size_t(1) << lg) < n) ++lg;
  return lg;
}

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("tessera::MemoryPool: " + what);
}

std::string bytes_str(std::size_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

Geometry resolve_geometry(std::size_t total, std::size_t min_block, std::size_t max_block, std::size_t min_sb,
                          const MemoryPoolOptions& options) {
  constexpr std::size_t max_sb_bytes = std::size_t(1) << kMaxSuperblockLg;
  if (total == 0) bad("min_total_alloc_size = 0; the pool must hold at least one block (allowed: >= 1 byte)");
  if (min_block > max_sb_bytes)
    bad("min_block_alloc_size = " + bytes_str(min_block) + " is too large; allowed range is [64, 2^31] bytes "
        "(0 for the default, 64)");
  if (max_block > max_sb_bytes)
    bad("max_block_alloc_size = " + bytes_str(max_block) + " is too large; allowed range is [64, 2^31] bytes "
        "and at most the superblock size (0 for the default, 4096)");
  if (min_sb > max_sb_bytes)
    bad("min_superblock_size = " + bytes_str(min_sb) + " is too large; allowed range is [2^11, 2^31] bytes "
        "(0 for the default, 2^20)");
  if (!(options.page_full_fraction > 0.0 && options.page_full_fraction <= 1.0))
    bad("MemoryPoolOptions::page_full_fraction = " + std::to_string(options.page_full_fraction) +
        " is out of range; allowed range is (0, 1]");
  if (!(options.superblock_full_fraction > 0.0 && options.superblock_full_fraction <= 1.0))
    bad("MemoryPoolOptions::superblock_full_fraction = " + std::to_string(options.superblock_full_fraction) +
        " is out of range; allowed range is (0, 1]");

  Geometry g;
  g.min_lg = min_block ? std::max(kMinBlockLg, lg_ceil(min_block)) : kMinBlockLg;
  const bool sb_given = min_sb != 0;
  if (sb_given) g.sb_lg = std::max(kMinSuperblockLg, lg_ceil(min_sb));
  if (max_block) {
    g.max_lg = std::max(kMinBlockLg, lg_ceil(max_block));
  } else {
    // Default: 4 KiB, but never below the smallest block nor above a given superblock.
    g.max_lg = std::max(g.min_lg, sb_given ? std::min(kDefaultMaxBlockLg, g.sb_lg) : kDefaultMaxBlockLg);
  }
  if (g.min_lg > g.max_lg)
    bad("min_block_alloc_size = " + bytes_str(min_block) + " (block size " + bytes_str(std::size_t(1) << g.min_lg) +
        ") exceeds max_block_alloc_size = " + bytes_str(max_block) + "; allowed range is [64, max_block_alloc_size]");
  if (!sb_given) {
    // The default superblock: 2^20, or the whole pool when that is smaller,
    // but always large enough for one largest block.
    g.sb_lg = std::max({kMinSuperblockLg, g.max_lg, std::min(kDefaultSuperblockLg, lg_ceil(total))});
  }
  if (g.max_lg > g.sb_lg) {
    if (max_block)
      bad("max_block_alloc_size = " + bytes_str(max_block) + " exceeds the superblock size " +
          bytes_str(std::size_t(1) << g.sb_lg) + " (min_superblock_size = " + bytes_str(min_sb) +
          "); allowed range is [min_block_alloc_size, superblock size]");
    bad("min_block_alloc_size = " + bytes_str(min_block) + " exceeds the superblock size " +
        bytes_str(std::size_t(1) << g.sb_lg) + " (min_superblock_size = " + bytes_str(min_sb) +
        "); allowed range is [64, superblock size]");
  }
  const std::size_t sb_bytes = std::size_t(1) << g.sb_lg;
  const std::size_t sb_count = total / sb_bytes + (total % sb_bytes ? 1 : 0);
  if (sb_count > (std::size_t(1) << 30))
    bad("min_total_alloc_size = " + bytes_str(total) + " needs " + std::to_string(sb_count) +
        " superblocks; at most 2^30 are allowed (raise min_superblock_size)");
  g.sb_count = static_cast<std::uint32_t>(sb_count);
  g.num_classes = g.max_lg - g.min_lg + 1;
  const std::uint32_t min_blocks_lg = g.sb_lg - g.min_lg;  // blocks of the smallest size per superblock
  g.bitset_words = min_blocks_lg >= 5 ? (1u << (min_blocks_lg - 5)) : 1u;
  const std::size_t bitset_bytes = (std::size_t(g.bitset_words) * 4 + kCacheLine - 1) / kCacheLine * kCacheLine;
  g.sb_record_bytes = kCacheLine + bitset_bytes;
  g.class_offset = kClassOffset;
  g.sb_offset = kClassOffset + std::size_t(g.num_classes) * kCacheLine;
  g.meta_bytes = g.sb_offset + std::size_t(g.sb_count) * g.sb_record_bytes;
  g.capacity_bytes = std::size_t(g.sb_count) << g.sb_lg;
  g.data_alignment = std::max<std::size_t>(kCacheLine, std::size_t(1) << g.max_lg);
  // Metadata first, then padding so that the first superblock is aligned to
  // the largest block (every block is then aligned to its own size).
  g.chunk_bytes = g.meta_bytes + (g.data_alignment - kCacheLine) + g.capacity_bytes;
  g.page_full_num = static_cast<std::uint32_t>(std::ceil(options.page_full_fraction * 1024.0));
  g.sb_full_num = static_cast<std::uint32_t>(std::ceil(options.superblock_full_fraction * 1024.0));
  return g;
}

}  // namespace tessera::detail::mempool
