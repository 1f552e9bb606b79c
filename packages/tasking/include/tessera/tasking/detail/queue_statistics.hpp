#pragma once
// TaskQueueBase: counters and statistics. Workers count in their own
// WorkerState (no shared line on the hot path), host threads in atomics;
// the workers' counters are summed between waits.
#include <tessera/tasking/detail/task_queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

namespace tessera {
namespace detail::tasking {

inline void TaskQueueBase::count_spawn(WorkerState* w, bool aggregate) noexcept {
  if (w) ++(aggregate ? w->aggregates : w->spawned);
  else (aggregate ? m_host_aggregates : m_host_spawned).fetch_add(1, std::memory_order_relaxed);
}

inline void TaskQueueBase::count_failed_spawn() noexcept {
  if (WorkerState* w = local()) ++w->failed_spawns;
  else m_host_failed_spawns.fetch_add(1, std::memory_order_relaxed);
}

inline void TaskQueueBase::count_completed(WorkerState* w) noexcept {
  if (w) ++w->completed;
  else m_host_completed.fetch_add(1, std::memory_order_relaxed);
}

inline TaskStatistics TaskQueueBase::statistics() const {
  TaskStatistics s = m_totals;
  s.spawned += m_host_spawned.load(std::memory_order_relaxed);
  s.aggregates += m_host_aggregates.load(std::memory_order_relaxed);
  s.failed_spawns += m_host_failed_spawns.load(std::memory_order_relaxed);
  s.completed += m_host_completed.load(std::memory_order_relaxed);
  s.failed += m_host_failed.load(std::memory_order_relaxed);
  s.peak_ready = std::max<std::uint64_t>(s.peak_ready, m_host_peak.load(std::memory_order_relaxed));
  s.team_size = m_default_team_size;
  s.pool_capacity_bytes = pool_capacity();
  s.pool_block_bytes_max = pool_max_block();
  pool_usage(s.pool_high_water_bytes, s.pool_in_use_bytes);
  return s;
}

inline void TaskQueueBase::reset_statistics() {
  const std::uint64_t outstanding = incomplete();
  m_totals = TaskStatistics();
  m_host_spawned = 0;
  m_host_aggregates = 0;
  m_host_failed_spawns = 0;
  m_host_failed = 0;
  m_host_peak = 0;
  m_host_completed = 0;
  // Keep "created - completed" right for the cycle check of the next wait.
  m_totals.spawned = 0;
  m_outstanding_bias = outstanding;
}

inline std::uint64_t TaskQueueBase::incomplete() const {
  const TaskStatistics s = statistics();
  return m_outstanding_bias + s.spawned + s.aggregates - s.completed;
}

inline void TaskQueueBase::update_host_peak(std::uint64_t v) noexcept {
  std::uint64_t cur = m_host_peak.load(std::memory_order_relaxed);
  while (v > cur && !m_host_peak.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

inline void TaskQueueBase::collect_workers(int threads) {
  for (auto& wp : m_workers)
    if (!wp->parked.empty()) prune_parked(*wp);  // here on the host: frees count in m_live at once
  std::int64_t live = 0;
  std::uint64_t peak = 0;  // one thread: the worker's exact peak; several: the sum of each worker's
  for (auto& wp : m_workers) {
    WorkerState& w = *wp;
    m_totals.spawned += w.spawned;
    m_totals.executed += w.executed;
    m_totals.respawned += w.respawned;
    m_totals.failed_spawns += w.failed_spawns;
    m_totals.steals += w.steals;
    m_totals.aggregates += w.aggregates;
    m_totals.completed += w.completed;
    m_totals.failed += w.failed;
    peak += w.peak_ready;
    live += w.live_delta;
    w.spawned = w.executed = w.respawned = w.failed_spawns = w.steals = w.aggregates = w.completed = w.failed =
        w.peak_ready = 0;
    w.live_delta = 0;
    for (WorkDeque& d : w.deque) d.reclaim();  // no thief runs between waits
  }
  m_totals.peak_ready = std::max(m_totals.peak_ready, peak);
  m_totals.threads = threads;
  // The wait holds kWaitBias units, so this never reaches 0.
  if (live > 0) m_live.fetch_add(live, std::memory_order_relaxed);
  else if (live < 0) m_live.fetch_sub(-live, std::memory_order_relaxed);
}

}  // namespace detail::tasking
}  // namespace tessera
