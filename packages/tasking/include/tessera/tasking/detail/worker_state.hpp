#pragma once
// What each worker of the host driver owns during a wait (its counters,
// deques, record cache, parked tasks, team-leading state), the thread's
// WorkerContext and the injection stacks (the worker loop's test points:
// test_points.hpp).
#include <tessera/core.hpp>
#include <tessera/core/detail/host_team.hpp>
#include <tessera/tasking/detail/lead_doorbell.hpp>
#include <tessera/tasking/detail/task_record.hpp>
#include <tessera/tasking/detail/test_points.hpp>
#include <tessera/tasking/detail/work_deque.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera {
namespace detail::tasking {

class TaskQueueBase;

struct WorkerState;
struct WorkerContext {
  TaskQueueBase* queue = nullptr;  // the queue whose DAG this thread is running
  WorkerState* state = nullptr;    // its counters and caches there
  int worker = 0;                  // its worker index there
  int nthreads = 1;                // threads running that DAG
  int team_rank = 0;               // rank in the current task's team
  int depth = 0;                   // tasks run inline inside a spawn (one-thread runs)
  TaskBase* current = nullptr;     // task whose functor is running on this thread
  void* solo_member = nullptr;     // member_type of a one-thread team, for TaskSingle
};
inline thread_local WorkerContext t_worker;

struct alignas(64) ReadyQueues {
  std::atomic<TaskBase*> head[kPriorities] = {};
};

// Record sizes up to 2^(kRecordCacheClasses - 1) bytes are cached per worker.
inline constexpr int kRecordCacheClasses = 17;
inline constexpr std::size_t kRecordCacheBytes = std::size_t(32) << 10;

// ceil(log2(bytes)) for bytes >= 1: two requests with the same value get
// the same pool block size.
inline int record_class(std::size_t bytes) noexcept { return bytes <= 1 ? 0 : int(std::bit_width(bytes - 1)); }
// Records taken from or returned to the pool at once by a worker's cache:
// one bitset word of the pool serves 32 blocks.
inline constexpr std::uint32_t kRecordBatch = 32;
// Records a worker keeps per class: kRecordCacheBytes' worth, at least 4.
inline constexpr auto kRecordCacheLimit = [] {
  std::array<std::uint32_t, kRecordCacheClasses> n{};
  for (int c = 0; c < kRecordCacheClasses; ++c) n[std::size_t(c)] = std::max<std::uint32_t>(4, std::uint32_t(kRecordCacheBytes >> c));
  return n;
}();

struct alignas(64) WorkerState {
  // Written only by the owning worker during a wait; summed afterwards.
  std::uint64_t spawned = 0, executed = 0, respawned = 0, failed_spawns = 0, steals = 0, aggregates = 0,
                completed = 0, failed = 0, peak_ready = 0;
  std::int64_t live_delta = 0;  // records allocated minus freed
  // A worker running the DAG alone keeps the tasks it makes ready in these
  // plain LIFO lists (one per priority): nobody else pops them, so no atomic
  // operation is needed. Host threads still push onto the shared heads
  // (counted in m_active). own_active: tasks in these lists plus tasks
  // taken from them and running.
  TaskBase* own[kPriorities] = {};
  std::uint64_t own_active = 0;
  // With several threads: the tasks this worker made ready, one
  // work-stealing deque per priority (work_deque.hpp). Host threads' tasks
  // go to the queue's injection stacks instead (a deque has one pusher).
  WorkDeque deque[kPriorities];
  // Tasks this worker saw respawn on an incomplete dependence (each holds a
  // reference; see "dependence cycles" above). Pruned of completed tasks
  // when it reaches prune_parked_at and whenever the worker goes idle.
  std::vector<TaskBase*> parked;
  // This worker's injection stacks (set when it starts a wait).
  ReadyQueues* inject = nullptr;
  std::size_t prune_parked_at = 64;
  // Freed records kept for reuse by this worker, by ceil(log2(bytes)): a
  // pool block serves every request of the same rounded size, so a record
  // freed here is handed to the next spawn of that size without the pool's
  // bookkeeping (locating the block, its bitset or thread-cache handshake).
  // Linked through their first word. An empty class refills with a batch
  // from the pool and a class over its bound (kRecordCacheBytes) gives a
  // batch back (MemoryPool::allocate_batch / deallocate_batch: one bitset
  // word a batch instead of a pool call a record). Returned to the pool
  // whenever the worker finds no work, when an allocation fails and when
  // the wait ends, so the pool's statistics between waits count only live
  // records.
  void* cached[kRecordCacheClasses] = {};
  std::uint32_t cached_count[kRecordCacheClasses] = {};
  // Tasks in this worker's deques (owner only): at most that many (reads
  // no shared line), and the count as of now (reads `top`).
  std::int64_t ready_estimate() const noexcept {
    return deque[0].size_estimate() + deque[1].size_estimate() + deque[2].size_estimate();
  }
  std::int64_t ready_count() noexcept { return deque[0].size() + deque[1].size() + deque[2].size(); }
  bool has_cached() const noexcept {
    for (std::uint32_t n : cached_count)
      if (n != 0) return true;
    return false;
  }
  // Team leading: the task and team context members read after joining.
  TaskBase* team_task = nullptr;
  std::unique_ptr<HostTeamShared> team;
  // A team task that runs on this worker alone (a team of one).
  std::unique_ptr<HostTeamShared> solo_team;
  // Level-0 scratch of the team tasks this worker leads (or runs alone). A
  // worker leads one team at a time and its members join only that team,
  // so one buffer per worker keeps concurrent teams apart. Kept across
  // waits; 64-byte aligned so that a team's first scratch View starts on a
  // cache line of its own.
  char* team_scratch(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if (scratch_bytes < bytes) {
      scratch_store.reset(new char[bytes + 63]);
      scratch_bytes = bytes;
    }
    const auto p = reinterpret_cast<std::uintptr_t>(scratch_store.get());
    return reinterpret_cast<char*>((p + 63) / 64 * 64);
  }
  std::unique_ptr<char[]> scratch_store;
  std::size_t scratch_bytes = 0;
  // Members of the team this worker leads that have not yet returned from
  // the task; each rings the doorbell as it joins and as it leaves.
  alignas(64) std::atomic<int> members_out{0};
  LeadDoorbell doorbell;
};

}  // namespace detail::tasking
}  // namespace tessera
