#pragma once
// Delta-stepping's buckets on the host: one worker's bins (the vertices it
// queued, by bucket) and the rounds that drain every worker's, shared by the
// single-job delta_stepping_shortest_paths (sssp.hpp) and the fused
// shortest-path jobs (detail/jobs_sssp.hpp).
//
// Bucket k holds distances d with floor(d / delta) == k (bucket_index). A
// bin per bucket from 0 to the largest index reached was the first form,
// and a bucket width far below the distances (a caller's choice: the width
// changes only the speed) asked for 10^18 bins and threw bad_alloc. Here the
// bins cover a window of `window` buckets from `base` (shared by all the
// workers of a run), and a vertex queued for a later bucket goes to one
// unordered far list with the least bucket it was queued for. When every
// window is empty the run moves the windows to the least far bucket
// (rebase), and each far vertex is queued again for the bucket its distance
// is in now. With a width about the mean weight (the default) the window
// spans every distance and the far list stays empty; with a tiny width each
// rebase costs one pass over the far list.
//
// Entries may repeat and may be stale (their vertex has since reached a
// lower bucket, or settled): the caller skips them when it reads the
// vertex's distance, as gapbs's sssp does.
#include <tessera/core.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::graph::detail {

inline constexpr std::uint64_t no_bucket = std::numeric_limits<std::uint64_t>::max();

// floor(d * inv_delta), at most 2^62: distances beyond share the last
// bucket, which is settled last and, like any bucket, until no relaxation
// improves it, so the distances stay exact. Monotone in d, as the buckets'
// order needs; a NaN product (an infinite width times an infinite
// distance) lands in the last bucket too.
inline std::uint64_t bucket_index(double d, double inv_delta) {
  constexpr double last = 4611686018427387904.0;  // 2^62
  const double q = d * inv_delta;
  return q < last ? std::uint64_t(q) : std::uint64_t(last);
}

template <class V>
class bucket_bins {
 public:
  static constexpr std::uint64_t window = 1024;

  // Queues v for bucket k (k >= base: relaxing a vertex of the current
  // bucket never reaches a lower one).
  void push(V v, std::uint64_t k) {
    const std::uint64_t i = k - base_;
    if (i < window) {
      if (i >= near_.size()) near_.resize(std::size_t(i) + 1);
      near_[std::size_t(i)].push_back(v);
    } else {
      far_.push_back(v);
      far_lowest_ = std::min(far_lowest_, k);
    }
  }

  // The bin of bucket k (base <= k < base + window), to take or drain.
  std::vector<V>& bin(std::uint64_t k) {
    const std::size_t i = std::size_t(k - base_);
    if (i >= near_.size()) near_.resize(i + 1);
    return near_[i];
  }
  bool holds(std::uint64_t k) const {
    const std::uint64_t i = k - base_;
    return i < near_.size() && !near_[std::size_t(i)].empty();
  }

  // The least bucket >= k with a non-empty bin in the window, or no_bucket.
  std::uint64_t lowest_from(std::uint64_t k) const {
    for (std::uint64_t i = k - base_; i < near_.size(); ++i)
      if (!near_[std::size_t(i)].empty()) return base_ + i;
    return no_bucket;
  }
  // The least bucket a far vertex was queued for, or no_bucket.
  std::uint64_t far_lowest() const { return far_lowest_; }

  // Moves the window to start at new_base (every bin below it is empty:
  // those buckets are settled) and queues each far vertex again for
  // bucket_now(v), its bucket now, or drops it when that is below new_base
  // (settled since) or no_bucket (nothing left to relax there).
  template <class BucketNow>
  void rebase(std::uint64_t new_base, const BucketNow& bucket_now) {
    const std::uint64_t shift = new_base - base_;
    if (shift >= near_.size())
      near_.clear();
    else
      near_.erase(near_.begin(), near_.begin() + std::ptrdiff_t(shift));
    base_ = new_base;
    std::vector<V> far;
    far.swap(far_);
    far_lowest_ = no_bucket;
    for (const V v : far) {
      const std::uint64_t k = bucket_now(v);
      if (k != no_bucket && k >= new_base) push(v, k);
    }
  }

 private:
  std::uint64_t base_ = 0;
  std::vector<std::vector<V>> near_;  // near_[i]: bucket base_ + i
  std::vector<V> far_;
  std::uint64_t far_lowest_ = no_bucket;
};

// Delta-stepping's rounds on host workers over g's vertices, from those of
// bucket 0. A round relaxes the current bucket's frontier, chunks of it
// claimed by the workers in turn; relax(v, b, bins) relaxes v for bucket b,
// queueing what it improves in `bins` (the calling worker's), and skips a
// repeated or stale entry. A worker then drains its own bin of the current
// bucket while it is small, without waiting for the others (relaxations are
// monotone atomic minima: the order does not change the distances), and
// the next round takes the lowest non-empty bin of all workers, which
// become its frontier in place. When every window is empty the windows move
// to the lowest far bucket; bucket_now(v) is v's bucket then (no_bucket:
// nothing to relax). gapbs's sssp works the same way.
template <class G, class V, class Relax, class BucketNow>
void run_bucket_rounds(const G& g, std::vector<V> bucket0, const Relax& relax, const BucketNow& bucket_now) {
  using Exec = typename G::execution_space;
  const Exec exec;
  const int nw = exec.concurrency() > 0 ? exec.concurrency() : 1;
  std::vector<bucket_bins<V>> bins(static_cast<std::size_t>(nw));
  std::vector<std::vector<V>> frontier(static_cast<std::size_t>(nw));  // each worker's part
  std::vector<std::uint64_t> lowest(static_cast<std::size_t>(nw));     // each one's lowest bin
  frontier[0] = std::move(bucket0);
  // A larger bin of the current bucket waits for the next round, where all
  // workers share it.
  constexpr std::size_t drain_limit = 1000;
  // A round whose frontier is expected to hold fewer edges than this runs on
  // the calling thread (road-like graphs have thousands of small rounds).
  constexpr double inline_edges = 1024;
  const std::int64_t n = num_vertices(g);
  const double mean_degree = n > 0 ? double(2 * std::int64_t(num_edges(g))) / double(n) : 0.0;
  constexpr std::int64_t chunk = 64;
  std::uint64_t b = 0;
  for (;;) {
    std::vector<std::int64_t> start(static_cast<std::size_t>(nw) + 1, 0);
    for (int w = 0; w < nw; ++w)
      start[std::size_t(w) + 1] = start[std::size_t(w)] + std::int64_t(frontier[std::size_t(w)].size());
    const std::int64_t fsize = start.back();
    std::atomic<std::int64_t> next_chunk{0};
    auto work = [&](std::int64_t wi) {
      const int w = int(wi);
      auto& wb = bins[std::size_t(w)];
      std::size_t seg = 0;
      for (;;) {
        const std::int64_t c = next_chunk.fetch_add(chunk, std::memory_order_relaxed);
        if (c >= fsize) break;
        const std::int64_t e = c + chunk < fsize ? c + chunk : fsize;
        for (std::int64_t i = c; i < e; ++i) {
          while (start[seg + 1] <= i) ++seg;  // chunks are claimed in increasing order
          relax(frontier[seg][std::size_t(i - start[seg])], b, wb);
        }
      }
      std::vector<V> mine;
      while (wb.holds(b) && wb.bin(b).size() < drain_limit) {
        mine.clear();
        mine.swap(wb.bin(b));
        for (const V v : mine) relax(v, b, wb);
      }
      lowest[std::size_t(w)] = wb.lowest_from(b);
    };
    if (double(fsize) * mean_degree < inline_edges) {
      // Every worker's share on the calling thread, one after another.
      for (int w = 0; w < nw; ++w) work(w);
    } else {
      // One work item per worker, each on its own thread where the pool has
      // them (items on one thread are still correct: they share the chunks).
      tessera::parallel_for("graph::sssp::round", tessera::RangePolicy<Exec>(0, nw, 1), work);
    }
    // The next bucket: >= b (relaxing bucket b never reaches a lower one).
    std::uint64_t next = *std::min_element(lowest.begin(), lowest.end());
    if (next == no_bucket) {
      for (const auto& wb : bins) next = std::min(next, wb.far_lowest());
      if (next == no_bucket) return;
      for (auto& wb : bins) wb.rebase(next, bucket_now);
    }
    for (int w = 0; w < nw; ++w) {
      auto& wb = bins[std::size_t(w)];
      auto& f = frontier[std::size_t(w)];
      f.clear();
      if (wb.holds(next)) f.swap(wb.bin(next));
    }
    b = next;
  }
}

}  // namespace tessera::graph::detail
