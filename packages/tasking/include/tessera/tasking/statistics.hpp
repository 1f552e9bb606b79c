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

}  // namespace tessera
