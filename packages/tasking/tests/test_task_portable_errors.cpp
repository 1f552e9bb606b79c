// The portable failure cases (see portable_task_test_util.hpp), on every
// back-end, Cuda included: self-dependence detected (directly, and through
// a when_all of more inputs than one device node holds, nested in another),
// and a dependence cycle reported, not hung. (task_fail and a pool too small
// for the DAG are in test_task_portable.cpp.) Staying in
// test_task_errors.cpp: exceptions thrown by tasks (device code cannot
// throw), get() before completion and the misplaced calls it names by
// functor type (respawn with another functor's pointer, wait or host_spawn
// inside a task: host-only checks), and the host's policy exceptions.
//
// A task cannot name its own future when it is spawned, so a parent spawns
// it, puts the future in a View slot and raises a flag (release); the task
// respawns itself until it sees the flag (acquire), then takes the future
// out of the slot (the View's copy goes before the View does, in task code).
#include "portable_task_test_util.hpp"

#include <string>

namespace {

using tessera::test::portable::CountView;
using tessera::test::portable::Noop;
using tessera::test::portable::PortableTaskSpaces;

template <class Space>
class TaskPortableErrors : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskPortableErrors, PortableTaskSpaces, tessera::test::SpaceNames);

template <class Sched>
using SlotView = tessera::View<tessera::BasicFuture<void, Sched>*, typename Sched::memory_space>;

// The task side of the hand-over: true once `me` holds the task's own future.
template <class Sched, class View>
TESSERA_FUNCTION bool take_own_future(tessera::BasicFuture<void, Sched>& me, const SlotView<Sched>& slot,
                                      const View& flag) {
  if (!me.is_null()) return true;
  if (tessera::atomic_load(&flag(0)) == 0) return false;
  tessera::memory_fence();
  me = slot(0);
  slot(0).clear();
  return true;
}

// The parent side: spawns Child and hands it its future.
template <class Sched, class View, class Child>
struct HandOver {
  Sched sched;
  SlotView<Sched> slot;
  View flag;
  Child child;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    tessera::BasicFuture<void, Sched> c = tessera::task_spawn(tessera::TaskSingle(sched), child);
    if (c.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    slot(0) = c;
    tessera::memory_fence();
    tessera::atomic_store(&flag(0), 1ll);
  }
};

// Respawns with its own future as dependence, directly or as one input of
// a when_all of 40 (on Cuda a tree of two leaves and a root) nested in a
// when_all of one.
template <class Sched, class View>
struct SelfDependent {
  Sched sched;
  SlotView<Sched> slot;
  View flag;
  int through_when_all;
  tessera::BasicFuture<void, Sched> me;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    if (!take_own_future(me, slot, flag)) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    if (!through_when_all) {
      tessera::respawn(this, me);
      return;
    }
    tessera::BasicFuture<void, Sched> inputs[40];
    for (int i = 0; i < 39; ++i) inputs[i] = tessera::task_spawn(tessera::TaskSingle(sched), Noop<Sched>{});
    inputs[39] = me;
    auto inner = sched.when_all(inputs, 40);
    auto outer = inner.is_null() ? inner : sched.when_all(inner);
    if (outer.is_null()) {  // pool full: again later
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    tessera::respawn(this, outer);
  }
};

TYPED_TEST(TaskPortableErrors, SelfDependenceIsDetected) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using Child = SelfDependent<Sched, View>;
  for (int through : {0, 1}) {
    Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
    SlotView<Sched> slot("slot", 1);
    View flag("flag", 1);
    tessera::host_spawn(tessera::TaskSingle(sched),
                        HandOver<Sched, View, Child>{sched, slot, flag, Child{sched, slot, flag, through, {}}});
    tessera::test::Watchdog watchdog("SelfDependenceIsDetected", 60);
    try {
      tessera::wait(sched);
      FAIL() << "through when_all: " << through;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("depend on itself"), std::string::npos) << what;
      EXPECT_NE(what.find(through ? "when_all" : "its own future"), std::string::npos) << what;
      EXPECT_NE(what.find("SelfDependent"), std::string::npos) << what;
    }
  }
}

// Spawns B with its own future as B's dependence, then respawns on B:
// neither can ever run.
template <class Sched, class View>
struct CycleA {
  Sched sched;
  SlotView<Sched> slot;
  View flag;
  tessera::BasicFuture<void, Sched> me;
  TESSERA_FUNCTION void operator()(typename Sched::member_type&) {
    if (!take_own_future(me, slot, flag)) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    auto b = tessera::task_spawn(tessera::TaskSingle(me), Noop<Sched>{});
    if (b.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    tessera::respawn(this, b);
  }
};

TYPED_TEST(TaskPortableErrors, DependenceCycleIsReportedNotHung) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  using View = CountView<TypeParam>;
  using Child = CycleA<Sched, View>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  SlotView<Sched> slot("slot", 1);
  View flag("flag", 1);
  tessera::host_spawn(tessera::TaskSingle(sched),
                      HandOver<Sched, View, Child>{sched, slot, flag, Child{sched, slot, flag, {}}});
  tessera::test::Watchdog watchdog("DependenceCycleIsReportedNotHung", 60);
  try {
    tessera::wait(sched);
    FAIL() << "the cycle was not reported";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("dependence cycle"), std::string::npos) << e.what();
  }
}

}  // namespace
