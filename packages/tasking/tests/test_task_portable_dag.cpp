// The portable DAG cases (see portable_task_test_util.hpp), on every
// back-end, Cuda included: when_all of 10,000 futures from the host and
// from inside a task (a tree of nodes on Cuda), dependences ordering tasks,
// null futures, and many short waits. The host-only cases of the same
// concepts stay in test_task_dag.cpp (they read host-only statistics, hold
// host objects in closures, or check one host worker's exact order).
#include "portable_task_test_util.hpp"

#include <algorithm>
#include <vector>

namespace {

using tessera::test::portable::AddTo;
using tessera::test::portable::CountView;
using tessera::test::portable::Noop;
using tessera::test::portable::PortableTaskSpaces;
using tessera::test::portable::Ticket;
using tessera::test::portable::to_host;

template <class Space>
class TaskPortableDag : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableDag, PortableTaskSpaces, tessera::test::SpaceNames);

// ---- when_all of 10,000 futures -------------------------------------------------------

// Writes out(i) = i and returns i.
template <class Sched, class View>
struct WriteIndex {
  using value_type = long long;
  View out;
  int i;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& r) {
    out(i) = i;
    r = i;
  }
};

// Sums out(0..n): run after a when_all of the writers, every term is there.
template <class Sched, class View>
struct SumAfter {
  using value_type = long long;
  View out;
  int n;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& r) {
    long long s = 0;
    for (int i = 0; i < n; ++i) s += out(i);
    r = s;
  }
};

TYPED_TEST(TaskPortableDag, WhenAllOfTenThousandFuturesFromTheHost) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  // 16 MiB: on Cuda the host spawns are staged in a quarter of it.
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 20);
  const int n = 10000;
  View out("out", n);
  std::vector<tessera::BasicFuture<long long, Sched>> fs;
  fs.reserve(n);
  for (int i = 0; i < n; ++i) fs.push_back(tessera::host_spawn(tessera::TaskSingle(sched), WriteIndex<Sched, View>{out, i}));
  auto all = sched.when_all(fs.data(), n);
  ASSERT_FALSE(all.is_null());
  auto sum = tessera::host_spawn(tessera::TaskSingle(all), SumAfter<Sched, View>{out, n});
  tessera::wait(sched);
  EXPECT_TRUE(all.is_ready());
  EXPECT_EQ(static_cast<long long>(sum.get()), (long long)n * (n - 1) / 2);
  for (int i = 0; i < n; i += 97) ASSERT_EQ(static_cast<long long>(fs[std::size_t(i)].get()), i) << "i = " << i;
}

// A task that spawns N children, respawns on a when_all of all N futures
// (in device code: a tree of nodes of at most 32 inputs) and then adds
// their results. A full pool at any step: respawn and retry from there.
template <class Sched, class View, int N>
struct WideJoin {
  using value_type = long long;
  Sched sched;
  View out;
  int spawned = 0;
  int joined = 0;
  tessera::BasicFuture<long long, Sched> fs[N];

  TESSERA_FUNCTION WideJoin(const Sched& s, const View& o) : sched(s), out(o) {}

  TESSERA_FUNCTION void operator()(typename Sched::member_type&, long long& result) {
    if (joined) {
      long long s = 0;
      for (int i = 0; i < N; ++i) s += fs[i].get();
      result = s;
      return;
    }
    for (; spawned < N; ++spawned) {
      fs[spawned] = tessera::task_spawn(tessera::TaskSingle(sched), WriteIndex<Sched, View>{out, spawned});
      if (fs[spawned].is_null()) {
        tessera::respawn(this, sched, tessera::TaskPriority::Low);
        return;
      }
    }
    auto all = sched.when_all(fs, N);
    if (all.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    joined = 1;
    tessera::respawn(this, all);
  }
};

template <class Space, int N>
void run_wide_join() {
  using Sched = tessera::TaskScheduler<Space>;
  using View = CountView<Space>;
  // The task holds N futures: give the pool a largest block that fits it.
  Sched sched(typename Sched::memory_space(), std::size_t(16) << 20, 0, std::size_t(256) << 10);
  View out("out", N);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), WideJoin<Sched, View, N>(sched, out));
  tessera::wait(sched);
  EXPECT_EQ(static_cast<long long>(f.get()), (long long)N * (N - 1) / 2) << "N = " << N;
  const auto o = to_host<Space>(out);
  long long s = 0;
  for (long long v : o) s += v;
  EXPECT_EQ(s, (long long)N * (N - 1) / 2) << "N = " << N;
}

TYPED_TEST(TaskPortableDag, WhenAllOfManyFuturesInsideATask) {
  run_wide_join<TypeParam, 33>();     // one past a node: two leaves and a root on Cuda
  run_wide_join<TypeParam, 1025>();   // three levels on Cuda
  run_wide_join<TypeParam, 10000>();  // the host suite's 10,000
}

// ---- dependences order tasks ---------------------------------------------------------

TYPED_TEST(TaskPortableDag, DependencesOrderTasks) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using S = Ticket<Sched, View>;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  // A chain of 2000 tasks, each spawned with the previous one as dependence;
  // then 100 independent tasks, a join on their when_all, and a task after
  // the join. Tickets record the order in which they ran.
  const int chain = 2000, fan = 100;
  const int join = chain + fan, last = join + 1, counter = last + 1, total = last + 1;
  View order("order", counter + 1);
  tessera::BasicFuture<void, Sched> prev;
  for (int i = 0; i < chain; ++i)
    prev = prev.is_null() ? tessera::host_spawn(tessera::TaskSingle(sched), S{order, i, counter})
                          : tessera::host_spawn(tessera::TaskSingle(prev), S{order, i, counter});
  std::vector<tessera::BasicFuture<void, Sched>> fans;
  for (int i = chain; i < join; ++i) fans.push_back(tessera::host_spawn(tessera::TaskSingle(sched), S{order, i, counter}));
  auto joined = tessera::host_spawn(tessera::TaskSingle(sched.when_all(fans.data(), fan)), S{order, join, counter});
  tessera::host_spawn(tessera::TaskSingle(joined), S{order, last, counter});
  tessera::wait(sched);
  const auto o = to_host<TypeParam>(order);
  ASSERT_EQ(o[std::size_t(counter)], total) << "every task ran once";
  std::vector<int> seen(std::size_t(total), 0);
  for (int i = 0; i < total; ++i) {
    const long long t = o[std::size_t(i)];
    ASSERT_TRUE(t >= 0 && t < total) << "task " << i << " ticket " << t;
    ++seen[std::size_t(t)];
  }
  for (int t = 0; t < total; ++t) ASSERT_EQ(seen[std::size_t(t)], 1) << "ticket " << t;
  for (int i = 1; i < chain; ++i) ASSERT_LT(o[std::size_t(i - 1)], o[std::size_t(i)]) << "chain link " << i;
  for (int i = chain; i < join; ++i) ASSERT_LT(o[std::size_t(i)], o[std::size_t(join)]) << "join input " << i;
  EXPECT_LT(o[std::size_t(join)], o[std::size_t(last)]);
}

// ---- null futures ------------------------------------------------------------------------

// In task code: a null future is null and ready, a when_all of null futures
// only is null (nothing to wait for), and a respawn on a null future is a
// respawn without dependence. flags(0..3): those checks, flags(4): runs.
template <class Sched, class View>
struct NullChecks {
  Sched sched;
  View flags;
  int runs = 0;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    tessera::BasicFuture<long long, Sched> none[3];
    flags(0) += none[0].is_null() ? 1 : 0;
    flags(1) += none[1].is_ready() ? 1 : 0;
    flags(2) += sched.when_all(none, 3).is_null() ? 1 : 0;
    flags(3) += sched.when_all(none[0], none[2]).is_null() ? 1 : 0;
    flags(4) = ++runs;
    if (runs == 1) tessera::respawn(this, none[0]);
  }
};

TYPED_TEST(TaskPortableDag, NullFutures) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  tessera::BasicFuture<int, Sched> f;
  EXPECT_TRUE(f.is_null());
  EXPECT_TRUE(f.is_ready());
  try {
    (void)f.get();
    FAIL() << "get() on a null future";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("null"), std::string::npos) << e.what();
  }
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  std::vector<tessera::BasicFuture<int, Sched>> nulls(40);  // more than one device node holds
  EXPECT_TRUE(sched.when_all(nulls.data(), int(nulls.size())).is_null());
  // A null future names no scheduler to spawn on.
  EXPECT_ANY_THROW(tessera::host_spawn(tessera::TaskSingle(f), Noop<Sched>{}));
  View flags("flags", 5);
  tessera::host_spawn(tessera::TaskSingle(sched), NullChecks<Sched, View>{sched, flags});
  tessera::wait(sched);
  const auto v = to_host<TypeParam>(flags);
  EXPECT_EQ(v[4], 2) << "respawned once on a null future, then complete";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[std::size_t(i)], 2) << "check " << i << " held on both runs";
}

// ---- many short waits ------------------------------------------------------------------

TYPED_TEST(TaskPortableDag, ManyShortWaits) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using Add = AddTo<Sched, View>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  View count("count", 2);
  // 1,000 waits of three tasks each (the second after the first); task j adds j.
  const int waits = 1000;
  for (int w = 0; w < waits; ++w) {
    auto a = tessera::host_spawn(tessera::TaskSingle(sched), Add{count, 0, 3ll * w});
    tessera::host_spawn(tessera::TaskSingle(a), Add{count, 0, 3ll * w + 1});
    tessera::host_spawn(tessera::TaskSingle(sched), Add{count, 0, 3ll * w + 2});
    tessera::host_spawn(tessera::TaskSingle(sched), Add{count, 1, 1});
    tessera::wait(sched);
    ASSERT_TRUE(a.is_ready()) << "wait " << w;
  }
  const auto c = to_host<TypeParam>(count);
  EXPECT_EQ(c[0], 3ll * waits * (3ll * waits - 1) / 2);
  EXPECT_EQ(c[1], waits);
}

}  // namespace
