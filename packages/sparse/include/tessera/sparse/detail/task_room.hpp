#pragma once
// Running a task generator in a bounded task pool, and deciding when the
// pool is too small for even one more task.
//
// A generator (the factorization's, the solve's) spawns tasks a window at a
// time and respawns itself when the pool is full. A finished task's memory
// returns to the pool only when the last future naming it goes, and the
// generator holds many of those (its dependence tables): on a full pool it
// drops the ones of complete tasks and retries later.
//
// Whether waiting can ever make room cannot be decided from inside the run:
// a task may have finished its body but not yet been marked complete, and a
// worker keeps the records it frees in a cache it returns to the pool only
// when it goes idle. So a generator that finds the pool full with nothing to
// drop and nothing outstanding does not fail: it STALLS (stops without
// respawning), the host's wait ends (every task complete, every cache back in
// the pool), the host drops the dependence futures of complete tasks itself
// and starts the generator again. Only a run that begins in that state and
// cannot spawn a single task proves the pool too small.
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tessera::sparse::detail {

struct TaskRoom {
  std::int64_t spawned = 0;                // tasks the generator spawned (its own thread only)
  std::atomic<std::int64_t> completed{0};  // tasks whose body returned (counted at its end)
  bool stalled = false;                    // the generator stopped on a full pool: restart it

  // Drops the complete futures among `lists`; the number dropped.
  template <class Future>
  static std::int64_t drop_complete(std::initializer_list<std::vector<Future>*> lists) {
    std::int64_t dropped = 0;
    for (auto* list : lists)
      for (auto& f : *list)
        if (!f.is_null() && f.is_ready()) {
          f = Future();
          ++dropped;
        }
    return dropped;
  }

  // Called by the generator when a spawn or when_all found the pool full.
  // True: respawn and retry (room was made, or tasks are still running and
  // will make some). False: nothing the run can wait for; stop and let the
  // host restart it (set `stalled`).
  template <class Future>
  bool make_room(std::initializer_list<std::vector<Future>*> lists) {
    if (drop_complete<Future>(lists) > 0 || spawned > completed.load(std::memory_order_acquire)) return true;
    stalled = true;
    return false;
  }

  // The host's loop: run the generator to the end, restarting it after each
  // stall. `start` spawns the generator, `wait_all` waits for the scheduler
  // to drain. False when a restart at a quiescent point could not spawn a
  // single task: the pool is too small.
  template <class Future, class Start, class Wait>
  bool run(std::initializer_list<std::vector<Future>*> lists, Start start, Wait wait_all) {
    for (bool restarted = false;;) {
      const std::int64_t before = spawned;
      stalled = false;
      start();
      wait_all();
      if (!stalled) return true;
      if (restarted && spawned == before) return false;
      // Here, on the host, freed records go straight back to the pool.
      drop_complete<Future>(lists);
      restarted = true;
    }
  }
};

}  // namespace tessera::sparse::detail
