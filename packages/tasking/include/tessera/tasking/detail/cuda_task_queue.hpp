#pragma once
// The CUDA driver's shared state in device memory, and what device code does
// with records: allocation from the CudaSpace MemoryPool, reference counts,
// dependences, completion, when_all nodes, ready pushes and failures. The
// protocol is the host one (task_record.hpp, queue_dependences.hpp); what
// differs is where a ready task goes and how failures travel.
//
//  * Ready pushes: lanes of a warp run up to 32 tasks at once, while only
//    lane 0 may push onto the warp's deques (they have a single owner). A
//    lane that makes a task ready (a spawn, a completion waking waiters, a
//    respawn) pushes it onto its warp's inbox, a lock-free stack of records
//    (a CAS among the warp's lanes only: lock-free, no lane waits for
//    another); after the batch, lane 0 moves the inbox onto the deques by
//    priority and kind, and onto the global overflow stack when a deque is
//    full.
//  * Failures: the first failure (task_fail, a task too large for the pool,
//    a bad respawn, a record of another module, the watchdog, a dependence
//    cycle found at the end) takes the error slot with one CAS, writes its
//    message and sets `cancel`: from then on every task taken from a queue
//    completes as failed without running, which wakes its waiters, so the
//    DAG drains and the wait ends; the host throws the message.
//  * Counters are per warp (spawned, completed, failed spawns), summed by the
//    host after the wait; `progress` is the one shared counter, advanced once
//    per batch, which the watchdog reads.
#include <tessera/mempool.hpp>
#include <tessera/tasking/detail/cuda_deque.hpp>
#include <tessera/tasking/detail/cuda_task_record.hpp>
#include <tessera/tasking/detail/cuda_termination.hpp>
#include <tessera/tasking/detail/cuda_warp_queues.hpp>

#include <cstdint>

#if defined(__CUDACC__)

namespace tessera::detail::tasking {

enum class CudaError : int {
  None = 0,
  TaskFail = 1,          // tessera::task_fail
  TaskTooLarge = 2,      // a record larger than the pool's largest block
  Stalled = 3,           // the watchdog: no task completed for stall_ns
  Cycle = 4,             // tasks left waiting when nothing could run
  ForeignModule = 5,     // a record made by another translation unit's code
  WhenAllTooLarge = 6,   // the pool's largest block holds no when_all node of two inputs
  BadRespawn = 7,        // respawn on itself, or from outside the running task
  BadTeamSize = 8,       // set_team_size in device code: not a power of two up to 32, or on a TaskSingle
  BadSpawnFor = 9,       // task_spawn_for in device code: a negative count or grain
};

using CudaPool = MemoryPool<Device<Cuda, CudaSpace>>;

struct CudaWarpCounters {
  unsigned long long spawned;       // tasks and when_all nodes made by this warp's lanes
  unsigned long long completed;     // tasks and nodes completed by them
  unsigned long long failed_spawns; // spawns and when_alls that found the pool full
  unsigned long long batches;       // pops that ran tasks
  unsigned long long lanes_used;    // tasks run, summed over batches (lanes_used / batches: the batch width)
  unsigned long long steals;
  // Lane 0's SM cycles (clock64; wrapping differences: each is decremented
  // at the start of its span and incremented at its end, so that no
  // timestamp stays live in a register across the loop): the whole loop,
  // taking work (cuda_next_batch) and running batches. Read by the host as
  // fractions (TaskWaitProfile), never as times: cycles of one SM.
  unsigned long long cycles_loop;
  unsigned long long cycles_taking;
  unsigned long long cycles_running;
  unsigned long long idle_steps;
};

using CudaWarpState = CudaWarpStateOf<CudaTaskRecord>;  // deques, inbox (see above), victim choice

struct CudaQueueState {
  // A bitwise copy of the host's pool handle (never destroyed on the device).
  alignas(CudaPool) unsigned char pool_bytes[sizeof(CudaPool)];
  CudaWarpState* warps;
  CudaWarpCounters* counters;
  int nwarps;
  int pad0;
  alignas(64) long long busy;  // busy warps; kCudaClosed once the wait is over (cuda_termination.hpp)
  long long keep_while_idle;   // ready single tasks a deque keeps while a warp is idle (cuda_drain_inbox)
  long long keep_team_while_idle;  // ready team tasks a team deque keeps then
  alignas(64) unsigned long long progress;  // tasks completed, advanced per batch (the watchdog's clock)
  alignas(64) int cancel;
  int error_state;  // 0 none, 1 being written, 2 written
  int error_kind;   // CudaError
  int name_written;
  CudaTaskRecord* error_task;
  long long error_value;  // a number for the message (bytes, count, ...)
  char error_message[192];
  char error_name[320];
  CudaOverflowStack overflow[2];  // single, team
  unsigned long long stall_ns;
  // The host arena: records of host_spawn and host when_all, uploaded at wait.
  char* arena_base;
  char* arena_end;
  alignas(64) long long arena_live;  // arena records not yet freed
  // What the host staged for this wait: records to schedule in creation order,
  // and reference-count deltas of host futures made and dropped since.
  CudaTaskRecord** staged;
  long long nstaged;
  CudaTaskRecord** delta_records;
  int* delta_values;
  long long ndeltas;
  void* host_queue;  // the host object, for futures made on the device
  const void* module;  // the marker of the module running the driver
  int default_team_size;
  // Level-0 scratch of a team task: each warp's slice of the block's
  // dynamic shared memory, bytes (a multiple of 16; 0: none), and the size
  // asked for, which the task's scratch handle reports (as on the host).
  unsigned team_scratch_bytes;
  unsigned team_scratch_asked;

  __device__ const CudaPool& pool() const { return *reinterpret_cast<const CudaPool*>(pool_bytes); }
};

// ---- device operations ---------------------------------------------------------

__device__ inline int cuda_lane() { return int(threadIdx.x & 31u); }
__device__ inline int cuda_warp_index() { return int((blockIdx.x * blockDim.x + threadIdx.x) >> 5); }
__device__ inline unsigned long long cuda_now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <class T>
__device__ inline void cuda_add(T& counter, T v) {
  cuda_device_ref<T>(counter).fetch_add(v, ::cuda::std::memory_order_relaxed);
}

__device__ inline void cuda_copy_text(char* dst, int cap, const char* src) {
  int i = 0;
  if (src)
    for (; i < cap - 1 && src[i] != '\0'; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

// Records the first failure and cancels the rest of the DAG. True when this
// call's failure is the one reported.
__device__ inline bool cuda_record_error(CudaQueueState* s, CudaError kind, const char* message, CudaTaskRecord* task,
                                         long long value = 0) {
  int expected = 0;
  const bool first = cuda_device_ref<int>(s->error_state).compare_exchange_strong(
      expected, 1, ::cuda::std::memory_order_acq_rel, ::cuda::std::memory_order_relaxed);
  if (first) {
    s->error_kind = int(kind);
    s->error_task = task;
    s->error_value = value;
    cuda_copy_text(s->error_message, int(sizeof(s->error_message)), message);
    cuda_device_ref<int>(s->error_state).store(2, ::cuda::std::memory_order_release);
  }
  cuda_device_ref<int>(s->cancel).store(1, ::cuda::std::memory_order_release);
  return first;
}
// After a task's functor returned: its type name, when it is the task that failed first.
__device__ inline void cuda_record_error_name(CudaQueueState* s, CudaTaskRecord* task, const char* name) {
  if (cuda_device_ref<int>(s->error_state).load(::cuda::std::memory_order_acquire) == 2 && s->error_task == task &&
      s->name_written == 0) {
    s->name_written = 1;
    cuda_copy_text(s->error_name, int(sizeof(s->error_name)), name);
  }
}
__device__ inline bool cuda_cancelling(const CudaQueueState* s) {
  return cuda_device_ref<int>(const_cast<int&>(s->cancel)).load(::cuda::std::memory_order_relaxed) != 0;
}

__device__ inline void cuda_retain(CudaTaskRecord* r) {
  if (r) cuda_device_ref<std::int32_t>(r->refs).fetch_add(1, ::cuda::std::memory_order_relaxed);
}
__device__ __forceinline__ void cuda_release(CudaQueueState* s, CudaTaskRecord* r);

// Freeing is recursive (a when_all node releases its inputs) and rare per
// release, so it is the one call made out of line, and the reference-count
// drop before it is inlined everywhere. The compiler's own choice, once
// allocation went out of line (c52c3da), made cuda_release the out-of-line
// call instead: the driver kernel then spilled 60 bytes around it on every
// completion (80 registers, 136-byte stack), and task frames grew (Fib 696
// bytes, when_all_tree 280). This way, sm_90: the driver 168 registers,
// 88-byte stack, no spills; Fib 440, when_all_tree 40
// (tasking_cuda_driver_resources checks the driver).
__device__ __noinline__ inline void cuda_free_record(CudaQueueState* s, CudaTaskRecord* r) {
  if (r->is_aggregate())
    for (std::uint32_t i = 0; i < r->count; ++i) cuda_release(s, r->deps()[i]);
  if (r->alloc_bytes == 0) cuda_add(s->arena_live, -1ll);
  else s->pool().deallocate(r, r->alloc_bytes);
}

// The last reference went: free a complete record, or leave the ORPHANED
// marker for its completion to free it (no waiter can exist: waiters hold
// references).
__device__ __forceinline__ void cuda_last_reference_gone(CudaQueueState* s, CudaTaskRecord* r) {
  CudaTaskRecord* expected = nullptr;
  if (cuda_device_ref<CudaTaskRecord*>(r->wait_head)
          .compare_exchange_strong(expected, cuda_orphan_marker(), ::cuda::std::memory_order_acq_rel,
                                   ::cuda::std::memory_order_acquire))
    return;
  cuda_free_record(s, r);  // expected is the CLOSED marker
}

__device__ __forceinline__ void cuda_release(CudaQueueState* s, CudaTaskRecord* r) {
  if (r == nullptr) return;
  if (cuda_device_ref<std::int32_t>(r->refs).fetch_sub(1, ::cuda::std::memory_order_acq_rel) == 1)
    cuda_last_reference_gone(s, r);
}
// Applies n (of either sign) to the count, as a host future's copies did
// between waits.
__device__ inline void cuda_apply_delta(CudaQueueState* s, CudaTaskRecord* r, int n) {
  if (n == 0) return;
  if (cuda_device_ref<std::int32_t>(r->refs).fetch_add(n, ::cuda::std::memory_order_acq_rel) + n == 0)
    cuda_last_reference_gone(s, r);
}

__device__ inline void cuda_push_ready(CudaQueueState* s, CudaTaskRecord* r) {
  cuda_device_ref<CudaTaskRecord*> inbox(s->warps[cuda_warp_index()].inbox);
  CudaTaskRecord* h = inbox.load(::cuda::std::memory_order_relaxed);
  do {
    r->next = h;
  } while (!inbox.compare_exchange_weak(h, r, ::cuda::std::memory_order_release, ::cuda::std::memory_order_relaxed));
}

// Makes t ready, or queues it on its incomplete dependence.
__device__ inline void cuda_schedule(CudaQueueState* s, CudaTaskRecord* t) {
  CudaTaskRecord* d = t->dep;
  if (d != nullptr) {
    cuda_device_ref<CudaTaskRecord*> head(d->wait_head);
    CudaTaskRecord* h = head.load(::cuda::std::memory_order_acquire);
    while (h != cuda_closed_marker()) {
      t->next = h;
      if (head.compare_exchange_weak(h, t, ::cuda::std::memory_order_acq_rel, ::cuda::std::memory_order_acquire))
        return;
    }
    t->dep = nullptr;
    cuda_release(s, d);
  }
  cuda_push_ready(s, t);
}

// A when_all node's inputs: it waits on the next incomplete one (true), or
// none is left (false: the node is complete).
__device__ inline bool cuda_aggregate_waits(CudaQueueState*, CudaTaskRecord* a) {
  while (a->next_dep < a->count) {
    CudaTaskRecord* d = a->deps()[a->next_dep];
    cuda_device_ref<CudaTaskRecord*> head(d->wait_head);
    CudaTaskRecord* h = head.load(::cuda::std::memory_order_acquire);
    while (h != cuda_closed_marker()) {
      a->next = h;
      if (head.compare_exchange_weak(h, a, ::cuda::std::memory_order_acq_rel, ::cuda::std::memory_order_acquire))
        return true;
    }
    a->next_dep += 1;
  }
  return false;
}

// Completion: the functor first (futures it holds are released before a
// dependent runs), then the exchange that closes the wait queue, then the
// waiters. The when_all nodes that complete with it are completed by the
// same loop, linked through `next` (free once a record waits nowhere), not
// by recursion: a chain of nested when_alls must not grow the thread's
// stack, which the task driver cannot size ahead (tasks are called through
// pointers).
__device__ inline void cuda_complete(CudaQueueState* s, CudaTaskRecord* first) {
  first->next = nullptr;
  CudaTaskRecord* todo = first;
  while (todo != nullptr) {
    CudaTaskRecord* t = todo;
    todo = t->next;
    if (!t->is_aggregate() && t->destroy) t->destroy(t);
    cuda_add(s->counters[cuda_warp_index()].completed, 1ull);
    CudaTaskRecord* w = cuda_device_ref<CudaTaskRecord*>(t->wait_head).exchange(cuda_closed_marker(),
                                                                                ::cuda::std::memory_order_acq_rel);
    if (w == cuda_orphan_marker()) {
      cuda_free_record(s, t);
      continue;
    }
    // t stays alive while a waiter holds its reference: each waiter drops it
    // only after reading its own `next`.
    while (w != nullptr) {
      CudaTaskRecord* next = w->next;
      if (w->is_aggregate()) {
        w->next_dep += 1;
        if (!cuda_aggregate_waits(s, w)) {
          w->next = todo;
          todo = w;
        }
      } else {
        w->dep = nullptr;
        cuda_release(s, t);
        cuda_push_ready(s, w);
      }
      w = next;
    }
  }
}

// A when_all node waits on its next incomplete input, or completes.
__device__ inline void cuda_continue_aggregate(CudaQueueState* s, CudaTaskRecord* a) {
  if (!cuda_aggregate_waits(s, a)) cuda_complete(s, a);
}

// A when_all node: its bytes for `inputs` inputs, and the inputs one node
// takes (the fan-in of a when_all tree): 32, or what the pool's largest
// block holds when that is less (below 2: no when_all fits the pool).
TESSERA_INLINE_FUNCTION std::size_t cuda_when_all_node_bytes(int inputs) {
  return sizeof(CudaTaskRecord) + std::size_t(inputs) * sizeof(CudaTaskRecord*);
}
TESSERA_INLINE_FUNCTION int cuda_when_all_fan_in(std::size_t max_block) {
  if (max_block < sizeof(CudaTaskRecord)) return 0;
  const std::size_t fit = (max_block - sizeof(CudaTaskRecord)) / sizeof(CudaTaskRecord*);
  return fit < 32 ? int(fit) : 32;
}

// Whether waiting on d would make t wait on itself: d is t, or a when_all
// with t among its inputs, through its tree of nodes or when_alls nested by
// the caller. The caller's future keeps d alive, and every node its inputs,
// and a node's inputs never change once built, so the walk reads nothing
// that moves. A complete node cannot hold t (t is running), so it is not
// entered. Depth first with a fixed stack (a tree of 32-input nodes is 7
// levels deep at 2^31 inputs): a t nested deeper than kDepth when_alls is
// not found here, and the wait then reports the cycle when nothing can run.
__device__ inline bool cuda_depends_on(CudaTaskRecord* d, const CudaTaskRecord* t) {
  constexpr int kDepth = 16;
  if (d == t) return true;
  if (d == nullptr || !d->is_aggregate() || d->is_complete()) return false;
  CudaTaskRecord* node[kDepth];
  std::uint32_t next[kDepth];
  int top = 0;
  node[0] = d;
  next[0] = 0;
  while (top >= 0) {
    CudaTaskRecord* a = node[top];
    if (next[top] == a->count) {
      --top;
      continue;
    }
    CudaTaskRecord* x = a->deps()[next[top]++];
    if (x == t) return true;
    if (x->is_aggregate() && top + 1 < kDepth && !x->is_complete()) {
      ++top;
      node[top] = x;
      next[top] = 0;
    }
  }
  return false;
}

// After a task's functor returned: again later if it asked to respawn (and
// nothing failed), otherwise complete.
__device__ inline void cuda_finish(CudaQueueState* s, CudaTaskRecord* t) {
  if (t->respawn_requested && !cuda_cancelling(s)) {
    t->respawn_requested = 0;
    cuda_schedule(s, t);
    return;
  }
  if (t->respawn_requested) {
    t->respawn_requested = 0;
    CudaTaskRecord* d = t->dep;
    t->dep = nullptr;
    cuda_release(s, d);
  }
  if (cuda_cancelling(s)) t->failed = 1;
  cuda_complete(s, t);
}

// A block for a record, or null (pool full: counted as a failed spawn).
// Not inlined: the pool's warp-aggregated allocation keeps about 700 bytes
// of locals (32 block addresses, batched state words, spills), which inlined
// would sit in the frame of every task that spawns or makes a when_all for
// as long as it runs, on a stack that the driver cannot size (tasks are
// called through pointers; see kCudaTaskStackBytes). Out of line, those
// bytes are on the stack only during the allocation itself.
__device__ __noinline__ inline void* cuda_allocate_record(CudaQueueState* s, std::size_t bytes) {
  void* p = s->pool().allocate(bytes);
  if (p == nullptr) cuda_add(s->counters[cuda_warp_index()].failed_spawns, 1ull);
  return p;
}

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__
