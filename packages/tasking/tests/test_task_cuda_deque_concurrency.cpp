// The CUDA driver's ready queues (detail/cuda_deque.hpp) under races, on host
// threads (label "concurrency", run under ThreadSanitizer in CI): the batch
// pop of up to 32 tasks that an owning warp makes without a read-modify-write
// while other warps steal, and the tagged overflow stack whose records are
// popped and pushed again (the ABA case). On the GPU each of these threads is
// lane 0 of a warp; the protocol is the same code, over libcu++'s atomic_ref,
// which also works in host code. Every task must be taken exactly once; a
// watchdog turns a hang into a failure in seconds.
//
// The build defines TESSERA_CUDA_QUEUES_ON_HOST when it finds libcu++'s
// <cuda/atomic> (the CUDA toolkit's headers); without it the cases skip and
// say so.
#include "deque_test_util.hpp"
#include "tasking_test_util.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#if defined(TESSERA_CUDA_QUEUES_ON_HOST)
#include <tessera/tasking/detail/cuda_deque.hpp>

namespace {

// A record as the queues see it: `next` links the overflow stack; `id` is
// written by the pusher before the push and read by the taker after it.
struct alignas(64) Record {
  Record* next = nullptr;
  std::uint32_t id = 0;
};

using Deque = tessera::detail::tasking::CudaDequeOf<Record>;
using Overflow = tessera::detail::tasking::CudaOverflowStackOf<Record>;

using Tally = tessera::test::TakenOnceTally<Record, &Record::id>;

// A deque over a ring of `slots` (a power of two), as the driver sets it up.
struct RingDeque {
  explicit RingDeque(long long slots) : ring(std::size_t(slots), nullptr) {
    deque.top = 0;
    deque.bottom = 0;
    deque.slots = ring.data();
    deque.mask = slots - 1;
  }
  std::vector<Record*> ring;
  Deque deque;
};

// A deque of 8 slots holding tally's records 0..n-1, oldest at the top.
struct Filled {
  explicit Filled(std::size_t n) : tally(n), ring(8) {
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(ring.deque.push(tally.stamped(i)));
  }
  Record* record(std::size_t i) { return &tally.records[i]; }
  Tally tally;
  RingDeque ring;
};

std::uint64_t next_random(std::uint64_t& seed) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed >> 33;
}

using tessera::test::InterleaveAt;

}  // namespace

// ---- interleavings fixed by the test points -----------------------------------

TEST(CudaDequeInterleavings, OverflowPopSeesTheHeadPoppedAndPushedAgain) {
  // The ABA case: a popper has read head r and r->next = s; meanwhile other
  // warps pop r, pop s and push r back. The head is r again, but r->next is
  // now x: the popper's CAS must fail (the tag changed) and its retry must
  // pop r with the new next, leaving x. Without the tag it would install s,
  // which another warp holds.
  Record r, s, x;
  r.id = 1;
  s.id = 2;
  x.id = 3;
  Overflow stack{0};
  stack.push(&x);
  stack.push(&s);
  stack.push(&r);
  Record* other_r = nullptr;
  Record* other_s = nullptr;
  InterleaveAt at(InterleaveAt::Point::OverflowPopBeforeCas, [&] {
    other_r = stack.pop(1);
    other_s = stack.pop(1);
    stack.push(other_r);
  });
  Record* got = stack.pop(4);
  ASSERT_TRUE(at.fired());
  EXPECT_EQ(other_r, &r);
  EXPECT_EQ(other_s, &s);
  EXPECT_EQ(got, &r) << "the retry pops the record pushed back";
  Record* rest = stack.pop(1);
  EXPECT_EQ(rest, &x) << "the stale next (s, held by another warp) was installed as the head";
  EXPECT_TRUE(stack.empty());
}

TEST(CudaDequeInterleavings, OverflowPopGivesUpAfterItsTries) {
  // Every try loses to another warp's pop: pop(1) returns null (the driver
  // then looks elsewhere) and takes nothing.
  Record a, b;
  Overflow stack{0};
  stack.push(&b);
  stack.push(&a);
  Record* other = nullptr;
  InterleaveAt at(InterleaveAt::Point::OverflowPopBeforeCas, [&] { other = stack.pop(1); });
  EXPECT_EQ(stack.pop(1), nullptr);
  EXPECT_EQ(other, &a);
  EXPECT_EQ(stack.pop(1), &b);
  EXPECT_TRUE(stack.empty());
}

TEST(CudaDequeInterleavings, ThiefStealsBelowTheOwnersBatch) {
  // Five tasks, a batch of 3: after the owner lowers bottom to 2, a thief
  // may still take slot 0 (below the batch). The owner, reading top = 1 < 2,
  // keeps its three without a CAS; task 1 stays for later.
  Filled f(5);
  Deque& deque = f.ring.deque;
  Record* stolen = nullptr;
  InterleaveAt at(InterleaveAt::Point::BatchPopBeforeTopRead, [&] { stolen = deque.steal(); });
  Record* batch[32];
  ASSERT_EQ(deque.pop_batch(batch, 3), 3);
  ASSERT_TRUE(at.fired());
  EXPECT_EQ(stolen, f.record(0));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(batch[i], f.record(2 + i)) << "batch slot " << i;
  EXPECT_EQ(deque.approx_size(), 1);
  ASSERT_EQ(deque.pop_batch(batch, 32), 1);
  EXPECT_EQ(batch[0], f.record(1));
}

TEST(CudaDequeInterleavings, ThiefFindsNothingInsideAWholeBatch) {
  // A batch that asks for everything lowers bottom to top: a thief that
  // reads both then sees an empty deque, and the owner takes all (racing
  // no one, its CAS succeeds).
  Filled f(3);
  Deque& deque = f.ring.deque;
  Record* stolen = f.record(0);
  InterleaveAt at(InterleaveAt::Point::BatchPopBeforeTopRead, [&] { stolen = deque.steal(); });
  Record* batch[32];
  ASSERT_EQ(deque.pop_batch(batch, 32), 3);
  ASSERT_TRUE(at.fired());
  EXPECT_EQ(stolen, nullptr);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(batch[i], f.record(i));
  EXPECT_EQ(deque.approx_size(), 0);
}

TEST(CudaDequeInterleavings, OwnerBatchWinsTheLastTasksFromAThiefAboutToClaim) {
  // A thief has read top = 0, bottom = 3 and slot 0, and is about to claim
  // it; the owner's batch of everything then races it with a CAS of top and
  // wins all three; the thief's CAS fails and it returns null.
  Filled f(3);
  Deque& deque = f.ring.deque;
  Record* batch[32];
  int owner_got = -1;
  InterleaveAt at(InterleaveAt::Point::StealBeforeCas, [&] { owner_got = deque.pop_batch(batch, 32); });
  EXPECT_EQ(deque.steal(), nullptr) << "the thief claimed a slot the owner had taken";
  ASSERT_TRUE(at.fired());
  ASSERT_EQ(owner_got, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(batch[i], f.record(i));
  EXPECT_EQ(deque.approx_size(), 0);
}

TEST(CudaDequeInterleavings, ThiefAboutToClaimKeepsItsSlotBelowAPartialBatch) {
  // The same thief, but the owner's batch takes only the newest two of
  // four: the thief's slot 0 is below the batch, so its CAS succeeds, and
  // slot 1 is left.
  Filled f(4);
  Deque& deque = f.ring.deque;
  Record* batch[32];
  int owner_got = -1;
  InterleaveAt at(InterleaveAt::Point::StealBeforeCas, [&] { owner_got = deque.pop_batch(batch, 2); });
  EXPECT_EQ(deque.steal(), f.record(0));
  ASSERT_TRUE(at.fired());
  ASSERT_EQ(owner_got, 2);
  EXPECT_EQ(batch[0], f.record(2));
  EXPECT_EQ(batch[1], f.record(3));
  EXPECT_EQ(deque.approx_size(), 1);
}

TEST(CudaDequeInterleavings, OwnerRacesAThiefThatClaimedFirst) {
  // The owner asks for all three and has lowered bottom to top; a thief
  // that had read the old bottom claims slot 0 before the owner reads top.
  // The owner sees top = 1 >= its new bottom, races for [1, 3) with a CAS
  // and gets two; nothing is taken twice and the deque ends empty.
  Filled f(3);
  Deque& deque = f.ring.deque;
  // The thief's claim is made directly on top (a thief that read bottom
  // before the owner lowered it, which one thread cannot otherwise stage).
  InterleaveAt at(InterleaveAt::Point::BatchPopBeforeTopRead, [&] {
    long long t = 0;
    const bool claimed =
        tessera::detail::tasking::cuda_device_ref<long long>(deque.top).compare_exchange_strong(t, 1);
    EXPECT_TRUE(claimed);
  });
  Record* batch[32];
  ASSERT_EQ(deque.pop_batch(batch, 32), 2);
  ASSERT_TRUE(at.fired());
  EXPECT_EQ(batch[0], f.record(1));
  EXPECT_EQ(batch[1], f.record(2));
  EXPECT_EQ(deque.approx_size(), 0);
}

// ---- threads racing -----------------------------------------------------------

TEST(CudaDequeConcurrency, BatchPopsStealsAndTheOverflowStackTakeEveryTaskOnce) {
  // The driver's traffic in small: the owner pushes bursts onto a ring of 64
  // slots (what does not fit goes to the overflow stack, as cuda_drain_inbox
  // sends it) and takes batches of 1 to 32; thieves steal one task at a time
  // and pop the overflow stack.
  tessera::test::Watchdog dog("BatchPopsStealsAndTheOverflowStackTakeEveryTaskOnce", 120);
  const std::size_t n = 60000;
  const int thieves = 3;
  Tally tally(n);
  RingDeque ring(64);
  Deque& deque = ring.deque;
  Overflow overflow{0};
  std::atomic<std::size_t> stolen{0}, from_overflow{0};
  tessera::test::Thieves thief_threads(thieves, [&] {
    if (Record* r = deque.steal()) {
      tally.take(r);
      stolen.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (Record* o = overflow.pop(4)) {
      tally.take(o);
      from_overflow.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    return false;
  });
  std::uint64_t seed = 2026;
  std::size_t next = 0, popped = 0, overflowed = 0;
  Record* batch[32];
  while (next < n) {
    const std::size_t burst = std::min<std::size_t>(n - next, 1 + next_random(seed) % 100);
    for (std::size_t i = 0; i < burst; ++i, ++next) {
      Record* r = tally.stamped(next);
      if (!deque.push(r)) {
        overflow.push(r);
        ++overflowed;
      }
    }
    const int want = 1 + int(next_random(seed) % 32);
    const int got = deque.pop_batch(batch, want);
    ASSERT_LE(got, want);
    for (int i = 0; i < got; ++i) tally.take(batch[i]);
    popped += std::size_t(got);
    // The owner's loop takes a few milliseconds: on a loaded machine the
    // thieves could sleep through all of it. Until one has stolen, the
    // owner yields after every burst.
    const bool coin = next_random(seed) % 4 == 0;
    if (coin || stolen.load(std::memory_order_relaxed) == 0) std::this_thread::yield();
  }
  // On a loaded machine the thieves may not have run at all during the
  // owner's few milliseconds (seen with a CI beside the test: 1 run in about
  // 5), however often it yielded. Then they get the deque's last tasks for
  // themselves, the owner waiting, so that a steal is still checked.
  if (stolen.load() == 0)
    tessera::test::wait_until([&] { return stolen.load() > 0 || deque.approx_size() == 0; }, 10.0);
  // What is left: the owner takes its deque back in batches, the thieves
  // empty the overflow stack.
  while (int got = deque.pop_batch(batch, 32)) {
    for (int i = 0; i < got; ++i) tally.take(batch[i]);
    popped += std::size_t(got);
  }
  EXPECT_EQ(deque.approx_size(), 0);
  tessera::test::wait_until([&] { return overflow.empty(); }, 10.0);
  thief_threads.stop();
  EXPECT_TRUE(overflow.empty());
  EXPECT_EQ(popped + stolen.load() + from_overflow.load(), n);
  EXPECT_EQ(from_overflow.load(), overflowed);
  EXPECT_GT(stolen.load(), 0u) << "the thieves never stole a task: the test raced nothing";
  EXPECT_GT(overflowed, 0u) << "the ring never filled: the overflow path went untested";
  EXPECT_EQ(tally.wrong(), 0u) << "tasks taken zero or several times";
}

TEST(CudaDequeConcurrency, StressBatchPopRacesThievesForTheLastTasks) {
  // Rounds of 1 to 40 tasks: the owner pushes them and at once takes a batch
  // of 1 to 32. When the batch asks for all that is there (or more), the
  // owner's new bottom reaches top and it must race the thieves with a CAS
  // for the rest; otherwise the batch is its own without one. Either way
  // each task has exactly one taker, and the deque is empty after the
  // owner's last pop of the round.
  tessera::test::Watchdog dog("StressBatchPopRacesThievesForTheLastTasks", 120);
  const std::size_t min_tasks = 200000, max_tasks = 1000000, min_stolen = 200;
  const int thieves = 3;
  Tally tally(max_tasks);
  RingDeque ring(64);
  Deque& deque = ring.deque;
  std::atomic<std::size_t> stolen{0};
  tessera::test::Thieves thief_threads(
      thieves,
      [&] {
        Record* r = deque.steal();
        if (r == nullptr) return false;
        tally.take(r);
        stolen.fetch_add(1, std::memory_order_relaxed);
        return true;
      },
      /*keep_racing=*/true);
  std::uint64_t seed = 7;
  std::size_t popped = 0, i = 0, raced_rounds = 0;
  Record* batch[32];
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (i + 40 <= max_tasks) {
    if (i >= min_tasks && (stolen.load() >= min_stolen || std::chrono::steady_clock::now() > give_up)) break;
    const std::size_t k = 1 + next_random(seed) % 40;
    for (std::size_t j = 0; j < k; ++j, ++i) {
      ASSERT_TRUE(deque.push(tally.stamped(i)))
          << "round at task " << i << ": a ring of 64 refused one of " << k << " tasks after an empty round";
    }
    if (i % 64 == 0) std::this_thread::yield();  // thieves get a core on a small machine
    for (std::size_t s = 0; s < (i % 5) * 4; ++s) tessera::detail::host_cpu_relax();
    const int want = 1 + int(next_random(seed) % 32);
    raced_rounds += std::size_t(want) >= k;
    int got = deque.pop_batch(batch, want);
    ASSERT_LE(got, want);
    for (;;) {
      for (int g = 0; g < got; ++g) tally.take(batch[g]);
      popped += std::size_t(got);
      if (got == 0) break;
      got = deque.pop_batch(batch, 32);
    }
    ASSERT_EQ(deque.approx_size(), 0) << "task " << i;
  }
  thief_threads.stop();
  const std::size_t pushed = i;
  EXPECT_EQ(popped + stolen.load(), pushed);
  EXPECT_GT(raced_rounds, 0u);
  EXPECT_GT(stolen.load(), 0u) << "the thieves never took a task in " << pushed
                               << " tasks: the test raced nothing";
  RecordProperty("tasks", int(pushed));
  RecordProperty("stolen", int(stolen.load()));
  EXPECT_EQ(tally.wrong(pushed), 0u) << "tasks taken zero or several times";
}

// Threads sharing records through one overflow stack: records 0..n-1, the
// upper half in the stack at the start and the lower half held by the
// threads in turn. For 200 ms each thread runs step(mine, seed) over and
// over (`mine`: the records it holds; step pushes some of them and keeps
// what it pops); it returns how many pops or pushes it made. At the end
// every record must be held by one thread or in the stack, exactly once, and
// the stack must hold no cycle. Returns the operations counted.
template <class Step>
std::size_t race_through_one_stack(int nthreads, std::size_t per_thread, const Step& step) {
  const std::size_t n = std::size_t(nthreads) * per_thread;
  std::vector<Record> records(n);
  Overflow stack{0};
  for (std::size_t i = 0; i < n; ++i) {
    records[i].id = std::uint32_t(i);
    if (i >= n / 2) stack.push(&records[i]);
  }
  std::vector<std::vector<Record*>> held{std::size_t(nthreads)};
  for (std::size_t i = 0; i < n / 2; ++i) held[i % std::size_t(nthreads)].push_back(&records[i]);
  std::atomic<int> started{0};
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> operations{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < nthreads; ++k)
    threads.emplace_back([&, k] {
      started.fetch_add(1);
      while (started.load() < nthreads) std::this_thread::yield();
      std::vector<Record*>& mine = held[std::size_t(k)];
      std::uint64_t seed = 99 + std::uint64_t(k);
      std::size_t mine_operations = 0;
      while (!stop.load(std::memory_order_relaxed))
        for (int r = 0; r < 256; ++r) {
          const std::size_t before = mine.size();
          mine_operations += step(stack, mine, seed);
          for (std::size_t i = before; i < mine.size(); ++i)
            EXPECT_EQ(mine[i], &records[mine[i]->id])
                << "a popped record's fields are not what its pusher wrote";
        }
      operations.fetch_add(mine_operations);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop.store(true);
  for (auto& t : threads) t.join();
  std::vector<int> seen(n, 0);
  for (const auto& mine : held)
    for (Record* r : mine) ++seen[r->id];
  std::size_t in_stack = 0;
  while (Record* r = stack.pop(1)) {
    if (++in_stack > n) {
      ADD_FAILURE() << "the stack holds a cycle";
      return operations.load();
    }
    ++seen[r->id];
  }
  std::size_t wrong = 0;
  for (int c : seen) wrong += c != 1;
  EXPECT_EQ(wrong, 0u) << "records lost or duplicated through the stack";
  return operations.load();
}

TEST(CudaDequeConcurrency, StressOverflowStackKeepsEveryRecordThroughReuse) {
  // More threads than cores pop records and push them back at once, over a
  // few records, so that reads of a head's `next` race pushes of the same
  // record by another thread (ThreadSanitizer checks that race is between
  // atomics) and CASes fail often. The ABA case itself needs a thread to
  // stop inside its window, which preemption does too rarely on a small
  // machine: OverflowPopSeesTheHeadPoppedAndPushedAgain stages it.
  tessera::test::Watchdog dog("StressOverflowStackKeepsEveryRecordThroughReuse", 120);
  const std::size_t pops =
      race_through_one_stack(8, 2, [](Overflow& stack, std::vector<Record*>& mine, std::uint64_t& seed) {
        if (!mine.empty() && next_random(seed) % 2 == 0) {
          stack.push(mine.back());
          mine.pop_back();
        }
        if (Record* got = stack.pop(4)) {
          mine.push_back(got);
          return std::size_t(1);
        }
        return std::size_t(0);
      });
  RecordProperty("pops", int(pops));
  EXPECT_GT(pops, 0u);
}

TEST(CudaDequeConcurrency, StressOverflowStackKeepsEveryRecordThroughChainPushes) {
  // As the driver shares team tasks (cuda_drain_inbox): a thread links the
  // records it holds into a chain through `next` (each link an atomic store,
  // since a pop that saw a record in an earlier life may still read its
  // `next`) and pushes the whole chain with one CAS (push_list), while the
  // others pop records one at a time. A chain must enter the stack whole.
  tessera::test::Watchdog dog("StressOverflowStackKeepsEveryRecordThroughChainPushes", 120);
  const std::size_t chains =
      race_through_one_stack(8, 4, [](Overflow& stack, std::vector<Record*>& mine, std::uint64_t& seed) {
        std::size_t pushed = 0;
        if (!mine.empty() && next_random(seed) % 3 == 0) {
          // A chain of 1 to all of the held records, newest first.
          const std::size_t len = 1 + next_random(seed) % mine.size();
          Record* first = nullptr;
          Record* last = nullptr;
          for (std::size_t c = 0; c < len; ++c) {
            Record* rec = mine.back();
            mine.pop_back();
            tessera::detail::tasking::cuda_device_ref<Record*>(rec->next).store(
                first, ::cuda::std::memory_order_relaxed);
            if (last == nullptr) last = rec;
            first = rec;
          }
          stack.push_list(first, last);
          pushed = 1;
        }
        if (Record* got = stack.pop(4)) mine.push_back(got);
        return pushed;
      });
  RecordProperty("chains", int(chains));
  EXPECT_GT(chains, 0u);
}

#else

TEST(CudaDequeConcurrency, NeedsLibcudacxx) {
  GTEST_SKIP()
      << "libcu++'s <cuda/atomic> (the CUDA toolkit's headers) was not found at configure time: the CUDA "
         "driver's queues cannot be compiled for the host";
}

#endif
