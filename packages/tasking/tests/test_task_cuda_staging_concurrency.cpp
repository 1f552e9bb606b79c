// The host side of a TaskScheduler<Cuda> between waits
// (detail/cuda_staging.hpp) on host threads, without CUDA (label
// "concurrency", run under ThreadSanitizer in CI). Two host buffers stand
// for the device arena and its pinned mirror; a "wait" uploads with memcpy
// and applies the merged reference changes as the device's delta kernel
// does (a count reaching 0 before completion orphans the record).
//
// What must hold: records come back in creation order at 64-byte steps; a
// full arena refuses the spawn, names the task and takes nothing; a
// future's +1/-1 lands in the mirror while no wait has taken the record and
// in the merged map after, never in both and never lost; the module checks
// refuse another translation unit's tasks; the arena restarts only when
// idle with nothing staged since; host copies are destroyed after their
// wait, and futures inside them do not count. The stress case races
// spawning threads that copy and drop futures against a thread that waits
// over and over: every record ends with no reference left, on the device.
#include <tessera/tasking/detail/cuda_staging.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

// The two fields the staging protocol uses, where CudaTaskRecord has them,
// and an id for the checks.
struct Rec {
  Rec* wait_head = nullptr;
  std::int32_t refs = 0;
  std::int32_t id = -1;
};
Rec* orphan() { return reinterpret_cast<Rec*>(std::uintptr_t(2)); }

using Staging = tessera::detail::tasking::CudaHostStaging<Rec>;

// A scheduler's two buffers: "device" arena and host mirror, 64-byte aligned.
struct Buffers {
  explicit Buffers(std::size_t bytes) : device(bytes / 64 + 1), mirror(bytes / 64 + 1), n(bytes) {}
  struct alignas(64) Line {
    char b[64];
  };
  std::vector<Line> device, mirror;
  std::size_t n;
  char* dev() { return device.front().b; }
  char* host() { return mirror.front().b; }
};

// host_spawn's steps: stage under the lock, initialize the image (one
// reference, the future's), record it.
Rec* spawn(Staging& s, std::size_t bytes, int id, const void* module = nullptr,
           void (*destroy)(void*) = nullptr) {
  std::lock_guard<std::mutex> lock(s.mutex());
  if (module) s.check_module(module);
  Rec* dev = nullptr;
  void* img = s.stage(bytes, dev, "test spawn", [id] { return "task #" + std::to_string(id); });
  Rec* r = new (img) Rec;
  r->refs = 1;
  r->id = id;
  s.staged(dev, img, destroy, module);
  return dev;
}

// A wait: upload what was taken, apply the merged changes as the device does.
Staging::Batch wait_once(Staging& s, Buffers& b, const void* module = nullptr) {
  // (A record's `refs` below 0 after the merge is a change applied twice.)
  Staging::Batch batch = s.take(module);
  std::memcpy(b.dev() + batch.upload_begin, b.host() + batch.upload_begin,
              batch.upload_end - batch.upload_begin);
  std::vector<Rec*> records;
  std::vector<int> values;
  s.take_deltas(records, values);
  for (std::size_t i = 0; i < records.size(); ++i) {
    Rec* r = records[i];  // the fake device is host memory
    r->refs += values[i];
    EXPECT_GE(r->refs, 0) << "record #" << r->id << ": a reference count below zero on the device";
    if (r->refs == 0) r->wait_head = orphan();
  }
  return batch;
}

const Rec* image_of(const Staging& s, const Rec* r) { return static_cast<const Rec*>(s.mirror_of(r)); }

TEST(CudaHostStaging, RecordsComeBackInCreationOrderAt64ByteSteps) {
  Buffers b(4096);
  Staging s(b.dev(), b.host(), b.n, orphan());
  const Rec* r0 = spawn(s, 10, 0);
  const Rec* r1 = spawn(s, 64, 1);
  const Rec* r2 = spawn(s, 100, 2);
  EXPECT_EQ(reinterpret_cast<const char*>(r0), b.dev());
  EXPECT_EQ(reinterpret_cast<const char*>(r1), b.dev() + 64);
  EXPECT_EQ(reinterpret_cast<const char*>(r2), b.dev() + 128);
  EXPECT_EQ(image_of(s, r1), reinterpret_cast<const Rec*>(b.host() + 64));
  EXPECT_EQ(image_of(s, r2)->id, 2);
  Staging::Batch batch = wait_once(s, b);
  EXPECT_EQ(batch.records,
            (std::vector<Rec*>{const_cast<Rec*>(r0), const_cast<Rec*>(r1), const_cast<Rec*>(r2)}));
  EXPECT_EQ(batch.upload_begin, 0u);
  EXPECT_EQ(batch.upload_end, 256u);
  EXPECT_EQ(r2->id, 2);  // uploaded
  EXPECT_NE(image_of(s, r0), nullptr)
      << "while its wait runs, the host reads a taken record's image as uploaded";
  s.finished(batch, /*arena_idle=*/false);
  EXPECT_EQ(image_of(s, r0), nullptr) << "after its wait, the device's copy is the record";
  Staging::Batch next = wait_once(s, b);
  EXPECT_TRUE(next.records.empty());
  EXPECT_EQ(next.upload_begin, 256u);
  EXPECT_EQ(next.upload_end, 256u);
}

TEST(CudaHostStaging, AFullArenaRefusesTheSpawnNamingItAndTakesNothing) {
  Buffers b(256);
  Staging s(b.dev(), b.host(), b.n, orphan());
  int named = 0;
  for (int i = 0; i < 4; ++i) {
    std::lock_guard<std::mutex> lock(s.mutex());
    Rec* dev = nullptr;
    void* img = s.stage(64, dev, "test", [&] {
      ++named;
      return std::string("x");
    });
    s.staged(dev, img, nullptr, nullptr);
  }
  EXPECT_EQ(named, 0) << "the task's name is built only for the error";
  try {
    spawn(s, 1, 77);
    FAIL() << "a fifth record fit in an arena of four";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("task #77"), std::string::npos) << m;
    EXPECT_NE(m.find("staging area of host spawns"), std::string::npos) << m;
    EXPECT_NE(m.find("test spawn"), std::string::npos) << m;
  }
  EXPECT_EQ(s.staged_count(), 4u) << "the refused spawn staged nothing";
  EXPECT_EQ(wait_once(s, b).upload_end, 256u);
}

TEST(CudaHostStaging, AFuturesChangesGoToTheMirrorUntilAWaitTakesTheRecord) {
  Buffers b(4096);
  Staging s(b.dev(), b.host(), b.n, orphan());
  Rec* r = spawn(s, 64, 0);
  s.delta(r, +1);  // a copy of the future
  EXPECT_EQ(image_of(s, r)->refs, 2);
  s.delta(r, -1);
  s.delta(r, -1);  // both gone before any wait
  EXPECT_EQ(image_of(s, r)->refs, 0);
  EXPECT_EQ(image_of(s, r)->wait_head, orphan())
      << "no reference left: the device frees it once it completes";
  EXPECT_EQ(s.pending_deltas(), 0u) << "nothing for the device to apply";
  wait_once(s, b);
  EXPECT_EQ(r->refs, 0);
  EXPECT_EQ(r->wait_head, orphan());
}

TEST(CudaHostStaging, ChangesToTakenRecordsAreMergedPerRecordForTheNextWait) {
  Buffers b(4096);
  Staging s(b.dev(), b.host(), b.n, orphan());
  Rec* a = spawn(s, 64, 0);
  Rec* c = spawn(s, 64, 1);
  Rec* d = spawn(s, 64, 2);
  s.delta(c, +2);  // two more futures of c before the wait: in the mirror
  wait_once(s, b);
  EXPECT_EQ(c->refs, 3);
  Rec* e = spawn(s, 64, 3);  // staged after the take: its own changes stay in the mirror
  s.delta(a, +1);
  s.delta(a, -1);  // sums to 0: not uploaded
  s.delta(c, -1);
  s.delta(c, -1);
  s.delta(d, +1);
  s.delta(e, -1);
  EXPECT_EQ(image_of(s, e)->refs, 0);
  EXPECT_EQ(s.pending_deltas(), 3u);
  std::vector<Rec*> records;
  std::vector<int> values;
  s.take_deltas(records, values);
  std::map<Rec*, int> merged;
  for (std::size_t i = 0; i < records.size(); ++i) merged[records[i]] = values[i];
  EXPECT_EQ(merged, (std::map<Rec*, int>{{c, -2}, {d, +1}}));
  EXPECT_EQ(c->refs, 3) << "the device's copy changes only when the wait applies the merge";
  EXPECT_EQ(image_of(s, c)->refs, 3) << "a taken record's changes never reach its image";
  EXPECT_EQ(s.pending_deltas(), 0u);
}

TEST(CudaHostStaging, TasksOfAnotherTranslationUnitAreRefusedAndStayStaged) {
  Buffers b(4096);
  Staging s(b.dev(), b.host(), b.n, orphan());
  static const int module_a = 0, module_b = 0;
  spawn(s, 64, 0, &module_a);
  spawn(s, 64, 1, &module_a);
  EXPECT_THROW(spawn(s, 64, 2, &module_b), std::runtime_error);
  EXPECT_EQ(s.staged_count(), 2u);
  EXPECT_THROW(s.take(&module_b), std::runtime_error);
  EXPECT_EQ(s.staged_count(), 2u) << "a refused wait takes nothing";
  EXPECT_NE(image_of(s, reinterpret_cast<Rec*>(b.dev())), nullptr);
  Staging::Batch batch = wait_once(s, b, &module_a);
  EXPECT_EQ(batch.records.size(), 2u);
  // A when_all node (no module) waits from any TU.
  {
    std::lock_guard<std::mutex> lock(s.mutex());
    Rec* dev = nullptr;
    void* img = s.stage(64, dev, "when_all", [] { return std::string("node"); });
    s.staged(dev, img, nullptr, nullptr);
  }
  EXPECT_EQ(wait_once(s, b, &module_b).records.size(), 1u);
  // Until the arena restarts, it holds module_a's records: module_b may not spawn.
  EXPECT_THROW(spawn(s, 64, 3, &module_b), std::runtime_error);
}

TEST(CudaHostStaging, TheArenaRestartsOnlyWhenIdleWithNothingStagedSince) {
  Buffers b(4096);
  Staging s(b.dev(), b.host(), b.n, orphan());
  static const int module_a = 0, module_b = 0;
  spawn(s, 64, 0, &module_a);
  Staging::Batch first = wait_once(s, b, &module_a);
  s.finished(first, /*arena_idle=*/false);
  EXPECT_EQ(reinterpret_cast<char*>(spawn(s, 64, 1, &module_a)), b.dev() + 64) << "live records: no restart";
  Staging::Batch second = wait_once(s, b, &module_a);
  Rec* later = spawn(s, 64, 2, &module_a);  // staged while the second wait ran
  s.finished(second, /*arena_idle=*/true);
  EXPECT_EQ(reinterpret_cast<char*>(later), b.dev() + 128);
  EXPECT_EQ(reinterpret_cast<char*>(spawn(s, 64, 3, &module_a)), b.dev() + 192) << "staged since: no restart";
  Staging::Batch third = wait_once(s, b, &module_a);
  s.finished(third, /*arena_idle=*/true);
  EXPECT_EQ(reinterpret_cast<char*>(spawn(s, 64, 4, &module_b)), b.dev())
      << "idle, nothing staged: the arena restarts, and forgets its module";
  EXPECT_NE(image_of(s, reinterpret_cast<Rec*>(b.dev())), nullptr)
      << "the restarted arena's records are untaken";
}

std::atomic<int> g_destroyed{0};
Staging* g_staging = nullptr;
Rec* g_held = nullptr;
// A functor's host copy holding a future of g_held: its destruction after
// the wait must not count (the device copy released that reference).
void destroy_copy(void*) {
  ++g_destroyed;
  g_staging->delta(g_held, -1);
}

TEST(CudaHostStaging, HostCopiesAreDestroyedAfterTheirWaitAndTheirFuturesDoNotCount) {
  Buffers b(4096);
  auto s = std::make_unique<Staging>(b.dev(), b.host(), b.n, orphan());
  g_staging = s.get();
  g_destroyed = 0;
  g_held = spawn(*s, 64, 0);
  spawn(*s, 64, 1, nullptr, &destroy_copy);
  spawn(*s, 64, 2);  // trivially destructible: nothing kept
  Staging::Batch batch = wait_once(*s, b);
  EXPECT_EQ(batch.copies.size(), 1u);
  EXPECT_EQ(g_destroyed, 0);
  s->finished(batch, false);
  EXPECT_EQ(g_destroyed, 1);
  EXPECT_EQ(s->pending_deltas(), 0u);
  EXPECT_EQ(g_held->refs, 1);
  // Copies of tasks no wait took are destroyed with the scheduler.
  spawn(*s, 64, 3, nullptr, &destroy_copy);
  s.reset();
  EXPECT_EQ(g_destroyed, 2);
}

// Spawning threads copy and drop futures of their own and of each other's
// records at random while a waiter takes and applies, over and over.
TEST(CudaHostStaging, SpawnsAndFutureChangesRacingWaitsLoseNothing) {
  constexpr int kThreads = 3, kSpawnsPerThread = 20000;
  Buffers b(std::size_t(kThreads) * kSpawnsPerThread * 64);
  Staging s(b.dev(), b.host(), b.n, orphan());
  std::atomic<int> spawners_left{kThreads};
  std::vector<Rec*> all_records;  // the waiter's: every record taken, once

  std::thread waiter([&] {
    auto apply_and_check = [&] {
      Staging::Batch batch = wait_once(s, b);
      all_records.insert(all_records.end(), batch.records.begin(), batch.records.end());
      s.finished(batch, /*arena_idle=*/false);  // records are checked at the end: no restart
    };
    while (spawners_left.load() > 0) {
      apply_and_check();
      std::this_thread::yield();
    }
    apply_and_check();
  });

  std::vector<std::thread> spawners;
  for (int t = 0; t < kThreads; ++t)
    spawners.emplace_back([&, t] {
      std::mt19937 rng(1234u + unsigned(t));
      std::vector<Rec*> held;  // one entry per reference this thread holds
      for (int i = 0; i < kSpawnsPerThread; ++i) {
        held.push_back(spawn(s, 64, t * kSpawnsPerThread + i));
        const int ops = int(rng() % 4);
        for (int k = 0; k < ops && !held.empty(); ++k) {
          const std::size_t j = rng() % held.size();
          if (rng() % 2) {  // copy a future
            s.delta(held[j], +1);
            held.push_back(held[j]);
          } else {  // drop one
            s.delta(held[j], -1);
            held[j] = held.back();
            held.pop_back();
          }
        }
        if (i % 256 == 0) std::this_thread::yield();
      }
      std::shuffle(held.begin(), held.end(), rng);
      for (Rec* r : held) s.delta(r, -1);
      spawners_left.fetch_sub(1);
    });
  for (std::thread& th : spawners) th.join();
  waiter.join();

  ASSERT_EQ(all_records.size(), std::size_t(kThreads) * kSpawnsPerThread)
      << "every record taken exactly once";
  std::vector<int> ids;
  for (Rec* r : all_records) ids.push_back(r->id);
  std::sort(ids.begin(), ids.end());
  for (int i = 0; i < int(ids.size()); ++i) ASSERT_EQ(ids[std::size_t(i)], i);
  int wrong = 0;
  for (Rec* r : all_records)
    if (r->refs != 0 || r->wait_head != orphan()) ++wrong;
  EXPECT_EQ(wrong, 0) << "records whose device count is not 0 (a lost or doubled change), or not orphaned";
  EXPECT_EQ(s.pending_deltas(), 0u);
}

}  // namespace
