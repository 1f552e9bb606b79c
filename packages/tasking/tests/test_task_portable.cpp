// The task-DAG tests written once for every back-end with a task driver,
// Cuda included: functors are TESSERA_FUNCTION, counts go through Views and
// atomics, results are trivially copyable, and failures go through
// tessera::task_fail. Expected values come from closed forms. Without a GPU
// the Cuda cases skip with the driver's reason; the host cases always run.
// One concept per file beside it: test_task_portable_dag.cpp (when_all,
// dependences, null futures, short waits), _memory.cpp, _team.cpp and
// _errors.cpp (see portable_task_test_util.hpp).
#include "portable_task_test_util.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using tessera::test::portable::CountView;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::Ticket;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortable : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortable, PortableTaskSpaces, tessera::test::SpaceNames);

// ---- Fibonacci by spawn + when_all + respawn ----------------------------------------

template <class Sched>
struct PFib {
  using value_type = long long;
  using future_type = tessera::BasicFuture<long long, Sched>;
  Sched sched;
  int n;
  future_type f1, f2;

  TESSERA_FUNCTION PFib(const Sched& s, int n_) : sched(s), n(n_) {}

  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), PFib(sched, n - 1));
    if (f2.is_null()) f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), PFib(sched, n - 2));
    if (f1.is_null() || f2.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    auto all = sched.when_all(f1, f2);
    if (all.is_null()) tessera::respawn(this, sched, tessera::TaskPriority::Low);
    else tessera::respawn(this, all);
  }
};

TYPED_TEST(TaskPortable, FibonacciMatchesClosedForm) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 20);
  for (int n : {0, 1, 2, 10, 20}) {
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), PFib<Sched>(sched, n));
    tessera::wait(sched);
    EXPECT_EQ(static_cast<long long>(f.get()), tessera::test::fibonacci_closed_form(n)) << "n = " << n;
  }
}

// ---- fan-out: host spawns, and one spawner task -------------------------------------------

template <class Sched, class View>
struct CountOne {
  View count;
  int slot;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) { tessera::atomic_add(&count(slot), 1ll); }
};

template <class Sched, class View>
struct Spawner {
  Sched sched;
  View count;
  int children;
  int next = 0;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    for (; next < children; ++next) {
      auto f = tessera::task_spawn(tessera::TaskSingle(sched), CountOne<Sched, View>{count, 1});
      if (f.is_null()) {  // the pool is full: run again once others have finished
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
    }
  }
};

TYPED_TEST(TaskPortable, FanOutRunsEveryTaskOnce) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
  View count("count", 2);
  const int host_tasks = 3000, children = 5000;
  for (int i = 0; i < host_tasks; ++i) tessera::host_spawn(tessera::TaskSingle(sched), CountOne<Sched, View>{count, 0});
  tessera::host_spawn(tessera::TaskSingle(sched), Spawner<Sched, View>{sched, count, children});
  tessera::wait(sched);
  const auto c = to_host<TypeParam>(count);
  EXPECT_EQ(c[0], host_tasks);
  EXPECT_EQ(c[1], children);
}

// ---- priorities ---------------------------------------------------------------------

TYPED_TEST(TaskPortable, PrioritiesRunEveryTaskHighFirstOnOneWorker) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const int n = 64;  // n/2 Low tasks spawned first, then n/2 High ones
  View order("order", n + 1);
  for (int i = 0; i < n; ++i) {
    const auto p = i < n / 2 ? tessera::TaskPriority::Low : tessera::TaskPriority::High;
    tessera::host_spawn(tessera::TaskSingle(sched, p), Ticket<Sched, View>{order, i, n});
  }
  tessera::wait(sched);
  const auto o = to_host<TypeParam>(order);
  EXPECT_EQ(o[std::size_t(n)], n);  // every task ran once
  std::vector<int> seen(std::size_t(n), 0);
  for (int i = 0; i < n; ++i)
    if (o[std::size_t(i)] >= 0 && o[std::size_t(i)] < n) ++seen[std::size_t(o[std::size_t(i)])];
  for (int k = 0; k < n; ++k) EXPECT_EQ(seen[std::size_t(k)], 1) << "ticket " << k;
  // With one worker, every High task runs before every Low one. (Several
  // workers, or warps, steal: only each worker's order is defined.)
  if constexpr (std::is_same_v<TypeParam, tessera::Serial>) {
    for (int i = n / 2; i < n; ++i) EXPECT_LT(o[std::size_t(i)], n / 2) << "High task " << i;
  }
}

// ---- team tasks ------------------------------------------------------------------------

template <class Sched, class View>
struct TeamWork {
  using value_type = long long;
  View out;
  int n;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m, long long& result) {
    long long sum = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(m, n), [&](int i, long long& v) { v += i; }, sum);
    tessera::parallel_for(tessera::TeamThreadRange(m, n), [&](int i) { out(i) = 2ll * i; });
    m.team_barrier();
    if (m.team_rank() == 0) result = sum;
  }
};

TYPED_TEST(TaskPortable, TeamTaskReducesAndWritesOverTeamThreadRange) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const int n = 1000;
  View out("out", n);
  auto f = tessera::host_spawn(tessera::TaskTeam(sched), TeamWork<Sched, View>{out, n});
  tessera::wait(sched);
  EXPECT_EQ(static_cast<long long>(f.get()), (long long)n * (n - 1) / 2);
  const auto o = to_host<TypeParam>(out);
  for (int i = 0; i < n; ++i) ASSERT_EQ(o[std::size_t(i)], 2ll * i) << "i = " << i;
}

// ---- team splits: M members x V vector lanes ----------------------------------------------
//
// On Cuda a team task with set_team_size(M) runs on one warp as M members x
// 32/M vector lanes; on the host back-ends as up to M threads (vector loops
// on one thread). Every figure checked is independent of the split: the
// row sums of an R x C table through TeamThreadRange x ThreadVectorRange,
// their team-wide sum, a TeamVectorRange that must visit each index once,
// and the team size itself.

template <class Sched, class View>
struct SplitWork {
  using value_type = long long;
  View rows;   // rows(r): the sum of row r, written once per member through single(PerThread)
  View seen;   // seen(i): how often TeamVectorRange visited i
  View sizes;  // sizes(0): team_size(), sizes(1): members that ran single(PerTeam)
  int R, C;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m, long long& result) {
    long long total = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(m, R),
        [&](int r, long long& acc) {
          long long row = 0;
          tessera::parallel_reduce(
              tessera::ThreadVectorRange(m, C), [&](int c, long long& v) { v += (long long)r * C + c; }, row);
          // Every vector lane of the member holds the row sum; one writes it.
          tessera::single(tessera::PerThread(m), [&]() { rows(r) = row; });
          acc += row;
        },
        total);
    tessera::parallel_for(tessera::TeamVectorRange(m, R * C),
                          [&](int i) { tessera::atomic_add(&seen(i), 1ll); });
    tessera::single(tessera::PerTeam(m), [&]() {
      sizes(0) = m.team_size();
      tessera::atomic_add(&sizes(1), 1ll);
    });
    m.team_barrier();
    result = total;
  }
};

TYPED_TEST(TaskPortable, TeamSplitsOfMMembersByVectorLanesGiveTheSameSums) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const int R = 37, C = 45;  // not multiples of any split
  const long long table_sum = (long long)R * C * (R * C - 1) / 2;
  for (int M : {1, 2, 4, 8, 16, 32}) {
    View rows("rows", R), seen("seen", R * C), sizes("sizes", 2);
    auto policy = tessera::TaskTeam(sched);
    policy.set_team_size(M);
    auto f = tessera::host_spawn(policy, SplitWork<Sched, View>{rows, seen, sizes, R, C});
    tessera::wait(sched);
    EXPECT_EQ(static_cast<long long>(f.get()), table_sum) << "M = " << M;
    const auto r = to_host<TypeParam>(rows);
    for (int i = 0; i < R; ++i)
      ASSERT_EQ(r[std::size_t(i)], (long long)i * C * C + (long long)C * (C - 1) / 2) << "M = " << M << ", row " << i;
    const auto v = to_host<TypeParam>(seen);
    for (int i = 0; i < R * C; ++i) ASSERT_EQ(v[std::size_t(i)], 1) << "M = " << M << ", index " << i;
    const auto z = to_host<TypeParam>(sizes);
    EXPECT_EQ(z[1], 1) << "single(PerTeam) ran once, M = " << M;
    // Cuda gives exactly M members; a host scheduler at most M (never more
    // than the threads running the DAG).
    if constexpr (!tessera::is_host_execution_space<TypeParam>::value) EXPECT_EQ(z[0], M);
    else EXPECT_TRUE(z[0] >= 1 && z[0] <= M) << "team_size " << z[0] << ", M = " << M;
  }
}

// ---- nested scans and N-D ranges on every split -----------------------------------------
//
// One functor run as a single task and as team tasks of M members (M x 32/M
// lanes on Cuda, up to M threads on a host back-end):
//  * a TeamThreadRange scan of w(i) = 1 + i % 7 over [0, n) and a
//    TeamVectorRange scan over [5, n), each writing its exclusive prefix and
//    checking its total;
//  * per row r of an R x C table, a ThreadVectorRange scan of r C + c inside
//    a TeamThreadRange;
//  * a TeamThreadMDRange over the R x C box and a TeamVectorMDRange over an
//    A x B x D box, each visit counted once per index;
//  * a TeamVectorMDRange reduction over that box and a ThreadVectorMDRange
//    one inside a TeamThreadRange;
//  * team_scan of rank + 1, alone and twice into a global accumulator.
// Expected values: prefixes from a sequential loop on the host, sums from
// their closed forms.

template <class Sched, class View>
struct ScanAndBoxWork {
  static constexpr int A = 5, B = 6, D = 7;
  View team_prefix;    // [0, n): by TeamThreadRange
  View vector_prefix;  // [5, n): by TeamVectorRange; [0, 5) stays 0
  View row_prefix;     // R x C: by ThreadVectorRange, row by row
  View seen2;          // R x C: TeamThreadMDRange visits
  View seen3;          // A x B x D: TeamVectorMDRange visits
  View errors;         // (0): a scan's total, (1): an N-D reduction, (2): a team_scan, wrong
  View accum;          // (0): team_scan's global accumulator, (1): the team size
  int n, R, C;
  long long total_all, total_from5;  // sums of w over [0, n) and [5, n), by the host

  TESSERA_FUNCTION static long long w(long long i) { return 1 + i % 7; }

  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) const {
    long long total = -1;
    tessera::parallel_scan(
        tessera::TeamThreadRange(m, n),
        [&](int i, long long& update, bool final) {
          if (final) team_prefix(i) = update;
          update += w(i);
        },
        total);
    if (total != total_all) tessera::atomic_add(&errors(0), 1ll);
    total = -1;
    tessera::parallel_scan(
        tessera::TeamVectorRange(m, 5, n),
        [&](int i, long long& update, bool final) {
          if (final) vector_prefix(i) = update;
          update += w(i);
        },
        total);
    if (total != total_from5) tessera::atomic_add(&errors(0), 1ll);
    tessera::parallel_for(tessera::TeamThreadRange(m, R), [&](int r) {
      long long row = -1;
      tessera::parallel_scan(
          tessera::ThreadVectorRange(m, C),
          [&](int c, long long& update, bool final) {
            if (final) row_prefix(r * C + c) = update;
            update += (long long)r * C + c;
          },
          row);
      if (row != (long long)r * C * C + (long long)C * (C - 1) / 2) tessera::atomic_add(&errors(0), 1ll);
    });
    // A TeamThread index runs on every vector lane of its member: one counts it.
    tessera::parallel_for(tessera::TeamThreadMDRange(m, R, C), [&](int r, int c) {
      tessera::single(tessera::PerThread(m), [&]() { tessera::atomic_add(&seen2(r * C + c), 1ll); });
    });
    tessera::parallel_for(tessera::TeamVectorMDRange(m, A, B, D), [&](int a, int b, int d) {
      tessera::atomic_add(&seen3((a * B + b) * D + d), 1ll);
    });
    constexpr long long cells = (long long)A * B * D;
    long long box = 0;
    tessera::parallel_reduce(
        tessera::TeamVectorMDRange(m, A, B, D),
        [&](int a, int b, int d, long long& s) { s += (long long)(a * B + b) * D + d; }, box);
    if (box != cells * (cells - 1) / 2) tessera::atomic_add(&errors(1), 1ll);
    tessera::parallel_for(tessera::TeamThreadRange(m, R), [&](int r) {
      long long s = 0;
      tessera::parallel_reduce(
          tessera::ThreadVectorMDRange(m, C, 3), [&](int c, int k, long long& t) { t += r + c * 3 + k; }, s);
      if (s != 3ll * C * r + 3ll * C * (3ll * C - 1) / 2) tessera::atomic_add(&errors(1), 1ll);
    });
    const long long rank = m.team_rank(), size = m.team_size();
    const long long before = rank * (rank + 1) / 2, all = size * (size + 1) / 2;
    const long long alone = m.team_scan(rank + 1);
    const long long first = m.team_scan(rank + 1, &accum(0));
    const long long second = m.team_scan(rank + 1, &accum(0));
    if (alone != before || first != before || second != all + before) tessera::atomic_add(&errors(2), 1ll);
    tessera::single(tessera::PerTeam(m), [&]() { accum(1) = size; });
  }
};

TYPED_TEST(TaskPortable, NestedScansAndMultidimensionalRangesOnEverySplit) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using Work = ScanAndBoxWork<Sched, View>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  const int n = 1003, R = 19, C = 45;  // not multiples of any split
  std::vector<long long> prefix(std::size_t(n) + 1, 0), prefix5(std::size_t(n) + 1, 0);
  for (int i = 0; i < n; ++i) prefix[std::size_t(i) + 1] = prefix[std::size_t(i)] + Work::w(i);
  for (int i = 5; i < n; ++i) prefix5[std::size_t(i) + 1] = prefix5[std::size_t(i)] + Work::w(i);
  for (int M : {0, 1, 2, 4, 8, 16, 32}) {  // 0: a single task
    const std::string label = M == 0 ? "a single task" : "M = " + std::to_string(M);
    View tp("team_prefix", n), vp("vector_prefix", n), rp("row_prefix", R * C), s2("seen2", R * C),
        s3("seen3", Work::A * Work::B * Work::D), errors("errors", 3), accum("accum", 2);
    const Work work{tp, vp, rp, s2, s3, errors, accum, n, R, C, prefix[std::size_t(n)], prefix5[std::size_t(n)]};
    if (M == 0) {
      tessera::host_spawn(tessera::TaskSingle(sched), work);
    } else {
      auto policy = tessera::TaskTeam(sched);
      policy.set_team_size(M);
      tessera::host_spawn(policy, work);
    }
    tessera::wait(sched);
    const auto e = to_host<TypeParam>(errors);
    EXPECT_EQ(e[0], 0) << "scan totals, " << label;
    EXPECT_EQ(e[1], 0) << "N-D reductions, " << label;
    EXPECT_EQ(e[2], 0) << "team_scan, " << label;
    const auto a = to_host<TypeParam>(accum);
    EXPECT_EQ(a[0], a[1] * (a[1] + 1)) << "team_scan's accumulator after two scans, " << label;
    if constexpr (!tessera::is_host_execution_space<TypeParam>::value) {
      EXPECT_EQ(a[1], M == 0 ? 1 : M) << "team size, " << label;  // a Cuda team is exactly M members
    }
    const auto t = to_host<TypeParam>(tp), v = to_host<TypeParam>(vp);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(t[std::size_t(i)], prefix[std::size_t(i)]) << "TeamThreadRange scan, i = " << i << ", " << label;
      ASSERT_EQ(v[std::size_t(i)], i < 5 ? 0 : prefix5[std::size_t(i)])
          << "TeamVectorRange scan, i = " << i << ", " << label;
    }
    const auto r = to_host<TypeParam>(rp);
    for (int row = 0; row < R; ++row)
      for (int c = 0; c < C; ++c)
        ASSERT_EQ(r[std::size_t(row * C + c)], (long long)row * C * c + (long long)c * (c - 1) / 2)
            << "ThreadVectorRange scan, row " << row << ", column " << c << ", " << label;
    for (long long x : to_host<TypeParam>(s2)) ASSERT_EQ(x, 1) << "TeamThreadMDRange visits, " << label;
    for (long long x : to_host<TypeParam>(s3)) ASSERT_EQ(x, 1) << "TeamVectorMDRange visits, " << label;
  }
}

// ---- failures ---------------------------------------------------------------------------

template <class Sched>
struct FailAt {
  int i, bad;
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) {
    if (i == bad) {
      tessera::task_fail(m, "bad input 42");
      return;
    }
  }
};

TYPED_TEST(TaskPortable, TaskFailIsReportedByWait) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  for (int i = 0; i < 100; ++i) tessera::host_spawn(tessera::TaskSingle(sched), FailAt<Sched>{i, 37});
  try {
    tessera::wait(sched);
    FAIL() << "wait did not report the failure";
  } catch (const tessera::TaskFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad input 42"), std::string::npos) << what;
    EXPECT_NE(what.find("FailAt"), std::string::npos) << what;
  }
}

// A task holding up to 64 futures of large children: the pool holds far
// fewer, so a spawn fails and the task reports it.
struct Payload {
  char bytes[1800];
};
template <class Sched>
struct BigChild {
  Payload payload;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {}
};
template <class Sched>
struct Hoarder {
  Sched sched;
  tessera::BasicFuture<void, Sched> kept[64];
  TESSERA_FUNCTION void operator()(typename Sched::member_type& m) {
    for (int i = 0; i < 64; ++i) {
      kept[i] = tessera::task_spawn(tessera::TaskSingle(sched), BigChild<Sched>{});
      if (kept[i].is_null()) {
        tessera::task_fail(m, "pool exhausted: the DAG does not fit");
        return;
      }
    }
  }
};

TYPED_TEST(TaskPortable, PoolTooSmallForTheDagIsReported) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(64) << 10);
  tessera::host_spawn(tessera::TaskSingle(sched), Hoarder<Sched>{sched, {}});
  try {
    tessera::wait(sched);
    FAIL() << "wait did not report the full pool";
  } catch (const tessera::TaskFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pool exhausted"), std::string::npos) << what;
  }
}

// ---- Cuda only: the watchdog, the batch pop ------------------------------------------------

#if TESSERA_ENABLE_CUDA
using CudaSched = tessera::TaskScheduler<tessera::Cuda>;

struct RespawnForever {
  CudaSched sched;
  TESSERA_FUNCTION void operator()(CudaSched::member_type&) { tessera::respawn(this, sched, tessera::TaskPriority::Low); }
};

TEST(TaskCuda, WatchdogTurnsALivelockIntoAnError) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  CudaSched sched(CudaSched::memory_space(), std::size_t(4) << 20);
  sched.set_watchdog_seconds(0.5);
  tessera::host_spawn(tessera::TaskSingle(sched), RespawnForever{sched});
  try {
    tessera::wait(sched);
    FAIL() << "wait did not report the livelock";
  } catch (const tessera::TaskFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("watchdog"), std::string::npos) << what;
  }
}

TEST(TaskCuda, TeamSizesThatDoNotSplitAWarpAreRefused) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  CudaSched sched(CudaSched::memory_space(), std::size_t(4) << 20);
  for (int bad : {0, 3, 24, -2}) {
    try {
      tessera::TaskTeam(sched).set_team_size(bad);
      FAIL() << "set_team_size(" << bad << ") was accepted";
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("1, 2, 4, 8, 16 or 32"), std::string::npos) << what;
    }
  }
  // Larger requests get the whole warp, as a host scheduler gives all its threads.
  auto p = tessera::TaskTeam(sched);
  p.set_team_size(64);
  EXPECT_EQ(p.team_size(), 32);
  sched.set_team_size(8);
  EXPECT_EQ(sched.team_size(), 8);
}

// One host-spawned task that spawns `children` single tasks, then a wait;
// returns how many of the children ran.
long long one_spawner_wait(const CudaSched& sched, int children) {
  using View = CountView<tessera::Cuda>;
  View count("count", 2);
  tessera::host_spawn(tessera::TaskSingle(sched), Spawner<CudaSched, View>{sched, count, children});
  tessera::wait(sched);
  return to_host<tessera::Cuda>(count)[1];
}

TEST(TaskCuda, SingleTasksRunSeveralPerWarpPop) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  CudaSched sched(CudaSched::memory_space(), std::size_t(16) << 20);
  const int children = 100000;
  EXPECT_EQ(one_spawner_wait(sched, children), children);
  // One spawner fills its warp's deque: its pops take many tasks at once.
  EXPECT_GT(sched.last_batch_width(), 1.5) << "single tasks per pop, averaged";
}

// Host spawns staged past the arena (a quarter of the pool, at least 1 MiB)
// are refused with the functor's name and what to do; the tasks staged
// before the refusal all run at the next wait, and the scheduler takes
// spawns again after it.
TEST(TaskCuda, HostSpawnsPastTheStagingAreaAreRefusedNamingTheTaskAndLoseNothing) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  using View = CountView<tessera::Cuda>;
  CudaSched sched(CudaSched::memory_space(), std::size_t(1) << 20);  // a 1 MiB staging area
  View count("count", 2);
  const long long limit = 1 << 20;  // more records than 1 MiB holds
  long long staged = 0;
  std::string what;
  for (; staged < limit; ++staged) {
    try {
      tessera::host_spawn(tessera::TaskSingle(sched), CountOne<CudaSched, View>{count, 0});
    } catch (const std::exception& e) {
      what = e.what();
      break;
    }
  }
  ASSERT_LT(staged, limit) << "the staging area never filled";
  EXPECT_GT(staged, 0);
  EXPECT_NE(what.find("CountOne"), std::string::npos) << what;
  EXPECT_NE(what.find("staging area"), std::string::npos) << what;
  EXPECT_NE(what.find("wait()"), std::string::npos) << what;
  tessera::wait(sched);
  EXPECT_EQ(to_host<tessera::Cuda>(count)[0], staged) << "every task staged before the refusal ran";
  tessera::host_spawn(tessera::TaskSingle(sched), CountOne<CudaSched, View>{count, 1});
  tessera::wait(sched);
  EXPECT_EQ(to_host<tessera::Cuda>(count)[1], 1) << "the scheduler spawns again after the refusal";
}

// A task that keeps its lane for `ns` nanoseconds of the device's clock.
struct BusyFor {
  unsigned long long ns;
  TESSERA_FUNCTION void operator()(CudaSched::member_type&) {
#if defined(__CUDA_ARCH__)
    unsigned long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
#endif
  }
};

// A future of an earlier wait is read on the host (is_ready, get) while
// another host thread's wait runs a 2-second task: the reads answer at once
// instead of waiting for the running driver to end.
TEST(TaskCuda, HostReadsOfAnEarlierWaitsFutureDoNotWaitForARunningWait) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  CudaSched sched(CudaSched::memory_space(), std::size_t(16) << 20);
  auto earlier = tessera::host_spawn(tessera::TaskSingle(sched), PFib<CudaSched>(sched, 20));
  tessera::wait(sched);
  tessera::host_spawn(tessera::TaskSingle(sched), BusyFor{2000000000ull});
  std::atomic<bool> waited{false};
  std::thread waiter([&] {
    tessera::wait(sched);
    waited.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the driver is running its task
  const auto t0 = std::chrono::steady_clock::now();
  const bool ready = earlier.is_ready();
  const long long value = earlier.get();
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool still_waiting = !waited.load();
  waiter.join();
  EXPECT_TRUE(ready);
  EXPECT_EQ(value, tessera::test::fibonacci_closed_form(20));
  ASSERT_TRUE(still_waiting) << "the wait ended before the reads: the test raced nothing";
  EXPECT_LT(read_s, 0.5) << "the reads waited for the running driver";
}

// last_wait_profile(): the driver's account of a wait adds up. Every task
// run is a lane of some batch (each child once, the spawner at least once:
// at least children + 1 runs), the warps' loop splits into running, taking
// and idle with nothing left over, and the kernel's event time lies within
// the host's time for the whole wait. A wait with nothing staged (the
// driver still runs, finds nothing and ends) runs no batch.
TEST(TaskCuda, LastWaitProfileAccountsForTheWait) {
  if (!tessera::Cuda::impl_is_available()) GTEST_SKIP() << tessera::Cuda::impl_unavailable_reason();
  CudaSched sched(CudaSched::memory_space(), std::size_t(16) << 20);
  const int children = 20000;
  ASSERT_EQ(one_spawner_wait(sched, children), children);
  const tessera::TaskWaitProfile p = sched.last_wait_profile();
  EXPECT_EQ(p.warps, sched.workers());
  EXPECT_GE(p.lanes_used, std::uint64_t(children) + 1);
  EXPECT_GE(p.batches * 32, p.lanes_used);
  EXPECT_LE(p.batches, p.lanes_used);
  EXPECT_GT(p.running_fraction, 0.0);
  EXPECT_GE(p.taking_fraction, 0.0);
  EXPECT_GE(p.idle_fraction, 0.0);
  EXPECT_LE(p.running_fraction + p.taking_fraction, 1.0 + 1e-12);
  EXPECT_NEAR(p.running_fraction + p.taking_fraction + p.idle_fraction, 1.0, 1e-9);
  EXPECT_GT(p.kernel_ms, 0.0);
  EXPECT_LE(p.kernel_ms, p.total_ms);
  EXPECT_LE(p.upload_ms, p.total_ms);
  EXPECT_GT(p.idle_steps, std::uint64_t(0)) << "every warp takes at least one idle step before the wait ends";

  tessera::wait(sched);  // nothing staged
  const tessera::TaskWaitProfile empty = sched.last_wait_profile();
  EXPECT_EQ(empty.batches, std::uint64_t(0));
  EXPECT_EQ(empty.lanes_used, std::uint64_t(0));
  EXPECT_EQ(empty.running_fraction, 0.0);
}
#endif

}  // namespace
