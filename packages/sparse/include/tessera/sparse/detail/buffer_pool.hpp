#pragma once
// The update-matrix buffers of the factorizations of one analysis, carved
// from a few large blocks of memory (an arena) that are kept from one
// factorization to the next.
//
// Why keep them: a fresh large allocation arrives from the system as
// untouched pages, and touching them costs a page fault per 4 KiB; on a
// 3-D problem that is a large share of a refactorization's time (measured
// in the sparse manual, "Memory"). Why an arena and not a pool of buffers
// by size: the update matrices come in every size, and a pool that keeps
// buffers by size either rounds them up (powers of two held twice the peak
// use on a 3-D Laplacian) or must go back to the system whenever the sizes
// it keeps do not fit the next request (a pool held to the peak use
// allocated two thirds of a refactorization's bytes fresh). In an arena a
// freed buffer's memory serves any later request that fits in it, with its
// free neighbours joined to it, so refactorizations touch no fresh page and
// the memory held stays close to the peak use.
//
// Placement: best fit (the smallest free block that holds the request, the
// lowest address among equals), freed blocks joined with free neighbours.
// Memory never written is not memory held (the system maps a page when it
// is first touched), so an arena is allocated generously (reserve()) and
// what the pool holds is, per arena, the highest offset ever handed out:
// its touched part. The peak (peak_bytes) is the most of touched arena
// plus live small buffers at any time. A postorder run of the 3-D
// Laplacian on 30^3 and 45^3 grids touches 1.27 times its peak live update
// bytes (the free blocks between live ones; 1.8 on a 16^3 grid), and the
// same run again touches nothing more. A run that outgrows the arena gets
// another (a quarter of what there is, or the request); between
// factorizations consolidate() makes them one, so that the next run is
// placed in one free block as the first was.
//
// Requests under 64 KiB go straight to new/delete (the allocator's free
// lists serve them without fresh pages) and are counted while live.
// Arena blocks are rounded up to 64 bytes (cache lines, for the BLAS).
// Thread-safe (one mutex: acquisitions are per front, not per entry).
#include <tessera/sparse/detail/host_array.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tessera::sparse::detail {

class BufferPool {
 public:
  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // At least `count` doubles, uninitialized.
  double* acquire(std::size_t count) {
    if (count < kPooled) {
      double* p = new double[count];
      std::lock_guard<std::mutex> lock(m_mutex);
      m_small_live += count;
      note_peak();
      return p;
    }
    const std::size_t n = rounded(count);
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_free_by_size.lower_bound({n, 0, 0});
    if (it == m_free_by_size.end()) {
      add_arena(n);
      it = m_free_by_size.lower_bound({n, 0, 0});
    }
    const auto [size, a, offset] = *it;
    m_free_by_size.erase(it);
    m_free_at.erase({a, offset});
    if (size > n) add_free(a, offset + n, size - n);
    Arena& arena = m_arenas[a];
    if (offset + n > arena.touched) {
      m_touched += offset + n - arena.touched;
      arena.touched = offset + n;
    }
    double* p = arena.memory.get() + offset;
    m_live.emplace(p, Block{a, offset, n});
    m_large_live += n;
    note_peak();
    return p;
  }
  // Gives back a buffer acquired with the same count.
  void release(double* p, std::size_t count) {
    if (p == nullptr) return;
    if (count < kPooled) {
      delete[] p;
      std::lock_guard<std::mutex> lock(m_mutex);
      m_small_live -= count;
      return;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    auto live = m_live.find(p);
    Block b = live->second;
    m_live.erase(live);
    m_large_live -= b.size;
    // Join with the free neighbours.
    auto next = m_free_at.find({b.arena, b.offset + b.size});
    if (next != m_free_at.end()) {
      b.size += next->second;
      remove_free(next);
    }
    auto prev = m_free_at.lower_bound({b.arena, b.offset});
    if (prev != m_free_at.begin()) {
      --prev;
      if (prev->first.first == b.arena && prev->first.second + prev->second == b.offset) {
        b.offset = prev->first.second;
        b.size += prev->second;
        remove_free(prev);
      }
    }
    add_free(b.arena, b.offset, b.size);
  }
  // The size (doubles) of the first arena: the memory a factorization is
  // expected to need at most (untouched, it costs nothing).
  void reserve(std::size_t count) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_reserve = rounded(count);
  }
  // Between factorizations (nothing live): several arenas become one of
  // their total size, so that the next factorization places its buffers in
  // one free block again (a factorization that outgrew the first arena
  // would otherwise spread over all of them and touch more of each).
  void consolidate() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_arenas.size() <= 1 || !m_live.empty()) return;
    std::size_t total = 0;
    for (const Arena& a : m_arenas) total += a.size;
    m_arenas.clear();
    m_free_by_size.clear();
    m_free_at.clear();
    m_touched = 0;
    m_reserve = total;
  }
  // Frees the arenas (nothing may be live: a new analysis, other sizes).
  void clear() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_arenas.clear();
    m_free_by_size.clear();
    m_free_at.clear();
    m_live.clear();
    m_large_live = 0;
    m_touched = 0;
    m_peak = m_small_live * sizeof(double);
  }

  // Bytes: held (the arenas' touched part and the live small buffers);
  // live (handed out, not given back); the most held since reset_peak().
  // Arenas: how many there are now, and how many were ever allocated
  // (fresh memory from the system).
  std::size_t held_bytes() const { return locked([this] { return (m_touched + m_small_live) * sizeof(double); }); }
  std::size_t live_bytes() const { return locked([this] { return (m_large_live + m_small_live) * sizeof(double); }); }
  std::size_t peak_bytes() const { return locked([this] { return m_peak; }); }
  std::size_t arenas() const { return locked([this] { return m_arenas.size(); }); }
  std::size_t arena_allocations() const { return locked([this] { return m_allocations; }); }
  // Starts a new peak from what the pool holds now (a factorization begins).
  void reset_peak() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_peak = (m_touched + m_small_live) * sizeof(double);
  }

 private:
  static constexpr std::size_t kPooled = (std::size_t(64) << 10) / sizeof(double);
  static std::size_t rounded(std::size_t count) { return (count + 7) / 8 * 8; }

  struct Arena {
    host_array<double> memory;  // huge pages for a first touch at one fault per 2 MiB (host_array.hpp)
    std::size_t size = 0, touched = 0;  // doubles; touched: the highest offset handed out
  };
  struct Block {
    std::size_t arena, offset, size;
  };
  using FreeAt = std::map<std::pair<std::size_t, std::size_t>, std::size_t>;  // (arena, offset) -> size

  void add_free(std::size_t a, std::size_t offset, std::size_t size) {
    m_free_at.emplace(std::make_pair(a, offset), size);
    m_free_by_size.emplace(size, a, offset);
  }
  void remove_free(FreeAt::iterator it) {
    m_free_by_size.erase({it->second, it->first.first, it->first.second});
    m_free_at.erase(it);
  }
  // A new arena that holds at least n: the reserved size first, then a
  // quarter of what is there (few arenas, little untouched excess).
  void add_arena(std::size_t n) {
    std::size_t total = 0;
    for (const Arena& a : m_arenas) total += a.size;
    std::size_t size = std::max(n, m_arenas.empty() ? m_reserve : rounded(total / 4));
    host_array<double> memory;
    try {
      memory = make_host_array<double>(size);
    } catch (const std::bad_alloc&) {  // the system refuses the excess: just the request
      size = n;
      memory = make_host_array<double>(size);
    }
    m_arenas.push_back({std::move(memory), size, 0});
    ++m_allocations;
    add_free(m_arenas.size() - 1, 0, size);
  }
  void note_peak() { m_peak = std::max(m_peak, (m_touched + m_small_live) * sizeof(double)); }
  template <class F>
  std::size_t locked(F f) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return f();
  }

  mutable std::mutex m_mutex;
  std::vector<Arena> m_arenas;
  FreeAt m_free_at;
  std::set<std::tuple<std::size_t, std::size_t, std::size_t>> m_free_by_size;  // (size, arena, offset)
  std::unordered_map<double*, Block> m_live;
  std::size_t m_reserve = 0, m_large_live = 0, m_small_live = 0, m_touched = 0;  // doubles
  std::size_t m_peak = 0;                                                         // bytes
  std::size_t m_allocations = 0;
};

}  // namespace tessera::sparse::detail
