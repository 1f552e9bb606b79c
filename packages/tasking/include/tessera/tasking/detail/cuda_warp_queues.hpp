#pragma once
// A CUDA driver warp's ready queues, and what its lane 0 does with them
// between batches: move the inbox onto the deques, take the next batch, and,
// when idle, look whether another warp has work to take.
//
// Each warp owns six deques (three priorities, single and team tasks), an
// inbox onto which its lanes push what they made ready during a batch (only
// lane 0 may push onto the deques: they have one owner), and the state of
// its victim choice. What the deques cannot hold goes to the two global
// overflow stacks (single, team).
//
// These are templates over the record and the driver's state, host-device
// functions over the queues of cuda_deque.hpp, so that a host test
// (tests/test_task_cuda_termination_concurrency.cpp, defining
// TESSERA_CUDA_QUEUES_ON_HOST) runs the driver's own work taking and
// termination on threads under ThreadSanitizer. The state needs `warps`,
// `nwarps`, `busy`, `keep_while_idle`, `keep_team_while_idle`, `overflow[2]`
// and `counters[w].steals`; a record `next`, `dep`, `kind` and `priority`.
// The driver uses them with CudaQueueState and CudaTaskRecord.
#include <tessera/core/macros.hpp>
#include <tessera/tasking/detail/cuda_deque.hpp>
#include <tessera/tasking/detail/task_record.hpp>

#if defined(__CUDACC__) || defined(TESSERA_CUDA_QUEUES_ON_HOST)

namespace tessera::detail::tasking {

inline constexpr int kCudaPriorities = 3;
// Deques per warp: three priorities of single tasks, then three of team tasks.
inline constexpr int kCudaDequesPerWarp = 2 * kCudaPriorities;
inline constexpr int kCudaOverflowChain = 32;  // single tasks per overflow-stack entry: one batch
// Ready single tasks a warp keeps on one of its deques while some warp is
// idle, by default: two batches (the one it takes next, and one to spare).
// The rest of what its lanes made ready is shared through the overflow stack
// (see cuda_drain_inbox). The driver state's `keep_while_idle` holds the
// value in use (a benchmark sets it beyond any deque to time the driver
// without sharing).
inline constexpr long long kCudaKeepWhileOthersIdle = 2 * kCudaOverflowChain;
// Ready team tasks a warp keeps on one of its team deques while some warp is
// idle: the one it runs next (a warp runs one team task at a time, so a
// second kept one only waits). `keep_team_while_idle` holds the value in use.
inline constexpr long long kCudaKeepTeamWhileOthersIdle = 1;

template <class Record>
struct CudaWarpStateOf {
  CudaDequeOf<Record> deques[kCudaDequesPerWarp];
  Record* inbox;  // ready tasks made by the lanes during a batch (see cuda_task_queue.hpp)
  unsigned int rng;
};

TESSERA_INLINE_FUNCTION unsigned cuda_next_random(unsigned& x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

// Lane 0, after a batch: the inbox onto the deques by kind and priority.
// What a warp's single-task deques cannot hold goes to the overflow stack in
// chains of up to 32 records, so that another warp takes a whole batch with
// one pop instead of one record per CAS on a stack that every idle warp
// polls (one spawner of 10^5 tasks: 1.07 tasks per pop on an H200 before).
// So does what passes kCudaKeepWhileOthersIdle on a deque while some warp is
// idle (the busy count below the warps): an idle warp looks at the overflow
// stacks first (cuda_work_visible), so shared work is found with one load
// and taken 32 at a time, where a deque's surplus could only be found by
// probing random warps and stolen one task per CAS. On an H200 the tiled
// Cholesky DAG, whose completions make work ready on few warps, ran at
// 2.7 us per task with or without its tile arithmetic (2026-11-30). While
// every warp is busy nothing is shared. A chain is linked through `dep`,
// which no ready record uses.
//
// Team tasks are shared the same way past kCudaKeepTeamWhileOthersIdle,
// since a warp runs them one at a time: a completed POTRF tile makes its
// column's TRSMs ready on one warp, which would otherwise run them one after
// another while the others look for them by random probes (two warps of
// 1,584 per idle step). They go to the team overflow stack one record per
// entry (an idle warp takes one), all of a drain's in one CAS.
template <class State, class Warp>
TESSERA_INLINE_FUNCTION void cuda_drain_inbox(State* s, Warp& me) {
  using RecordPtr = decltype(me.inbox);
  RecordPtr r = cuda_device_ref<RecordPtr>(me.inbox).exchange(nullptr, ::cuda::std::memory_order_acquire);
  if (r == nullptr) return;
  // A hint: a warp that goes idle just after this read finds what was shared
  // on its next poll, and a stale "all busy" only keeps tasks local.
  const bool others_idle =
      cuda_device_ref<long long>(s->busy).load(::cuda::std::memory_order_relaxed) < (long long)s->nwarps;
  RecordPtr chain = nullptr;  // single tasks for overflow[0], through `dep`
  int chained = 0;
  RecordPtr teams = nullptr, teams_last = nullptr;  // team tasks for overflow[1], through `next`
  while (r != nullptr) {
    RecordPtr next = r->next;
    const int team = r->kind == std::uint8_t(TaskKind::Team) ? 1 : 0;
    const int p = r->priority < kCudaPriorities ? r->priority : kCudaPriorities - 1;
    auto& deque = me.deques[team * kCudaPriorities + p];
    const long long keep = team ? s->keep_team_while_idle : s->keep_while_idle;
    const bool share = others_idle && deque.approx_size() >= keep;
    if (share || !deque.push(r)) {
      if (team) {
        // A record from the inbox may still be read by an overflow pop that
        // saw it in an earlier life (its CAS then fails on the tag): the
        // link is written atomically, as push_list writes the last one.
        cuda_device_ref<RecordPtr>(r->next).store(teams, ::cuda::std::memory_order_relaxed);
        if (teams == nullptr) teams_last = r;
        teams = r;
      } else {
        r->dep = chain;
        chain = r;
        if (++chained == kCudaOverflowChain) {
          s->overflow[0].push(chain);
          chain = nullptr;
          chained = 0;
        }
      }
    }
    r = next;
  }
  if (chain != nullptr) s->overflow[0].push(chain);
  if (teams != nullptr) s->overflow[1].push_list(teams, teams_last);
}

// Lane 0 of a busy warp: fills out[] with up to 32 single tasks, or one team
// task (*team = 1): its own deques by priority, then the overflow stacks,
// then one task stolen from the top of a random other warp's deques. Zero
// means none was found, which the termination count relies on only for the
// warp's own deques (see cuda_termination.hpp): the overflow pops and the
// steals may lose races.
template <class State, class Warp, class Record>
TESSERA_INLINE_FUNCTION int cuda_take_work(State* s, int wid, Warp& me, Record** out, int* team) {
  *team = 0;
  for (int p = 0; p < kCudaPriorities; ++p) {
    if (int n = me.deques[p].pop_batch(out, 32)) return n;
    if (me.deques[kCudaPriorities + p].pop_batch(out, 1)) {
      *team = 1;
      return 1;
    }
  }
  if (Record* r = s->overflow[0].pop(4)) {  // a chain of single tasks (see cuda_drain_inbox)
    int n = 0;
    while (r != nullptr) {
      Record* next = r->dep;
      r->dep = nullptr;
      out[n++] = r;
      r = next;
    }
    return n;
  }
  if (Record* r = s->overflow[1].pop(4)) {
    out[0] = r;
    *team = 1;
    return 1;
  }
  if (s->nwarps > 1) {
    for (int tries = 0; tries < 4; ++tries) {
      int v = int(cuda_next_random(me.rng) % unsigned(s->nwarps - 1));
      if (v >= wid) ++v;
      auto& victim = s->warps[v];
      for (int d = 0; d < kCudaDequesPerWarp; ++d) {
        const int p = d >> 1, k = d & 1;  // High single, High team, Regular single, ...
        if (Record* r = victim.deques[k * kCudaPriorities + p].steal()) {
          out[0] = r;
          *team = k;
          cuda_device_ref<unsigned long long>(s->counters[wid].steals)
              .fetch_add(1ull, ::cuda::std::memory_order_relaxed);
          return 1;
        }
      }
    }
  }
  return 0;
}

// Lane 0, at the top of the driver's loop: the inbox onto the deques, then,
// if the warp is counted busy, the next batch. An idle warp takes nothing
// before it has counted itself busy again (cuda_termination.hpp).
template <class State, class Warp, class Record>
TESSERA_INLINE_FUNCTION int cuda_next_batch(State* s, int wid, Warp& me, bool busy, Record** out, int* team) {
  cuda_drain_inbox(s, me);
  *team = 0;
  return busy ? cuda_take_work(s, wid, me, out, team) : 0;
}

// Lane 0 of an idle warp: whether some queue seems to hold a task.
template <class State, class Warp>
TESSERA_INLINE_FUNCTION bool cuda_work_visible(State* s, int wid, Warp& me) {
  if (!s->overflow[0].empty() || !s->overflow[1].empty()) return true;
  if (s->nwarps < 2) return false;
  for (int tries = 0; tries < 2; ++tries) {
    int v = int(cuda_next_random(me.rng) % unsigned(s->nwarps - 1));
    if (v >= wid) ++v;
    for (int d = 0; d < kCudaDequesPerWarp; ++d)
      if (s->warps[v].deques[d].approx_size() > 0) return true;
  }
  return false;
}

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__ || TESSERA_CUDA_QUEUES_ON_HOST
