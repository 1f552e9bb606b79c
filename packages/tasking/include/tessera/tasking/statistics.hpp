#pragma once
// TaskStatistics: what a TaskScheduler counted since it was created (or since
// reset_statistics()), read on the host between waits.
#include <cstddef>
#include <cstdint>
#include <iosfwd>

namespace tessera {

struct TaskStatistics {
  std::uint64_t spawned = 0;        // tasks created by host_spawn / task_spawn
  std::uint64_t executed = 0;       // functor runs (a respawned task runs more than once)
  std::uint64_t respawned = 0;      // respawn() calls that took effect
  std::uint64_t failed_spawns = 0;  // spawns and when_alls refused because the pool was full
  std::uint64_t steals = 0;         // tasks a worker took from another worker's ready queues
  std::uint64_t aggregates = 0;     // when_all aggregates created (large when_alls build a tree of them)
  std::uint64_t completed = 0;      // tasks and aggregates that completed
  std::uint64_t failed = 0;         // tasks that threw or were cancelled after another task threw
  // Most tasks ready or running at once (the ready queues' peak length plus
  // the tasks executing at that moment), over all waits.
  std::uint64_t peak_ready = 0;
  int threads = 0;                  // threads of the last wait()
  int team_size = 0;                // the scheduler's default TaskTeam size
  std::size_t pool_capacity_bytes = 0;
  std::size_t pool_high_water_bytes = 0;  // the pool's peak footprint (whole superblocks)
  std::size_t pool_in_use_bytes = 0;      // task and aggregate blocks held now (by futures, or not yet complete)
  std::size_t pool_block_bytes_max = 0;   // the largest task or aggregate the pool can hold

  void print(std::ostream& out) const;
};

std::ostream& operator<<(std::ostream& out, const TaskStatistics& s);

// Where the last wait of a TaskScheduler<Cuda> spent its time
// (last_wait_profile()): the host's phases by the host clock, the driver
// kernel by CUDA events around its launch, and the driver warps' loop split
// by lane 0's SM cycle counter (clock64), summed over the warps. The
// fractions say whether warps were running tasks, looking for them, or idle;
// the batch counts say how full the warps' batches were.
struct TaskWaitProfile {
  double total_ms = 0;     // wait(): from its call to its return
  double upload_ms = 0;    // before the launch: staged records, their list, the state
  double kernel_ms = 0;    // the driver kernel (CUDA events)
  double finish_ms = 0;    // after the kernel: read-back, the host's functor copies destroyed
  double taking_fraction = 0;   // of the warps' loop cycles: inbox drain and the search for work
  double running_fraction = 0;  // running batches: the tasks, their spawns and completions
  double idle_fraction = 0;     // the rest: idle steps (termination count, probes, sleeps)
  std::uint64_t batches = 0;     // pops that ran tasks
  std::uint64_t lanes_used = 0;  // tasks run, summed over the batches
  std::uint64_t idle_steps = 0;  // idle steps of all warps
  int warps = 0;
};

}  // namespace tessera
