#pragma once
// host_spawn_for / task_spawn_for: one call spawns body(i) for every i in
// [0, n) as index tasks of the DAG, and returns one future, ready when every
// index has run (an index launch, as Legion's; Taskflow's for_each_index,
// but inside a dynamic DAG with its dependences and priorities).
//
// Why a call of its own: a fan-out of a million small tasks from the host
// pays per task for what one call could pay once. On a host scheduler each
// host_spawn takes a record and a lock; on Cuda each one is also staged in
// pinned memory and uploaded before the GPU runs it (0.9 us per host_spawn
// on the H200 machine's host, docs/performance-gpu.md), so the host's loop
// alone outlasts the whole DAG. Here the host spawns one task, and the tasks
// below it are made where they run, in parallel.
//
// How: the indices are cut into leaves of `grain` consecutive indices. A
// leaf is one task of the policy's kind. A TaskSingle leaf runs its indices
// in order on one thread (one lane on Cuda); a TaskTeam leaf spreads them
// over its whole team (TeamVectorRange: on Cuda the 32 lanes of its warp,
// adjacent lanes on adjacent indices). Above the leaves, single tasks of up
// to kFan children spawn their subtrees and respawn on a when_all of them,
// so that a node completes only after its whole subtree: the root's future
// is ready when every index has run. A node that finds the pool full runs
// the indices it could not hand out itself (SpawnForNode says why).
//
// Semantics:
//  * body(i) is called exactly once per index, as a parallel_for body: on a
//    const body, in no given order, concurrently with other indices. It
//    runs inside a task: it may task_spawn, and on host back-ends an
//    exception it throws fails the wait as a task's would (device code
//    calls tessera::task_fail instead).
//  * The policy's dependence holds back every index; its priority applies
//    to every task of the tree; a TaskTeam policy's team size to the leaves.
//  * grain 0 picks leaves for about four per worker (host threads; warps on
//    Cuda, whatever the kind). When the body's cost is known, give the grain
//    so that a leaf does a few microseconds of work: scheduling a task costs
//    about a tenth of a microsecond on a host core and microseconds on a GPU
//    warp.
//  * n = 0: the future is ready once the dependence is (one empty task).
//  * A negative n or grain is refused: std::invalid_argument on host back-ends
//    and from host code; in Cuda device code the wait fails naming the value.
//  * The tree has about n / grain * (1 + 1 / (kFan - 1)) tasks; how many
//    hold pool memory at once depends on the schedule (a host worker goes
//    depth first; GPU warps run whole levels at once). Nodes take a few
//    hundred bytes (kFan futures), leaves the body and 56 bytes more.
#include <tessera/tasking/task_scheduler.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera {

namespace detail::tasking {

// Children of one tree node: 16 levels of the tree per 2^64 leaves, and the
// node's futures (kFan of them) stay within a few hundred bytes.
inline constexpr int kSpawnForFan = 16;

// The policy's scheduler and priority with another kind and without its
// dependence (the tree's inner tasks depend on nothing but their parents).
// A TaskTeam result keeps the team size the policy asked for.
template <class E>
TaskPolicy<E> spawn_for_policy(const TaskPolicy<E>& p, TaskKind kind, bool keep_dependence) {
  TaskPolicy<E> out(kind, p.impl_queue(), keep_dependence ? p.impl_dependence() : nullptr, p.priority());
  if (kind == TaskKind::Team && p.team_size() > 0) out.set_team_size(p.team_size());
  return out;
}
// Workers running a DAG: host threads.
template <class E>
int spawn_for_workers(const TaskPolicy<E>&) {
  return E().concurrency() > 0 ? E().concurrency() : 1;
}

// Whether a body may be copied into the tree's tasks on E. On Cuda a node
// passes each child through its GPU thread's stack (a temporary, then the
// record), 4 KiB a thread (kCudaTaskStackBytes): ptxas gives a node of a
// 512-byte body a 1,368-byte frame (nvcc 13, sm_90), and the ctest case
// tasking_cuda_driver_resources fails the build when that node's deepest
// call chain would not fit the stack.
inline constexpr std::size_t kSpawnForCudaMaxBodyBytes = 512;
template <class E, class Body>
inline constexpr bool spawn_for_body_fits = true;

#if TESSERA_ENABLE_CUDA && defined(__CUDACC__)
template <class Body>
inline constexpr bool spawn_for_body_fits<Cuda, Body> = sizeof(Body) <= kSpawnForCudaMaxBodyBytes;

TESSERA_INLINE_FUNCTION TaskPolicy<Cuda> spawn_for_policy(const TaskPolicy<Cuda>& p, TaskKind kind,
                                                          bool keep_dependence) {
  TaskPolicy<Cuda> out(kind, p.impl_host(), p.impl_state(), keep_dependence ? p.impl_dependence() : nullptr,
                       p.priority());
  if (kind == TaskKind::Team && p.team_size() > 0) out.set_team_size(p.team_size());
  return out;
}
// Warps of the persistent driver (in device code from the device state,
// which a policy of a null future lacks: 1 then, the spawn fails anyway).
TESSERA_INLINE_FUNCTION int spawn_for_workers(const TaskPolicy<Cuda>& p) {
#if TESSERA_IMPL_ON_DEVICE
  return p.impl_state() ? p.impl_state()->nwarps : 1;
#else
  return p.impl_host() ? p.impl_host()->warps() : 1;
#endif
}
#endif

// Index arithmetic of the tree in 64 bits, whatever the caller's type.
template <class Index>
using SpawnForWide = std::conditional_t<std::is_signed_v<Index>, long long, unsigned long long>;

// The grain for `grain` = 0: about four leaves per worker, at least one index.
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // the host back-ends' worker count in their host instantiations
#endif
template <class Index, class Policy>
TESSERA_INLINE_FUNCTION Index spawn_for_grain(const Policy& p, Index n, Index grain) {
  using W = SpawnForWide<Index>;
  if (grain > 0) return grain;
  const W leaves = W(4) * W(spawn_for_workers(p));
  const W g = (W(n) + leaves - 1) / leaves;
  return g > 0 ? Index(g) : Index(1);
}

// body(i) for a team leaf's range. A named functor, not a lambda: nvcc
// makes a lambda inside a host-device function host-device, and its call of
// a host-only body (fine on host back-ends) warned (#20014) where the
// pragma below silences the leaf's own calls.
template <class Body>
struct SpawnForBodyRef {
  const Body& body;
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // host-only bodies on host back-ends
#endif
  template <class Index>
  TESSERA_FUNCTION void operator()(Index i) const {
    body(i);
  }
};

// A leaf: body(i) for i in [lo, hi). A team leaf spreads them over its
// threads and vector lanes. A single leaf walks them in a plain loop over a
// local copy of the body and bounds: a store through a char pointer the body
// holds may alias anything, so over the record's own fields the compiler had
// to reload the pointer and bound after every store, and the 10^6 one-byte
// marks of bench_task_overhead took 1.7x Taskflow's for_each_index. (On a
// GPU the body stays where it is: a large one would not fit the stack.)
template <class Sched, class Index, class Body>
struct SpawnForLeaf {
  Body body;
  Index lo, hi;
  bool team;
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // host-only bodies on host back-ends
#endif
  TESSERA_FUNCTION void operator()(typename Sched::member_type& member) const {
    if (team) {
      tessera::parallel_for(tessera::TeamVectorRange(member, lo, hi), SpawnForBodyRef<Body>{body});
      return;
    }
#if TESSERA_IMPL_ON_DEVICE
    const Body& b = body;  // no copy: a GPU thread's stack is a few KiB (kCudaTaskStackBytes)
#else
    const Body b = body;
#endif
    const Index end = hi;
    for (Index i = lo; i < end; ++i) b(i);
  }
};

// A node of the tree over [lo, hi): children over consecutive subranges of
// a whole number of leaves each (leaves themselves when at most kFan
// remain), then a respawn on their when_all. `next`, `done` and `joined`
// let a respawned node resume (after a full pool) or finish (after its
// children).
//
// Why a full pool cannot stall the tree: a node that cannot spawn a child
// runs one leaf's worth of that child's indices itself, then tries again;
// that needs no memory, so every node gets through its children, and a
// node whose children have all completed needs no when_all either. Leaves
// complete unconditionally; by induction up the tree every node does. (A
// node that only respawned to retry could hold the whole pool in half-built
// subtrees, none of which could ever spawn a leaf.)
template <class Sched, class Index, class Body>
struct SpawnForNode {
  using Policy = TaskPolicy<typename Sched::execution_space>;
  using Leaf = SpawnForLeaf<Sched, Index, Body>;
  using W = SpawnForWide<Index>;
  static constexpr int kFan = kSpawnForFan;

  Body body;
  Policy node_policy;  // TaskSingle, the set's priority, no dependence
  Policy leaf_policy;  // the set's kind, priority and team size, no dependence
  Index lo, hi, grain;
  Index done = 0;  // indices of child `next` this node ran itself (the pool was full)
  int next = 0;
  int joined = 0;
  BasicFuture<void, Sched> children[kFan];  // null for a child this node ran itself

  TESSERA_FUNCTION SpawnForNode(const Body& b, const Policy& np, const Policy& lp, Index lo_, Index hi_,
                                Index grain_)
      : body(b), node_policy(np), leaf_policy(lp), lo(lo_), hi(hi_), grain(grain_) {}

#if defined(__NVCC__)
#pragma nv_exec_check_disable  // the host back-ends' spawn API in their host instantiations
#endif
  TESSERA_FUNCTION void operator()(typename Sched::member_type& member) {
    if (joined) return;  // every child has completed
    // Leaves per child: the smallest power of kFan that leaves at most kFan
    // children (so every leaf but the last has exactly `grain` indices).
    const W len = W(hi) - W(lo), g = W(grain);
    const W leaves = (len + g - 1) / g;
    W per_child = 1;
    while (per_child < (leaves + kFan - 1) / kFan) per_child *= kFan;
    const W span = per_child * g;
    const int count = int((leaves + per_child - 1) / per_child);
    while (next < count) {
      const W start = W(lo) + W(next) * span;
      const W a = start + W(done);
      const W b = W(hi) - start > span ? start + span : W(hi);
      if (per_child == 1)
        children[next] =
            tessera::task_spawn(leaf_policy, Leaf{body, Index(a), Index(b), leaf_policy.is_team()});
      else
        children[next] = tessera::task_spawn(
            node_policy, SpawnForNode(body, node_policy, leaf_policy, Index(a), Index(b), grain));
      if (children[next].is_null()) {  // pool full: one leaf's worth here, then try again
        const W stop = b - a > g ? a + g : b;
        for (W i = a; i < stop; ++i) body(Index(i));
        done = Index(stop - start);
        if (stop < b) continue;
      }
      done = 0;
      ++next;
    }
    auto all = member.scheduler().when_all(children, count);
    if (all.is_null() && !all_ready(count)) {  // the when_all's node did not fit: again later
      tessera::respawn(this, member.scheduler(), TaskPriority::Low);
      return;
    }
    for (int c = 0; c < count; ++c)
      children[c] = BasicFuture<void, Sched>();  // the when_all holds what it needs
    joined = 1;
    if (!all.is_null()) tessera::respawn(this, all, node_policy.priority());
  }

 private:
  // A when_all of inputs that are all complete may be null too.
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // the host back-ends' futures in their host instantiations
#endif
  TESSERA_FUNCTION bool all_ready(int count) const {
    for (int c = 0; c < count; ++c)
      if (!children[c].is_ready()) return false;
    return true;
  }
};

[[noreturn]] void throw_bad_spawn_for(const char* where, const char* what, long long value);

// The set's first task and how it is spawned: a leaf when one leaf covers
// [0, n), else the root node; with the policy's dependence (every other
// task is spawned by it, after it).
template <class E, class Index, class Body>
struct SpawnForRoot {
  static_assert(
      spawn_for_body_fits<E, Body>,
      "tessera::host_spawn_for / task_spawn_for on Cuda: the body is larger than "
      "kSpawnForCudaMaxBodyBytes (512); every task of the set copies it through a GPU thread's stack. "
      "Keep large data in a View and let the body hold the View");
  using Sched = TaskScheduler<E>;
  Index n, grain;
  TaskPolicy<E> first, node, leaf;
  bool team_leaves;  // read here, where host policies may be read (nv_exec_check_disable)
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // the host back-ends' policies in their host instantiations
#endif
  TESSERA_FUNCTION SpawnForRoot(const TaskPolicy<E>& policy, Index n_, Index grain_)
      : n(n_),
        grain(spawn_for_grain(policy, n_, grain_)),
        first(spawn_for_policy(policy, one_leaf() ? policy.impl_kind() : TaskKind::Single, true)),
        node(spawn_for_policy(policy, TaskKind::Single, false)),
        leaf(spawn_for_policy(policy, policy.impl_kind(), false)),
        team_leaves(policy.is_team()) {}
  TESSERA_FUNCTION bool one_leaf() const { return n <= grain; }
  TESSERA_FUNCTION SpawnForLeaf<Sched, Index, Body> as_leaf(const Body& body) const {
    return {body, Index(0), n, team_leaves};
  }
  TESSERA_FUNCTION SpawnForNode<Sched, Index, Body> as_node(const Body& body) const {
    return SpawnForNode<Sched, Index, Body>(body, node, leaf, Index(0), n, grain);
  }
};

// A negative n or grain: thrown on the host; false in device code.
template <class Index>
TESSERA_INLINE_FUNCTION bool spawn_for_arguments_ok(const char* where, Index n, Index grain) {
  if constexpr (std::is_signed_v<Index>) {
#if TESSERA_IMPL_ON_DEVICE
    (void)where;
    return n >= 0 && grain >= 0;
#else
    if (n < 0) throw_bad_spawn_for(where, "count n", (long long)n);
    if (grain < 0) throw_bad_spawn_for(where, "grain", (long long)grain);
#endif
  }
  (void)where;
  (void)n;
  (void)grain;
  return true;
}

}  // namespace detail::tasking

// Spawns body(i) for every i in [0, n) from host code (outside wait); the
// future is ready when all have run. `grain` indices per leaf task (0: about
// four leaves per worker). Throws as host_spawn does when the pool cannot
// hold the first task; later tasks wait for room. Static, like Cuda's
// host_spawn: each translation unit stamps its own CUDA module.
template <class E, std::integral Index, class Body>
static BasicFuture<void, TaskScheduler<E>> host_spawn_for(const TaskPolicy<E>& policy, Index n,
                                                          const Body& body,
                                                          std::type_identity_t<Index> grain = 0) {
  detail::tasking::spawn_for_arguments_ok("tessera::host_spawn_for", n, grain);
  const detail::tasking::SpawnForRoot<E, Index, Body> root(policy, n, grain);
  if (root.one_leaf()) return tessera::host_spawn(root.first, root.as_leaf(body));
  return tessera::host_spawn(root.first, root.as_node(body));
}

// The same from a running task. A null future when the pool cannot hold
// the first task (respawn and retry, as with task_spawn). In Cuda device
// code a negative n or grain fails the wait and returns a null future.
#if defined(__NVCC__)
#pragma nv_exec_check_disable  // the host back-ends' spawn API in their host instantiations
#endif
template <class E, std::integral Index, class Body>
TESSERA_INLINE_FUNCTION BasicFuture<void, TaskScheduler<E>> task_spawn_for(
    const TaskPolicy<E>& policy, Index n, const Body& body, std::type_identity_t<Index> grain = 0) {
  if (!detail::tasking::spawn_for_arguments_ok("tessera::task_spawn_for", n, grain)) {
#if TESSERA_ENABLE_CUDA && defined(__CUDACC__) && TESSERA_IMPL_ON_DEVICE
    if constexpr (std::is_same_v<E, Cuda>) {
      if (policy.impl_state())
        detail::tasking::cuda_record_error(policy.impl_state(), detail::tasking::CudaError::BadSpawnFor,
                                           n < 0 ? "a negative count n" : "a negative grain", nullptr,
                                           n < 0 ? (long long)n : (long long)grain);
    }
#endif
    return BasicFuture<void, TaskScheduler<E>>();
  }
  const detail::tasking::SpawnForRoot<E, Index, Body> root(policy, n, grain);
  if (root.one_leaf()) return tessera::task_spawn(root.first, root.as_leaf(body));
  return tessera::task_spawn(root.first, root.as_node(body));
}

}  // namespace tessera
