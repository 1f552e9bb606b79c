// KernelGraph: the dependencies each builder call makes (emplace, then,
// split, then_split, then_reduce, sub-graphs, halo access modifiers), the
// order a run respects, conditional sub-graphs, errors; and the four
// examples (SAXPY, 3-D particles, 2-D finite volume with halos, eikonal by
// the fast iterative method until converged) giving the same bits for 1, 2
// and 4 partitions as plain loops over single arrays.
#include "kernel_graph_examples.hpp"
#include "tasking_test_util.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

template <class Space>
class KernelGraphs : public SpaceTest<Space> {};
TYPED_TEST_SUITE(KernelGraphs, tessera::test::TaskSpaces, tessera::test::SpaceNames);

namespace {

namespace ex = tessera::examples;
using Deps = std::vector<int>;

template <class Space>
tessera::TaskScheduler<Space> make_scheduler() {
  return tessera::TaskScheduler<Space>(typename Space::memory_space(), 16 << 20);
}

// The partitionings every example runs with: 1, 2 and 4 partitions (2-D:
// 2x1, 2x2 and 4x1), with sub-partitions.
std::vector<tessera::Partitioning<1>> partitionings_1d(std::int64_t n, std::int64_t halo = 0) {
  return {tessera::Partitioning<1>({n}, {1}, {halo}), tessera::Partitioning<1>({n}, {2}, {halo}, 2),
          tessera::Partitioning<1>({n}, {4}, {halo}, 3)};
}
std::vector<tessera::Partitioning<2>> partitionings_2d(std::int64_t n0, std::int64_t n1) {
  return {tessera::Partitioning<2>({n0, n1}, {1, 1}, {1, 1}), tessera::Partitioning<2>({n0, n1}, {2, 1}, {1, 1}, 2),
          tessera::Partitioning<2>({n0, n1}, {2, 2}, {1, 1}), tessera::Partitioning<2>({n0, n1}, {4, 1}, {1, 1}, 2)};
}

}  // namespace

// ---------------------------------------------------------------- structure

TYPED_TEST(KernelGraphs, LevelsDependOnThePreviousLevelOnly) {
  using G = tessera::KernelGraph<TypeParam, 1>;
  G g(tessera::Partitioning<1>({8}, {2}));
  auto nop = [] {};
  auto split_nop = [](typename G::member_type&, int, const tessera::Box<1>&) {};
  g.emplace(nop, nop);           // 0, 1
  g.then(nop);                   // 2 after 0, 1
  g.emplace(nop);                // 3 joins level of 2: also after 0, 1
  g.then_split(split_nop);       // 4 (p0), 5 (p1) after 2, 3
  g.then_split(split_nop);       // 6 after 4 only, 7 after 5 only
  g.split(split_nop);            // 8, 9 join: after 4 / 5
  g.then(nop);                   // 10 after 6..9
  ASSERT_EQ(g.node_count(), 11u);
  EXPECT_EQ(g.node_dependencies(0), Deps{});
  EXPECT_EQ(g.node_dependencies(2), (Deps{0, 1}));
  EXPECT_EQ(g.node_dependencies(3), (Deps{0, 1}));
  EXPECT_EQ(g.node_dependencies(4), (Deps{2, 3}));
  EXPECT_EQ(g.node_dependencies(6), Deps{4});
  EXPECT_EQ(g.node_dependencies(7), Deps{5});
  EXPECT_EQ(g.node_dependencies(8), Deps{4});
  EXPECT_EQ(g.node_dependencies(9), Deps{5});
  EXPECT_EQ(g.node_dependencies(10), (Deps{6, 7, 8, 9}));
  EXPECT_EQ(g.node_label(7), "then_split #6 partition 1 sub-partition 0");
}

TYPED_TEST(KernelGraphs, ThenReduceCombinesPerPartitionPartialsInOrder) {
  using G = tessera::KernelGraph<TypeParam, 1>;
  G g(tessera::Partitioning<1>({10}, {3}));
  g.then_split([](typename G::member_type&, int, const tessera::Box<1>&) {});  // 0, 1, 2
  double total = -1;
  g.then_reduce(
      [](typename G::member_type&, int p, const tessera::Box<1>& owned) {
        // A sum whose rounding depends on the order: 0.1 per cell, then scaled.
        double s = 0;
        for (auto i = owned.lo[0]; i < owned.hi[0]; ++i) s += 0.1 * double(i + 1);
        return s * (p + 1);
      },
      [&total](const std::vector<double>& partials) {
        double s = 0;
        for (double v : partials) s += v;
        total = s;
      });  // partials 3, 4, 5; combine 6
  ASSERT_EQ(g.node_count(), 7u);
  EXPECT_EQ(g.node_dependencies(3), Deps{0});
  EXPECT_EQ(g.node_dependencies(5), Deps{2});
  EXPECT_EQ(g.node_dependencies(6), (Deps{3, 4, 5}));
  auto sched = make_scheduler<TypeParam>();
  g.run(sched);
  // Owned blocks [0,4), [4,7), [7,10), summed in partition order.
  double parts[3] = {0, 0, 0};
  const int lo[4] = {0, 4, 7, 10};
  for (int p = 0; p < 3; ++p) {
    for (int i = lo[p]; i < lo[p + 1]; ++i) parts[p] += 0.1 * double(i + 1);
    parts[p] *= p + 1;
  }
  EXPECT_EQ(total, parts[0] + parts[1] + parts[2]);
  total = -1;
  g.run(sched);  // a graph runs again
  EXPECT_EQ(total, parts[0] + parts[1] + parts[2]);
}

TYPED_TEST(KernelGraphs, HaloAccessMakesTransferNodesThatOverlapTheInterior) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  const tessera::Partitioning<1> parts({12}, {3}, {1});
  tessera::PartitionedView<double*, S> u("u", parts);
  auto nop = [](typename G::member_type&, int, const tessera::Box<1>&) {};
  G g(parts);
  g.then_split(nop);                        // 0, 1, 2
  g.then_split(nop, tessera::halo_read(u));
  // Transfers into 0 from 1 (3), into 1 from 0 (4) and 2 (5), into 2 from 1
  // (6); then per partition interior, boundary.
  ASSERT_EQ(g.node_count(), 13u);
  EXPECT_EQ(g.node_label(5), "then_split #2 halo of 'u' partition 1 from 2");
  EXPECT_EQ(g.node_dependencies(5), (Deps{1, 2}));
  EXPECT_EQ(g.node_label(9), "then_split #2 partition 1 interior 0");
  EXPECT_EQ(g.node_dependencies(9), Deps{1});  // no wait for any transfer
  EXPECT_EQ(g.node_label(10), "then_split #2 partition 1 boundary");
  EXPECT_EQ(g.node_dependencies(10), (Deps{1, 4, 5}));
  // In place: the boundary also waits for the interior and for the
  // transfers reading partition 1's cells (into 0: node 3+..., into 2).
  G h(parts);
  h.then_split(nop);
  h.then_split(nop, tessera::halo_exclusive(u));
  EXPECT_EQ(h.node_dependencies(10), (Deps{1, 3, 4, 5, 6, 9}));
}

// An in-place kernel with exclusive halo access: every owned cell is
// overwritten while the same level's transfers copy the old values into the
// neighbours' halos; the extra dependencies make the halos hold the old
// values on every back-end and every run.
TYPED_TEST(KernelGraphs, ExclusiveHaloAccessCopiesBeforeTheInPlaceUpdate) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  const tessera::Partitioning<1> parts({64}, {4}, {2}, 2);
  tessera::PartitionedView<double*, S> u("u", parts);
  tessera::View<double*, tessera::HostSpace> init("init", 64);
  for (int i = 0; i < 64; ++i) init(i) = i;
  G g(parts);
  g.then_split(
      [u](typename G::member_type& m, int p, const tessera::Box<1>& cells) {
        const auto v = u.view(p);
        const auto o = u.origin(p)[0];
        tessera::for_each_cell(m, cells, [&](std::int64_t i) { v(i - o) = -1.0 - double(i); });
      },
      tessera::halo_exclusive(u));
  auto sched = make_scheduler<S>();
  for (int rep = 0; rep < 20; ++rep) {
    u.fill(-999);
    u.scatter(init);
    g.run(sched);
    for (int p = 0; p < parts.size(); ++p) {
      const auto pad = parts.padded(p), own = parts.owned(p);
      for (auto i = pad.lo[0]; i < pad.hi[0]; ++i) {
        const double expected = (i < 0 || i >= 64) ? -999.0 : (i >= own.lo[0] && i < own.hi[0]) ? -1.0 - double(i) : double(i);
        ASSERT_EQ(u.at(p, i), expected) << "partition " << p << " cell " << i << " run " << rep;
      }
    }
  }
}

TYPED_TEST(KernelGraphs, RunsRespectTheOrderOfLevels) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  const int P = 4;
  G g(tessera::Partitioning<1>({64}, {P}, {0}, 2));
  std::mutex mutex;
  std::vector<std::string> log;
  auto note = [&](std::string s) {
    std::lock_guard<std::mutex> lock(mutex);
    log.push_back(std::move(s));
  };
  g.emplace([&] { note("a"); }, [&] { note("b"); });
  g.then([&] { note("c"); });
  for (int level = 0; level < 3; ++level)
    g.then_split([&, level](typename G::member_type& m, int p, const tessera::Box<1>&) {
      if (m.team_rank() == 0) note("L" + std::to_string(level) + "p" + std::to_string(p));
    });
  g.then([&] { note("d"); });
  auto sched = make_scheduler<S>();
  g.run(sched);
  auto pos = [&](const std::string& s) {
    return std::find(log.begin(), log.end(), s) - log.begin();
  };
  ASSERT_EQ(log.size(), 4u + 3 * P * 2);
  EXPECT_LT(pos("a"), pos("c"));
  EXPECT_LT(pos("b"), pos("c"));
  for (int p = 0; p < P; ++p) {
    const std::string s = "p" + std::to_string(p);
    EXPECT_LT(pos("c"), pos("L0" + s));
    // Both sub-partition nodes of level 0 come before either of level 1.
    const auto first_l1 = pos("L1" + s);
    EXPECT_EQ(std::count(log.begin(), log.begin() + first_l1, "L0" + s), 2);
    const auto first_l2 = pos("L2" + s);
    EXPECT_EQ(std::count(log.begin(), log.begin() + first_l2, "L1" + s), 2);
  }
  EXPECT_EQ(pos("d"), std::ptrdiff_t(log.size()) - 1);
}

// Partitions run side by side on disjoint groups of threads: each split node
// is a team of threads / partitions threads, no thread serves both
// partitions in a level, and the two partitions' nodes are running at the
// same time (each waits, bounded, for the other to arrive).
TYPED_TEST(KernelGraphs, PartitionsRunSideBySideOnDisjointGroupsOfThreads) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  const int threads = S().concurrency();
  if (threads < 2) GTEST_SKIP() << S::name() << " runs one thread: partitions cannot run side by side";
  const int team = threads / 2;
  std::mutex mutex;
  std::set<std::thread::id> ids[2];
  std::atomic<int> arrived{0};
  bool met[2] = {false, false};
  int sizes[2] = {0, 0};
  G g(tessera::Partitioning<1>({1000}, {2}));
  g.then_split([&](typename G::member_type& m, int p, const tessera::Box<1>&) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids[p].insert(std::this_thread::get_id());
      sizes[p] = m.team_size();
    }
    if (m.team_rank() != 0) return;
    arrived.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    met[p] = arrived.load() == 2;
  });
  auto sched = make_scheduler<S>();
  g.run(sched);
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(sizes[p], team) << "partition " << p;
    EXPECT_EQ(int(ids[p].size()), team) << "partition " << p;
    EXPECT_TRUE(met[p]) << "partition " << p << " never ran at the same time as the other";
  }
  for (const auto& id : ids[0]) EXPECT_EQ(ids[1].count(id), 0u) << "a thread served both partitions";
}

TYPED_TEST(KernelGraphs, SubGraphsAndConditionalReexecution) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  const tessera::Partitioning<1> parts({6}, {2});
  auto count = std::make_shared<std::atomic<int>>(0);
  G body(parts);
  body.then_split([count](typename G::member_type& m, int, const tessera::Box<1>&) {
    if (m.team_rank() == 0) ++*count;
  });
  body.then([] {});
  G g(parts);
  int before = -1, after = -1;
  g.emplace([&] { before = count->load(); });
  g.then(body);  // inlined: 2 split nodes + 1
  g.then([&] { after = count->load(); });
  EXPECT_EQ(g.node_dependencies(1), Deps{0});
  EXPECT_EQ(g.node_dependencies(3), (Deps{1, 2}));
  int passes = 0;
  g.then_until(body, [&] { return ++passes == 5; });
  int final_count = -1;
  g.then([&] { final_count = count->load(); });
  auto sched = make_scheduler<S>();
  g.run(sched);
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after, 2);
  EXPECT_EQ(passes, 5);
  EXPECT_EQ(final_count, 2 + 5 * 2);

  // A predicate that never holds: the limit ends the run with an error
  // naming the node, and the scheduler is usable afterwards.
  G never(parts);
  never.then_until(body, [] { return false; }, 3);
  try {
    never.run(sched);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("then_until #1: the predicate still fails after 3 passes"), std::string::npos) << m;
  }
  passes = 0;
  g.run(sched);
  EXPECT_EQ(passes, 5);
}

TYPED_TEST(KernelGraphs, BadInputIsRejectedWithTheViewAndCall) {
  using S = TypeParam;
  using G = tessera::KernelGraph<S, 1>;
  G g(tessera::Partitioning<1>({12}, {3}, {1}));
  tessera::PartitionedView<double*, S> other("other", tessera::Partitioning<1>({12}, {2}, {1}));
  auto nop = [](typename G::member_type&, int, const tessera::Box<1>&) {};
  try {
    g.then_split(nop, tessera::halo_read(other));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("PartitionedView 'other' is partitioned as"), std::string::npos) << e.what();
  }
  G sub(tessera::Partitioning<1>({12}, {4}, {1}));
  EXPECT_THROW(g.then(sub), std::invalid_argument);
  EXPECT_THROW(g.then_until(sub, [] { return true; }), std::invalid_argument);
  EXPECT_THROW(g.then_until(g, [] { return true; }), std::invalid_argument);
  EXPECT_THROW(g.then_split(typename G::split_kernel{}), std::invalid_argument);
  EXPECT_THROW(g.set_team_size(-1), std::invalid_argument);
  // A throwing kernel: run reports it (TaskFailure naming the message).
  G bad(tessera::Partitioning<1>({12}, {3}));
  bad.then_split([](typename G::member_type&, int p, const tessera::Box<1>&) {
    if (p == 1) throw std::runtime_error("kernel failed on partition 1");
  });
  auto sched = make_scheduler<S>();
  try {
    bad.run(sched);
    FAIL() << "no exception";
  } catch (const tessera::TaskFailure& e) {
    EXPECT_NE(std::string(e.what()).find("kernel failed on partition 1"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- examples

TYPED_TEST(KernelGraphs, SaxpyMatchesASingleArrayForOneTwoAndFourPartitions) {
  using S = TypeParam;
  const std::int64_t n = 1000;
  const int steps = 5;
  const double a = 0.731;
  std::vector<double> xr(n), yr(n);
  for (std::int64_t i = 0; i < n; ++i) {
    xr[i] = std::sin(0.01 * double(i));
    yr[i] = std::cos(0.02 * double(i));
  }
  tessera::View<double*, tessera::HostSpace> x0("x0", n), y0("y0", n), out("out", n);
  for (std::int64_t i = 0; i < n; ++i) {
    x0(i) = xr[i];
    y0(i) = yr[i];
  }
  for (int s = 0; s < steps; ++s)
    for (std::int64_t i = 0; i < n; ++i) yr[i] = a * xr[i] + yr[i];
  auto sched = make_scheduler<S>();
  for (const auto& parts : partitionings_1d(n)) {
    tessera::PartitionedView<double*, S> x("x", parts), y("y", parts);
    x.scatter(x0);
    y.scatter(y0);
    tessera::KernelGraph<S, 1> g(parts);
    for (int s = 0; s < steps; ++s) ex::then_saxpy(g, a, x, y);
    g.run(sched);
    y.gather(out);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out(i), yr[i]) << parts.describe() << " cell " << i;
  }
}

TYPED_TEST(KernelGraphs, ParticleUpdateMatchesASingleArray) {
  using S = TypeParam;
  using PV = tessera::PartitionedView<double*, S>;
  const std::int64_t n = 777;
  const int steps = 20;
  const ex::ParticleParams q;
  std::vector<double> r[6];
  for (auto& v : r) v.resize(n);
  for (std::int64_t i = 0; i < n; ++i) ex::particle_initial(i, r[0][i], r[1][i], r[2][i], r[3][i], r[4][i], r[5][i]);
  std::vector<tessera::View<double*, tessera::HostSpace>> init;
  for (int c = 0; c < 6; ++c) {
    init.emplace_back("init", n);
    for (std::int64_t i = 0; i < n; ++i) init[c](i) = r[c][i];
  }
  for (int s = 0; s < steps; ++s)
    for (std::int64_t i = 0; i < n; ++i) ex::particle_cell(q, r[0][i], r[1][i], r[2][i], r[3][i], r[4][i], r[5][i]);
  // Energy drifts little over the steps (semi-implicit Euler): a check of
  // the reference itself, from physics.
  auto sched = make_scheduler<S>();
  for (const auto& parts : partitionings_1d(n)) {
    ex::Particles<PV> ps{PV("x", parts), PV("y", parts), PV("z", parts), PV("vx", parts), PV("vy", parts), PV("vz", parts)};
    PV* all[6] = {&ps.x, &ps.y, &ps.z, &ps.vx, &ps.vy, &ps.vz};
    for (int c = 0; c < 6; ++c) all[c]->scatter(init[c]);
    tessera::KernelGraph<S, 1> g(parts);
    for (int s = 0; s < steps; ++s) ex::then_particle_step(g, q, ps);
    g.run(sched);
    tessera::View<double*, tessera::HostSpace> out("out", n);
    for (int c = 0; c < 6; ++c) {
      all[c]->gather(out);
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out(i), r[c][i]) << parts.describe() << " component " << c;
    }
  }
}

TYPED_TEST(KernelGraphs, FiniteVolumeStepsWithHalosMatchASingleArray) {
  using S = TypeParam;
  using PV = tessera::PartitionedView<double**, S>;
  const std::int64_t n0 = 37, n1 = 29;
  const int steps = 12;  // even: the result ends in u
  const double lambda = 0.2;
  // Reference: one padded array with a boundary ring of zeros.
  std::vector<double> u((n0 + 2) * (n1 + 2), 0.0), un = u;
  auto at = [&](std::vector<double>& v, std::int64_t i, std::int64_t j) -> double& { return v[(i + 1) * (n1 + 2) + (j + 1)]; };
  tessera::View<double**, tessera::HostSpace> init("init", n0, n1), out("out", n0, n1);
  double mass0 = 0;
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) {
      init(i, j) = at(u, i, j) = ex::fv_initial(i, j, n0, n1);
      mass0 += init(i, j);
    }
  for (int s = 0; s < steps; ++s) {
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j)
        at(un, i, j) = ex::fv_cell(lambda, at(u, i, j), at(u, i - 1, j), at(u, i + 1, j), at(u, i, j - 1), at(u, i, j + 1));
    std::swap(u, un);
  }
  // Independent check of the reference: what left the domain went through
  // its boundary, so the total changed by less than the initial mass near it.
  double mass = 0;
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) mass += at(u, i, j);
  EXPECT_NEAR(mass, mass0, 0.05 * std::fabs(mass0));
  auto sched = make_scheduler<S>();
  for (const auto& parts : partitionings_2d(n0, n1)) {
    PV a("u", parts), b("un", parts);  // zero-filled: the boundary ring is 0
    a.scatter(init);
    tessera::KernelGraph<S, 2> g(parts);
    for (int s = 0; s < steps; s += 2) {
      ex::then_fv_step(g, lambda, a, b);
      ex::then_fv_step(g, lambda, b, a);
    }
    g.run(sched);
    a.gather(out);
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j)
        ASSERT_EQ(out(i, j), at(u, i, j)) << parts.describe() << " cell " << i << "," << j;
  }
}

TYPED_TEST(KernelGraphs, EikonalByTheFastIterativeMethodConvergesToTheSingleArraySolution) {
  using S = TypeParam;
  const std::int64_t n0 = 41, n1 = 33, s0 = 12, s1 = 20;  // grid and source cell
  const double h = 0.1;
  // Reference: Jacobi sweeps of the Godunov update over every cell of one
  // padded array until no value changes (the fixed point the fast iterative
  // method reaches: a cell it leaves inactive would not change either,
  // since nothing in its neighbourhood did).
  std::vector<double> t((n0 + 2) * (n1 + 2), ex::eikonal_far), tn;
  auto at = [&](std::vector<double>& v, std::int64_t i, std::int64_t j) -> double& { return v[(i + 1) * (n1 + 2) + (j + 1)]; };
  at(t, s0, s1) = 0;
  int sweeps = 0;
  for (bool moved = true; moved; ++sweeps) {
    tn = t;
    moved = false;
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j) {
        at(tn, i, j) = ex::eikonal_cell(at(t, i, j), std::fmin(at(t, i - 1, j), at(t, i + 1, j)),
                                        std::fmin(at(t, i, j - 1), at(t, i, j + 1)), h / ex::eikonal_speed(i, j));
        moved = moved || at(tn, i, j) != at(t, i, j);
      }
    t.swap(tn);
    ASSERT_LT(sweeps, 10000);
  }
  // Independent check: every arrival time lies between the straight-line
  // distance at the fastest speed (1.5) and the grid-path (Manhattan)
  // distance at the slowest (0.5).
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) {
      const double di = double(i - s0) * h, dj = double(j - s1) * h;
      EXPECT_GE(at(t, i, j), std::sqrt(di * di + dj * dj) / 1.5 - 1e-12);
      EXPECT_LE(at(t, i, j), (std::fabs(di) + std::fabs(dj)) / 0.5 + 1e-12);
    }
  tessera::View<double**, tessera::HostSpace> init("init", n0, n1), out("out", n0, n1);
  tessera::View<int**, tessera::HostSpace> flags("flags", n0, n1);
  tessera::deep_copy(init, ex::eikonal_far);
  init(s0, s1) = 0;
  tessera::deep_copy(flags, 1);  // every cell active in the first pass
  auto sched = make_scheduler<S>();
  for (const auto& parts : partitionings_2d(n0, n1)) {
    tessera::PartitionedView<double**, S> tv("t", parts), tnv("tn", parts);
    tessera::PartitionedView<int**, S> changed("changed", parts);
    tv.fill(ex::eikonal_far);  // the halo outside the domain is never upwind
    tv.scatter(init);
    changed.scatter(flags);
    auto changed_total = std::make_shared<std::int64_t>(-1);
    tessera::KernelGraph<S, 2> pass(parts);
    ex::then_eikonal_pass(pass, h, tv, tnv, changed, changed_total.get());
    tessera::KernelGraph<S, 2> g(parts);
    int passes = 0;
    g.then_until(pass, [&] {
      ++passes;
      return *changed_total == 0;
    });
    g.run(sched);
    EXPECT_EQ(passes, sweeps) << parts.describe();
    tv.gather(out);
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j)
        ASSERT_EQ(out(i, j), at(t, i, j)) << parts.describe() << " cell " << i << "," << j;
  }
}
