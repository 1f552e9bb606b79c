#pragma once
// The sizes a MemoryPool is built from, resolved and validated once at
// construction (host code), and the layout of its metadata.
#include <cstddef>
#include <cstdint>

namespace tessera {

// Tuning knobs beyond Kokkos' constructor arguments. The defaults are the
// published design's thresholds and a per-thread cache on host back-ends.
struct MemoryPoolOptions {
  // A page (32 blocks, one bitset word) counts as full once this fraction of
  // its blocks is in use. In (0, 1].
  double page_full_fraction = 0.875;
  // The active superblock of a block size is swapped for a fresher one once
  // this fraction of its pages is full. In (0, 1].
  double superblock_full_fraction = 0.8;
  // Per-thread caches of free blocks in front of the bitsets. Only used when
  // the pool's execution space is a host space; kernels on a GPU always use
  // the bitsets. Turn off to measure or use the bitset path alone.
  bool thread_cache = true;
  // Bytes of free blocks one thread may keep per block size; block sizes
  // above this (or above 64 KiB) are never cached. At most 64 blocks per size.
  std::size_t thread_cache_bytes = std::size_t(32) << 10;
};

namespace detail::mempool {

inline constexpr std::uint32_t kMinBlockLg = 6;         // 64 bytes
inline constexpr std::uint32_t kMinSuperblockLg = 11;   // 2 KiB: one page of 64-byte blocks
inline constexpr std::uint32_t kMaxSuperblockLg = 31;   // 2 GiB
inline constexpr std::uint32_t kDefaultSuperblockLg = 20;
inline constexpr std::uint32_t kDefaultMaxBlockLg = 12;
inline constexpr std::uint32_t kCacheLine = 64;

// Superblock state word: [ unused:1 | size code:5 | reserved-block count:26 ].
// The size code is log2(block size) - 5 (1..26), or 0 for "empty, not
// assigned to any size". 26 bits count up to 2^25 blocks (a 2^31-byte
// superblock of 64-byte blocks) with room for transient overshoot.
inline constexpr std::uint32_t kCountBits = 26;
inline constexpr std::uint32_t kCountMask = (1u << kCountBits) - 1u;

struct Geometry {
  std::uint32_t min_lg = 0, max_lg = 0, sb_lg = 0;
  std::uint32_t sb_count = 0;
  std::uint32_t num_classes = 0;          // max_lg - min_lg + 1
  std::uint32_t bitset_words = 0;         // 32-bit words per superblock bitset
  std::uint32_t page_full_num = 0;        // page_full_fraction * 1024, rounded up
  std::uint32_t sb_full_num = 0;          // superblock_full_fraction * 1024, rounded up
  std::size_t sb_record_bytes = 0;        // header line + bitset, multiple of 64
  std::size_t class_offset = 0;           // byte offsets inside the metadata
  std::size_t sb_offset = 0;
  std::size_t meta_bytes = 0;             // multiple of 64
  std::size_t capacity_bytes = 0;         // sb_count << sb_lg
  std::size_t data_alignment = 0;         // 1 << max_lg, at least 64
  std::size_t chunk_bytes = 0;            // what is taken from the memory space
};

// Metadata layout (byte offsets; everything zero at construction):
//   0    u64 consumed superblocks, u64 high-water superblocks   (one line)
//   64   u64 failed allocations                                  (one line)
//   128  u64 bad deallocations                                   (one line)
//   192  per block size: u32 active superblock + 1 (0: none), u32 swap lock
//   ...  per superblock: u32 state, u32 full-page count (one line), then the bitset
inline constexpr std::size_t kConsumedOffset = 0;
inline constexpr std::size_t kHighWaterOffset = 8;
inline constexpr std::size_t kFailedOffset = 64;
inline constexpr std::size_t kBadDeallocOffset = 128;
inline constexpr std::size_t kClassOffset = 192;

// Resolves Kokkos-style constructor arguments (0 = default) into a geometry.
// Throws std::invalid_argument naming the parameter at fault and its allowed
// range. Rules: every size rounds up to a power of two; blocks are at least
// 64 bytes; the superblock is at least 2^11 and at most 2^31 bytes and holds
// at least one largest block; the default superblock is 2^20 bytes (smaller
// when the whole pool is smaller, larger when the largest block is).
Geometry resolve_geometry(std::size_t min_total_alloc_size, std::size_t min_block_alloc_size,
                          std::size_t max_block_alloc_size, std::size_t min_superblock_size,
                          const MemoryPoolOptions& options);

}  // namespace detail::mempool
}  // namespace tessera
