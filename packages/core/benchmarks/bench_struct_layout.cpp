// Views of user structs (struct_view.hpp) against hand-written storage, on
// every host back-end, contenders interleaved within each repetition:
//  * particle push, x += v * dt in 3-D over n particles (Particle: six
//    doubles and a float mass), `steps` steps per run;
//  * flux difference over a 2-D shallow-water state (h, hu, hv and a
//    validity flag) on an nx x nx grid: out = u - cx (F(E) - F(W)) - cy (G(N) - G(S)).
// Contenders per kernel and back-end:
//  - "separate Views": one View per member, the kernel written against them
//    (the reference: a LayoutSoA View must cost nothing over it);
//  - "LayoutSoA View", "LayoutAoS View": View<S*, LayoutSoA> and
//    View<S*, LayoutAoS>, one kernel written once for both;
//  - "plain View of structs": View<S*>, the kernel on the struct's members.
// Ratio column: the separate Views' time / the row's time per repetition
// (1: as fast as hand-written separate Views). Every contender's answer is
// checked after the runs (closed form for the push; the reference's values
// for the stencil); a wrong answer stops the program.
//   bench_struct_layout [--n 1000000] [--steps 10] [--nx 1024] [--repeats 9] [--json] --tessera-num-threads=2
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Particle {
  double x, y, z, vx, vy, vz;
  float mass;
  TESSERA_STRUCT_FIELDS(Particle, x, y, z, vx, vy, vz, mass)
};

template <class T, int D>
struct State {
  T u[D];
  bool valid;
  TESSERA_STRUCT_FIELDS(State, u, valid)
};
using Water = State<double, 3>;  // h, hu, hv

constexpr double dt = 1.0 / 1024;
constexpr double gravity = 9.81;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_struct_layout: %s\n", what.c_str());
  std::exit(2);
}

// --- particle push ----------------------------------------------------------

double initial(std::size_t i, int m) {  // member m of particle i at t = 0
  switch (m) {
    case 0: return double(i % 1000);
    case 1: return -double(i % 777);
    case 2: return 0.5 * double(i % 333);
    case 3: return 1.0;
    case 4: return double(i % 7) - 3.0;
    default: return -2.0;
  }
}

template <class Exec>
struct PushCase {
  std::size_t n;
  int steps;
  tessera::View<double*, Exec> x, y, z, vx, vy, vz;
  tessera::View<float*, Exec> mass;
  tessera::View<Particle*, tessera::LayoutSoA, Exec> soa;
  tessera::View<Particle*, tessera::LayoutAoS, Exec> aos;
  tessera::View<Particle*, Exec> plain;

  PushCase(std::size_t n_, int steps_)
      : n(n_), steps(steps_), x("x", n), y("y", n), z("z", n), vx("vx", n), vy("vy", n), vz("vz", n),
        mass("mass", n), soa("soa", n), aos("aos", n), plain("plain", n) {
    auto init = [](std::size_t i) {
      Particle p{};
      p.x = initial(i, 0), p.y = initial(i, 1), p.z = initial(i, 2);
      p.vx = initial(i, 3), p.vy = initial(i, 4), p.vz = initial(i, 5);
      p.mass = 1.0f;
      return p;
    };
    // Every View is first written by the back-end that runs it (first touch).
    auto sx = x, sy = y, sz = z, svx = vx, svy = vy, svz = vz;
    auto s = soa;
    auto a = aos;
    auto pl = plain;
    tessera::parallel_for(tessera::RangePolicy<Exec>(0, n), [=](std::size_t i) {
      const Particle p = init(i);
      sx(i) = p.x, sy(i) = p.y, sz(i) = p.z, svx(i) = p.vx, svy(i) = p.vy, svz(i) = p.vz;
      s(i) = p;
      a(i) = p;
      pl(i) = p;
    });
    Exec().fence();
  }

  void push_separate() const {
    auto px = x, py = y, pz = z, pvx = vx, pvy = vy, pvz = vz;
    for (int s = 0; s < steps; ++s)
      tessera::parallel_for(tessera::RangePolicy<Exec>(0, n), [=](std::size_t i) {
        px(i) += pvx(i) * dt;
        py(i) += pvy(i) * dt;
        pz(i) += pvz(i) * dt;
      });
    Exec().fence();
  }
  // The one kernel for both struct layouts.
  template <class V>
  void push_struct(const V& p) const {
    for (int s = 0; s < steps; ++s)
      tessera::parallel_for(tessera::RangePolicy<Exec>(0, n), [=](std::size_t i) {
        auto q = p(i);
        q.x() += q.vx() * dt;
        q.y() += q.vy() * dt;
        q.z() += q.vz() * dt;
      });
    Exec().fence();
  }
  void push_plain() const {
    auto p = plain;
    for (int s = 0; s < steps; ++s)
      tessera::parallel_for(tessera::RangePolicy<Exec>(0, n), [=](std::size_t i) {
        Particle& q = p(i);
        q.x += q.vx * dt;
        q.y += q.vy * dt;
        q.z += q.vz * dt;
      });
    Exec().fence();
  }

  // After `runs` runs of `steps` steps every position is x0 + runs*steps*v*dt
  // (exact: dt is a power of two and the values are small integers).
  void check(int runs) const {
    const double t = double(runs) * steps * dt;
    auto hx = tessera::create_mirror_view_and_copy(tessera::HostSpace(), x);
    auto hz = tessera::create_mirror_view_and_copy(tessera::HostSpace(), z);
    auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), soa);
    auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), aos);
    auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), plain);
    for (std::size_t i = 0; i < n; ++i) {
      const double want_x = initial(i, 0) + t * initial(i, 3);
      const double want_y = initial(i, 1) + t * initial(i, 4);
      const double want_z = initial(i, 2) + t * initial(i, 5);
      const Particle s = hs(i), a = ha(i), p = hp(i);
      if (hx(i) != want_x || hz(i) != want_z || s.x != want_x || s.y != want_y || s.z != want_z || a.x != want_x ||
          a.y != want_y || a.z != want_z || p.x != want_x || p.y != want_y || p.z != want_z)
        fail("particle push: a contender's position of particle " + std::to_string(i) + " differs from x0 + v t");
    }
  }
};

// --- flux difference over a shallow-water state ----------------------------

struct Flux {
  double f[3];
};
TESSERA_INLINE_FUNCTION Flux flux_x(double h, double hu, double hv) {
  const double u = hu / h;
  return {{hu, hu * u + 0.5 * gravity * h * h, hv * u}};
}
TESSERA_INLINE_FUNCTION Flux flux_y(double h, double hu, double hv) {
  const double v = hv / h;
  return {{hv, hu * v, hv * v + 0.5 * gravity * h * h}};
}

double initial_water(std::size_t i, std::size_t j, int c) {
  const double r = std::sin(0.01 * double(i)) * std::cos(0.013 * double(j));
  return c == 0 ? 2.0 + r : (c == 1 ? 0.1 * r : -0.05 * r);
}

template <class Exec>
struct StencilCase {
  std::size_t nx;
  double cx = 0.1, cy = 0.07;
  tessera::View<double**, Exec> h, hu, hv, oh, ohu, ohv;
  tessera::View<bool**, Exec> valid, ovalid;
  tessera::View<Water**, tessera::LayoutSoA, Exec> soa, soa_out;
  tessera::View<Water**, tessera::LayoutAoS, Exec> aos, aos_out;
  tessera::View<Water**, Exec> plain, plain_out;

  explicit StencilCase(std::size_t nx_)
      : nx(nx_), h("h", nx, nx), hu("hu", nx, nx), hv("hv", nx, nx), oh("oh", nx, nx), ohu("ohu", nx, nx),
        ohv("ohv", nx, nx), valid("valid", nx, nx), ovalid("ovalid", nx, nx), soa("soa", nx, nx),
        soa_out("soa_out", nx, nx), aos("aos", nx, nx), aos_out("aos_out", nx, nx), plain("plain", nx, nx),
        plain_out("plain_out", nx, nx) {
    std::vector<double> init(3 * nx * nx);
    for (std::size_t i = 0; i < nx; ++i)
      for (std::size_t j = 0; j < nx; ++j)
        for (int c = 0; c < 3; ++c) init[(i * nx + j) * 3 + c] = initial_water(i, j, c);
    const double* in = init.data();
    auto sh = h, shu = hu, shv = hv;
    auto sv = valid;
    auto s = soa;
    auto a = aos;
    auto p = plain;
    const std::size_t m = nx;
    tessera::parallel_for(tessera::RangePolicy<Exec>(0, nx), [=](std::size_t i) {
      for (std::size_t j = 0; j < m; ++j) {
        Water w{};
        for (int c = 0; c < 3; ++c) w.u[c] = in[(i * m + j) * 3 + c];
        w.valid = true;
        sh(i, j) = w.u[0], shu(i, j) = w.u[1], shv(i, j) = w.u[2], sv(i, j) = true;
        s(i, j) = w;
        a(i, j) = w;
        p(i, j) = w;
      }
    });
    Exec().fence();
  }

  void run_separate() const {
    auto ih = h, ihu = hu, ihv = hv, oh_ = oh, ohu_ = ohu, ohv_ = ohv;
    auto iv = valid, ov = ovalid;
    const double ax = cx, ay = cy;
    const std::size_t m = nx;
    tessera::parallel_for(tessera::RangePolicy<Exec>(1, nx - 1), [=](std::size_t i) {
      for (std::size_t j = 1; j < m - 1; ++j) {
        const Flux e = flux_x(ih(i + 1, j), ihu(i + 1, j), ihv(i + 1, j));
        const Flux w = flux_x(ih(i - 1, j), ihu(i - 1, j), ihv(i - 1, j));
        const Flux n = flux_y(ih(i, j + 1), ihu(i, j + 1), ihv(i, j + 1));
        const Flux s = flux_y(ih(i, j - 1), ihu(i, j - 1), ihv(i, j - 1));
        oh_(i, j) = ih(i, j) - ax * (e.f[0] - w.f[0]) - ay * (n.f[0] - s.f[0]);
        ohu_(i, j) = ihu(i, j) - ax * (e.f[1] - w.f[1]) - ay * (n.f[1] - s.f[1]);
        ohv_(i, j) = ihv(i, j) - ax * (e.f[2] - w.f[2]) - ay * (n.f[2] - s.f[2]);
        ov(i, j) = iv(i, j) && oh_(i, j) > 0.0;
      }
    });
    Exec().fence();
  }
  // The one kernel for both struct layouts.
  template <class V>
  void run_struct(const V& in, const V& out) const {
    const double ax = cx, ay = cy;
    const std::size_t m = nx;
    tessera::parallel_for(tessera::RangePolicy<Exec>(1, nx - 1), [=](std::size_t i) {
      for (std::size_t j = 1; j < m - 1; ++j) {
        const auto E = in(i + 1, j).u(), W = in(i - 1, j).u(), N = in(i, j + 1).u(), S = in(i, j - 1).u();
        const Flux e = flux_x(E[0], E[1], E[2]);
        const Flux w = flux_x(W[0], W[1], W[2]);
        const Flux n = flux_y(N[0], N[1], N[2]);
        const Flux s = flux_y(S[0], S[1], S[2]);
        const auto c = in(i, j).u();
        auto o = out(i, j);
        for (int k = 0; k < 3; ++k) o.u()[k] = c[k] - ax * (e.f[k] - w.f[k]) - ay * (n.f[k] - s.f[k]);
        o.valid() = in(i, j).valid() && o.u()[0] > 0.0;
      }
    });
    Exec().fence();
  }
  void run_plain() const {
    auto in = plain, out = plain_out;
    const double ax = cx, ay = cy;
    const std::size_t m = nx;
    tessera::parallel_for(tessera::RangePolicy<Exec>(1, nx - 1), [=](std::size_t i) {
      for (std::size_t j = 1; j < m - 1; ++j) {
        const Water &E = in(i + 1, j), &W = in(i - 1, j), &N = in(i, j + 1), &S = in(i, j - 1);
        const Flux e = flux_x(E.u[0], E.u[1], E.u[2]);
        const Flux w = flux_x(W.u[0], W.u[1], W.u[2]);
        const Flux n = flux_y(N.u[0], N.u[1], N.u[2]);
        const Flux s = flux_y(S.u[0], S.u[1], S.u[2]);
        Water& o = out(i, j);
        for (int k = 0; k < 3; ++k) o.u[k] = in(i, j).u[k] - ax * (e.f[k] - w.f[k]) - ay * (n.f[k] - s.f[k]);
        o.valid = in(i, j).valid && o.u[0] > 0.0;
      }
    });
    Exec().fence();
  }

  // Every contender's interior must equal the separate Views' values (the
  // same arithmetic in the same order; a tolerance of 1e-14 allows for a
  // compiler contracting one loop and not another).
  void check() const {
    auto rh = tessera::create_mirror_view_and_copy(tessera::HostSpace(), oh);
    auto rhu = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ohu);
    auto rhv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ohv);
    auto rv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ovalid);
    auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), soa_out);
    auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), aos_out);
    auto hp = tessera::create_mirror_view_and_copy(tessera::HostSpace(), plain_out);
    auto close = [](double a, double b) { return std::abs(a - b) <= 1e-14 * (1.0 + std::abs(b)); };
    for (std::size_t i = 1; i + 1 < nx; ++i)
      for (std::size_t j = 1; j + 1 < nx; ++j) {
        const double want[3] = {rh(i, j), rhu(i, j), rhv(i, j)};
        const Water s = hs(i, j), a = ha(i, j), &p = hp(i, j);
        if (!rv(i, j) || s.valid != rv(i, j) || a.valid != rv(i, j) || p.valid != rv(i, j))
          fail("flux difference: validity flags differ at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
        for (int c = 0; c < 3; ++c)
          if (!close(s.u[c], want[c]) || !close(a.u[c], want[c]) || !close(p.u[c], want[c]))
            fail("flux difference: component " + std::to_string(c) + " differs from the separate Views' at (" +
                 std::to_string(i) + ", " + std::to_string(j) + ")");
      }
    // The centre of the first row of the interior by the formula, on the host.
    const std::size_t i = 1, j = nx / 2;
    auto u = [&](std::size_t a, std::size_t b, int c) { return initial_water(a, b, c); };
    const Flux e = flux_x(u(i + 1, j, 0), u(i + 1, j, 1), u(i + 1, j, 2));
    const Flux w = flux_x(u(i - 1, j, 0), u(i - 1, j, 1), u(i - 1, j, 2));
    const Flux n = flux_y(u(i, j + 1, 0), u(i, j + 1, 1), u(i, j + 1, 2));
    const Flux s = flux_y(u(i, j - 1, 0), u(i, j - 1, 1), u(i, j - 1, 2));
    const double want_h = u(i, j, 0) - cx * (e.f[0] - w.f[0]) - cy * (n.f[0] - s.f[0]);
    if (!close(rh(i, j), want_h)) fail("flux difference: the separate Views' h differs from the formula");
  }
};

template <class Exec>
void bench_space(const tessera::bench::Report& report, const tessera::bench::InterleaveOptions& opt, std::size_t n,
                 int steps, std::size_t nx) {
  using tessera::bench::Contender;
  const std::string space = Exec::name();
  const auto threads = [] { return Exec().concurrency(); };
  {
    PushCase<Exec> c(n, steps);
    std::vector<Contender> cs;
    cs.push_back({"separate Views", [&] { c.push_separate(); }, threads});
    cs.push_back({"LayoutSoA View", [&] { c.push_struct(c.soa); }, threads, 0});
    cs.push_back({"LayoutAoS View", [&] { c.push_struct(c.aos); }, threads, 0});
    cs.push_back({"plain View of structs", [&] { c.push_plain(); }, threads, 0});
    auto results = tessera::bench::run_interleaved(cs, opt);
    c.check(opt.warmup + opt.repeats);
    // ns per particle step
    const tessera::bench::Measure per_particle{"ns/particle-step", double(n) * steps, 1e9, true, true};
    report.add("particle push " + std::to_string(n) + " [" + space + "]", per_particle, cs, results);
  }
  {
    StencilCase<Exec> c(nx);
    std::vector<Contender> cs;
    cs.push_back({"separate Views", [&] { c.run_separate(); }, threads});
    cs.push_back({"LayoutSoA View", [&] { c.run_struct(c.soa, c.soa_out); }, threads, 0});
    cs.push_back({"LayoutAoS View", [&] { c.run_struct(c.aos, c.aos_out); }, threads, 0});
    cs.push_back({"plain View of structs", [&] { c.run_plain(); }, threads, 0});
    auto results = tessera::bench::run_interleaved(cs, opt);
    c.check();
    const double cells = double(nx - 2) * double(nx - 2);
    const tessera::bench::Measure per_cell{"ns/cell", cells, 1e9, true, true};
    report.add("flux difference " + std::to_string(nx) + "^2 [" + space + "]", per_cell, cs, results);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("tessera_bench_struct_layout",
                          "Views of structs laid out as structure of arrays against hand-written separate Views and\n"
                          "a plain View of structs, on every host back-end.",
                          9);
  std::size_t n = 1000000, nx = 1024;
  int steps = 10;
  cli.app().add_option("--n", n, "particles")->check(tools::integer(1, std::int64_t(1) << 40));
  cli.app().add_option("--nx", nx, "grid points per side of the 2-D field")->check(tools::integer(3, 1 << 20));
  cli.app().add_option("--steps", steps, "time steps per timed run")->check(tools::integer(1, 1 << 20));
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  {
    const tessera::bench::Report report("struct_layout", json);
    tessera::bench::InterleaveOptions opt;
    opt.repeats = repeats;
    bench_space<tessera::Serial>(report, opt, n, steps, nx);
#if TESSERA_ENABLE_THREADS
    bench_space<tessera::Threads>(report, opt, n, steps, nx);
#endif
#if TESSERA_ENABLE_OPENMP
    bench_space<tessera::OpenMP>(report, opt, n, steps, nx);
#endif
  }
  tessera::finalize();
  return 0;
}
