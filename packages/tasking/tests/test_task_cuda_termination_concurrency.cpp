// The CUDA driver's termination count (detail/cuda_termination.hpp) and work
// taking (detail/cuda_warp_queues.hpp) on host threads (label "concurrency",
// run under ThreadSanitizer in CI). Each thread is lane 0 of one driver warp
// and runs the kernel's loop with the driver's own functions: move the
// inbox onto the deques, take a batch (own deques, overflow stacks, steals),
// run it, and when nothing was found leave the busy count and poll it
// (close, rejoin or wait): cuda_next_batch and cuda_idle_step, the two steps
// of the kernel's loop that decide what a warp does. The tasks form a random tree whose children a
// task makes ready when it runs, as a spawn in device code does.
//
// What must hold: every task runs exactly once; no task runs, and nothing
// is pushed, once the count is closed (a warp that closed early would leave
// tasks behind or end the wait under a running one); every warp leaves (a
// watchdog turns a hang into a failure); the count ends closed at zero busy
// warps, with every queue empty.
//
// The build defines TESSERA_CUDA_QUEUES_ON_HOST when it finds libcu++'s
// <cuda/atomic> (the CUDA toolkit's headers); without it the cases skip and
// say so.
#include "deque_test_util.hpp"
#include "tasking_test_util.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if defined(TESSERA_CUDA_QUEUES_ON_HOST)
#include <tessera/tasking/detail/cuda_termination.hpp>
#include <tessera/tasking/detail/cuda_warp_queues.hpp>

namespace {

namespace tt = tessera::detail::tasking;
using tessera::test::InterleaveAt;

// A ready task as the queues see it (the fields of CudaTaskRecord they use).
struct alignas(64) Record {
  Record* next = nullptr;  // inbox and overflow-stack link
  Record* dep = nullptr;   // overflow chain link while ready
  std::uint8_t kind = 0;   // TaskKind: Single or Team
  std::uint8_t priority = 0;
  std::uint32_t id = 0;  // the task's number in its tree
};

using Warp = tt::CudaWarpStateOf<Record>;
struct Counters {
  unsigned long long steals = 0;
};

// A driver's shared state in small: what cuda_warp_queues.hpp and
// cuda_termination.hpp read of CudaQueueState.
struct State {
  Warp* warps = nullptr;
  Counters* counters = nullptr;
  int nwarps = 0;
  tt::CudaOverflowStackOf<Record> overflow[2]{};
  alignas(64) long long busy = 0;
  long long keep_while_idle = tt::kCudaKeepWhileOthersIdle;
  long long keep_team_while_idle = tt::kCudaKeepTeamWhileOthersIdle;
};

std::uint64_t next_random(std::uint64_t& seed) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed >> 33;
}

long long count_now(State& s) {
  return tt::cuda_device_ref<long long>(s.busy).load(::cuda::std::memory_order_acquire);
}

// `nwarps` warps with deques of `slots` slots each (small, so that bursts
// reach the overflow stacks), all counted busy, as the host sets them up
// before a launch.
struct Driver {
  Driver(int nwarps, long long slots)
      : warps(std::size_t(nwarps)),
        counters(std::size_t(nwarps)),
        rings(std::size_t(nwarps) * tt::kCudaDequesPerWarp * std::size_t(slots), nullptr),
        slots(slots) {
    state.warps = warps.data();
    state.counters = counters.data();
    state.nwarps = nwarps;
    reset();
  }
  void reset() {
    for (std::size_t w = 0; w < warps.size(); ++w) {
      for (int d = 0; d < tt::kCudaDequesPerWarp; ++d) {
        auto& q = warps[w].deques[d];
        q.top = 0;
        q.bottom = 0;
        q.slots = rings.data() + (w * tt::kCudaDequesPerWarp + std::size_t(d)) * std::size_t(slots);
        q.mask = slots - 1;
      }
      warps[w].inbox = nullptr;
      warps[w].rng = 0x9e3779b9u + unsigned(w) * 7919u;  // as the host seeds them: distinct, nonzero
      counters[w].steals = 0;
    }
    state.overflow[0].head = 0;
    state.overflow[1].head = 0;
    state.busy = state.nwarps;
  }
  bool queues_empty() {
    for (auto& w : warps) {
      if (w.inbox != nullptr) return false;
      for (auto& q : w.deques)
        if (q.approx_size() != 0) return false;
    }
    return state.overflow[0].empty() && state.overflow[1].empty();
  }
  unsigned long long steals() const {
    unsigned long long n = 0;
    for (const auto& c : counters) n += c.steals;
    return n;
  }
  std::vector<Warp> warps;
  std::vector<Counters> counters;
  std::vector<Record*> rings;
  long long slots;
  State state;
};

// A random tree of `n` tasks: task 0 is the root, each other task's parent
// is one of the tasks before it, a recent one half the time, so that the
// tree is deep as well as wide; every thousandth task is a hub of about 125 children
// (bursts that overflow the deques). Kinds and priorities are random too, so that every
// deque and both overflow stacks are used.
struct TaskTree {
  TaskTree(std::size_t n, std::uint64_t seed)
      : records(n), first_child(n + 1, 0), children(n > 0 ? n - 1 : 0) {
    std::vector<std::uint32_t> parent(n, 0);
    for (std::size_t i = 1; i < n; ++i) {
      const std::uint64_t r = next_random(seed) % 16;
      if (r < 2)
        parent[i] = std::uint32_t((i - 1) / 1000 * 1000);  // hubs 0, 1000, ...: ~125 children each
      else if (r < 8)
        parent[i] = std::uint32_t(next_random(seed) % i);  // anywhere
      else
        parent[i] = std::uint32_t(i - 1 - std::min<std::uint64_t>(i - 1, next_random(seed) % 8));  // recent
    }
    for (std::size_t i = 1; i < n; ++i) ++first_child[parent[i] + 1];
    for (std::size_t i = 0; i < n; ++i) first_child[i + 1] += first_child[i];
    std::vector<std::size_t> fill(first_child.begin(), first_child.end() - 1);
    for (std::size_t i = 1; i < n; ++i) children[fill[parent[i]]++] = std::uint32_t(i);
    for (std::size_t i = 0; i < n; ++i) {
      records[i].id = std::uint32_t(i);
      records[i].kind =
          next_random(seed) % 5 == 0 ? std::uint8_t(tt::TaskKind::Team) : std::uint8_t(tt::TaskKind::Single);
      records[i].priority = std::uint8_t(next_random(seed) % 3);
    }
    runs.reset(new std::atomic<int>[n]);
    for (std::size_t i = 0; i < n; ++i) runs[i].store(0, std::memory_order_relaxed);
  }
  std::size_t size() const { return records.size(); }
  std::size_t wrong() const {
    std::size_t w = 0;
    for (std::size_t i = 0; i < size(); ++i) w += runs[i].load() != 1;
    return w;
  }
  int work = 0;  // pauses per task: a body long enough for idle warps to come and steal
  std::vector<Record> records;
  std::vector<std::size_t> first_child;
  std::vector<std::uint32_t> children;
  std::unique_ptr<std::atomic<int>[]> runs;
};

// What one warp saw during a wait.
struct WarpReport {
  std::size_t ran = 0, rejoins = 0, batches_over_one = 0;
  std::size_t ran_while_closed = 0, pushed_while_closed = 0, ran_while_idle = 0;
  bool left_closed = false;
};

// As cuda_push_ready: onto the warp's own inbox (the lanes of one warp race
// here on the GPU; one thread per warp here).
void push_ready(Warp& me, Record* r) {
  auto inbox = tt::cuda_device_ref<Record*>(me.inbox);
  Record* h = inbox.load(::cuda::std::memory_order_relaxed);
  do {
    r->next = h;
  } while (!inbox.compare_exchange_weak(h, r, ::cuda::std::memory_order_release,
                                        ::cuda::std::memory_order_relaxed));
}

// Lane 0 of warp `wid`: the driver kernel's loop (cuda_task_driver) over the
// same two steps, cuda_next_batch and cuda_idle_step, with a task's run
// replaced by making its children ready and the sleep by a yield.
WarpReport run_warp(State* s, int wid, TaskTree& tree) {
  WarpReport rep;
  Warp& me = s->warps[wid];
  bool busy = true;
  Record* batch[32];
  for (;;) {
    int team = 0;
    const int n = tt::cuda_next_batch(s, wid, me, busy, batch, &team);
    if (n > 0) {
      if (team) {
        EXPECT_EQ(n, 1) << "a team task comes alone";
      }
      rep.batches_over_one += n > 1;
      for (int i = 0; i < n; ++i) {
        Record* t = batch[i];
        rep.ran_while_idle += !busy;
        rep.ran_while_closed += (count_now(*s) & tt::kCudaClosed) != 0;
        tree.runs[t->id].fetch_add(1, std::memory_order_relaxed);
        ++rep.ran;
        for (int k = 0; k < tree.work; ++k) tessera::detail::host_cpu_relax();  // the task's body
        for (std::size_t c = tree.first_child[t->id]; c < tree.first_child[t->id + 1]; ++c) {
          rep.pushed_while_closed += (count_now(*s) & tt::kCudaClosed) != 0;
          push_ready(me, &tree.records[tree.children[c]]);
        }
      }
      continue;
    }
    const tt::CudaIdleStep step = tt::cuda_idle_step(s, wid, me, busy);
    if (step == tt::CudaIdleStep::Leave) {
      rep.left_closed = (count_now(*s) & tt::kCudaClosed) != 0;
      break;
    }
    if (step == tt::CudaIdleStep::Rejoined)
      ++rep.rejoins;
    else
      std::this_thread::yield();  // the kernel sleeps (__nanosleep, backing off)
  }
  return rep;
}

// Warps as threads that stay up across waits (a barrier between waits, as
// one launch per wait).
class WarpThreads {
 public:
  WarpThreads(Driver& driver, int nwarps)
      : m_driver(driver), m_start(nwarps + 1), m_end(nwarps + 1), m_reports(std::size_t(nwarps)) {
    for (int w = 0; w < nwarps; ++w)
      m_threads.emplace_back([this, w] {
        for (;;) {
          m_start.arrive_and_wait();
          if (m_quit) break;
          m_reports[std::size_t(w)] = run_warp(&m_driver.state, w, *m_tree);
          m_end.arrive_and_wait();
        }
      });
  }
  ~WarpThreads() {
    m_quit = true;
    m_start.arrive_and_wait();
    for (auto& t : m_threads) t.join();
  }
  WarpThreads(const WarpThreads&) = delete;
  WarpThreads& operator=(const WarpThreads&) = delete;

  // One wait: the tree's root staged on warp `root_warp` (the prologue
  // pushes a staged task onto the inbox of the warp that schedules it).
  const std::vector<WarpReport>& wait(TaskTree& tree, int root_warp) {
    m_driver.reset();
    m_tree = &tree;
    if (tree.size() > 0) push_ready(m_driver.warps[std::size_t(root_warp)], &tree.records[0]);
    m_start.arrive_and_wait();
    m_end.arrive_and_wait();
    return m_reports;
  }

 private:
  Driver& m_driver;
  std::barrier<> m_start, m_end;
  std::vector<WarpReport> m_reports;
  std::vector<std::thread> m_threads;
  TaskTree* m_tree = nullptr;
  bool m_quit = false;
};

struct Totals {
  std::size_t ran = 0, rejoins = 0, batches_over_one = 0, ran_while_closed = 0, pushed_while_closed = 0,
              ran_while_idle = 0, left_open = 0;
  void add(const std::vector<WarpReport>& reports) {
    for (const WarpReport& r : reports) {
      ran += r.ran;
      rejoins += r.rejoins;
      batches_over_one += r.batches_over_one;
      ran_while_closed += r.ran_while_closed;
      pushed_while_closed += r.pushed_while_closed;
      ran_while_idle += r.ran_while_idle;
      left_open += !r.left_closed;
    }
  }
};

// The checks after one wait of `tree`.
void expect_wait_ended_cleanly(Driver& driver, const TaskTree& tree, const std::vector<WarpReport>& reports,
                               const std::string& which) {
  Totals t;
  t.add(reports);
  EXPECT_EQ(tree.wrong(), 0u) << which << ": tasks run zero or several times";
  EXPECT_EQ(t.ran, tree.size()) << which;
  EXPECT_EQ(t.ran_while_closed, 0u) << which << ": a task ran after the count was closed";
  EXPECT_EQ(t.pushed_while_closed, 0u) << which << ": a task was made ready after the count was closed";
  EXPECT_EQ(t.ran_while_idle, 0u) << which << ": a warp ran a task while it was not counted busy";
  EXPECT_EQ(t.left_open, 0u) << which << ": a warp left before the count was closed";
  EXPECT_EQ(driver.state.busy, tt::kCudaClosed) << which << ": the count must end closed with no warp busy";
  EXPECT_TRUE(driver.queues_empty()) << which << ": a task was left in a queue";
}

}  // namespace

// ---- interleavings fixed by the test points -----------------------------------

TEST(CudaTerminationInterleavings, LastIdleWarpClosesTheCountAndTheOthersLeave) {
  // Three warps with nothing to do: the first two leave the count and wait
  // (the third is still busy), the third leaves it, reads 0 and closes; the
  // others then see it closed.
  Driver d(3, 8);
  State* s = &d.state;
  bool busy[3] = {true, true, true};
  const auto nothing = [] { return false; };
  for (int w = 0; w < 2; ++w) {
    tt::cuda_become_idle(s->busy, busy[w]);
    EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy[w], nothing), tt::CudaIdleStep::Wait) << "warp " << w;
  }
  tt::cuda_become_idle(s->busy, busy[2]);
  tt::cuda_become_idle(s->busy, busy[2]);  // a second call in one idle spell changes nothing
  EXPECT_EQ(s->busy, 0);
  EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy[2], nothing), tt::CudaIdleStep::Leave);
  EXPECT_EQ(s->busy, tt::kCudaClosed);
  for (int w = 0; w < 2; ++w)
    EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy[w], nothing), tt::CudaIdleStep::Leave);
}

TEST(CudaTerminationInterleavings, IdleWarpSeeingAnotherWarpsTaskRejoinsAndTakesIt) {
  // Warp 1 holds a task on its deque and stays busy; idle warp 0 sees it,
  // counts itself busy again and steals it.
  Driver d(2, 8);
  State* s = &d.state;
  Record r;
  ASSERT_TRUE(d.warps[1].deques[0].push(&r));
  bool busy0 = true;
  tt::cuda_become_idle(s->busy, busy0);
  EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy0, [&] { return tt::cuda_work_visible(s, 0, d.warps[0]); }),
            tt::CudaIdleStep::Rejoined);
  EXPECT_TRUE(busy0);
  EXPECT_EQ(s->busy, 2);
  Record* batch[32];
  int team = -1;
  ASSERT_EQ(tt::cuda_take_work(s, 0, d.warps[0], batch, &team), 1);
  EXPECT_EQ(batch[0], &r);
  EXPECT_EQ(team, 0);
  EXPECT_EQ(d.steals(), 1u);
}

TEST(CudaTerminationInterleavings, RejoinThatLosesToTheCloseLeaves) {
  // Idle warp 0 has seen warp 1's last task and is about to count itself
  // busy again; meanwhile warp 1 takes the task, runs it (it makes nothing
  // ready), finds nothing more, leaves the count and closes it. Warp 0's
  // increment must count for nothing on the closed count (taken back, the
  // count ends closed), and warp 0 leave without being counted busy:
  // nothing is left to run.
  Driver d(2, 8);
  State* s = &d.state;
  Record r;
  ASSERT_TRUE(d.warps[1].deques[0].push(&r));
  bool busy0 = true, busy1 = true;
  tt::cuda_become_idle(s->busy, busy0);
  tt::CudaIdleStep step1 = tt::CudaIdleStep::Wait;
  InterleaveAt at(InterleaveAt::Point::IdleBeforeRejoin, [&] {
    Record* batch[32];
    int team = 0;
    EXPECT_EQ(tt::cuda_take_work(s, 1, d.warps[1], batch, &team), 1);
    EXPECT_EQ(tt::cuda_take_work(s, 1, d.warps[1], batch, &team), 0);
    tt::cuda_become_idle(s->busy, busy1);
    step1 = tt::cuda_idle_poll(s->busy, busy1, [] { return false; });
  });
  const tt::CudaIdleStep step0 =
      tt::cuda_idle_poll(s->busy, busy0, [&] { return tt::cuda_work_visible(s, 0, d.warps[0]); });
  ASSERT_TRUE(at.fired()) << "warp 0 did not see warp 1's task";
  EXPECT_EQ(step1, tt::CudaIdleStep::Leave) << "warp 1 was the last busy warp: it closes the count";
  EXPECT_EQ(step0, tt::CudaIdleStep::Leave);
  EXPECT_FALSE(busy0) << "counted busy on a closed count";
  EXPECT_EQ(s->busy, tt::kCudaClosed);
}

TEST(CudaTerminationInterleavings, CloseThatLosesToARejoinWaits) {
  // Warp 0 read a count of 0 and is about to close it; meanwhile warp 1,
  // which had seen a task that has run since, counts itself busy again
  // (0 -> 1). Warp 0's close must fail and it must not leave: the count is
  // open and warp 1 is in the loop. When warp 1 finds nothing and leaves
  // the count, warp 1 closes it and both leave.
  Driver d(2, 8);
  State* s = &d.state;
  bool busy0 = true, busy1 = true;
  tt::cuda_become_idle(s->busy, busy1);
  tt::cuda_become_idle(s->busy, busy0);
  ASSERT_EQ(s->busy, 0);
  InterleaveAt at(InterleaveAt::Point::IdleBeforeClose, [&] {
    // Warp 1's rejoin, made inside its own window (a CAS from the count it
    // read, now 0), which one thread cannot otherwise stage.
    long long b = 0;
    EXPECT_TRUE(tt::cuda_device_ref<long long>(s->busy).compare_exchange_strong(b, 1));
    busy1 = true;
  });
  EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy0, [] { return false; }), tt::CudaIdleStep::Wait);
  ASSERT_TRUE(at.fired());
  EXPECT_EQ(s->busy, 1) << "the close overwrote a rejoin";
  tt::cuda_become_idle(s->busy, busy1);
  EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy1, [] { return false; }), tt::CudaIdleStep::Leave);
  EXPECT_EQ(tt::cuda_idle_poll(s->busy, busy0, [] { return false; }), tt::CudaIdleStep::Leave);
  EXPECT_EQ(s->busy, tt::kCudaClosed);
}

// `n` single tasks of priority 0 made ready on `warp` in one batch (its
// lanes' pushes onto the inbox), numbered 0 to n - 1.
std::vector<Record> inbox_burst(Warp& warp, std::uint32_t n, tt::TaskKind kind = tt::TaskKind::Single) {
  std::vector<Record> records(n);  // moved out whole: the pushed addresses stay valid
  for (std::uint32_t i = 0; i < n; ++i) {
    records[i].id = i;
    records[i].kind = std::uint8_t(kind);
    push_ready(warp, &records[i]);
  }
  return records;
}

// Successful CASes on an overflow stack's head so far (its ABA tag).
unsigned long long head_updates(const tt::CudaOverflowStackOf<Record>& stack) {
  return stack.head >> tt::CudaOverflowStackOf<Record>::kAddrBits;
}

TEST(CudaTerminationInterleavings, InboxBurstGoesToTheOverflowStackInChainsOfABatch) {
  // 100 single tasks of one priority made ready in one batch, onto a warp
  // whose deques hold 8: 8 stay on the deque, the other 92 go to the
  // overflow stack in chains of at most 32 (one pop takes a whole batch),
  // and the warp then takes all 100 back: its deque first, then the chains,
  // the last pushed (the short one) first.
  Driver d(1, 8);
  State* s = &d.state;
  const std::vector<Record> records = inbox_burst(d.warps[0], 100);
  tt::cuda_drain_inbox(s, d.warps[0]);
  EXPECT_EQ(d.warps[0].inbox, nullptr);
  EXPECT_EQ(d.warps[0].deques[0].approx_size(), 8);
  std::vector<int> taken(100, 0);
  std::vector<int> batch_sizes;
  Record* batch[32];
  int team = 0;
  while (int n = tt::cuda_take_work(s, 0, d.warps[0], batch, &team)) {
    EXPECT_EQ(team, 0);
    batch_sizes.push_back(n);
    for (int i = 0; i < n; ++i) {
      ++taken[batch[i]->id];
      EXPECT_EQ(batch[i]->dep, nullptr) << "the chain link must be cleared";
    }
  }
  EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), 100) << "every task taken once";
  EXPECT_EQ(batch_sizes, (std::vector<int>{8, 28, 32, 32})) << "the deque's 8, then the chains of 28, 32, 32";
  EXPECT_TRUE(d.queues_empty());
}

TEST(CudaTerminationInterleavings, InboxSurplusIsSharedWhileAnotherWarpIsIdle) {
  // 100 single tasks made ready on warp 0, whose deques hold 256, while warp
  // 1 is idle (the busy count at 1 of 2): warp 0 keeps two batches
  // (kCudaKeepWhileOthersIdle = 64) and shares the other 36 through the
  // overflow stack, in a chain of 32 and one of 4, which warp 1 takes whole
  // (the last pushed first) before it steals from warp 0 one task at a time.
  Driver d(2, 256);
  State* s = &d.state;
  s->busy = 1;
  const std::vector<Record> records = inbox_burst(d.warps[0], 100);
  tt::cuda_drain_inbox(s, d.warps[0]);
  EXPECT_EQ(d.warps[0].deques[0].approx_size(), tt::kCudaKeepWhileOthersIdle);
  EXPECT_FALSE(s->overflow[0].empty());
  std::vector<int> taken(100, 0);
  std::vector<int> batch_sizes;
  Record* batch[32];
  int team = 0;
  for (int w : {1, 1}) {
    const int n = tt::cuda_take_work(s, w, d.warps[w], batch, &team);
    batch_sizes.push_back(n);
    for (int i = 0; i < n; ++i) ++taken[batch[i]->id];
  }
  EXPECT_EQ(batch_sizes, (std::vector<int>{4, 32})) << "warp 1 takes the shared chains whole";
  EXPECT_TRUE(s->overflow[0].empty());
  while (int n = tt::cuda_take_work(s, 0, d.warps[0], batch, &team))
    for (int i = 0; i < n; ++i) ++taken[batch[i]->id];
  EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), 100) << "every task taken once";
  EXPECT_TRUE(d.queues_empty());
}

TEST(CudaTerminationInterleavings, TeamSurplusIsSharedOneTaskPerEntryWhileAnotherWarpIsIdle) {
  // 20 team tasks made ready on warp 0 (a POTRF tile's column of TRSMs)
  // while warp 1 is idle: warp 0 keeps the one it runs next
  // (kCudaKeepTeamWhileOthersIdle) and shares 19 through the team overflow
  // stack with one CAS; warp 1 takes them one team task per pop, as it runs
  // them, before warp 0 runs the one it kept.
  Driver d(2, 256);
  State* s = &d.state;
  s->busy = 1;
  const std::vector<Record> records = inbox_burst(d.warps[0], 20, tt::TaskKind::Team);
  tt::cuda_drain_inbox(s, d.warps[0]);
  const auto& team_deque = d.warps[0].deques[tt::kCudaPriorities + 0];
  EXPECT_EQ(team_deque.approx_size(), tt::kCudaKeepTeamWhileOthersIdle);
  EXPECT_EQ(head_updates(s->overflow[1]), 1u) << "the 19 shared team tasks go in one push";
  EXPECT_TRUE(s->overflow[0].empty()) << "no team task among the single tasks' chains";
  std::vector<int> taken(20, 0);
  Record* batch[32];
  int team = 0;
  for (int i = 0; i < 19; ++i) {
    ASSERT_EQ(tt::cuda_take_work(s, 1, d.warps[1], batch, &team), 1) << "pop " << i;
    EXPECT_EQ(team, 1);
    ++taken[batch[0]->id];
  }
  EXPECT_TRUE(s->overflow[1].empty());
  ASSERT_EQ(tt::cuda_take_work(s, 0, d.warps[0], batch, &team), 1);
  EXPECT_EQ(team, 1);
  ++taken[batch[0]->id];
  EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), 20) << "every task taken once";
  EXPECT_TRUE(d.queues_empty());
}

TEST(CudaTerminationInterleavings, TeamTasksPastAFullDequeGoToTheOverflowStackInOnePush) {
  // Every warp busy, team deques of 8: 8 of 20 stay, the other 12 go to the
  // team overflow stack with one CAS, and the warp takes all 20 back, one
  // team task per pop.
  Driver d(1, 8);
  State* s = &d.state;
  const std::vector<Record> records = inbox_burst(d.warps[0], 20, tt::TaskKind::Team);
  tt::cuda_drain_inbox(s, d.warps[0]);
  EXPECT_EQ(d.warps[0].deques[tt::kCudaPriorities + 0].approx_size(), 8);
  EXPECT_EQ(head_updates(s->overflow[1]), 1u);
  std::vector<int> taken(20, 0);
  Record* batch[32];
  int team = 0;
  int pops = 0;
  while (int n = tt::cuda_take_work(s, 0, d.warps[0], batch, &team)) {
    EXPECT_EQ(n, 1);
    EXPECT_EQ(team, 1);
    ++taken[batch[0]->id];
    ++pops;
  }
  EXPECT_EQ(pops, 20);
  EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), 20) << "every task taken once";
  EXPECT_TRUE(d.queues_empty());
}

TEST(CudaTerminationInterleavings, NothingIsSharedWhileEveryWarpIsBusy) {
  // The same bursts while both warps are counted busy: all stay on warp
  // 0's deques, and the overflow stacks stay empty.
  Driver d(2, 256);
  State* s = &d.state;
  const std::vector<Record> singles = inbox_burst(d.warps[0], 100);
  tt::cuda_drain_inbox(s, d.warps[0]);
  const std::vector<Record> teams = inbox_burst(d.warps[0], 20, tt::TaskKind::Team);
  tt::cuda_drain_inbox(s, d.warps[0]);
  EXPECT_EQ(d.warps[0].deques[0].approx_size(), 100);
  EXPECT_EQ(d.warps[0].deques[tt::kCudaPriorities + 0].approx_size(), 20);
  EXPECT_TRUE(s->overflow[0].empty());
  EXPECT_TRUE(s->overflow[1].empty());
}

TEST(CudaTerminationInterleavings, SharingTurnedOffKeepsTheSurplus) {
  // keep_while_idle and keep_team_while_idle beyond any deque (the
  // benchmark's "sharing off"): the bursts stay on warp 0's deques although
  // warp 1 is idle.
  Driver d(2, 256);
  State* s = &d.state;
  s->busy = 1;
  s->keep_while_idle = std::numeric_limits<long long>::max();
  s->keep_team_while_idle = std::numeric_limits<long long>::max();
  const std::vector<Record> singles = inbox_burst(d.warps[0], 100);
  tt::cuda_drain_inbox(s, d.warps[0]);
  const std::vector<Record> teams = inbox_burst(d.warps[0], 20, tt::TaskKind::Team);
  tt::cuda_drain_inbox(s, d.warps[0]);
  EXPECT_EQ(d.warps[0].deques[0].approx_size(), 100);
  EXPECT_EQ(d.warps[0].deques[tt::kCudaPriorities + 0].approx_size(), 20);
  EXPECT_TRUE(s->overflow[0].empty());
  EXPECT_TRUE(s->overflow[1].empty());
}

// ---- threads racing -----------------------------------------------------------

// `waits` waits of random trees of 20,000 tasks (hubs of about 125
// children), each from one root on warp w % nwarps, on `nwarps` threads
// with deques of `slots` slots; each must end cleanly. Returns what the
// warps saw, and adds the steals to *steals.
Totals run_random_tree_waits(int nwarps, long long slots, int waits, std::uint64_t seed,
                             unsigned long long* steals) {
  Driver driver(nwarps, slots);
  WarpThreads warps(driver, nwarps);
  Totals all;
  for (int w = 0; w < waits; ++w) {
    TaskTree tree(20000, seed + std::uint64_t(w));
    tree.work = 16;
    const auto& reports = warps.wait(tree, w % nwarps);
    expect_wait_ended_cleanly(driver, tree, reports, "wait " + std::to_string(w));
    all.add(reports);
    *steals += driver.steals();
    if (::testing::Test::HasFailure()) break;
  }
  return all;
}

TEST(CudaTerminationConcurrency, StressRandomTreesEndOnlyWhenEveryTaskHasRun) {
  // Trees of 20,000 tasks from one root on one warp: the other warps start
  // idle and must rejoin to help, bursts reach the overflow stacks, and the
  // count rises and falls throughout. Six warps on this machine's cores, so
  // that warps are preempted inside every window.
  tessera::test::Watchdog dog("StressRandomTreesEndOnlyWhenEveryTaskHasRun", 150);
  unsigned long long steals = 0;
  const Totals all = run_random_tree_waits(6, 16, 40, 1000, &steals);
  RecordProperty("rejoins", int(all.rejoins));
  RecordProperty("steals", int(steals));
  EXPECT_GT(all.rejoins, 0u) << "no idle warp ever rejoined: the test raced nothing";
  EXPECT_GT(steals, 0u) << "no warp ever stole: the other warps never helped";
  EXPECT_GT(all.batches_over_one, 0u) << "no batch took more than one task";
}

TEST(CudaTerminationConcurrency, StressSharedSurplusRunsEveryTaskOnce) {
  // Deques of 256 slots, so that a hub's ~125 children pass the 64 single
  // tasks and the one team task a warp keeps while others are idle, and the
  // surplus is shared through both overflow stacks while warps go idle,
  // rejoin and close around it.
  tessera::test::Watchdog dog("StressSharedSurplusRunsEveryTaskOnce", 150);
  unsigned long long steals = 0;
  const Totals all = run_random_tree_waits(6, 256, 20, 5000, &steals);
  RecordProperty("rejoins", int(all.rejoins));
  EXPECT_GT(all.rejoins, 0u) << "no idle warp ever rejoined: the test raced nothing";
  EXPECT_GT(all.batches_over_one, 0u) << "no batch took more than one task";
}

TEST(CudaTerminationConcurrency, StressManyShortWaitsCloseExactlyOnce) {
  // Thousands of waits of 0 to 12 tasks: the count is closed while idle
  // warps are in the middle of polling it, rejoining or sleeping, over and
  // over. Every wait must end (the watchdog) with every task run once.
  tessera::test::Watchdog dog("StressManyShortWaitsCloseExactlyOnce", 150);
  const int nwarps = 5;
  Driver driver(nwarps, 4);
  WarpThreads warps(driver, nwarps);
  std::uint64_t seed = 77;
  Totals all;
  int waits = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  for (; waits < 3000 && std::chrono::steady_clock::now() < give_up; ++waits) {
    TaskTree tree(std::size_t(next_random(seed) % 13), seed);
    const auto& reports = warps.wait(tree, int(next_random(seed) % nwarps));
    expect_wait_ended_cleanly(driver, tree, reports, "wait " + std::to_string(waits));
    all.add(reports);
    if (HasFailure()) break;
  }
  RecordProperty("waits", waits);
  RecordProperty("rejoins", int(all.rejoins));
  EXPECT_GE(waits, 200) << "too few waits to have raced the close";
}

#else

TEST(CudaTerminationConcurrency, NeedsLibcudacxx) {
  GTEST_SKIP()
      << "libcu++'s <cuda/atomic> (the CUDA toolkit's headers) was not found at configure time: the CUDA "
         "driver's termination count cannot be compiled for the host";
}

#endif
