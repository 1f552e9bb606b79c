// Task timelines in the trace file: a DAG of known shape run under
// profiling::start_trace gives one slice per task run (named by functor
// type, with priority and task number), one per respawn (marked), and one
// flow arrow per respawn and per task waited on (spawn dependence, when_all
// input, respawn dependence), each binding to task slices on real tracks.
// The expected counts come from the DAG's shape (a recursion over the
// Fibonacci tree), not from the tracer. Also: a scheduler made before the
// trace started is not traced, the event budget, and bad trace files.
#include "tasking_test_util.hpp"

#include "trace_file_reader.hpp"

#include <tessera/core/trace_sink.hpp>

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tessera::test;

// ---- the DAG -----------------------------------------------------------------

// Tasks of the fib(n) tree, and those among them that respawn (n >= 2):
// counted by walking the tree, independently of the scheduler.
void fib_shape(int n, int& tasks, int& inner) {
  ++tasks;
  if (n < 2) return;
  ++inner;
  fib_shape(n - 1, tasks, inner);
  fib_shape(n - 2, tasks, inner);
}

template <class Sched>
struct TraceLeaf {
  using value_type = int;
  int v;
  void operator()(typename Sched::member_type&, int& r) const { r = v; }
};
template <class Sched>
struct TraceJoin {
  void operator()(typename Sched::member_type&) const {}
};
// Respawns itself `left` times without a dependence.
template <class Sched>
struct TraceRepeat {
  Sched sched;
  int left;
  void operator()(typename Sched::member_type&) {
    if (left-- > 0) tessera::respawn(this, sched, tessera::TaskPriority::Low);
  }
};
template <class Sched>
struct TraceTeam {
  void operator()(typename Sched::member_type& m) const { m.team_barrier(); }
};

}  // namespace

template <class Space>
class TaskTrace : public SpaceTest<Space> {};
TYPED_TEST_SUITE(TaskTrace, tessera::test::TaskSpaces, tessera::test::SpaceNames);

TYPED_TEST(TaskTrace, SlicesAndFlowsMatchTheDag) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  const std::string path = trace_path("dag");
  ASSERT_TRUE(tessera::profiling::start_trace(path));
  Sched sched(typename Sched::memory_space(), std::size_t(4) << 20);
  constexpr int kFib = 7;
  constexpr int kRepeats = 3;
  auto fib = tessera::host_spawn(tessera::TaskSingle(sched), FibPair<Sched>(sched, kFib));
  // A chain a -> b -> c with priorities, and d after all three.
  auto a = tessera::host_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), TraceLeaf<Sched>{1});
  auto b = tessera::host_spawn(tessera::TaskSingle(a, tessera::TaskPriority::Low), TraceLeaf<Sched>{2});
  auto c = tessera::host_spawn(tessera::TaskSingle(b), TraceLeaf<Sched>{3});
  auto d = tessera::host_spawn(tessera::TaskSingle(sched.when_all(a, b, c)), TraceJoin<Sched>{});
  tessera::host_spawn(tessera::TaskSingle(sched), TraceRepeat<Sched>{sched, kRepeats});
  tessera::host_spawn(tessera::TaskTeam(sched).set_team_size(2), TraceTeam<Sched>{});
  tessera::wait(sched);
  const int threads = sched.statistics().threads;
  tessera::profiling::stop_trace();
  ASSERT_EQ(fib.get(), tessera::test::fibonacci_closed_form(kFib));
  ASSERT_TRUE(d.is_ready());

  auto trace = read_trace(path);
  ASSERT_NE(trace, nullptr);
  int fib_tasks = 0, fib_inner = 0;
  fib_shape(kFib, fib_tasks, fib_inner);
  // Slices: one per run, named by functor type; respawns marked.
  EXPECT_EQ(trace->task_slices("FibPair"), std::size_t(fib_tasks + fib_inner));
  EXPECT_EQ(trace->task_slices("FibPair", true), std::size_t(fib_inner));
  EXPECT_EQ(trace->task_slices("TraceLeaf"), 3u);
  EXPECT_EQ(trace->task_slices("TraceJoin"), 1u);
  EXPECT_EQ(trace->task_slices("TraceRepeat"), std::size_t(1 + kRepeats));
  EXPECT_EQ(trace->task_slices("TraceRepeat", true), std::size_t(kRepeats));
  EXPECT_EQ(trace->task_slices("TraceTeam"), std::size_t(std::min(2, threads))) << "one slice per team member";
  std::size_t task_slices = 0;
  for (const Slice& s : trace->slices) task_slices += s.is_task();
  EXPECT_EQ(task_slices, std::size_t(fib_tasks + fib_inner + 3 + 1 + 1 + kRepeats + std::min(2, threads)));
  // Flows: a respawn arrow per rerun; a dependence arrow per task waited on
  // (two children per inner fib; b <- a, c <- b, d <- a, b, c).
  EXPECT_EQ(trace->flow_pairs("respawn"), std::size_t(fib_inner + kRepeats));
  EXPECT_EQ(trace->flow_pairs("dependence"), std::size_t(2 * fib_inner + 5));

  // Every slice says which task, which run and at which priority.
  std::set<std::string> tasks;
  for (const Slice& s : trace->slices) {
    if (!s.is_task()) continue;
    ASSERT_TRUE(s.args.is_object()) << s.name;
    EXPECT_FALSE(text(s.args, "task").empty()) << s.name;
    EXPECT_EQ(text(s.args, "run") != "0", s.cat == "task,respawn") << s.name;
    EXPECT_TRUE(text(s.args, "functor").find(s.name.substr(0, s.name.find('<'))) != std::string::npos)
        << "the full type name " << text(s.args, "functor") << " contains the slice name " << s.name;
    const std::string p = text(s.args, "priority");
    EXPECT_TRUE(p == "High" || p == "Regular" || p == "Low") << p;
    if (s.name.find("TraceLeaf") != std::string::npos) tasks.insert(p);
    if (s.name.find("TraceRepeat") != std::string::npos) {
      EXPECT_EQ(p, s.cat == "task" ? "Regular" : "Low") << "a respawn runs at the priority it asked for";
    }
    if (s.name.find("TraceTeam") != std::string::npos && threads > 1) {
      EXPECT_EQ(text(s.args, "team_size"), "2");
    }
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"High", "Low", "Regular"}));

  // Every arrow binds to task slices on real tracks; a fib waits on its
  // children in its second run.
  expect_flows_bind_to_task_slices(*trace);
  for (const auto& [id, ends] : trace->flows) {
    const FlowEnd& s = ends[0].phase == "s" ? ends[0] : ends[1];
    const FlowEnd& f = ends[0].phase == "s" ? ends[1] : ends[0];
    const Slice* from = trace->enclosing(s.tid, s.ts);
    const Slice* to = trace->enclosing(f.tid, f.ts);
    if (s.name == "dependence" && from && to && to->name.find("FibPair") != std::string::npos) {
      EXPECT_EQ(text(to->args, "run"), "1") << "flow " << id;
      EXPECT_EQ(from->name, to->name) << "flow " << id;
    }
  }
  std::remove(path.c_str());
}

TYPED_TEST(TaskTrace, SchedulerMadeBeforeTheTraceIsNotTraced) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
  const std::string path = trace_path("untraced");
  ASSERT_TRUE(tessera::profiling::start_trace(path));
  auto f = tessera::host_spawn(tessera::TaskSingle(sched), FibPair<Sched>(sched, 5));
  tessera::wait(sched);
  tessera::profiling::stop_trace();
  EXPECT_EQ(f.get(), 5);
  auto trace = read_trace(path);
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->task_slices("FibPair"), 0u);
  EXPECT_TRUE(trace->flows.empty());
  // Its records have no id: they are the size of the task.
  EXPECT_EQ(sched.template spawn_allocation_size<FibPair<Sched>>(),
            sched.memory().allocate_block_size(sizeof(tessera::detail::tasking::Task<
                                                      typename Sched::member_type, FibPair<Sched>>)));
  std::remove(path.c_str());
}

TYPED_TEST(TaskTrace, EventsBeyondTheBudgetAreDroppedWithAMessage) {
  using Sched = tessera::TaskScheduler<TypeParam>;
  const std::string path = trace_path("budget");
  // The budget is read when a trace closes, for the next one: one trace
  // with a task in it makes sure the setting is in force.
  setenv("TESSERA_TRACE_MAX_EVENTS", "4096", 1);
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(tessera::profiling::start_trace(path));
    Sched sched(typename Sched::memory_space(), std::size_t(8) << 20);
    auto f = tessera::host_spawn(tessera::TaskSingle(sched), FibPair<Sched>(sched, round == 0 ? 2 : 17));
    tessera::wait(sched);
    ::testing::internal::CaptureStderr();
    tessera::profiling::stop_trace();
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(f.get(), tessera::test::fibonacci_closed_form(round == 0 ? 2 : 17));
    if (round == 1) {
      // fib(17): 5167 tasks, 2583 of them respawned: far more than 4096 events.
      EXPECT_NE(err.find("kept the first 4096 task events and dropped"), std::string::npos) << err;
      EXPECT_NE(err.find("TESSERA_TRACE_MAX_EVENTS"), std::string::npos) << err;
      auto trace = read_trace(path);
      ASSERT_NE(trace, nullptr) << "the file stays valid";
      EXPECT_GT(trace->task_slices("FibPair"), 0u);
      EXPECT_LE(trace->task_slices("FibPair"), 4096u);
    }
  }
  unsetenv("TESSERA_TRACE_MAX_EVENTS");
  ASSERT_TRUE(tessera::profiling::start_trace(path));  // and back to the default for the next test
  {
    Sched sched(typename Sched::memory_space(), std::size_t(1) << 20);
    tessera::host_spawn(tessera::TaskSingle(sched), TraceJoin<Sched>{});
    tessera::wait(sched);
  }
  tessera::profiling::stop_trace();
  std::remove(path.c_str());
}

TEST(TaskTraceFile, BadFileAndSecondTraceAreRefused) {
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(tessera::profiling::start_trace("/nonexistent-dir/trace.json"));
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("/nonexistent-dir/trace.json"), std::string::npos) << err;
  EXPECT_FALSE(tessera::profiling::trace_active());
  const std::string path = trace_path("twice");
  ASSERT_TRUE(tessera::profiling::start_trace(path));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(tessera::profiling::start_trace(path + ".second"));
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("already being recorded"), std::string::npos) << err;
  tessera::profiling::stop_trace();
  tessera::profiling::stop_trace();  // nothing open: nothing happens
  auto trace = read_trace(path);
  ASSERT_NE(trace, nullptr);
  EXPECT_TRUE(trace->slices.empty());
  std::remove(path.c_str());
}
