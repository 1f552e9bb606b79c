// One struct, described once, stored as an array of structs or as a struct
// of arrays, with the same kernels on both: a particle push (x += v dt in
// 3-D) and one explicit step of a 2-D shallow-water state with a validity
// flag. Runs on every enabled back-end (the GPU's where one is present);
// every result is checked against its closed form and the program exits
// nonzero if one is wrong.
#include <tessera/core.hpp>

#include <cmath>
#include <cstdio>

struct Particle {
  double x, y, z, vx, vy, vz;
  float mass;
  TESSERA_STRUCT_FIELDS(Particle, x, y, z, vx, vy, vz, mass)
};

// D conserved quantities and whether the cell is wet.
template <class T, int D>
struct State {
  T u[D];
  bool valid;
  TESSERA_STRUCT_FIELDS(State, u, valid)
};
using Water = State<double, 3>;  // h, h*u, h*v

// Written once: `p(i).x()` works whatever the View's struct layout.
template <class V>
void push(const V& p, double dt, int steps) {
  using Exec = typename V::execution_space;
  for (int s = 0; s < steps; ++s)
    tessera::parallel_for("push", tessera::RangePolicy<Exec>(0, p.extent(0)), TESSERA_LAMBDA(std::size_t i) {
      auto q = p(i);
      q.x() += q.vx() * dt;
      q.y() += q.vy() * dt;
      q.z() += q.vz() * dt;
    });
}

// A lake at rest with a uniform current (h = 1, hu = a, hv = b everywhere):
// the fluxes are the same in every cell, so one flux-difference step leaves
// the interior unchanged: a closed form for the stencil. The borders are
// marked invalid.
template <class V>
void flux_step(const V& in, const V& out, double cx, double cy) {
  using Exec = typename V::execution_space;
  const std::size_t nx = in.extent(0), ny = in.extent(1);
  tessera::parallel_for("flux difference", tessera::RangePolicy<Exec>(0, nx * ny), TESSERA_LAMBDA(std::size_t k) {
    const std::size_t i = k / ny, j = k % ny;
    auto o = out(i, j);
    if (i == 0 || j == 0 || i + 1 == nx || j + 1 == ny) {
      o = in(i, j);  // a whole element, across proxies
      o.valid() = false;
      return;
    }
    auto fx = [](const auto& s, int c) {
      const double h = s.u()[0], hu = s.u()[1], hv = s.u()[2];
      return c == 0 ? hu : (c == 1 ? hu * hu / h + 4.905 * h * h : hu * hv / h);
    };
    auto fy = [](const auto& s, int c) {
      const double h = s.u()[0], hu = s.u()[1], hv = s.u()[2];
      return c == 0 ? hv : (c == 1 ? hu * hv / h : hv * hv / h + 4.905 * h * h);
    };
    for (int c = 0; c < 3; ++c)
      o.u()[c] = in(i, j).u()[c] - cx * (fx(in(i + 1, j), c) - fx(in(i - 1, j), c)) -
                 cy * (fy(in(i, j + 1), c) - fy(in(i, j - 1), c));
    o.valid() = in(i, j).valid() && o.u()[0] > 0.0;
  });
}

template <class Layout, class Space>
int check_layout(const char* layout) {
  int failures = 0;
  // Particles: x(t) = x0 + v t exactly (dt a power of two, small integers).
  const std::size_t n = 10000;
  const int steps = 64;
  const double dt = 1.0 / 64;
  tessera::View<Particle*, Layout, Space> p("particles", n);
  auto hp = tessera::create_mirror_view(p);
  for (std::size_t i = 0; i < n; ++i) {
    Particle q{};
    q.x = double(i), q.y = 0.0, q.z = -double(i);
    q.vx = 1.0, q.vy = double(i % 5), q.vz = 2.0;
    q.mass = 1.5f;
    hp(i) = q;  // a whole element in
  }
  tessera::deep_copy(p, hp);
  push(p, dt, steps);
  tessera::deep_copy(hp, p);
  for (std::size_t i = 0; i < n; ++i) {
    const Particle q = hp(i);  // a whole element out
    if (q.x != double(i) + 1.0 || q.y != double(i % 5) || q.z != 2.0 - double(i) || q.mass != 1.5f) {
      if (failures++ < 5) std::printf("FAIL %s particle %zu: (%g, %g, %g)\n", layout, i, q.x, q.y, q.z);
    }
  }

  // Shallow water at rest with a uniform current: the interior is unchanged.
  const std::size_t nx = 64, ny = 48;
  tessera::View<Water**, Layout, Space> u("u", nx, ny), next("next", nx, ny);
  Water rest{};
  rest.u[0] = 1.0, rest.u[1] = 0.25, rest.u[2] = -0.5;
  rest.valid = true;
  tessera::deep_copy(u, rest);  // fill
  flux_step(u, next, 0.1, 0.2);
  auto hn = tessera::create_mirror_view_and_copy(tessera::HostSpace(), next);
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < ny; ++j) {
      const Water s = hn(i, j);
      const bool border = i == 0 || j == 0 || i + 1 == nx || j + 1 == ny;
      if (s.valid == border || s.u[0] != 1.0 || s.u[1] != 0.25 || s.u[2] != -0.5) {
        if (failures++ < 5) std::printf("FAIL %s cell (%zu, %zu): h = %g valid = %d\n", layout, i, j, s.u[0], s.valid);
      }
    }
  std::printf("%-8s %s: %zu particles x %d steps, %zu x %zu shallow-water step -> %s\n", Space::name(), layout, n,
              steps, nx, ny, failures == 0 ? "pass" : "FAIL");
  return failures;
}

template <class Space>
int check_space() {
  return check_layout<tessera::LayoutAoS, Space>("LayoutAoS") + check_layout<tessera::LayoutSoA, Space>("LayoutSoA");
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  int failures = check_space<tessera::Serial>();
#if TESSERA_ENABLE_THREADS
  failures += check_space<tessera::Threads>();
#endif
#if TESSERA_ENABLE_OPENMP
  failures += check_space<tessera::OpenMP>();
#endif
#if TESSERA_ENABLE_CUDA
  if (tessera::Cuda::impl_is_available()) failures += check_space<tessera::Cuda>();
  else std::printf("Cuda: not run here (%s)\n", tessera::Cuda::impl_unavailable_reason().c_str());
#endif
  return failures == 0 ? 0 : 1;
}
