// The partitioned kernel graph against the same kernels as plain
// parallel_for over single Views with a fence between steps, on the
// Threads back-end, contenders interleaved within each repetition
// (tessera::bench::run_interleaved):
//
//   SAXPY          y = a x + y, `steps` times
//   particles      3-D particles around a central mass, `steps` steps
//   finite volume  2-D Burgers with Rusanov flux differences (halo 1)
//   eikonal        fast iterative method until converged (a conditional
//                  sub-graph; the reference loops on the host until the
//                  parallel_reduce of changed cells is zero)
//
// The kernels are those of the tests (tests/kernel_graph_examples.hpp);
// every contender's answer is checked against the reference after the
// timing. Graphs are built once; a timed run is KernelGraph::run (spawn the
// nodes, wait). Ratios: reference time / own time (> 1: the graph is faster).
//
//   bench_kernel_graph [--repeats 7] [--steps 10] [--n 4194304] [--grid 1024] [--json] --tessera-num-threads=2
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#include "kernel_graph_examples.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Space = tessera::Threads;
using Sched = tessera::TaskScheduler<Space>;
namespace ex = tessera::examples;
using V1 = tessera::View<double*, Space>;
using V2 = tessera::View<double**, Space>;
using I2 = tessera::View<int**, Space>;
using PV1 = tessera::PartitionedView<double*, Space>;
using PV2 = tessera::PartitionedView<double**, Space>;
using PI2 = tessera::PartitionedView<int**, Space>;

void check_equal(const std::string& who, const V1& got, const V1& want) {
  for (std::size_t i = 0; i < got.extent(0); ++i)
    if (got(i) != want(i))
      throw std::runtime_error(who + ": cell " + std::to_string(i) + " differs from the reference");
}
void check_equal(const std::string& who, const V2& got, const V2& want) {
  for (std::size_t i = 0; i < got.extent(0); ++i)
    for (std::size_t j = 0; j < got.extent(1); ++j)
      if (got(i, j) != want(i, j))
        throw std::runtime_error(who + ": cell " + std::to_string(i) + "," + std::to_string(j) +
                                 " differs from the reference");
}

struct Case {
  std::vector<tessera::bench::Contender> contenders;
  std::vector<std::function<void()>> verify;  // prepare + run + compare, after the timing
};

// Adds the reference (index 0) and the graph with 1, 2 and 4 partitions.
template <class Ref, class MakeGraph>
void add_contenders(Case& c, const std::string& what, Ref ref, MakeGraph make_graph, Sched& sched) {
  const auto threads = [] { return Space().concurrency(); };
  c.contenders.push_back({"parallel_for + fence", ref.run, threads, -1, ref.prepare});
  c.verify.push_back([ref] {
    ref.prepare();
    ref.run();
    ref.check("parallel_for + fence");
  });
  for (int P : {1, 2, 4}) {
    auto g = make_graph(P);  // {prepare, run-graph, check}
    const std::string name = "KernelGraph, " + std::to_string(P) + " partition" + (P > 1 ? "s" : "");
    c.contenders.push_back({name, [g, &sched] { g.graph->run(sched); }, threads, 0, g.prepare});
    c.verify.push_back([g, &sched, name, what] {
      g.prepare();
      g.graph->run(sched);
      g.check(what + ", " + name);
    });
  }
}

template <class G>
struct GraphCase {
  std::shared_ptr<G> graph;
  std::function<void()> prepare;
  std::function<void(const std::string&)> check;
};
struct RefCase {
  std::function<void()> prepare, run;
  std::function<void(const std::string&)> check;
};

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_kernel_graph",
                          "KernelGraph over 1, 2 and 4 partitions against the same kernels as parallel_for + fence\n"
                          "(SAXPY, particles, finite volume, eikonal).",
                          7);
  int steps = 10;
  std::int64_t n = 1 << 22, grid = 1024;
  cli.app().add_option("--steps", steps, "time steps per timed run")->check(tools::integer(1, 1 << 20));
  cli.app().add_option("--n", n, "SAXPY and particle elements")->check(tools::integer(1, std::int64_t(1) << 40));
  cli.app().add_option("--grid", grid, "finite-volume grid side (the eikonal grid is a quarter)")->check(tools::integer(8, 1 << 20));
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const int threads = Space().concurrency();
  if (!json)
    std::printf("# %d threads; %d steps; SAXPY/particles n = %lld, finite volume %lld^2, eikonal %lld^2; %d repeats\n",
                threads, steps, (long long)n, (long long)grid, (long long)(grid / 4), repeats);
  Sched sched(Sched::memory_space(), std::size_t(64) << 20);
  const auto parts1 = [&](int P) { return tessera::Partitioning<1>({n}, {P}, {0}, std::max(1, threads / P)); };
  const auto parts2 = [&](std::int64_t g, int P) {
    return tessera::Partitioning<2>({g, g}, {P, 1}, {1, 1}, std::max(1, threads / P));
  };
  using tessera::RangePolicy;

  // ---- SAXPY ----
  Case saxpy;
  const double a = 0.731;
  V1 x0("x0", n), y0("y0", n), yr("yr", n), xr("xr", n), want("want", n);
  for (std::int64_t i = 0; i < n; ++i) {
    x0(i) = std::sin(1e-4 * double(i));
    y0(i) = std::cos(2e-4 * double(i));
    want(i) = y0(i);
  }
  for (int s = 0; s < steps; ++s)
    for (std::int64_t i = 0; i < n; ++i) want(i) = ex::saxpy_cell(a, x0(i), want(i));
  tessera::deep_copy(xr, x0);
  add_contenders(
      saxpy, "SAXPY",
      RefCase{[=] { tessera::deep_copy(yr, y0); },
              [=] {
                for (int s = 0; s < steps; ++s) {
                  tessera::parallel_for(RangePolicy<Space>(0, n),
                                        [=](std::int64_t i) { yr(i) = ex::saxpy_cell(a, xr(i), yr(i)); });
                  Space().fence();
                }
              },
              [=](const std::string& who) { check_equal(who, yr, want); }},
      [&](int P) {
        const auto parts = parts1(P);
        PV1 x("x", parts), y("y", parts);
        x.scatter(x0);
        auto g = std::make_shared<tessera::KernelGraph<Space, 1>>(parts);
        for (int s = 0; s < steps; ++s) ex::then_saxpy(*g, a, x, y);
        V1 out("out", n);
        return GraphCase<tessera::KernelGraph<Space, 1>>{
            g, [=] { y.scatter(y0); }, [=](const std::string& who) {
              y.gather(out);
              check_equal(who, out, want);
            }};
      },
      sched);

  // ---- particles ----
  Case particles;
  const ex::ParticleParams q;
  std::vector<V1> init, refs, wants;
  for (int c = 0; c < 6; ++c) {
    init.emplace_back("init", n);
    refs.emplace_back("ref", n);
    wants.emplace_back("want", n);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    ex::particle_initial(i, init[0](i), init[1](i), init[2](i), init[3](i), init[4](i), init[5](i));
    double r[6] = {init[0](i), init[1](i), init[2](i), init[3](i), init[4](i), init[5](i)};
    for (int s = 0; s < steps; ++s) ex::particle_cell(q, r[0], r[1], r[2], r[3], r[4], r[5]);
    for (int c = 0; c < 6; ++c) wants[c](i) = r[c];
  }
  add_contenders(
      particles, "particles",
      RefCase{[=] {
                for (int c = 0; c < 6; ++c) tessera::deep_copy(refs[c], init[c]);
              },
              [=] {
                const V1 x = refs[0], y = refs[1], z = refs[2], vx = refs[3], vy = refs[4], vz = refs[5];
                for (int s = 0; s < steps; ++s) {
                  tessera::parallel_for(RangePolicy<Space>(0, n), [=](std::int64_t i) {
                    ex::particle_cell(q, x(i), y(i), z(i), vx(i), vy(i), vz(i));
                  });
                  Space().fence();
                }
              },
              [=](const std::string& who) {
                for (int c = 0; c < 6; ++c) check_equal(who, refs[c], wants[c]);
              }},
      [&](int P) {
        const auto parts = parts1(P);
        ex::Particles<PV1> ps{PV1("x", parts), PV1("y", parts), PV1("z", parts),
                              PV1("vx", parts), PV1("vy", parts), PV1("vz", parts)};
        auto g = std::make_shared<tessera::KernelGraph<Space, 1>>(parts);
        for (int s = 0; s < steps; ++s) ex::then_particle_step(*g, q, ps);
        V1 out("out", n);
        auto all = [ps] { return std::vector<PV1>{ps.x, ps.y, ps.z, ps.vx, ps.vy, ps.vz}; };
        return GraphCase<tessera::KernelGraph<Space, 1>>{
            g,
            [=] {
              auto v = all();
              for (int c = 0; c < 6; ++c) v[c].scatter(init[c]);
            },
            [=](const std::string& who) {
              auto v = all();
              for (int c = 0; c < 6; ++c) {
                v[c].gather(out);
                check_equal(who, out, wants[c]);
              }
            }};
      },
      sched);

  // ---- finite volume (even number of steps: the result ends in u) ----
  Case fv;
  const int fv_steps = steps + steps % 2;
  const double lambda = 0.2;
  const std::int64_t g0 = grid;
  V2 fv_init("fv_init", g0, g0), fv_want("fv_want", g0, g0);
  V2 pu("pu", g0 + 2, g0 + 2), pun("pun", g0 + 2, g0 + 2);  // padded reference arrays, boundary ring 0
  for (std::int64_t i = 0; i < g0; ++i)
    for (std::int64_t j = 0; j < g0; ++j) fv_init(i, j) = ex::fv_initial(i, j, g0, g0);
  {
    std::vector<double> u((g0 + 2) * (g0 + 2), 0.0), un = u;
    auto at = [&](std::vector<double>& v, std::int64_t i, std::int64_t j) -> double& {
      return v[std::size_t((i + 1) * (g0 + 2) + j + 1)];
    };
    for (std::int64_t i = 0; i < g0; ++i)
      for (std::int64_t j = 0; j < g0; ++j) at(u, i, j) = fv_init(i, j);
    for (int s = 0; s < fv_steps; ++s) {
      for (std::int64_t i = 0; i < g0; ++i)
        for (std::int64_t j = 0; j < g0; ++j)
          at(un, i, j) = ex::fv_cell(lambda, at(u, i, j), at(u, i - 1, j), at(u, i + 1, j), at(u, i, j - 1),
                                     at(u, i, j + 1));
      std::swap(u, un);
    }
    for (std::int64_t i = 0; i < g0; ++i)
      for (std::int64_t j = 0; j < g0; ++j) fv_want(i, j) = at(u, i, j);
  }
  const auto fv_ref_step = [=](const V2& from, const V2& to) {
    tessera::parallel_for(RangePolicy<Space>(1, g0 + 1), [=](std::int64_t i) {
      for (std::int64_t j = 1; j <= g0; ++j)
        to(i, j) = ex::fv_cell(lambda, from(i, j), from(i - 1, j), from(i + 1, j), from(i, j - 1), from(i, j + 1));
    });
    Space().fence();
  };
  add_contenders(
      fv, "finite volume",
      RefCase{[=] {
                tessera::deep_copy(pu, 0.0);
                tessera::deep_copy(pun, 0.0);
                for (std::int64_t i = 0; i < g0; ++i)
                  for (std::int64_t j = 0; j < g0; ++j) pu(i + 1, j + 1) = fv_init(i, j);
              },
              [=] {
                for (int s = 0; s < fv_steps; s += 2) {
                  fv_ref_step(pu, pun);
                  fv_ref_step(pun, pu);
                }
              },
              [=](const std::string& who) {
                V2 inner("inner", g0, g0);
                for (std::int64_t i = 0; i < g0; ++i)
                  for (std::int64_t j = 0; j < g0; ++j) inner(i, j) = pu(i + 1, j + 1);
                check_equal(who, inner, fv_want);
              }},
      [&](int P) {
        const auto parts = parts2(g0, P);
        PV2 u("u", parts), un("un", parts);
        auto g = std::make_shared<tessera::KernelGraph<Space, 2>>(parts);
        for (int s = 0; s < fv_steps; s += 2) {
          ex::then_fv_step(*g, lambda, u, un);
          ex::then_fv_step(*g, lambda, un, u);
        }
        V2 out("out", g0, g0);
        return GraphCase<tessera::KernelGraph<Space, 2>>{g, [=] { u.scatter(fv_init); },
                                                         [=](const std::string& who) {
                                                           u.gather(out);
                                                           check_equal(who, out, fv_want);
                                                         }};
      },
      sched);

  // ---- eikonal (a quarter of the grid per side: passes grow with the size) ----
  Case eik;
  const std::int64_t e0 = std::max<std::int64_t>(grid / 4, 8);
  const double h = 0.1;
  V2 e_init("e_init", e0, e0), e_want("e_want", e0, e0);
  tessera::View<int**, Space> e_flags("e_flags", e0, e0);
  tessera::deep_copy(e_init, ex::eikonal_far);
  tessera::deep_copy(e_flags, 1);
  e_init(e0 / 3, e0 / 2) = 0;
  V2 et("et", e0 + 2, e0 + 2), etn("etn", e0 + 2, e0 + 2);
  I2 ec("ec", e0 + 2, e0 + 2);
  const auto eik_ref_prepare = [=] {
    tessera::deep_copy(et, ex::eikonal_far);
    tessera::deep_copy(ec, 0);
    for (std::int64_t i = 0; i < e0; ++i)
      for (std::int64_t j = 0; j < e0; ++j) {
        et(i + 1, j + 1) = e_init(i, j);
        ec(i + 1, j + 1) = 1;
      }
  };
  const auto eik_ref_run = [=] {
    for (std::int64_t changed = 1; changed != 0;) {
      tessera::parallel_for(RangePolicy<Space>(1, e0 + 1), [=](std::int64_t i) {
        for (std::int64_t j = 1; j <= e0; ++j) {
          const bool active = ec(i, j) | ec(i - 1, j) | ec(i + 1, j) | ec(i, j - 1) | ec(i, j + 1);
          etn(i, j) = active ? ex::eikonal_cell(et(i, j), std::fmin(et(i - 1, j), et(i + 1, j)),
                                                std::fmin(et(i, j - 1), et(i, j + 1)), h / ex::eikonal_speed(i - 1, j - 1))
                             : et(i, j);
        }
      });
      Space().fence();
      changed = 0;
      tessera::parallel_reduce(
          RangePolicy<Space>(1, e0 + 1),
          [=](std::int64_t i, std::int64_t& cnt) {
            for (std::int64_t j = 1; j <= e0; ++j) {
              const int moved = etn(i, j) != et(i, j) ? 1 : 0;
              ec(i, j) = moved;
              et(i, j) = etn(i, j);
              cnt += moved;
            }
          },
          changed);
      Space().fence();
    }
  };
  // The answer: the reference run once, before any timing.
  eik_ref_prepare();
  eik_ref_run();
  for (std::int64_t i = 0; i < e0; ++i)
    for (std::int64_t j = 0; j < e0; ++j) e_want(i, j) = et(i + 1, j + 1);
  add_contenders(
      eik, "eikonal",
      RefCase{eik_ref_prepare, eik_ref_run,
              [=](const std::string& who) {
                V2 inner("inner", e0, e0);
                for (std::int64_t i = 0; i < e0; ++i)
                  for (std::int64_t j = 0; j < e0; ++j) inner(i, j) = et(i + 1, j + 1);
                check_equal(who, inner, e_want);
              }},
      [&](int P) {
        const auto parts = parts2(e0, P);
        PV2 t("t", parts), tn("tn", parts);
        PI2 c("c", parts);
        auto total = std::make_shared<std::int64_t>(-1);
        auto pass = tessera::KernelGraph<Space, 2>(parts);
        ex::then_eikonal_pass(pass, h, t, tn, c, total.get());
        auto g = std::make_shared<tessera::KernelGraph<Space, 2>>(parts);
        g->then_until(pass, [total] { return *total == 0; });
        V2 out("out", e0, e0);
        return GraphCase<tessera::KernelGraph<Space, 2>>{g,
                                                         [=] {
                                                           t.fill(ex::eikonal_far);
                                                           t.scatter(e_init);
                                                           c.fill(0);
                                                           c.scatter(e_flags);
                                                         },
                                                         [=](const std::string& who) {
                                                           t.gather(out);
                                                           check_equal(who, out, e_want);
                                                         }};
      },
      sched);

  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  const tessera::bench::Report report("kernel_graph", json);
  const tessera::bench::Measure ms{"ms", 1, 1e3, true, true};
  const std::string sz1 = " n=" + std::to_string(n) + " x" + std::to_string(steps);
  const std::string sz2 = " " + std::to_string(g0) + "^2 x" + std::to_string(fv_steps);
  struct Named {
    std::string name;
    Case* c;
  };
  for (const Named& k : {Named{"SAXPY" + sz1, &saxpy}, Named{"particles" + sz1, &particles},
                         Named{"finite volume" + sz2, &fv}, Named{"eikonal " + std::to_string(e0) + "^2", &eik}}) {
    const auto results = tessera::bench::run_interleaved(k.c->contenders, opt);
    for (const auto& v : k.c->verify) v();  // every contender's answer equals the reference's
    report.add(k.name, ms, k.c->contenders, results);
  }
  tessera::finalize();
  return 0;
}
