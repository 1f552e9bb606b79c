// A partitioned kernel graph: 2-D Burgers' equation, u_t + (u^2/2)_x +
// (u^2/2)_y = 0, by finite volumes with Rusanov fluxes on a grid split into
// 1, 2 and 4 partitions with a halo of one cell. One pass of the graph is two
// steps (each a split kernel reading its neighbours' halo cells, the
// transfers overlapping the interior) and a per-partition count of the cells
// still above 0.5; the pass runs again until that count is zero (a
// conditional sub-graph). Checks, on every enabled host back-end: the same
// bits and the same number of passes as one loop over a single array, and
// the scheme's maximum principle (no new extrema).
#include <tessera/tasking.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr std::int64_t n0 = 96, n1 = 64;
constexpr double lambda = 0.2;  // dt / h: lambda * max|u| <= 1/4 keeps the scheme monotone

double flux(double l, double r) {  // Rusanov's flux of u^2/2
  const double speed = std::max(std::fabs(l), std::fabs(r));
  return 0.25 * (l * l + r * r) - 0.5 * speed * (r - l);
}
double step_cell(double c, double w, double e, double s, double n) {
  return c - lambda * (flux(c, e) - flux(w, c)) - lambda * (flux(c, n) - flux(s, c));
}
double initial(std::int64_t i, std::int64_t j) {
  const double x = (double(i) + 0.5) / double(n0), y = (double(j) + 0.5) / double(n1);
  return std::exp(-30.0 * ((x - 0.4) * (x - 0.4) + (y - 0.5) * (y - 0.5))) + 0.2 * std::sin(6.0 * x);
}

// The reference: one array with a ring of zeros (the boundary), two steps
// per pass, until no cell is above 0.5.
struct Reference {
  std::vector<double> u;
  int passes = 0;
};
Reference reference() {
  std::vector<double> u((n0 + 2) * (n1 + 2), 0.0), un = u;
  auto at = [](std::vector<double>& v, std::int64_t i, std::int64_t j) -> double& {
    return v[std::size_t((i + 1) * (n1 + 2) + j + 1)];
  };
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) at(u, i, j) = initial(i, j);
  Reference r;
  for (std::int64_t above = 1; above > 0;) {
    for (int s = 0; s < 2; ++s) {
      for (std::int64_t i = 0; i < n0; ++i)
        for (std::int64_t j = 0; j < n1; ++j)
          at(un, i, j) =
              step_cell(at(u, i, j), at(u, i - 1, j), at(u, i + 1, j), at(u, i, j - 1), at(u, i, j + 1));
      std::swap(u, un);
    }
    ++r.passes;
    above = 0;
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j) above += at(u, i, j) > 0.5 ? 1 : 0;
  }
  r.u.resize(std::size_t(n0 * n1));
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) r.u[std::size_t(i * n1 + j)] = at(u, i, j);
  return r;
}

template <class Space>
bool run(const Reference& ref) {
  using Graph = tessera::KernelGraph<Space, 2>;
  using PV = tessera::PartitionedView<double**, Space>;
  tessera::View<double**, tessera::HostSpace> init("init", n0, n1), out("out", n0, n1);
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) init(i, j) = initial(i, j);
  tessera::TaskScheduler<Space> sched(typename Space::memory_space(), 16 << 20);
  bool ok = true;
  // 1 partition; 2 along the first dimension, each in 2 sub-partitions; 2 x 2.
  for (const auto& parts : {tessera::Partitioning<2>({n0, n1}, {1, 1}, {1, 1}),
                            tessera::Partitioning<2>({n0, n1}, {2, 1}, {1, 1}, 2),
                            tessera::Partitioning<2>({n0, n1}, {2, 2}, {1, 1})}) {
    PV u("u", parts), un("un", parts);  // zero-filled: the halo outside the domain is the boundary
    u.scatter(init);
    auto step = [](Graph& g, const PV& from, const PV& to) {
      g.then_split(
          [=](typename Graph::member_type& m, int p, const tessera::Box<2>& cells) {
            const auto a = from.view(p), b = to.view(p);
            const auto o = from.origin(p);
            tessera::for_each_cell(m, cells, [&](std::int64_t i, std::int64_t j) {
              const std::int64_t x = i - o[0], y = j - o[1];
              b(x, y) = step_cell(a(x, y), a(x - 1, y), a(x + 1, y), a(x, y - 1), a(x, y + 1));
            });
          },
          tessera::halo_read(from));
    };
    std::int64_t above = -1;
    Graph pass(parts);
    step(pass, u, un);
    step(pass, un, u);
    pass.then_reduce(
        [=](typename Graph::member_type& m, int p, const tessera::Box<2>& owned) {
          const auto a = u.view(p);
          const auto o = u.origin(p);
          std::int64_t count = 0;
          tessera::parallel_reduce(
              tessera::TeamThreadRange(m, owned.lo[0], owned.hi[0]),
              [&](std::int64_t i, std::int64_t& c) {
                for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j)
                  c += a(i - o[0], j - o[1]) > 0.5 ? 1 : 0;
              },
              count);
          return count;
        },
        [&above](const std::vector<std::int64_t>& counts) {
          above = 0;
          for (auto c : counts) above += c;
        });
    int passes = 0;
    Graph solve(parts);
    solve.then_until(pass, [&] {
      ++passes;
      return above == 0;
    });
    solve.run(sched);
    u.gather(out);
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j) differ += out(i, j) != ref.u[std::size_t(i * n1 + j)] ? 1 : 0;
    const bool same = differ == 0 && passes == ref.passes;
    ok = ok && same;
    std::printf("%-8s %-40s %3d passes, %lld cells differ from the single array%s\n", Space::name(),
                parts.describe().c_str(), passes, (long long)differ, same ? "" : "  <-- FAIL");
  }
  return ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  const Reference ref = reference();
  // The reference itself against the scheme's maximum principle: with a zero
  // boundary, no value leaves [min(u0, 0), max(u0, 0)].
  double lo = 0, hi = 0, new_lo = 0, new_hi = 0;
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < n1; ++j) {
      lo = std::min(lo, initial(i, j));
      hi = std::max(hi, initial(i, j));
    }
  for (double v : ref.u) {
    new_lo = std::min(new_lo, v);
    new_hi = std::max(new_hi, v);
  }
  bool ok = ref.passes > 1 && new_lo >= lo && new_hi <= hi && hi * lambda <= 0.25;
  std::printf(
      "Burgers %lldx%lld: %d passes of two steps until no cell is above 0.5; range [%.3f, %.3f] -> "
      "[%.3f, %.3f]%s\n",
      (long long)n0, (long long)n1, ref.passes, lo, hi, new_lo, new_hi, ok ? "" : "  <-- FAIL");
  ok = run<tessera::Serial>(ref) && ok;
#if TESSERA_ENABLE_THREADS
  ok = run<tessera::Threads>(ref) && ok;
#endif
#if TESSERA_ENABLE_OPENMP
  ok = run<tessera::OpenMP>(ref) && ok;
#endif
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
