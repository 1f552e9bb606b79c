// Misuse and failures: exceptions thrown by tasks, null futures, get() too
// early, self-dependence (directly and through when_all), dependence cycles,
// spawn and respawn called from the wrong place, bad policies.
// test_task_portable_errors.cpp (and test_task_portable_dag.cpp for null
// futures) has self-dependence and the dependence cycle for every back-end,
// Cuda included. Host-only: exceptions thrown by tasks and nested in
// TaskFailure (device code cannot throw: tessera::task_fail is the portable
// way, in test_task_portable.cpp), get() before completion naming the
// functor type, a respawn through another functor's pointer, wait or
// host_spawn inside a task (host checks with run-time type information), the
// reuse of a scheduler after a cycle (a Cuda scheduler refuses it), and the
// host's std::invalid_argument for bad policies.
#include "tasking_test_util.hpp"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <vector>

template <class Space>
class TaskErrors : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskErrors, tessera::test::TaskSpaces, tessera::test::SpaceNames);

struct ThrowingTask {
  using value_type = int;
  template <class M>
  void operator()(M&, int&) {
    throw std::runtime_error("boom from the task");
  }
};

TYPED_TEST(TaskErrors, ExceptionIsRethrownByWaitNamingTheFunctor) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  std::atomic<int> ran_after{0};
  auto bad = tessera::host_spawn(tessera::TaskSingle(sched), ThrowingTask{});
  // Dependents of the failed task are cancelled, not run.
  auto dependent = tessera::host_spawn(tessera::TaskSingle(bad), [&ran_after](Member&) { ran_after.fetch_add(1); });
  std::vector<tessera::BasicFuture<int, Sched>> others;
  for (int i = 0; i < 200; ++i)
    others.push_back(tessera::host_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::Low),
                                         [i](Member&, int& r) { r = i; }));
  try {
    tessera::wait(sched);
    FAIL() << "wait should rethrow";
  } catch (const tessera::TaskFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ThrowingTask"), std::string::npos) << what;
    EXPECT_NE(what.find("boom from the task"), std::string::npos) << what;
    try {
      std::rethrow_if_nested(e);
      FAIL() << "the original exception should be nested";
    } catch (const std::runtime_error& original) {
      EXPECT_STREQ(original.what(), "boom from the task");
    }
  }
  EXPECT_EQ(ran_after.load(), 0);
  // Everything drained: every future is ready; failed ones say so on get().
  EXPECT_TRUE(bad.is_ready());
  EXPECT_TRUE(dependent.is_ready());
  EXPECT_THROW(bad.get(), std::runtime_error);
  for (auto& f : others) {
    ASSERT_TRUE(f.is_ready());
    if (f.impl_task()->failed == 0) {
      EXPECT_GE(f.get(), 0);
    }
  }
  others.clear();
  bad.clear();
  dependent.clear();
  EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u);
  // The scheduler is usable again.
  auto ok = tessera::host_spawn(tessera::TaskSingle(sched), [](Member&, int& r) { r = 3; });
  tessera::wait(sched);
  EXPECT_EQ(ok.get(), 3);
}

TYPED_TEST(TaskErrors, NullFutures) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  tessera::BasicFuture<int, Sched> f;
  EXPECT_TRUE(f.is_null());
  EXPECT_TRUE(f.is_ready());
  EXPECT_EQ(f.reference_count(), 0);
  try {
    f.get();
    FAIL();
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("null"), std::string::npos) << e.what();
  }
  // A null future names no scheduler.
  EXPECT_THROW(tessera::TaskSingle(f), std::invalid_argument);
  EXPECT_THROW(tessera::TaskTeam(f), std::invalid_argument);
}

struct SlowToStart {
  using value_type = double;
  template <class M>
  void operator()(M&, double& r) {
    r = 2.5;
  }
};

TYPED_TEST(TaskErrors, GetBeforeCompletionIsAClearError) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), SlowToStart{});
  try {
    f.get();
    FAIL();
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("SlowToStart"), std::string::npos) << what;
    EXPECT_NE(what.find("not completed"), std::string::npos) << what;
  }
  tessera::wait(sched);
  EXPECT_EQ(f.get(), 2.5);
}

// Respawns with its own future (set by the host after the spawn) as
// dependence, directly or inside a when_all.
template <class Sched>
struct SelfDependent {
  using Member = typename Sched::member_type;
  Sched sched;
  std::shared_ptr<tessera::BasicFuture<void, Sched>> self;
  bool through_when_all;
  void operator()(Member&) {
    if (!through_when_all) {
      tessera::respawn(this, *self);
      return;
    }
    auto other = tessera::task_spawn(tessera::TaskSingle(sched), [](Member&) {});
    const tessera::BasicFuture<void, Sched> both[2] = {other, *self};
    auto inner = sched.when_all(both, 2);
    const tessera::BasicFuture<void, Sched> nested[1] = {inner};
    tessera::respawn(this, sched.when_all(nested, 1));
  }
};

TYPED_TEST(TaskErrors, SelfDependenceIsDetected) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  for (bool through : {false, true}) {
    Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
    auto slot = std::make_shared<tessera::BasicFuture<void, Sched>>();
    *slot = tessera::host_spawn(tessera::TaskSingle(sched), SelfDependent<Sched>{sched, slot, through});
    try {
      tessera::wait(sched);
      FAIL() << "through when_all: " << through;
    } catch (const tessera::TaskFailure& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("depend on itself"), std::string::npos) << what;
      EXPECT_NE(what.find(through ? "when_all" : "its own future"), std::string::npos) << what;
      EXPECT_NE(what.find("SelfDependent"), std::string::npos) << what;
    }
    slot->clear();  // break the reference cycle future -> closure -> future
  }
}

// A waits on B, which was spawned with A as dependence: neither can run.
template <class Sched>
struct CycleA {
  using Member = typename Sched::member_type;
  Sched sched;
  std::shared_ptr<tessera::BasicFuture<void, Sched>> self;
  void operator()(Member&) {
    auto b = tessera::task_spawn(tessera::TaskSingle(*self), [](Member&) {});
    tessera::respawn(this, b);
  }
};

TYPED_TEST(TaskErrors, DependenceCycleIsReportedNotHung) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  typename Sched::memory_pool pool;
  {
    Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
    pool = sched.memory();
    auto slot = std::make_shared<tessera::BasicFuture<void, Sched>>();
    *slot = tessera::host_spawn(tessera::TaskSingle(sched), CycleA<Sched>{sched, slot});
    try {
      tessera::wait(sched);
      FAIL();
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("2 task(s) can never run"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
    }
    // The tasks caught were cancelled: A's future is ready and says so, and
    // A's closure (which held the slot) is gone.
    ASSERT_TRUE(slot->is_ready());
    EXPECT_THROW(slot->get(), std::runtime_error);
    EXPECT_EQ(slot.use_count(), 1);
    slot->clear();
    EXPECT_EQ(sched.statistics().pool_in_use_bytes, 0u);
    // The next wait has nothing to report.
    EXPECT_NO_THROW(tessera::wait(sched));
  }
  // Every record was freed, so the scheduler was too (it held the pool's other handle).
  EXPECT_EQ(pool.use_count(), 1);
}

struct WrongRespawn {
  template <class M>
  void operator()(M& member) {
    int not_me = 0;
    tessera::respawn(&not_me, member.scheduler());
  }
};

struct WaitsInside {
  template <class M>
  void operator()(M& member) {
    tessera::wait(member.scheduler());
  }
};

TYPED_TEST(TaskErrors, CallsFromTheWrongPlace) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using Member = typename Sched::member_type;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  EXPECT_THROW(tessera::task_spawn(tessera::TaskSingle(sched), [](Member&) {}), std::invalid_argument);
  int x = 0;
  EXPECT_THROW(tessera::respawn(&x, sched), std::logic_error);
  auto expect_failure = [&](auto functor, const char* needle) {
    tessera::host_spawn(tessera::TaskSingle(sched), functor);
    try {
      tessera::wait(sched);
      FAIL() << needle;
    } catch (const tessera::TaskFailure& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_failure(WrongRespawn{}, "is not the running task's functor");
  expect_failure(WaitsInside{}, "respawn it with the future");
  expect_failure([s = sched](Member&) { tessera::host_spawn(tessera::TaskSingle(s), [](Member&) {}); },
                 "use task_spawn");
}

TYPED_TEST(TaskErrors, BadPolicies) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  EXPECT_THROW(tessera::TaskSingle(sched).set_team_size(2), std::invalid_argument);
  EXPECT_THROW(tessera::TaskTeam(sched).set_team_size(0), std::invalid_argument);
  EXPECT_THROW(sched.set_team_size(-3), std::invalid_argument);
  EXPECT_THROW(tessera::TaskSingle(sched, static_cast<tessera::TaskPriority>(7)), std::invalid_argument);
  Sched null_sched;
  EXPECT_THROW(tessera::TaskSingle(null_sched), std::invalid_argument);
  EXPECT_THROW(Sched(typename Sched::memory_space(), 0), std::invalid_argument);
}
