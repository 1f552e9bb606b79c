#pragma once
// The CUDA task driver: the persistent kernel that wait(TaskScheduler<Cuda>)
// launches, and the host object behind a TaskScheduler<Cuda> (CudaTaskQueue:
// the pool, the device state, the host arena and the wait; what host spawns
// and host futures do between waits is cuda_staging.hpp).
//
// The kernel. One cooperative launch, sized by the occupancy API so that
// every block is resident (cudaLaunchCooperativeKernel refuses otherwise),
// at most kCudaMaxWarpsPerSM warps per SM. Every warp is a worker. Lane 0
// moves the warp's inbox onto its deques, then takes work: from its own
// deques (High, Regular, Low; at each priority up to 32 single tasks in one
// batch pop, else one team task), then the overflow stacks, then one task
// stolen from the top of a random other warp's deques (while some warp is
// idle, a warp keeps two batches per single-task deque and one team task per
// team deque, and shares the rest of what its lanes made ready through the
// overflow stacks: cuda_drain_inbox). A batch of single
// tasks runs one per lane; a team task runs on the 32 lanes, with the warp's
// slice of the launch's dynamic shared memory as its level-0 scratch (the
// occupancy API sizes the launch with it). The lanes then
// finish their tasks (complete, or respawn), which pushes what became ready
// onto the inbox.
//
// Termination: `busy` counts busy warps. A warp that finds no work anywhere
// leaves the count (one atomic), and takes part again only by an increment
// that fails once the count is closed; the idle warp that reads 0 closes it
// and every warp leaves. Why that is safe: cuda_termination.hpp.
// Incomplete records at that point wait on each other: a dependence cycle,
// reported by the host.
//
// Watchdog: lane 0 of every warp, when idle and every 64 batches, compares
// `progress` (tasks completed, advanced per batch) with what it saw last;
// no change for stall_ns is a stalled DAG (a livelock of tasks that respawn
// without anything completing, e.g. on a pool too small for the DAG). It is
// recorded as the wait's failure, which cancels the rest. A task that never
// returns cannot be stopped: the host gives up after the stall time plus a
// margin and marks the scheduler unusable (the kernel is still running).
//
// Host side (see cuda_api.hpp for the handles): host_spawn and host
// when_all build their records in a pinned mirror of the arena (a device
// buffer of their own, not the pool: the pool's state lives in device memory
// and only kernels allocate from it), at device addresses the host knows, so
// a host future names its record at once. The host keeps its copy of each
// functor until the wait that ran it has ended, then destroys it (so that
// host-side references the copy took, View reference counts for instance,
// are given back on the host). Reference counts of records that host
// futures take or drop between waits are summed per record and applied by
// a small kernel before the driver starts (cuda_apply_host_deltas).
#include <tessera/core.hpp>
#include <tessera/tasking/detail/cuda_member.hpp>
#include <tessera/tasking/detail/cuda_staging.hpp>
#include <tessera/tasking/detail/cuda_task_queue.hpp>
#include <tessera/tasking/detail/task_errors.hpp>
#include <tessera/tasking/statistics.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace tessera::detail::tasking {

inline constexpr int kCudaDriverBlock = 128;  // 4 warps
inline constexpr int kCudaWarpsPerBlock = kCudaDriverBlock / 32;
inline constexpr int kCudaMaxWarpsPerSM = 16;
inline constexpr long long kCudaSingleDequeSlots = 1024;
inline constexpr long long kCudaTeamDequeSlots = 256;
// Per-thread stack the driver asks of the context (see the constructor).
inline constexpr std::size_t kCudaTaskStackBytes = 4096;

// Host cold paths (src/cuda_tasking.cpp).
std::string cuda_functor_display_name(const char* pretty);
[[noreturn]] void throw_cuda_task_error(int kind, const std::string& name, const std::string& message, long long value,
                                        std::uint64_t cancelled);

// ---- the kernel ------------------------------------------------------------------

// Work taking (cuda_next_batch) is in cuda_warp_queues.hpp, the termination
// count (cuda_idle_step) in cuda_termination.hpp: host-device templates, so
// that a host test runs them on threads.

// Runs one task as member `rank` of `size`, vector lane `vlane` of `vlen`
// (a single task: 0 of 1, 0 of 1), unless the wait is cancelling or the
// record comes from another module.
__device__ inline void cuda_run_task(CudaQueueState* s, CudaTaskRecord* t, int rank, int size, int vlane, int vlen,
                                     bool skip, void* scratch = nullptr, unsigned scratch_bytes = 0) {
  if (skip) return;
  CudaTaskMember member(s, t, rank, size, vlane, vlen, scratch, scratch_bytes);
  t->run(t, member);
}

__device__ inline bool cuda_must_skip(CudaQueueState* s, CudaTaskRecord* t) {
  if (t->module != static_cast<const void*>(&cuda_module_marker)) {
    cuda_record_error(s, CudaError::ForeignModule,
                      "a task made by code of another translation unit: without relocatable device code, the "
                      "driver runs only tasks whose spawns were compiled in the translation unit that calls wait",
                      t);
    t->failed = 1;
    // Its destructor is another module's code too: the completion must not
    // call it (the functor's device copy is left undestroyed; the host
    // destroys its own copy of a host spawn as usual).
    t->destroy = nullptr;
    return true;
  }
  if (cuda_cancelling(s)) {
    t->failed = 1;
    return true;
  }
  return false;
}

__device__ inline void cuda_watchdog(CudaQueueState* s, unsigned long long& seen, unsigned long long& since) {
  const unsigned long long p = cuda_device_ref<unsigned long long>(s->progress).load(::cuda::std::memory_order_relaxed);
  const unsigned long long now = cuda_now_ns();
  if (p != seen || since == 0) {
    seen = p;
    since = now;
    return;
  }
  if (now - since > s->stall_ns && !cuda_cancelling(s))
    cuda_record_error(s, CudaError::Stalled, "no task completed within the watchdog's time", nullptr,
                      (long long)(s->stall_ns / 1000000ull));
}

// Host futures' reference-count changes, applied before the driver starts
// (the same stream): in the driver's prologue a +1 on another warp could
// land after the record it keeps alive had completed and been freed.
template <int Unused = 0>
__global__ void cuda_apply_host_deltas(CudaQueueState* s) {
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s->ndeltas; i += nthreads)
    cuda_apply_delta(s, s->delta_records[i], s->delta_values[i]);
}

// Lane 0's cycle accounting (CudaWarpCounters): a span's counter is
// decremented by the clock at its start and incremented at its end, in the
// warp's counters in global memory, so no timestamp occupies a register
// across the driver's loop (the kernel is at its register limit).
__device__ __forceinline__ void cuda_span_begin(unsigned long long& cycles) {
  cycles -= static_cast<unsigned long long>(clock64());
}
__device__ __forceinline__ void cuda_span_end(unsigned long long& cycles) {
  cycles += static_cast<unsigned long long>(clock64());
}

// The driver kernels of a program: one per translation unit that includes
// this header (see below). Any of them sizes a scheduler, wherever it was
// made: they are the same code, with the same registers and shared memory.
inline const void*& cuda_sizing_driver() {
  static const void* kernel = nullptr;
  return kernel;
}
inline bool cuda_register_driver(const void* kernel) {
  if (cuda_sizing_driver() == nullptr) cuda_sizing_driver() = kernel;
  return true;
}

// The kernel has internal linkage: without relocatable device code each TU
// is its own CUDA module, with its own module marker and task function
// pointers (cuda_task_record.hpp), and a wait must launch the kernel of the
// TU whose host_spawns made its tasks (tessera::wait passes its own). With
// external linkage the host linker kept one host stub for the program,
// registered by every module, and which module's kernel a launch reached
// was up to the CUDA runtime.
namespace {
__global__ void __launch_bounds__(kCudaDriverBlock) cuda_task_driver(CudaQueueState* s) {
  __shared__ CudaTaskRecord* batch_slots[kCudaWarpsPerBlock][32];
  __shared__ int batch_team[kCudaWarpsPerBlock];
  const int wid = cuda_warp_index();
  const int lane = cuda_lane();
  const int wib = int(threadIdx.x >> 5);
  CudaTaskRecord** batch = batch_slots[wib];
  // Team scratch: the launch's dynamic shared memory, one slice per warp.
  extern __shared__ __align__(16) unsigned char cuda_task_team_scratch[];
  unsigned char* const scratch = cuda_task_team_scratch + std::size_t(wib) * s->team_scratch_bytes;
  CudaWarpState& me = s->warps[wid];
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gtid == 0) s->module = &cuda_module_marker;

  // Prologue: the host's records (cuda_apply_host_deltas ran before).
  for (long long i = gtid; i < s->nstaged; i += nthreads) {
    CudaTaskRecord* r = s->staged[i];
    if (r->is_aggregate()) cuda_continue_aggregate(s, r);
    else cuda_schedule(s, r);
  }
  __syncwarp();

  bool busy = true;
  unsigned long long seen = 0, since = 0, completed_seen = 0;
  unsigned sleep_ns = 32;
  unsigned rounds = 0;
  CudaWarpCounters& mine = s->counters[wid];
  if (lane == 0) cuda_span_begin(mine.cycles_loop);
  for (;;) {
    int n = 0;
    if (lane == 0) {
      int team = 0;
      cuda_span_begin(mine.cycles_taking);
      n = cuda_next_batch(s, wid, me, busy, batch, &team);
      cuda_span_end(mine.cycles_taking);
      batch_team[wib] = team;
      if (n > 0) cuda_span_begin(mine.cycles_running);
    }
    n = __shfl_sync(0xffffffffu, n, 0);
    __syncwarp();
    if (n > 0) {
      if (batch_team[wib]) {
        CudaTaskRecord* t = batch[0];
        int skip = 0;
        if (lane == 0) skip = cuda_must_skip(s, t) ? 1 : 0;
        skip = __shfl_sync(0xffffffffu, skip, 0);
        // M members x V lanes: member r is lanes [r V, r V + V), as in core's
        // TeamPolicy<Cuda>. The spawn checked M (a power of two up to 32).
        const int members = t->team_size ? int(t->team_size) : 32;
        const int vlen = 32 / members;
        cuda_run_task(s, t, lane / vlen, members, lane % vlen, vlen, skip != 0, scratch, s->team_scratch_asked);
        __syncwarp();
        if (lane == 0) cuda_finish(s, t);
      } else if (lane < n) {
        CudaTaskRecord* t = batch[lane];
        cuda_run_task(s, t, 0, 1, 0, 1, cuda_must_skip(s, t));
        cuda_finish(s, t);
      }
      __syncwarp();
      if (lane == 0) {
        // The watchdog's clock: completions (not runs: a task that respawns
        // forever makes none).
        const unsigned long long done =
            cuda_device_ref<unsigned long long>(s->counters[wid].completed).load(::cuda::std::memory_order_relaxed);
        if (done != completed_seen) {
          cuda_add(s->progress, done - completed_seen);
          completed_seen = done;
        }
        cuda_add(s->counters[wid].batches, 1ull);
        cuda_add(s->counters[wid].lanes_used, (unsigned long long)n);
        if ((++rounds & 63u) == 0) cuda_watchdog(s, seen, since);
        cuda_span_end(mine.cycles_running);
      }
      sleep_ns = 32;
      continue;
    }
    // Nothing to run (cuda_termination.hpp).
    int leave = 0;
    if (lane == 0) {
      mine.idle_steps += 1;
      cuda_watchdog(s, seen, since);
      const CudaIdleStep step = cuda_idle_step(s, wid, me, busy);
      if (step == CudaIdleStep::Leave) {
        cuda_span_end(mine.cycles_loop);
        leave = 1;
      } else if (step == CudaIdleStep::Wait) {
        __nanosleep(sleep_ns);
        if (sleep_ns < 4096) sleep_ns *= 2;
      }
    }
    leave = __shfl_sync(0xffffffffu, leave, 0);
    if (leave) break;
  }
}

// This TU's driver kernel, for tessera::wait.
inline const void* cuda_this_module_driver() { return reinterpret_cast<const void*>(&cuda_task_driver); }
[[maybe_unused]] const bool cuda_driver_registered = cuda_register_driver(cuda_this_module_driver());
}  // namespace

// ---- the host object ---------------------------------------------------------------

class CudaTaskQueue {
  using Staging = CudaHostStaging<CudaTaskRecord>;

 public:
  explicit CudaTaskQueue(const CudaPool& pool) : m_pool(pool) {
    using namespace std::string_literals;
    int device = 0;
    cuda_check(cudaGetDevice(&device), "tessera::TaskScheduler<Cuda>: cudaGetDevice");
    int sms = 0, coop = 0;
    cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
               "tessera::TaskScheduler<Cuda>: SM count");
    cuda_check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device),
               "tessera::TaskScheduler<Cuda>: cooperative launch attribute");
    if (!coop) throw_cuda_tasking("tessera::TaskScheduler<Cuda>: the device does not support cooperative launches");
    cuda_check(cudaDeviceGetAttribute(&m_shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
               "tessera::TaskScheduler<Cuda>: shared memory per block");
    cudaFuncAttributes attr{};
    cuda_check(cudaFuncGetAttributes(&attr, cuda_sizing_driver()), "tessera::TaskScheduler<Cuda>: driver attributes");
    m_shared_static = int(attr.sharedSizeBytes);
    m_sms = sms;
    // The driver calls tasks through pointers, so ptxas cannot size its
    // stack and the context's per-thread limit applies (1 KiB by default).
    // Measured frames (ptxas -v, sm_90): a pool allocation 1,000 bytes, a
    // when_all tree 280, a task that holds futures and spawns 600-700, the
    // driver 88; 2 KiB overflowed on an H200 (cudaErrorIllegalAddress in
    // every task that built a when_all tree). Raised to kCudaTaskStackBytes,
    // never lowered, leaving a user task about 2 KiB of its own; the
    // device reserves it for every resident thread (about 1 GiB on a
    // 132-SM card), once per process.
    std::size_t stack = 0;
    cuda_check(cudaDeviceGetLimit(&stack, cudaLimitStackSize), "tessera::TaskScheduler<Cuda>: stack limit");
    if (stack < kCudaTaskStackBytes)
      cuda_check(cudaDeviceSetLimit(cudaLimitStackSize, kCudaTaskStackBytes),
                 "tessera::TaskScheduler<Cuda>: raising the per-thread stack limit (kCudaTaskStackBytes)");
    // The warp arrays are sized for the launch without scratch, the
    // largest: scratch can only lower the blocks that fit on an SM.
    m_blocks = resident_blocks(0);
    m_nwarps = m_blocks * kCudaWarpsPerBlock;
    m_launch_blocks = m_blocks;

    // Device state, warps and their deque rings.
    CudaSpace space;
    const std::size_t ring_slots = std::size_t(3 * kCudaSingleDequeSlots + 3 * kCudaTeamDequeSlots);
    m_rings = static_cast<CudaTaskRecord**>(
        space.allocate("tessera::TaskScheduler<Cuda> deques", std::size_t(m_nwarps) * ring_slots * sizeof(void*)));
    m_warps = static_cast<CudaWarpState*>(
        space.allocate("tessera::TaskScheduler<Cuda> warps", std::size_t(m_nwarps) * sizeof(CudaWarpState)));
    m_counters = static_cast<CudaWarpCounters*>(
        space.allocate("tessera::TaskScheduler<Cuda> counters", std::size_t(m_nwarps) * sizeof(CudaWarpCounters)));
    m_dev = static_cast<CudaQueueState*>(space.allocate("tessera::TaskScheduler<Cuda> state", sizeof(CudaQueueState)));
    std::vector<CudaWarpState> warps(static_cast<std::size_t>(m_nwarps));
    for (int w = 0; w < m_nwarps; ++w) {
      CudaWarpState& ws = warps[std::size_t(w)];
      std::memset(static_cast<void*>(&ws), 0, sizeof ws);
      CudaTaskRecord** ring = m_rings + std::size_t(w) * ring_slots;
      for (int d = 0; d < kCudaDequesPerWarp; ++d) {
        const long long slots = d < kCudaPriorities ? kCudaSingleDequeSlots : kCudaTeamDequeSlots;
        ws.deques[d].slots = ring;
        ws.deques[d].mask = slots - 1;
        ring += slots;
      }
      ws.rng = 0x9e3779b9u ^ unsigned(w * 2654435761u) ^ 1u;
    }
    cuda_check(cudaMemcpy(m_warps, warps.data(), warps.size() * sizeof(CudaWarpState), cudaMemcpyHostToDevice),
               "tessera::TaskScheduler<Cuda>: warp states");

    // The host arena and its pinned mirror.
    m_arena_bytes = std::max<std::size_t>(std::size_t(1) << 20, m_pool.capacity() / 4) / 64 * 64;
    m_arena = static_cast<char*>(space.allocate("tessera::TaskScheduler<Cuda> host arena", m_arena_bytes));
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&m_mirror), m_arena_bytes),
               "tessera::TaskScheduler<Cuda>: pinned staging of host spawns");
    m_staging = std::make_unique<Staging>(m_arena, m_mirror, m_arena_bytes, cuda_orphan_marker());

    std::memset(static_cast<void*>(&m_state), 0, sizeof m_state);
    std::memcpy(m_state.pool_bytes, static_cast<const void*>(&m_pool), sizeof(CudaPool));
    m_state.warps = m_warps;
    m_state.counters = m_counters;
    m_state.nwarps = m_nwarps;
    m_state.team_scratch_bytes = 0;
    m_state.team_scratch_asked = 0;
    m_state.arena_base = m_arena;
    m_state.arena_end = m_arena + m_arena_bytes;
    m_state.host_queue = this;
    m_state.default_team_size = 32;
    m_state.keep_while_idle = kCudaKeepWhileOthersIdle;
    m_state.keep_team_while_idle = kCudaKeepTeamWhileOthersIdle;
    m_state.stall_ns = 30ull * 1000000000ull;
    // Host reads while a driver may run (its progress, records of earlier
    // waits): a non-blocking stream, which the running driver on the
    // default stream does not hold up.
    cuda_check(cudaStreamCreateWithFlags(&m_poll_stream, cudaStreamNonBlocking),
               "tessera::TaskScheduler<Cuda>: a stream for host reads");
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&m_progress_host), sizeof(unsigned long long)),
               "tessera::TaskScheduler<Cuda>: pinned memory for the driver's progress");
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&m_read_bounce), kReadBounceBytes),
               "tessera::TaskScheduler<Cuda>: pinned memory for host reads of task records");
  }

  CudaTaskQueue(const CudaTaskQueue&) = delete;
  CudaTaskQueue& operator=(const CudaTaskQueue&) = delete;

  ~CudaTaskQueue() {
    m_staging.reset();  // destroys the host copies of tasks that never ran (they live in the mirror)
    if (m_broken) return;  // a kernel may still run on this memory: leave it
    if (m_poll_stream) cudaStreamDestroy(m_poll_stream);
    if (m_progress_host) cudaFreeHost(m_progress_host);
    if (m_read_bounce) cudaFreeHost(m_read_bounce);
    for (cudaEvent_t e : m_kernel_events)
      if (e) cudaEventDestroy(e);
    CudaSpace space;
    if (m_mirror) cudaFreeHost(m_mirror);
    space.deallocate(m_arena, m_arena_bytes);
    space.deallocate(m_dev, sizeof(CudaQueueState));
    space.deallocate(m_counters, std::size_t(m_nwarps) * sizeof(CudaWarpCounters));
    space.deallocate(m_warps, std::size_t(m_nwarps) * sizeof(CudaWarpState));
    space.deallocate(m_rings, std::size_t(m_nwarps) * std::size_t(3 * kCudaSingleDequeSlots + 3 * kCudaTeamDequeSlots) *
                                  sizeof(void*));
    if (m_staged_dev) space.deallocate(m_staged_dev, m_staged_cap * sizeof(void*));
    if (m_delta_dev) space.deallocate(m_delta_dev, m_delta_cap * (sizeof(void*) + sizeof(int)));
  }

  // ---- lifetime: host handles (schedulers and futures on the host) ----
  void add_handle() noexcept { m_handles.fetch_add(1, std::memory_order_relaxed); }
  void drop_handle() {
    if (m_handles.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  const CudaPool& pool() const noexcept { return m_pool; }
  CudaQueueState* device_state() const noexcept { return m_dev; }
  // Warps the next wait launches (fewer than the arrays hold when team
  // scratch lowers the blocks per SM).
  int warps() const noexcept { return m_state.nwarps; }

  // Level-0 team scratch: `bytes` per team task, a slice of dynamic shared
  // memory per warp, so a block of kCudaWarpsPerBlock warps needs that many
  // slices beside the driver's own shared memory. Refused, with the sizes,
  // when a block cannot have that much; otherwise the next waits launch as
  // many blocks as stay resident with it (the occupancy API decides).
  void set_team_scratch_bytes(std::size_t bytes) {
    const std::size_t slice = (bytes + 15) / 16 * 16;
    const std::size_t block = slice * kCudaWarpsPerBlock;
    const std::size_t room = std::size_t(m_shared_optin) - std::size_t(m_shared_static);
    if (block > room)
      throw_cuda_tasking("tessera::TaskScheduler<Cuda>::set_team_scratch_size: requested " + std::to_string(bytes) +
                         " bytes of level-0 team scratch per team task; the task driver runs " +
                         std::to_string(kCudaWarpsPerBlock) + " warps per block, each with its own slice, so a block "
                         "would need " + std::to_string(block) + " bytes of shared memory besides the driver's " +
                         std::to_string(m_shared_static) + ", but this device allows at most " +
                         std::to_string(m_shared_optin) + " per block: at most " +
                         std::to_string(room / kCudaWarpsPerBlock / 16 * 16) +
                         " bytes per team task (stage smaller tiles, or keep part of them in global memory)");
    // Without the attribute a block may hold 48 KiB of shared memory,
    // the driver's static share included.
    // (On the kernel that sizes the launch here, and at each wait on the
    // kernel launched: set_dynamic_shared.)
    const int attribute = block + std::size_t(m_shared_static) > 48 * 1024 ? int(block) : 0;
    if (attribute)
      set_dynamic_shared(cuda_sizing_driver(), attribute,
                         "tessera::TaskScheduler<Cuda>::set_team_scratch_size: raising the driver's shared memory");
    const int blocks = resident_blocks(block);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_dynamic_shared_attribute = attribute;
    m_launch_blocks = blocks;
    m_state.nwarps = blocks * kCudaWarpsPerBlock;
    m_state.team_scratch_bytes = unsigned(slice);
    m_state.team_scratch_asked = unsigned(bytes);
    m_scratch_asked = bytes;
  }
  std::size_t team_scratch_bytes() const noexcept { return m_scratch_asked; }
  std::size_t arena_bytes() const noexcept { return m_arena_bytes; }
  void set_stall_seconds(double s) {
    if (!(s > 0.0) || s > 1.0e6)
      throw_cuda_tasking("tessera::TaskScheduler<Cuda>::set_watchdog_seconds: " + std::to_string(s) +
                         " is not in (0, 1e6] seconds");
    std::lock_guard<std::mutex> lock(m_mutex);
    m_state.stall_ns = static_cast<unsigned long long>(s * 1.0e9);
  }
  double stall_seconds() const noexcept { return double(m_state.stall_ns) * 1.0e-9; }
  // Members of a TaskTeam task whose policy does not say (checked by the caller).
  void set_default_team_size(int m) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_state.default_team_size = m;
  }
  int default_team_size() const noexcept { return m_state.default_team_size; }
  // Surplus sharing (cuda_drain_inbox) on or off, for the benchmark's A/B:
  // off keeps every ready task on its warp's deques until they are full.
  void set_surplus_sharing(bool on) {
    std::lock_guard<std::mutex> lock(m_mutex);
    constexpr long long never = std::numeric_limits<long long>::max();
    m_state.keep_while_idle = on ? kCudaKeepWhileOthersIdle : never;
    m_state.keep_team_while_idle = on ? kCudaKeepTeamWhileOthersIdle : never;
  }

  // ---- staging (host_spawn, host when_all), under staging_mutex(): cuda_staging.hpp ----
  std::mutex& staging_mutex() noexcept { return m_staging->mutex(); }
  template <class What>
  void* stage(std::size_t bytes, CudaTaskRecord*& device_address, const char* where, const What& what) {
    check_usable(where);
    return m_staging->stage(bytes, device_address, where, what);
  }
  void check_module(const void* module) const { m_staging->check_module(module); }
  void staged(CudaTaskRecord* device_address, void* host_image, void (*host_destroy)(void*), const void* module) {
    m_staging->staged(device_address, host_image, host_destroy, module);
  }
  // A host future's copy (+1) or release (-1) of a record's reference.
  void delta(CudaTaskRecord* r, int n) { m_staging->delta(r, n); }

  // Reads device memory (a record's fields or result) on the host, over the
  // non-blocking stream: a record the device holds is one an earlier wait
  // ran (the current wait's are read from the mirror, see read_record), so
  // the read need not, and does not, wait for a running driver (a cudaMemcpy
  // on the legacy stream would, until the whole wait ended). Reads of up to
  // kReadBounceBytes (a record's fields, most results) go through a pinned
  // buffer: a copy into pinned memory is a plain DMA on the copy engine,
  // where one into pageable memory is staged by the CUDA driver, which does
  // not promise to run it beside a kernel that holds every SM.
  void read(void* dst, const void* src, std::size_t n) const {
    const bool bounce = n <= kReadBounceBytes;
    std::unique_lock<std::mutex> lock(m_read_mutex, std::defer_lock);
    if (bounce) lock.lock();
    cuda_check(cudaMemcpyAsync(bounce ? m_read_bounce : dst, src, n, cudaMemcpyDeviceToHost, m_poll_stream),
               "tessera::Future<Cuda>: reading a task record");
    cuda_check(cudaStreamSynchronize(m_poll_stream), "tessera::Future<Cuda>: reading a task record");
    if (bounce) std::memcpy(dst, m_read_bounce, n);
  }
  // A record's state as the host sees it between waits: staged records not
  // yet uploaded are read from the mirror.
  void read_record(const CudaTaskRecord* r, void* dst, std::size_t offset, std::size_t n) const {
    if (const void* image = m_staging->mirror_of(r)) {
      std::memcpy(dst, static_cast<const char*>(image) + offset, n);
      return;
    }
    read(dst, reinterpret_cast<const char*>(r) + offset, n);
  }

  TaskStatistics statistics() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stats;
  }
  void reset_statistics() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stats = TaskStatistics();
  }
  TaskWaitProfile last_wait_profile() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_last_profile;
  }
  // Single tasks per batch pop, averaged over the last wait (1 to 32).
  double last_batch_width() const {
    const TaskWaitProfile p = last_wait_profile();
    return p.batches ? double(p.lanes_used) / double(p.batches) : 0.0;
  }

  // ---- wait ----
  // `kernel` and `module`: the driver kernel and module marker of the TU that
  // calls wait (tessera::wait passes its own).
  void run(const void* kernel, const void* module) {
    if (m_waiting.exchange(true, std::memory_order_acq_rel))
      throw_cuda_tasking("tessera::wait (Cuda): another host thread is already waiting on this scheduler");
    struct EndOfWait {
      CudaTaskQueue& q;
      ~EndOfWait() { q.m_waiting.store(false, std::memory_order_release); }
    } end_of_wait{*this};
    std::lock_guard<std::mutex> lock(m_mutex);
    check_usable("tessera::wait");
    using wait_clock = std::chrono::steady_clock;
    const auto t_call = wait_clock::now();
    // What is staged now runs in this wait; host threads spawning meanwhile
    // stage for the next one. Refused before anything runs or is taken
    // when the tasks came from another TU: they wait for a wait from their
    // own TU, and the scheduler stays usable.
    Staging::Batch batch = m_staging->take(module);
    const std::vector<CudaTaskRecord*>& staged = batch.records;
    // From here until the driver is launched, a failure (an upload, a
    // device allocation, the launch) leaves the taken tasks where none will
    // run and their futures never complete, and the arena's count of live
    // records without them: the scheduler is unusable then, and the batch's
    // host copies are destroyed.
    struct AbandonUnlessLaunched {
      CudaTaskQueue& q;
      Staging::Batch& batch;
      bool launched = false;
      ~AbandonUnlessLaunched() {
        if (launched) return;
        q.m_broken = true;
        Staging::abandon(batch);
      }
    } until_launched{*this, batch};
    // Uploads: the staged records, their list, the merged deltas.
    if (batch.upload_end > batch.upload_begin)
      cuda_check(cudaMemcpy(m_arena + batch.upload_begin, m_mirror + batch.upload_begin,
                            batch.upload_end - batch.upload_begin, cudaMemcpyHostToDevice),
                 "tessera::wait (Cuda): uploading host spawns");
    std::vector<CudaTaskRecord*> delta_records;
    std::vector<int> delta_values;
    m_staging->take_deltas(delta_records, delta_values);
    CudaSpace space;
    if (staged.size() > m_staged_cap) {
      if (m_staged_dev) space.deallocate(m_staged_dev, m_staged_cap * sizeof(void*));
      m_staged_cap = std::max(staged.size(), 2 * m_staged_cap);
      m_staged_dev = static_cast<CudaTaskRecord**>(space.allocate("tessera::wait staged", m_staged_cap * sizeof(void*)));
    }
    if (delta_records.size() > m_delta_cap) {
      if (m_delta_dev) space.deallocate(m_delta_dev, m_delta_cap * (sizeof(void*) + sizeof(int)));
      m_delta_cap = std::max(delta_records.size(), 2 * m_delta_cap);
      m_delta_dev = space.allocate("tessera::wait deltas", m_delta_cap * (sizeof(void*) + sizeof(int)));
    }
    auto** delta_rec_dev = static_cast<CudaTaskRecord**>(m_delta_dev);
    int* delta_val_dev = reinterpret_cast<int*>(static_cast<char*>(m_delta_dev) + m_delta_cap * sizeof(void*));
    if (!staged.empty())
      cuda_check(cudaMemcpy(m_staged_dev, staged.data(), staged.size() * sizeof(void*), cudaMemcpyHostToDevice),
                 "tessera::wait (Cuda): staged list");
    if (!delta_records.empty()) {
      cuda_check(cudaMemcpy(delta_rec_dev, delta_records.data(), delta_records.size() * sizeof(void*),
                            cudaMemcpyHostToDevice),
                 "tessera::wait (Cuda): reference deltas");
      cuda_check(cudaMemcpy(delta_val_dev, delta_values.data(), delta_values.size() * sizeof(int),
                            cudaMemcpyHostToDevice),
                 "tessera::wait (Cuda): reference deltas");
    }
    const long long staged_now = (long long)staged.size();
    m_state.staged = m_staged_dev;
    m_state.nstaged = staged_now;
    m_state.delta_records = delta_rec_dev;
    m_state.delta_values = delta_val_dev;
    m_state.ndeltas = (long long)delta_records.size();
    m_state.busy = m_state.nwarps;
    m_state.progress = 0;
    m_state.cancel = 0;
    m_state.error_state = 0;
    m_state.error_kind = 0;
    m_state.name_written = 0;
    m_state.error_task = nullptr;
    m_state.error_message[0] = '\0';
    m_state.error_name[0] = '\0';
    m_state.arena_live += staged_now;
    cuda_check(cudaMemcpy(m_dev, &m_state, sizeof m_state, cudaMemcpyHostToDevice), "tessera::wait (Cuda): state");
    cuda_check(cudaMemset(m_counters, 0, std::size_t(m_nwarps) * sizeof(CudaWarpCounters)),
               "tessera::wait (Cuda): counters");

    // The launches (the deltas first, on the same stream), and a bounded
    // wait for the driver.
    CudaQueueState* arg = m_dev;
    void* args[] = {&arg};
    if (!delta_records.empty())
      cuda_apply_host_deltas<0><<<unsigned(std::min<std::size_t>((delta_records.size() + 255) / 256, 1024)), 256>>>(arg);
    cudaError_t launched = cudaGetLastError();
    if (launched == cudaSuccess && m_dynamic_shared_attribute)
      launched = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, m_dynamic_shared_attribute);
    if (launched == cudaSuccess && m_kernel_events[0] == nullptr)
      for (cudaEvent_t& e : m_kernel_events)
        if (launched == cudaSuccess) launched = cudaEventCreate(&e);
    const auto t_launch = wait_clock::now();
    if (launched == cudaSuccess) launched = cudaEventRecord(m_kernel_events[0], nullptr);
    if (launched == cudaSuccess)
      launched = cudaLaunchCooperativeKernel(kernel,
                                             dim3(unsigned(m_launch_blocks)), dim3(kCudaDriverBlock), args,
                                             std::size_t(m_state.team_scratch_bytes) * kCudaWarpsPerBlock, nullptr);
    if (launched == cudaSuccess) launched = cudaEventRecord(m_kernel_events[1], nullptr);
    // On failure until_launched abandons the batch (its futures could never complete).
    cuda_check(launched, "tessera::wait (Cuda): launching the task driver (the host-spawned tasks of this wait "
                         "will not run; this scheduler is unusable)");
    until_launched.launched = true;
    // The host gives up only when no task has completed for twice the
    // device watchdog's time plus 10 s (the device's own watchdog ends a
    // stalled DAG sooner; this catches a task that never returns, which
    // keeps the kernel alive). Progress is read over a second stream while
    // the driver runs. The poll's nap grows to 100 us: it bounds how late the
    // host sees the end of a short wait (it was 2.56 ms, half of the 10^6
    // host fan-out's goal), at a stream query per 100 us.
    const double limit = stall_seconds() * 2.0 + 10.0;
    auto last_progress = std::chrono::steady_clock::now();
    unsigned long long progress_seen = 0;
    std::chrono::microseconds nap(10);
    for (;;) {
      const cudaError_t e = cudaStreamQuery(nullptr);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) {
        m_broken = true;
        cuda_check(e, "tessera::wait (Cuda): the task driver kernel");
      }
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last_progress).count() > limit) {
        unsigned long long p = 0;
        try {
          p = read_progress();
        } catch (...) {
          m_broken = true;  // the kernel may still run on this memory: nothing may free it
          throw;
        }
        if (p != progress_seen) {
          progress_seen = p;
          last_progress = now;
        } else {
          m_broken = true;
          throw_cuda_tasking("tessera::wait (Cuda): no task has completed for " + std::to_string(limit) +
                             " s and the task kernel has not ended (a task that never returns?); it cannot be "
                             "stopped, so this scheduler is unusable and the GPU stays busy until the process ends");
        }
      }
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(100));
    }
    // The kernel's time is for the wait profile only: a failure to read it
    // leaves 0 there rather than skip the staging cleanup below.
    float kernel_ms = 0;
    if (cudaEventElapsedTime(&kernel_ms, m_kernel_events[0], m_kernel_events[1]) != cudaSuccess) {
      kernel_ms = 0;
      (void)cudaGetLastError();
    }
    // Without the control block and the counters nothing below can be known:
    // the scheduler is unusable then.
    const auto read_back = [&](void* to, const void* from, std::size_t bytes, const char* what) {
      const cudaError_t e = cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) m_broken = true;
      cuda_check(e, what);
    };
    read_back(&m_state, m_dev, sizeof m_state, "tessera::wait (Cuda): state");
    std::vector<CudaWarpCounters> counters(static_cast<std::size_t>(m_nwarps));
    read_back(counters.data(), m_counters, counters.size() * sizeof(CudaWarpCounters),
              "tessera::wait (Cuda): counters");

    // The host copies of what ran are no longer needed; the arena restarts
    // once none of its records is referenced.
    m_staging->finished(batch, m_state.arena_live == 0);
    std::uint64_t spawned = std::uint64_t(staged_now), completed = 0, failed_spawns = 0, batches = 0, lanes = 0,
                  steals = 0, idle_steps = 0;
    double cycles_loop = 0, cycles_taking = 0, cycles_running = 0;
    for (const CudaWarpCounters& c : counters) {
      spawned += c.spawned;
      completed += c.completed;
      failed_spawns += c.failed_spawns;
      batches += c.batches;
      lanes += c.lanes_used;
      steals += c.steals;
      idle_steps += c.idle_steps;
      cycles_loop += double(c.cycles_loop);
      cycles_taking += double(c.cycles_taking);
      cycles_running += double(c.cycles_running);
    }
    m_stats.spawned += spawned;
    m_stats.completed += completed;
    m_stats.failed_spawns += failed_spawns;
    m_stats.steals += steals;
    {
      auto ms = [](wait_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
      TaskWaitProfile& p = m_last_profile;
      const auto t_end = wait_clock::now();
      p.total_ms = ms(t_end - t_call);
      p.upload_ms = ms(t_launch - t_call);
      p.kernel_ms = double(kernel_ms);
      p.finish_ms = std::max(0.0, p.total_ms - p.upload_ms - p.kernel_ms);
      p.taking_fraction = cycles_loop > 0 ? cycles_taking / cycles_loop : 0.0;
      p.running_fraction = cycles_loop > 0 ? cycles_running / cycles_loop : 0.0;
      p.idle_fraction = cycles_loop > 0 ? std::max(0.0, 1.0 - p.taking_fraction - p.running_fraction) : 0.0;
      p.batches = batches;
      p.lanes_used = lanes;
      p.idle_steps = idle_steps;
      p.warps = m_state.nwarps;  // those launched (a scratch request may launch fewer than the arrays hold)
    }
    const std::uint64_t incomplete = spawned > completed ? spawned - completed : 0;
    if (m_state.error_state != 0) {
      if (incomplete) m_broken = true;
      throw_cuda_task_error(m_state.error_kind, cuda_functor_display_name(m_state.error_name), m_state.error_message,
                            m_state.error_value, incomplete);
    }
    if (incomplete) {
      m_broken = true;
      throw_cuda_task_error(int(CudaError::Cycle), "", "", (long long)incomplete, failed_spawns);
    }
  }

 private:
  void check_usable(const char* where) const {
    if (m_broken)
      throw_cuda_tasking(std::string(where) +
                         " (Cuda): this scheduler is unusable after a wait that left tasks incomplete (a "
                         "dependence cycle, a stalled DAG, a task that never returned or a failed launch); make a "
                         "new one");
  }
  // The driver's completion count, read while it runs: an asynchronous
  // copy on the non-blocking stream (the driver's stream would wait for it).
  unsigned long long read_progress() {
    cuda_check(cudaMemcpyAsync(m_progress_host, &m_dev->progress, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               m_poll_stream),
               "tessera::wait (Cuda): reading the driver's progress");
    cuda_check(cudaStreamSynchronize(m_poll_stream), "tessera::wait (Cuda): reading the driver's progress");
    return *m_progress_host;
  }

  static void set_dynamic_shared(const void* kernel, int bytes, const char* what) {
    cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), what);
  }

  // Blocks of the driver resident at once with `dynamic_shared` bytes each
  // (at most kCudaMaxWarpsPerSM warps per SM), over all SMs.
  int resident_blocks(std::size_t dynamic_shared) const {
    int per_sm = 0;
    cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cuda_sizing_driver(), kCudaDriverBlock,
                                                             dynamic_shared),
               "tessera::TaskScheduler<Cuda>: occupancy of the task driver");
    per_sm = std::min(per_sm, kCudaMaxWarpsPerSM / kCudaWarpsPerBlock);
    if (per_sm < 1)
      throw_cuda_tasking("tessera::TaskScheduler<Cuda>: the task driver kernel cannot be resident on this device "
                         "(occupancy 0 blocks of " + std::to_string(kCudaDriverBlock) + " threads and " +
                         std::to_string(dynamic_shared) + " bytes of team scratch per SM)");
    return per_sm * m_sms;
  }

  CudaPool m_pool;
  int m_blocks = 0, m_nwarps = 0;  // what the warp arrays hold
  int m_launch_blocks = 0;         // what the next wait launches
  int m_sms = 0, m_shared_optin = 0, m_shared_static = 0;
  std::size_t m_scratch_asked = 0;
  CudaTaskRecord** m_rings = nullptr;
  CudaWarpState* m_warps = nullptr;
  CudaWarpCounters* m_counters = nullptr;
  CudaQueueState* m_dev = nullptr;
  CudaQueueState m_state;
  char* m_arena = nullptr;
  char* m_mirror = nullptr;
  std::size_t m_arena_bytes = 0;
  std::unique_ptr<Staging> m_staging;  // host spawns and host futures' reference changes between waits
  int m_dynamic_shared_attribute = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize the launch needs (0: none)
  CudaTaskRecord** m_staged_dev = nullptr;
  std::size_t m_staged_cap = 0;
  void* m_delta_dev = nullptr;
  std::size_t m_delta_cap = 0;
  mutable std::mutex m_mutex;
  std::atomic<bool> m_waiting{false};
  std::atomic<int> m_handles{1};
  bool m_broken = false;
  cudaStream_t m_poll_stream = nullptr;
  unsigned long long* m_progress_host = nullptr;
  // Pinned memory for read(), one reader at a time.
  static constexpr std::size_t kReadBounceBytes = 256;
  char* m_read_bounce = nullptr;
  mutable std::mutex m_read_mutex;
  TaskStatistics m_stats;
  TaskWaitProfile m_last_profile;
  cudaEvent_t m_kernel_events[2] = {nullptr, nullptr};  // around the driver's launch (made at the first wait)
};

}  // namespace tessera::detail::tasking

#endif  // __CUDACC__
