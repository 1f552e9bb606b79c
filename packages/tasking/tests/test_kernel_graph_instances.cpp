// KernelGraph over PartitionedViews whose partitions run on execution-space
// instances of their own (set_instances): on Cuda one stream per partition,
// the DAG run by the default host space's scheduler. Typed over the
// partition spaces: Cuda (skipped without a GPU, with the driver's reason)
// and Serial, whose instances run synchronously on the calling thread, so
// that the graph's instance mode (single-thread launch tasks that fence
// their partition) is exercised on every machine.
//
// A partitioned SAXPY, a 2-D five-point stencil with halo transfers (and a
// then_reduce over it) for 1, 2 and 4 partitions give exactly the values of
// plain loops over single arrays: the data are small dyadic numbers, so every
// intermediate is exact whatever the order or contraction of operations.
#include "tasking_test_util.hpp"

#include <tessera/core/partitioned_view.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Partition spaces with instances the graph can launch on.
using InstanceSpaces = ::testing::Types<tessera::Serial
#if TESSERA_ENABLE_CUDA
                                        , tessera::Cuda
#endif
                                        >;
// The space whose scheduler runs the DAG (and launches the partitions' work).
using GraphSpace = tessera::DefaultHostExecutionSpace;
using Sched = tessera::TaskScheduler<GraphSpace>;

Sched make_scheduler() { return Sched(GraphSpace::memory_space(), 16 << 20); }

// One instance per partition: a stream each on Cuda (created here, destroyed
// after everything that holds an instance of it: declare it first), the
// stateless instance on Serial.
template <class Space>
struct PartitionInstances {
  explicit PartitionInstances(int n) : spaces(std::size_t(n)) {}
  std::vector<Space> spaces;
};
#if TESSERA_ENABLE_CUDA
template <>
struct PartitionInstances<tessera::Cuda> {
  explicit PartitionInstances(int n) {
    for (int p = 0; p < n; ++p) {
      cudaStream_t s = nullptr;
      tessera::detail::cuda_check(cudaStreamCreate(&s), "test: creating a stream per partition");
      streams.push_back(s);
      spaces.emplace_back(s);
    }
  }
  ~PartitionInstances() {
    spaces.clear();
    for (cudaStream_t s : streams) (void)cudaStreamDestroy(s);
  }
  PartitionInstances(const PartitionInstances&) = delete;
  PartitionInstances& operator=(const PartitionInstances&) = delete;
  std::vector<cudaStream_t> streams;
  std::vector<tessera::Cuda> spaces;
};
#endif

template <class PV>
void give_instances(PV& v, const std::vector<typename PV::execution_space>& spaces) {
  for (int p = 0; p < v.size(); ++p) v.set_instance(p, spaces[std::size_t(p)]);
}

// y = a x + y over a box of partition p (local = global - origin).
template <class V>
struct SaxpyKernel {
  double a;
  V x, y;
  std::int64_t origin;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    y(i - origin) = a * x(i - origin) + y(i - origin);
  }
};

// un = the average of u's four neighbours (Jacobi step of Laplace's equation).
template <class V>
struct JacobiKernel {
  V u, un;
  std::int64_t o0, o1;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const std::int64_t a = i - o0, b = j - o1;
    un(a, b) = 0.25 * (u(a - 1, b) + u(a + 1, b) + u(a, b - 1) + u(a, b + 1));
  }
};
template <class V>
struct SumKernel {
  V u;
  std::int64_t o0, o1;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j, double& s) const { s += u(i - o0, j - o1); }
};

template <class Graph, class PV>
void then_saxpy(Graph& g, double a, const PV& x, const PV& y) {
  g.then_split([=](typename Graph::member_type&, int p, const tessera::Box<1>& cells) {
    using S = typename PV::execution_space;
    tessera::parallel_for("test saxpy", tessera::RangePolicy<S>(y.instance(p), cells.lo[0], cells.hi[0]),
                          SaxpyKernel<typename PV::view_type>{a, x.view(p), y.view(p), y.origin(p)[0]});
  });
}
template <class Graph, class PV>
void then_jacobi(Graph& g, const PV& from, const PV& to) {
  g.then_split(
      [=](typename Graph::member_type&, int p, const tessera::Box<2>& cells) {
        using S = typename PV::execution_space;
        using Policy = tessera::MDRangePolicy<S, tessera::Rank<2>>;
        const std::int64_t lo[2] = {cells.lo[0], cells.lo[1]}, hi[2] = {cells.hi[0], cells.hi[1]};
        tessera::parallel_for("test jacobi", Policy(to.instance(p), lo, hi),
                              JacobiKernel<typename PV::view_type>{from.view(p), to.view(p), to.origin(p)[0],
                                                                   to.origin(p)[1]});
      },
      tessera::halo_read(from));
}

}  // namespace

template <class Space>
class KernelGraphInstances : public SpaceTest<Space> {};
TYPED_TEST_SUITE(KernelGraphInstances, InstanceSpaces, tessera::test::SpaceNames);

TYPED_TEST(KernelGraphInstances, SaxpyOnAnInstancePerPartitionMatchesASingleArray) {
  using S = TypeParam;
  using PV = tessera::PartitionedView<double*, S>;
  const std::int64_t n = 1001;
  const int steps = 6;
  const double a = 0.5;
  tessera::View<double*, tessera::HostSpace> x0("x0", n), y0("y0", n), out("out", n);
  std::vector<double> ref(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x0(i) = double(i % 7) - 3;
    y0(i) = ref[std::size_t(i)] = double(i % 5);
  }
  // Each partitioning's graph runs twice: 2 * steps updates.
  for (int s = 0; s < 2 * steps; ++s)
    for (std::int64_t i = 0; i < n; ++i) ref[std::size_t(i)] = a * x0(i) + ref[std::size_t(i)];
  auto sched = make_scheduler();
  const std::vector<tessera::Partitioning<1>> all = {tessera::Partitioning<1>({n}, {1}),
                                                     tessera::Partitioning<1>({n}, {2}),
                                                     tessera::Partitioning<1>({n}, {4}, {0}, 2)};
  for (const auto& parts : all) {
    PartitionInstances<S> inst(parts.size());  // outlives the views and the graph
    PV x("x", parts), y("y", parts);
    give_instances(x, inst.spaces);
    give_instances(y, inst.spaces);
    x.scatter(x0);
    y.scatter(y0);
    tessera::KernelGraph<GraphSpace, 1> g(parts);
    g.set_instances(y);
    ASSERT_TRUE(g.on_instances());
    for (int s = 0; s < steps; ++s) then_saxpy(g, a, x, y);
    // Instance nodes are single-thread tasks, whatever the host pool's size.
    std::atomic<int> team_sizes_not_one{0};
    g.split([&](Sched::member_type& m, int, const tessera::Box<1>&) {
      if (m.team_size() != 1) ++team_sizes_not_one;
    });
    g.run(sched);
    EXPECT_EQ(team_sizes_not_one.load(), 0) << parts.describe();
    g.run(sched);  // a graph runs again
    y.gather(out);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out(i), ref[std::size_t(i)]) << parts.describe() << " cell " << i;
  }
}

TYPED_TEST(KernelGraphInstances, HaloStencilOnAnInstancePerPartitionMatchesASingleArray) {
  using S = TypeParam;
  using PV = tessera::PartitionedView<double**, S>;
  const std::int64_t n0 = 29, n1 = 23;
  const int steps = 10;  // even: the result ends in u
  // Reference: one array with a boundary ring (the halo cells outside the
  // domain, which the partitioned views fill with the same value).
  const double boundary = 4;
  std::vector<double> u((n0 + 2) * (n1 + 2), boundary), un = u;
  auto at = [&](std::vector<double>& v, std::int64_t i, std::int64_t j) -> double& {
    return v[std::size_t((i + 1) * (n1 + 2) + (j + 1))];
  };
  tessera::View<double**, tessera::HostSpace> init("init", n0, n1), out("out", n0, n1);
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) init(i, j) = at(u, i, j) = double((3 * i + 5 * j) % 16);
  for (int s = 0; s < steps; ++s) {
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j)
        at(un, i, j) = 0.25 * (at(u, i - 1, j) + at(u, i + 1, j) + at(u, i, j - 1) + at(u, i, j + 1));
    std::swap(u, un);
  }
  double total = 0;
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) total += at(u, i, j);
  auto sched = make_scheduler();
  const std::vector<tessera::Partitioning<2>> all = {
      tessera::Partitioning<2>({n0, n1}, {1, 1}, {1, 1}), tessera::Partitioning<2>({n0, n1}, {2, 1}, {1, 1}),
      tessera::Partitioning<2>({n0, n1}, {2, 2}, {1, 1}), tessera::Partitioning<2>({n0, n1}, {1, 4}, {1, 1}, 2)};
  for (const auto& parts : all) {
    PartitionInstances<S> inst(parts.size());
    PV a("u", parts), b("un", parts);
    give_instances(a, inst.spaces);
    give_instances(b, inst.spaces);
    a.fill(boundary);
    b.fill(boundary);
    a.scatter(init);
    tessera::KernelGraph<GraphSpace, 2> g(parts);
    g.set_instances(a, b);
    for (int s = 0; s < steps; s += 2) {
      then_jacobi(g, a, b);
      then_jacobi(g, b, a);
    }
    double sum = -1;
    g.then_reduce(
        [a](Sched::member_type&, int p, const tessera::Box<2>& owned) {
          using Policy = tessera::MDRangePolicy<S, tessera::Rank<2>>;
          const std::int64_t lo[2] = {owned.lo[0], owned.lo[1]}, hi[2] = {owned.hi[0], owned.hi[1]};
          double s = 0;
          tessera::parallel_reduce("test sum", Policy(a.instance(p), lo, hi),
                                   SumKernel<typename PV::view_type>{a.view(p), a.origin(p)[0], a.origin(p)[1]}, s);
          return s;
        },
        [&sum](const std::vector<double>& partials) {
          sum = 0;
          for (double v : partials) sum += v;
        });
    g.run(sched);
    a.gather(out);
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j)
        ASSERT_EQ(out(i, j), at(u, i, j)) << parts.describe() << " cell " << i << "," << j;
    EXPECT_EQ(sum, total) << parts.describe();
  }
}

TYPED_TEST(KernelGraphInstances, InstanceNodesKeepTheDependenciesOfTeamNodes) {
  using S = TypeParam;
  const tessera::Partitioning<2> parts({12, 10}, {2, 2}, {1, 1});
  PartitionInstances<S> inst(parts.size());
  tessera::PartitionedView<double**, S> a("u", parts), b("un", parts);
  give_instances(a, inst.spaces);
  give_instances(b, inst.spaces);
  tessera::KernelGraph<GraphSpace, 2> teams(parts), streams(parts);
  streams.set_instances(a, b);
  EXPECT_FALSE(teams.on_instances());
  then_jacobi(teams, a, b);
  then_jacobi(teams, b, a);
  then_jacobi(streams, a, b);
  then_jacobi(streams, b, a);
  ASSERT_EQ(streams.node_count(), teams.node_count());
  for (std::size_t i = 0; i < teams.node_count(); ++i) {
    EXPECT_EQ(streams.node_label(i), teams.node_label(i));
    EXPECT_EQ(streams.node_dependencies(i), teams.node_dependencies(i)) << teams.node_label(i);
  }
}

TYPED_TEST(KernelGraphInstances, BadUseOfInstancesIsRejectedNamingTheView) {
  using S = TypeParam;
  const tessera::Partitioning<1> parts({16}, {2}, {1}), other({16}, {4}, {1});
  tessera::PartitionedView<double*, S> x("x", parts), z("z", other);
  tessera::KernelGraph<GraphSpace, 1> g(parts);
  try {
    g.set_instances(x, z);
    ADD_FAILURE() << "a view of another partitioning was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'z'"), std::string::npos) << e.what();
  }
  g.then([] {});
  try {
    g.set_instances(x);
    ADD_FAILURE() << "set_instances after a node was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("after 1 node"), std::string::npos) << e.what();
  }
  tessera::KernelGraph<GraphSpace, 1> on(parts), sub(parts);
  on.set_instances(x);
  sub.then([] {});
  try {
    on.then(sub);
    ADD_FAILURE() << "a sub-graph on host teams was inlined into a graph on instances";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("instances of 'x'"), std::string::npos) << e.what();
  }
}
