#pragma once
// The nodes of a static KernelGraph and how one run of them becomes tasks of
// the dynamic DAG: every node is spawned once per run, in the order it was
// built (a topological order: a node only depends on nodes built before it),
// on the when_all of the futures of its dependences.
#include <tessera/tasking/future.hpp>
#include <tessera/tasking/task_scheduler.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::detail::kernel_graph {

template <class Member>
struct Node;
template <class Member>
using NodeList = std::vector<Node<Member>>;

template <class Member>
struct Node {
  std::string label;                    // for errors: "then_split #3 partition 1 interior"
  std::function<void(Member&)> body;    // a task: every team member calls it
  int concurrent = 0;                   // team nodes: how many run side by side (0: single-thread task)
  std::vector<int> deps;                // nodes this one waits on
  std::vector<int> partitions;          // partitions whose data it touches (empty: all)
  // A loop node: runs `sub` until `until()` holds (checked after each pass).
  std::shared_ptr<const NodeList<Member>> sub;
  std::function<bool()> until;
  long max_passes = 0;
};

// Team size of a team node: the threads shared among the nodes meant to run
// side by side (the partitions' groups of threads), or the size set by hand.
inline int team_size_for(int concurrent, int threads, int fixed) {
  if (fixed > 0) return std::min(fixed, std::max(threads, 1));
  return std::max(1, threads / std::max(concurrent, 1));
}

template <class Sched>
struct RunContext {
  Sched sched;
  int threads = 1;
  int fixed_team_size = 0;
};

template <class Sched, class Member>
struct BodyTask {
  const Node<Member>* node;
  void operator()(Member& m) { node->body(m); }
};

// Runs nodes[0...] once: spawns every node on the when_all of its
// dependences' futures and waits for the DAG. A loop node first waits for
// what was spawned before it (it comes after a whole level anyway), then
// runs its sub-graph the same way, pass after pass, until its predicate
// holds; the nodes after it find it complete.
//
// (Why the loop is driven from the host rather than by a task that
// task_spawns the sub-graph and respawns on its when_all: that form hung
// intermittently on Threads and OpenMP, the pool reporting double
// deallocations of the loop task's 256-byte record; and the only overlap it
// adds is of nodes emplaced beside the loop.)
template <class Sched, class Member>
void run_nodes(const RunContext<Sched>& ctx, const NodeList<Member>& nodes) {
  using Future = BasicFuture<void, Sched>;
  std::vector<Future> f(nodes.size()), deps;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node<Member>& n = nodes[i];
    if (n.sub) {
      wait(ctx.sched);
      for (auto& x : f) x = Future();  // complete: nothing needs to wait on them
      for (long pass = 1;; ++pass) {
        run_nodes(ctx, *n.sub);
        if (n.until()) break;
        if (pass >= n.max_passes)
          throw std::runtime_error("tessera::KernelGraph: " + n.label + ": the predicate still fails after " +
                                   std::to_string(pass) +
                                   " passes of the sub-graph (the limit given to then_until)");
      }
      continue;
    }
    deps.clear();
    for (int d : n.deps)
      if (!f[std::size_t(d)].is_null()) deps.push_back(f[std::size_t(d)]);
    Future dep;
    if (deps.size() == 1) dep = deps[0];
    else if (deps.size() > 1) dep = ctx.sched.when_all(deps);
    // A team of one is a single-thread task (no team to form).
    const int team_size = n.concurrent > 0 ? team_size_for(n.concurrent, ctx.threads, ctx.fixed_team_size) : 1;
    const bool team = team_size > 1;
    auto policy = dep.is_null() ? (team ? TaskTeam(ctx.sched) : TaskSingle(ctx.sched))
                                : (team ? TaskTeam(dep) : TaskSingle(dep));
    if (team) policy.set_team_size(team_size);
    f[i] = host_spawn(policy, BodyTask<Sched, Member>{&n});
  }
  f.clear();
  deps.clear();
  wait(ctx.sched);
}

}  // namespace tessera::detail::kernel_graph
