// The examples of packages/core/docs/README.md, compiled and checked, so the
// manual stays true. Keep the two in step.
#include "tessera_test_spaces.hpp"  // gtest, <tessera/core.hpp>, public TestBody() under nvcc

#include <sstream>
#include <string>

namespace {
// The examples run on the default execution space (Cuda when enabled): skip
// them, with the back-end's reason, where it cannot run.
std::string default_space_unavailable() {
#if TESSERA_ENABLE_CUDA
  return tessera::Cuda::impl_unavailable_reason();
#else
  return "";
#endif
}
}  // namespace
#define SKIP_IF_DEFAULT_SPACE_UNAVAILABLE()                                            \
  if (tessera::test::skip_if_unavailable<tessera::DefaultExecutionSpace>()) \
  GTEST_SKIP() << default_space_unavailable()

TEST(ManualExamples, PrintConfigurationNamesTheBackends) {
  std::ostringstream out;
  tessera::print_configuration(out);
  EXPECT_NE(out.str().find("Serial"), std::string::npos);
  EXPECT_NE(out.str().find(TESSERA_VERSION_STRING), std::string::npos);
}

TEST(ManualExamples, Views) {
  SKIP_IF_DEFAULT_SPACE_UNAVAILABLE();
  tessera::View<double**> a("a", 1000, 3);
  tessera::View<double*[3]> b("b", 1000);
  tessera::View<const double**> ca = a;
  auto row = tessera::subview(a, 7, tessera::ALL);
  auto h = tessera::create_mirror_view(a);
  tessera::deep_copy(h, 1.5);
  tessera::deep_copy(a, h);

  EXPECT_EQ(b.extent(1), 3u);
  EXPECT_EQ(ca.data(), a.data());
  EXPECT_EQ(row.extent(0), 3u);
  static_assert(decltype(row)::rank == 1);
  tessera::fence();
  auto hh = tessera::create_mirror_view_and_copy(tessera::HostSpace(), row);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(hh(j), 1.5);
  EXPECT_GE(a.use_count(), 3);  // a, ca, row (and h on host spaces) share it
}

namespace manual {
struct Particle {
  double x, y, z, vx, vy, vz;
  float mass;
  TESSERA_STRUCT_FIELDS(Particle, x, y, z, vx, vy, vz, mass)  // every member, in order
};

template <class Layout>  // tessera::LayoutAoS or tessera::LayoutSoA
void push(const tessera::View<Particle*, Layout>& p, double dt) {
  tessera::parallel_for(p.extent(0), TESSERA_LAMBDA(int i) {
    auto q = p(i);  // a proxy: q.x() is a double& into the storage
    q.x() += q.vx() * dt;
    q.y() += q.vy() * dt;
    q.z() += q.vz() * dt;
  });
}
}  // namespace manual

TEST(ManualExamples, ViewsOfStructs) {
  SKIP_IF_DEFAULT_SPACE_UNAVAILABLE();
  using manual::Particle;
  const int n = 100;
  tessera::View<Particle*, tessera::LayoutSoA> soa("soa", n);
  tessera::View<Particle*, tessera::LayoutAoS> aos("aos", n);
  tessera::parallel_for(n, TESSERA_LAMBDA(int i) {
    soa(i).vx() = 1.0;
    aos(i).vx() = 2.0;
  });
  manual::push(soa, 0.01);
  manual::push(aos, 0.01);
  auto a = tessera::create_mirror_view_and_copy(tessera::HostSpace(), aos);
  EXPECT_EQ(a(n - 1).x(), 0.02);
  tessera::deep_copy(aos, soa);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), soa);
  Particle first = h(0);
  first.mass = 2.0f;
  h(0) = first;
  EXPECT_EQ(h(0).mass(), 2.0f);
  EXPECT_EQ(h(0).x(), 0.01);
  a = tessera::create_mirror_view_and_copy(tessera::HostSpace(), aos);
  EXPECT_EQ(a(n - 1).x(), 0.01) << "deep_copy(aos, soa) copied the SoA values";
}

TEST(ManualExamples, Patterns) {
  SKIP_IF_DEFAULT_SPACE_UNAVAILABLE();
  const int n = 1000;
  tessera::View<double*> x("x", n), y("y", n);
  tessera::parallel_for("init", n, TESSERA_LAMBDA(int i) {
    x(i) = i;
    y(i) = 1;
  });

  double dot = 0;
  tessera::parallel_reduce("dot", n, TESSERA_LAMBDA(int i, double& acc) { acc += x(i) * y(i); }, dot);

  tessera::parallel_scan("prefix", n, TESSERA_LAMBDA(int i, double& update, bool final) {
    update += x(i);
    if (final) y(i) = update;  // inclusive prefix sum
  });

  EXPECT_EQ(dot, double(n) * (n - 1) / 2);
  auto hy = tessera::create_mirror_view_and_copy(tessera::HostSpace(), y);
  EXPECT_EQ(hy(0), 0.0);
  EXPECT_EQ(hy(n - 1), double(n) * (n - 1) / 2);
}

TEST(ManualExamples, Teams) {
  SKIP_IF_DEFAULT_SPACE_UNAVAILABLE();
  const int rows = 64, cols = 100;
  tessera::View<double**> A("A", rows, cols);
  tessera::View<double*> x("x", cols), y("y", rows);
  tessera::parallel_for(tessera::MDRangePolicy<tessera::Rank<2>>({0, 0}, {rows, cols}),
                        TESSERA_LAMBDA(int i, int j) { A(i, j) = i + 1; });
  tessera::deep_copy(x, 2.0);

  using member = tessera::TeamPolicy<>::member_type;
  tessera::parallel_for("rows", tessera::TeamPolicy<>(rows, tessera::AUTO), TESSERA_LAMBDA(const member& team) {
    const int i = team.league_rank();
    double sum = 0;
    tessera::parallel_reduce(
        tessera::TeamThreadRange(team, cols), [&](int j, double& acc) { acc += A(i, j) * x(j); }, sum);
    tessera::single(tessera::PerTeam(team), [&] { y(i) = sum; });
  });

  auto hy = tessera::create_mirror_view_and_copy(tessera::HostSpace(), y);
  for (int i = 0; i < rows; ++i) ASSERT_EQ(hy(i), 2.0 * cols * (i + 1)) << "row " << i;
}

TEST(ManualExamples, TeamScratch) {
  SKIP_IF_DEFAULT_SPACE_UNAVAILABLE();
  using Scratch =
      tessera::View<double*, tessera::DefaultExecutionSpace::scratch_memory_space, tessera::MemoryUnmanaged>;
  const int league = 8;
  tessera::View<double*> out("out", league);
  auto policy =
      tessera::TeamPolicy<>(league, tessera::AUTO).set_scratch_size(0, tessera::PerTeam(Scratch::shmem_size(256)));
  using member = tessera::TeamPolicy<>::member_type;
  tessera::parallel_for(policy, TESSERA_LAMBDA(const member& team) {
    Scratch tile(team.team_scratch(0), 256);
    tessera::parallel_for(tessera::TeamThreadRange(team, 256), [&](int k) { tile(k) = team.league_rank() + k; });
    team.team_barrier();
    double sum = 0;
    tessera::parallel_reduce(tessera::TeamThreadRange(team, 256), [&](int k, double& acc) { acc += tile(k); }, sum);
    tessera::single(tessera::PerTeam(team), [&] { out(team.league_rank()) = sum; });
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int l = 0; l < league; ++l) EXPECT_EQ(h(l), 256.0 * l + 255.0 * 256 / 2);
}
