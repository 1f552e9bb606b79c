#pragma once
// KernelGraph<Exec, R>: a static graph of kernels over the partitions of an
// R-dimensional Partitioning, built once level by level and run (as tasks of
// a TaskScheduler<Exec>) as often as needed.
//
//   emplace(f...)        nodes joining the current level: they run
//                        concurrently with it, after the previous level
//   then(f...)           a new level: after every node of the current one
//   split(k [, access])  one node per partition (per sub-partition) joining
//                        the current level; k(member, p, cells)
//   then_split(k [, ..]) a new level of split nodes; after a split level,
//                        partition p's nodes wait only on partition p's
//   then_reduce(partial, combine)
//                        partial(member, p, owned) per partition as soon as
//                        partition p is ready, then one combine(values)
//   then(sub)            a sub-graph inlined as the next levels
//   then_until(sub, done [, max_passes])
//                        the sub-graph run again and again until done()
//   run(sched)           spawns every node and waits for the DAG
//
// Split nodes are team tasks: a partition's node runs on a team of threads
// of its own (threads / concurrent partition nodes, or set_team_size), so the
// partitions run on disjoint groups of threads; for_each_cell shares a box
// among the team. Host nodes (emplace/then) are single-thread tasks.
//
// Partitions on device instances (set_instances(views...), a CUDA stream per
// partition): the graph still runs on the host scheduler, but partition p's
// split and reduce nodes are single-thread tasks that launch their kernels
// on the views' instance(p) and fence those instances before completing
// (why that enforces the graph's order across streams: see set_instances).
#include <tessera/core/partitioning.hpp>
#include <tessera/tasking/kernel_graph/for_each_cell.hpp>
#include <tessera/tasking/kernel_graph/graph_nodes.hpp>
#include <tessera/tasking/kernel_graph/halo_access.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

template <class Exec, std::size_t R = 1>
class KernelGraph {
 public:
  using execution_space = Exec;
  using scheduler_type = TaskScheduler<Exec>;
  using member_type = typename scheduler_type::member_type;
  using box_type = Box<R>;
  using partitioning_type = Partitioning<R>;
  // A split kernel: called by every thread of partition p's team with the
  // cells (global coordinates) this node covers.
  using split_kernel = std::function<void(member_type&, int partition, const box_type& cells)>;
  static constexpr std::size_t rank = R;

  explicit KernelGraph(const partitioning_type& partitioning)
      : m_parts(partitioning), m_prev(partitioning.size()), m_cur(partitioning.size()) {}

  const partitioning_type& partitioning() const { return m_parts; }
  int partitions() const { return m_parts.size(); }
  std::size_t node_count() const { return m_nodes.size(); }
  // Node i's label ("then_split #2 partition 1 interior 0", ...) and the
  // nodes it waits on: the graph as built, for tests and debugging.
  const std::string& node_label(std::size_t i) const { return m_nodes.at(i).label; }
  const std::vector<int>& node_dependencies(std::size_t i) const { return m_nodes.at(i).deps; }
  // Threads per partition node (0, the default: the pool's threads divided
  // among the nodes meant to run side by side).
  KernelGraph& set_team_size(int n) {
    if (n < 0 || n > 65535)
      throw std::invalid_argument("tessera::KernelGraph::set_team_size(" + std::to_string(n) +
                                  "): 0 (automatic) or 1..65535");
    m_team_size = n;
    return *this;
  }

  // Partition p's kernels run on instance(p) of the given PartitionedViews
  // (over this graph's partitioning) rather than on a team of the host
  // scheduler's threads: every split / then_split / then_reduce node of p
  // becomes a single-thread task whose kernel launches on those instances
  // (typically one CUDA stream per partition, set with
  // PartitionedView::set_instance) and fences them before the task
  // completes. Must come before the first node is added. The views' space
  // must run its instances asynchronously to the host (Cuda) or be Serial;
  // host pools (Threads, OpenMP) get their disjoint groups of threads from
  // the team tasks instead.
  //
  // Why the fence is enough: the DAG orders tasks, not work queued on
  // streams. Were a node's task to complete with its kernel still queued on
  // stream p, a successor (a halo transfer queued on stream q that reads p's
  // cells, the next level, a host node, a reduction's combine) could start
  // before p's cells are final. With the fence, "task complete" implies
  // "its device work complete", so each dependency the graph computes for
  // the host holds on the device too: a halo transfer waits on the tasks of
  // the producing kernels of both partitions, and is itself fenced on its
  // own stream (halo_access.hpp) before the kernels that read the halo, or
  // overwrite the cells it read (halo_exclusive), may start. The price: a
  // host thread blocks in each fence while the partition's kernels run, and
  // work of one partition is not queued ahead of its predecessors' end
  // (CUDA events would allow both, but the back-end exposes none).
  template <class Space>
  static constexpr bool launches_on_instances =
      !is_host_execution_space<Space>::value || std::is_same_v<Space, Serial>;
  template <class View0, class... Views>
  KernelGraph& set_instances(const View0& view0, const Views&... views) {
    static_assert(launches_on_instances<typename View0::execution_space> &&
                      (launches_on_instances<typename Views::execution_space> && ...),
                  "tessera::KernelGraph::set_instances: a host pool's partitions get their threads from the "
                  "graph's team tasks; instances are for Cuda (or Serial)");
    if (!m_nodes.empty())
      throw std::logic_error("tessera::KernelGraph::set_instances('" + view0.label() + "'): called after " +
                             std::to_string(m_nodes.size()) + " node(s) were added; call it first");
    std::vector<std::function<void()>> fences(static_cast<std::size_t>(partitions()));
    std::string labels;
    auto add_view = [&](const auto& v) {
      if (!(v.partitioning() == m_parts))
        throw std::invalid_argument("tessera::KernelGraph::set_instances: PartitionedView '" + v.label() +
                                    "' is partitioned as " + v.partitioning().describe() + ", the graph as " +
                                    m_parts.describe());
      labels += (labels.empty() ? "'" : ", '") + v.label() + "'";
      for (int p = 0; p < partitions(); ++p) {
        auto before = std::move(fences[std::size_t(p)]);
        fences[std::size_t(p)] = [before = std::move(before), exec = v.instance(p), label = v.label(), p] {
          if (before) before();
          exec.fence("tessera::KernelGraph partition " + std::to_string(p) + " of '" + label + "'");
        };
      }
    };
    add_view(view0);
    (add_view(views), ...);
    m_partition_fence = std::move(fences);
    m_instances_of = std::move(labels);
    return *this;
  }
  // True after set_instances: partition nodes launch on device instances.
  bool on_instances() const { return !m_partition_fence.empty(); }

  template <class... F>
  KernelGraph& emplace(F&&... f) {
    (add_host_node("emplace", std::function<void()>(std::forward<F>(f))), ...);
    return *this;
  }
  template <class... F>
    requires(sizeof...(F) > 0 && (std::is_invocable_v<F&> && ...))
  KernelGraph& then(F&&... f) {
    next_level();
    return emplace(std::forward<F>(f)...);
  }

  template <class... Access>
  KernelGraph& split(split_kernel k, const Access&... access) {
    add_split(std::move(k), "split", {access...});
    return *this;
  }
  template <class... Access>
  KernelGraph& then_split(split_kernel k, const Access&... access) {
    next_level();
    add_split(std::move(k), "then_split", {access...});
    return *this;
  }

  // partial(member, p, owned cells) -> T for every partition (rank 0's value
  // is kept), then combine(const std::vector<T>& partials) once, after all.
  // Partials are combined in partition order, so the result does not depend
  // on which partition finishes first.
  template <class Partial, class Combine>
  KernelGraph& then_reduce(Partial partial, Combine combine) {
    using T = std::decay_t<std::invoke_result_t<Partial&, member_type&, int, const box_type&>>;
    next_level();
    const std::string what = "then_reduce #" + std::to_string(++m_calls);
    auto values = std::make_shared<std::vector<T>>(std::size_t(partitions()));
    std::vector<int> partial_nodes;
    for (int p = 0; p < partitions(); ++p) {
      detail::kernel_graph::Node<member_type> n;
      n.label = what + " partition " + std::to_string(p);
      n.concurrent = on_instances() ? 0 : partitions();
      n.partitions = {p};
      n.deps = m_prev.deps_for(p);
      const box_type owned = m_parts.owned(p);
      n.body = [partial, values, p, owned, fence = partition_fence(p)](member_type& m) mutable {
        T v = partial(m, p, owned);
        if (fence) fence();
        if (m.team_rank() == 0) (*values)[std::size_t(p)] = std::move(v);
      };
      partial_nodes.push_back(add(std::move(n), p));
    }
    next_level();
    detail::kernel_graph::Node<member_type> c;
    c.label = what + " combine";
    c.deps = partial_nodes;
    c.body = [combine, values](member_type&) mutable { combine(std::as_const(*values)); };
    add(std::move(c), -1);
    return *this;
  }

  // The sub-graph's nodes as the next levels (it must be over the same
  // partitioning; the sub-graph is copied).
  KernelGraph& then(const KernelGraph& sub) {
    check_same(sub, "then(sub-graph)");
    next_level();
    const int offset = int(m_nodes.size());
    for (const auto& sn : sub.m_nodes) {
      detail::kernel_graph::Node<member_type> n = sn;
      for (int& d : n.deps) d += offset;
      if (sn.deps.empty()) n.deps = m_prev.deps_for_all(sn.partitions);  // the sub-graph's sources
      m_nodes.push_back(std::move(n));
    }
    // Every node of a graph precedes a node of its last level, so the
    // sub-graph's last level stands for all of it.
    m_cur = sub.m_cur.shifted(offset);
    return *this;
  }

  // Runs the sub-graph after the current level, again and again until
  // done() (called on the host after each pass) returns true. After
  // max_passes passes without done(), run() throws std::runtime_error
  // naming this node.
  KernelGraph& then_until(const KernelGraph& sub, std::function<bool()> done, long max_passes = 1000000) {
    check_same(sub, "then_until");
    if (!done) throw std::invalid_argument("tessera::KernelGraph::then_until: the predicate is empty");
    if (max_passes < 1)
      throw std::invalid_argument("tessera::KernelGraph::then_until: max_passes = " + std::to_string(max_passes) +
                                  " (at least 1)");
    next_level();
    detail::kernel_graph::Node<member_type> n;
    n.label = "then_until #" + std::to_string(++m_calls);
    n.deps = m_prev.deps_for_all({});
    n.sub = std::make_shared<const detail::kernel_graph::NodeList<member_type>>(sub.m_nodes);
    n.until = std::move(done);
    n.max_passes = max_passes;
    add(std::move(n), -1);
    return *this;
  }

  // Spawns one run of the graph on `sched` and waits for it (rethrowing, as
  // wait() does, an exception a node threw). The graph may run again.
  void run(const scheduler_type& sched) const {
    detail::kernel_graph::RunContext<scheduler_type> ctx{sched, std::max(Exec().concurrency(), 1), m_team_size};
    detail::kernel_graph::run_nodes(ctx, m_nodes);
  }

 private:
  using Node = detail::kernel_graph::Node<member_type>;

  // The nodes of one level: those of each partition and those of none.
  struct Level {
    std::vector<std::vector<int>> part;
    std::vector<int> shared;
    explicit Level(int partitions) : part(std::size_t(partitions)) {}
    std::vector<int> deps_for(int p) const {
      std::vector<int> d = shared;
      d.insert(d.end(), part[std::size_t(p)].begin(), part[std::size_t(p)].end());
      return unique(std::move(d));
    }
    std::vector<int> deps_for_all(const std::vector<int>& partitions) const {
      std::vector<int> d = shared;
      if (partitions.empty())
        for (const auto& v : part) d.insert(d.end(), v.begin(), v.end());
      else
        for (int p : partitions) d.insert(d.end(), part[std::size_t(p)].begin(), part[std::size_t(p)].end());
      return unique(std::move(d));
    }
    Level shifted(int offset) const {
      Level l = *this;
      for (auto& v : l.part)
        for (int& i : v) i += offset;
      for (int& i : l.shared) i += offset;
      return l;
    }
    static std::vector<int> unique(std::vector<int> d) {
      std::sort(d.begin(), d.end());
      d.erase(std::unique(d.begin(), d.end()), d.end());
      return d;
    }
  };

  void next_level() {
    m_prev = std::move(m_cur);
    m_cur = Level(partitions());
  }
  // Appends a node to the current level, as a node of partition p (-1: none).
  int add(Node n, int p) {
    const int id = int(m_nodes.size());
    m_nodes.push_back(std::move(n));
    if (p < 0) m_cur.shared.push_back(id);
    else m_cur.part[std::size_t(p)].push_back(id);
    return id;
  }
  void add_host_node(const char* what, std::function<void()> f) {
    if (!f) throw std::invalid_argument(std::string("tessera::KernelGraph::") + what + ": an empty function");
    Node n;
    n.label = std::string(what) + " #" + std::to_string(++m_calls);
    n.deps = m_prev.deps_for_all({});
    n.body = [f = std::move(f)](member_type&) { f(); };
    add(std::move(n), -1);
  }

  void add_split(split_kernel k, const char* what, std::initializer_list<HaloAccess<R>> access) {
    if (!k) throw std::invalid_argument(std::string("tessera::KernelGraph::") + what + ": an empty kernel");
    const std::string name = std::string(what) + " #" + std::to_string(++m_calls);
    for (const auto& a : access)
      if (!(a.partitioning == m_parts))
        throw std::invalid_argument("tessera::KernelGraph::" + std::string(what) + ": PartitionedView '" + a.label +
                                    "' is partitioned as " + a.partitioning.describe() + ", the graph as " +
                                    m_parts.describe());
    const int P = partitions(), S = m_parts.subpartitions();
    if (access.size() == 0) {
      for (int p = 0; p < P; ++p)
        for (int s = 0; s < S; ++s) {
          const box_type cells = m_parts.subpartition(p, s);
          add(kernel_node(k, name + " partition " + std::to_string(p) + " sub-partition " + std::to_string(s), p,
                          {cells}, P * S, m_prev.deps_for(p)),
              p);
        }
      return;
    }
    // Halo transfers: one node per (partition, neighbour, View), after both
    // partitions' previous nodes (the neighbour's cells are final, the halo
    // is no longer read). It touches both partitions' data.
    std::vector<std::vector<int>> into(static_cast<std::size_t>(P)), from(static_cast<std::size_t>(P));
    bool exclusive = false;
    for (const auto& a : access) {
      exclusive = exclusive || a.mode == HaloAccess<R>::Mode::exclusive;
      for (int p = 0; p < P; ++p)
        for (int q : m_parts.neighbors(p)) {
          Node t;
          t.label = name + " halo of '" + a.label + "' partition " + std::to_string(p) + " from " + std::to_string(q);
          t.partitions = {p, q};
          t.deps = m_prev.deps_for_all({p, q});
          t.body = [copy = a.copy, p, q](member_type&) { copy(p, q); };
          const int id = add(std::move(t), p);
          m_cur.part[std::size_t(q)].push_back(id);
          into[std::size_t(p)].push_back(id);
          if (a.mode == HaloAccess<R>::Mode::exclusive) from[std::size_t(q)].push_back(id);
        }
    }
    for (int p = 0; p < P; ++p) {
      // Interior: needs no halo, so it overlaps the transfers.
      const box_type inner = m_parts.interior(p);
      std::vector<int> interior_nodes;
      for (int s = 0; s < S; ++s) {
        const box_type cells = intersect(inner, m_parts.subpartition(p, s));
        if (cells.empty()) continue;
        interior_nodes.push_back(add(kernel_node(k, name + " partition " + std::to_string(p) + " interior " +
                                                        std::to_string(s),
                                                 p, {cells}, P * S, m_prev.deps_for(p)),
                                     p));
      }
      // Boundary slabs: after the transfers into p; in place (exclusive),
      // also after the interior and the transfers reading p's cells.
      const std::vector<box_type> slabs = m_parts.boundary(p);
      if (slabs.empty()) continue;
      std::vector<int> deps = m_prev.deps_for(p);
      deps.insert(deps.end(), into[std::size_t(p)].begin(), into[std::size_t(p)].end());
      if (exclusive) {
        deps.insert(deps.end(), interior_nodes.begin(), interior_nodes.end());
        deps.insert(deps.end(), from[std::size_t(p)].begin(), from[std::size_t(p)].end());
      }
      add(kernel_node(k, name + " partition " + std::to_string(p) + " boundary", p, slabs, P, Level::unique(deps)),
          p);
    }
  }

  // On instances, a single-thread task that launches and then fences.
  Node kernel_node(const split_kernel& k, std::string label, int p, std::vector<box_type> boxes, int concurrent,
                   std::vector<int> deps) const {
    Node n;
    n.label = std::move(label);
    n.concurrent = on_instances() ? 0 : concurrent;
    n.partitions = {p};
    n.deps = std::move(deps);
    n.body = [k, p, boxes = std::move(boxes), fence = partition_fence(p)](member_type& m) {
      for (const auto& b : boxes) k(m, p, b);
      if (fence) fence();
    };
    return n;
  }

  void check_same(const KernelGraph& sub, const char* what) const {
    if (&sub == this)
      throw std::invalid_argument(std::string("tessera::KernelGraph::") + what + ": a graph cannot contain itself");
    if (!(sub.m_parts == m_parts))
      throw std::invalid_argument(std::string("tessera::KernelGraph::") + what + ": the sub-graph is over " +
                                  sub.m_parts.describe() + ", this graph over " + m_parts.describe());
    if (sub.on_instances() != on_instances())
      throw std::invalid_argument(std::string("tessera::KernelGraph::") + what + ": the sub-graph's partitions " +
                                  instances_description(sub) + ", this graph's " + instances_description(*this) +
                                  " (call set_instances on both or neither)");
  }
  static std::string instances_description(const KernelGraph& g) {
    return g.on_instances() ? "run on the instances of " + g.m_instances_of : "run on teams of host threads";
  }
  // What a node of partition p calls after its kernel: nothing on host teams.
  std::function<void()> partition_fence(int p) const {
    return on_instances() ? m_partition_fence[std::size_t(p)] : std::function<void()>();
  }

  partitioning_type m_parts;
  std::vector<Node> m_nodes;
  Level m_prev, m_cur;
  int m_team_size = 0;
  int m_calls = 0;
  std::vector<std::function<void()>> m_partition_fence;  // per partition; empty: host teams
  std::string m_instances_of;                            // the views set_instances was given
};

}  // namespace tessera
