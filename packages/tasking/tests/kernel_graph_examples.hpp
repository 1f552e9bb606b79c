#pragma once
// The four examples of the partitioned kernel graph, shared by the tests
// (test_kernel_graph.cpp: results for 1, 2 and 4 partitions against plain
// single-View loops) and the benchmark (bench_kernel_graph.cpp: the same
// kernels as parallel_for with a fence between steps):
//
//   SAXPY            y = a x + y, repeated
//   particles        particles in 3-D around a central mass: v += a(x) dt,
//                    x += v dt (three coordinate Views of rank 1)
//   finite volume    2-D Burgers' equation, Rusanov fluxes: each cell's
//                    flux difference reads its four neighbours (halo 1)
//   eikonal          |grad T| f = 1 by the fast iterative method: Godunov
//                    updates of the active cells (those whose neighbourhood
//                    changed) until no value changes, a conditional
//                    sub-graph
//
// The per-cell arithmetic is in the *_cell functions, used by every
// formulation; what the tests check is the partitioning, the halo exchange
// and the graph's ordering around it, which must give the same bits.
#include <tessera/tasking.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace tessera::examples {

// ---- SAXPY ----
inline double saxpy_cell(double a, double x, double y) { return a * x + y; }

// ---- particles ----
struct ParticleParams {
  double dt = 1e-3, mass = 1.0, softening = 0.05;
};
// One step of particle i (semi-implicit Euler): the acceleration towards the
// origin from the current position, then velocity, then position.
inline void particle_cell(const ParticleParams& q, double& x, double& y, double& z, double& vx, double& vy,
                          double& vz) {
  const double r2 = x * x + y * y + z * z + q.softening * q.softening;
  const double inv_r3 = q.mass / (r2 * std::sqrt(r2));
  vx -= x * inv_r3 * q.dt;
  vy -= y * inv_r3 * q.dt;
  vz -= z * inv_r3 * q.dt;
  x += vx * q.dt;
  y += vy * q.dt;
  z += vz * q.dt;
}
inline void particle_initial(std::int64_t i, double& x, double& y, double& z, double& vx, double& vy, double& vz) {
  const double t = 0.37 * double(i);
  x = std::cos(t) * (1.0 + 0.001 * double(i % 97));
  y = std::sin(t) * (1.0 + 0.002 * double(i % 89));
  z = 0.1 * std::sin(3.0 * t);
  vx = -0.8 * std::sin(t);
  vy = 0.8 * std::cos(t);
  vz = 0.05 * std::cos(t);
}

// ---- finite volume: 2-D Burgers, u_t + (u^2/2)_x + (u^2/2)_y = 0 ----
inline double rusanov_flux(double l, double r) {
  const double speed = std::fmax(std::fabs(l), std::fabs(r));
  return 0.25 * (l * l + r * r) - 0.5 * speed * (r - l);
}
// The new value of a cell from its own and its four neighbours' values (the
// flux difference); `lambda` is dt / h.
inline double fv_cell(double lambda, double c, double west, double east, double south, double north) {
  return c - lambda * (rusanov_flux(c, east) - rusanov_flux(west, c)) -
         lambda * (rusanov_flux(c, north) - rusanov_flux(south, c));
}
inline double fv_initial(std::int64_t i, std::int64_t j, std::int64_t n0, std::int64_t n1) {
  const double x = (double(i) + 0.5) / double(n0), y = (double(j) + 0.5) / double(n1);
  return std::exp(-40.0 * ((x - 0.4) * (x - 0.4) + (y - 0.5) * (y - 0.5))) + 0.2 * std::sin(6.0 * x);
}

// ---- eikonal: Godunov upwind update on a grid of spacing h ----
// "Far": the value of cells not reached yet, and of the halo outside the
// domain (never upwind of anything).
inline constexpr double eikonal_far = 1e300;
inline double eikonal_speed(std::int64_t i, std::int64_t j) {
  return 1.0 + 0.5 * std::sin(0.3 * double(i)) * std::cos(0.2 * double(j));
}
// The solution of the local quadratic from the smaller neighbour values a
// (along i) and b (along j), never above the current value t.
inline double eikonal_cell(double t, double a, double b, double h_over_f) {
  if (a >= eikonal_far && b >= eikonal_far) return t;
  double u;
  if (std::fabs(a - b) >= h_over_f) u = std::fmin(a, b) + h_over_f;
  else u = 0.5 * (a + b + std::sqrt(2.0 * h_over_f * h_over_f - (a - b) * (a - b)));
  return std::fmin(t, u);
}

}  // namespace tessera::examples

// ---- the examples as levels of a KernelGraph ----
namespace tessera::examples {

// y = a x + y on every partition, as the next level.
template <class Graph, class PV>
void then_saxpy(Graph& g, double a, const PV& x, const PV& y) {
  g.then_split([=](typename Graph::member_type& m, int p, const Box<1>& cells) {
    const auto xv = x.view(p);
    const auto yv = y.view(p);
    const std::int64_t o = x.origin(p)[0];
    for_each_cell(m, cells, [&](std::int64_t i) { yv(i - o) = saxpy_cell(a, xv(i - o), yv(i - o)); });
  });
}

// The six coordinate Views of the particles (each a PartitionedView of rank 1).
template <class PV>
struct Particles {
  PV x, y, z, vx, vy, vz;
};
template <class Graph, class PV>
void then_particle_step(Graph& g, const ParticleParams& q, const Particles<PV>& s) {
  g.then_split([=](typename Graph::member_type& m, int p, const Box<1>& cells) {
    const auto x = s.x.view(p), y = s.y.view(p), z = s.z.view(p);
    const auto vx = s.vx.view(p), vy = s.vy.view(p), vz = s.vz.view(p);
    const std::int64_t o = s.x.origin(p)[0];
    for_each_cell(m, cells, [&](std::int64_t i) {
      const std::int64_t k = i - o;
      particle_cell(q, x(k), y(k), z(k), vx(k), vy(k), vz(k));
    });
  });
}

// One finite-volume step from `from` into `to` (both with a halo of 1): the
// flux differences read the halo, so transfers overlap the interior.
template <class Graph, class PV>
void then_fv_step(Graph& g, double lambda, const PV& from, const PV& to) {
  g.then_split(
      [=](typename Graph::member_type& m, int p, const Box<2>& cells) {
        const auto u = from.view(p);
        const auto un = to.view(p);
        const auto o = from.origin(p);
        for_each_cell(m, cells, [&](std::int64_t i, std::int64_t j) {
          const std::int64_t a = i - o[0], b = j - o[1];
          un(a, b) = fv_cell(lambda, u(a, b), u(a - 1, b), u(a + 1, b), u(a, b - 1), u(a, b + 1));
        });
      },
      halo_read(from));
}

// One pass of the fast iterative method: the active cells (a change in
// their neighbourhood last pass, flags `changed` with a halo) get a Godunov
// update from `t` into `tn`; then per partition, as soon as it is done, the
// new values are committed, the flags set and counted; one node adds the
// counts into *changed_total.
template <class Graph, class PVD, class PVI>
void then_eikonal_pass(Graph& g, double h, const PVD& t, const PVD& tn, const PVI& changed,
                       std::int64_t* changed_total) {
  g.then_split(
      [=](typename Graph::member_type& m, int p, const Box<2>& cells) {
        const auto tv = t.view(p);
        const auto tnv = tn.view(p);
        const auto c = changed.view(p);
        const auto o = t.origin(p);
        for_each_cell(m, cells, [&](std::int64_t i, std::int64_t j) {
          const std::int64_t a = i - o[0], b = j - o[1];
          const bool active = c(a, b) | c(a - 1, b) | c(a + 1, b) | c(a, b - 1) | c(a, b + 1);
          tnv(a, b) = active ? eikonal_cell(tv(a, b), std::fmin(tv(a - 1, b), tv(a + 1, b)),
                                            std::fmin(tv(a, b - 1), tv(a, b + 1)), h / eikonal_speed(i, j))
                             : tv(a, b);
        });
      },
      halo_read(t), halo_read(changed));
  g.then_reduce(
      [=](typename Graph::member_type& m, int p, const Box<2>& cells) {
        const auto tv = t.view(p);
        const auto tnv = tn.view(p);
        const auto c = changed.view(p);
        const auto o = t.origin(p);
        std::int64_t count = 0;
        parallel_reduce(
            TeamThreadRange(m, cells.lo[0], cells.hi[0]),
            [&](std::int64_t i, std::int64_t& n) {
              for (std::int64_t j = cells.lo[1]; j < cells.hi[1]; ++j) {
                const std::int64_t a = i - o[0], b = j - o[1];
                const int moved = tnv(a, b) != tv(a, b) ? 1 : 0;
                c(a, b) = moved;
                tv(a, b) = tnv(a, b);
                n += moved;
              }
            },
            count);
        return count;
      },
      [changed_total](const std::vector<std::int64_t>& counts) {
        std::int64_t s = 0;
        for (auto n : counts) s += n;
        *changed_total = s;
      });
}

}  // namespace tessera::examples
