#pragma once
// Model problems: finite-difference Laplacians with Dirichlet boundaries,
// symmetric positive definite; symmetric indefinite ones for LDL^T; and a
// spec parser shared by the CLI, the benchmark and the tests.
//
//   laplacian_2d<double>(1000)        5-point, 1000^2 unknowns (diagonal 4, neighbours -1)
//   laplacian_3d<double>(60)          7-point, 60^3 unknowns   (diagonal 6)
//   laplacian_3d_27pt<double>(30)     27-point, 30^3 unknowns  (diagonal 26, all 26 neighbours -1)
//   stokes_2d<double>(64, 1e-12)      [K B^T; B -delta I], Stokes-like saddle point
//   kkt_random<double>(60, 900, 1)    [H B^T; B 0], an optimization KKT system with a random sparse B
//   indefinite_grid_3d<double>(20)    7-point grid, off-diagonals -1, diagonal +-1e-6
//   magnetic_laplacian_2d(64, 0.1, 0.5)   complex Hermitian: 5-point magnetic Laplacian + shift I
//   make_matrix<double>("lap3d:60")   also "lap2d:N", "lap3d27:N", "stokes:N[:delta]",
//                                     "kkt:N:M[:seed]", "indef3d:N[:delta]" or a Matrix Market path;
//   make_matrix<std::complex<double>>("maglap:64:0.1:-2")   "maglap:N:flux[:shift[:gauge]]"
//                                     (complex only; every other spec reads as complex too)
// Unknown (x, y, z) is row x + nx * (y + nx * z).
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/matrix_io.hpp>

#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tessera::sparse {

namespace detail {
// Row `row` of the stencil Laplacian on the nx^dims grid (dims 2 or 3;
// full_box: the 27-point stencil): f(column, value)
// for each off-diagonal entry inside the grid, then for the diagonal, whose
// weight counts every stencil neighbour, inside or not (Dirichlet). Shared by
// the node-level generator and the distributed one (each rank its rows).
template <class T, class F>
void for_each_stencil_entry(std::int64_t row, std::int64_t nx, int dims, bool full_box, F&& f) {
  const std::int64_t ny = dims >= 2 ? nx : 1, nz = dims >= 3 ? nx : 1;
  const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / (nx * ny);
  const int reach_y = dims >= 2 ? 1 : 0, reach_z = dims >= 3 ? 1 : 0;
  int neighbours = 0;
  for (int dz = -reach_z; dz <= reach_z; ++dz)
    for (int dy = -reach_y; dy <= reach_y; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
        if (manhattan == 0 || (!full_box && manhattan != 1)) continue;
        ++neighbours;
        const std::int64_t X = x + dx, Y = y + dy, Z = z + dz;
        if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz) continue;
        f(X + nx * (Y + ny * Z), T(-1));
      }
  f(row, T(neighbours));
}

template <class T>
CrsMatrix<T> stencil_laplacian(std::int64_t nx, int dims, bool full_box, const std::string& origin) {
  if (nx < 1) throw sparse_error(origin + ": the grid size must be at least 1");
  const std::int64_t ny = dims >= 2 ? nx : 1, nz = dims >= 3 ? nx : 1;
  const std::int64_t n = nx * ny * nz;
  if (n > std::int64_t(std::numeric_limits<std::int32_t>::max()))
    throw sparse_error(origin + ": " + std::to_string(n) + " unknowns do not fit 32-bit column indices");
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  const std::size_t per_row = full_box ? 27 : std::size_t(2 * dims + 1);
  r.reserve(std::size_t(n) * per_row);
  c.reserve(std::size_t(n) * per_row);
  v.reserve(std::size_t(n) * per_row);
  for (std::int64_t row = 0; row < n; ++row)
    for_each_stencil_entry<T>(row, nx, dims, full_box, [&](std::int64_t col, T value) {
      r.push_back(row);
      c.push_back(col);
      v.push_back(value);
    });
  return CrsMatrix<T>::from_triplets(n, r, c, v, Storage::Full, origin);
}
}  // namespace detail

template <class T>
CrsMatrix<T> laplacian_2d(std::int64_t nx) {
  return detail::stencil_laplacian<T>(nx, 2, false, "lap2d:" + std::to_string(nx));
}
template <class T>
CrsMatrix<T> laplacian_3d(std::int64_t nx) {
  return detail::stencil_laplacian<T>(nx, 3, false, "lap3d:" + std::to_string(nx));
}
template <class T>
CrsMatrix<T> laplacian_3d_27pt(std::int64_t nx) {
  return detail::stencil_laplacian<T>(nx, 3, true, "lap3d27:" + std::to_string(nx));
}

namespace detail {
// Reproducible on every standard library: splitmix64 (Steele, Lea and
// Flood), not <random>'s distributions, whose algorithms are unspecified.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::int64_t below(std::int64_t n) { return std::int64_t(next() % std::uint64_t(n)); }
};

inline std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// The lower triangle of an nx^2 grid Laplacian (5-point), rows offset by `at`.
template <class T>
void add_laplacian_2d_lower(std::int64_t nx, std::int64_t at, std::vector<std::int64_t>& r, std::vector<std::int64_t>& c,
                            std::vector<T>& v) {
  for (std::int64_t row = 0; row < nx * nx; ++row)
    for_each_stencil_entry<T>(row, nx, 2, false, [&](std::int64_t col, T value) {
      if (col > row) return;
      r.push_back(at + row);
      c.push_back(at + col);
      v.push_back(value);
    });
}
}  // namespace detail

// A Stokes-like saddle point [K B^T; B -delta I]: K = diag(L, L) with L the
// 5-point Laplacian of the nx^2 grid (velocities u, v at the nodes), B the
// forward-difference divergence on the (nx - 1)^2 cells,
//   (B w)(i, j) = u(i + 1, j) - u(i, j) + v(i, j + 1) - v(i, j),
// and a pressure block -delta I (delta = 0: no diagonal entries at all).
// B has full row rank (B^T p = 0 forces p = 0 cell by cell from the edge),
// so for delta >= 0 the inertia is (2 nx^2 positive, (nx - 1)^2 negative, 0).
// Rows: u, then v, then p; within each block x + nx * y.
template <class T>
CrsMatrix<T> stokes_2d(std::int64_t nx, double delta = 0) {
  const std::string origin = "stokes:" + std::to_string(nx) + (delta != 0 ? ":" + detail::number_text(delta) : "");
  if (nx < 2) throw sparse_error(origin + ": the grid size must be at least 2");
  const std::int64_t nv = nx * nx, np = (nx - 1) * (nx - 1), n = 2 * nv + np;
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  detail::add_laplacian_2d_lower<T>(nx, 0, r, c, v);
  detail::add_laplacian_2d_lower<T>(nx, nv, r, c, v);
  for (std::int64_t j = 0; j + 1 < nx; ++j)
    for (std::int64_t i = 0; i + 1 < nx; ++i) {
      const std::int64_t row = 2 * nv + i + (nx - 1) * j;
      const std::int64_t cols[4] = {i + 1 + nx * j, i + nx * j, nv + i + nx * (j + 1), nv + i + nx * j};
      const T vals[4] = {T(1), T(-1), T(1), T(-1)};
      for (int k = 0; k < 4; ++k) r.push_back(row), c.push_back(cols[k]), v.push_back(vals[k]);
      if (delta != 0) r.push_back(row), c.push_back(row), v.push_back(T(-delta));
    }
  return CrsMatrix<T>::from_triplets(n, r, c, v, Storage::Lower, origin);
}

// An optimization KKT system [H B^T; B 0]: H the 5-point Laplacian of the
// nx^2 grid (a convex quadratic objective), B an m x nx^2 random sparse
// constraint matrix, three entries per row in random columns with values
// +-[0.5, 1) (seeded, the same on every platform); no diagonal in the
// constraint block. With B of full row rank (a few random columns per row,
// m well below nx^2: almost surely) the inertia is (nx^2, m, 0).
template <class T>
CrsMatrix<T> kkt_random(std::int64_t nx, std::int64_t m, std::uint64_t seed = 1) {
  const std::string origin = "kkt:" + std::to_string(nx) + ":" + std::to_string(m) + ":" + std::to_string(seed);
  const std::int64_t nv = nx * nx;
  if (nx < 2 || m < 1 || m > nv / 2) throw sparse_error(origin + ": needs nx >= 2 and 1 <= m <= nx^2 / 2");
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  detail::add_laplacian_2d_lower<T>(nx, 0, r, c, v);
  detail::SplitMix64 g{seed};
  for (std::int64_t k = 0; k < m; ++k) {
    std::int64_t cols[3];
    for (int e = 0; e < 3; ++e) {
      bool fresh = false;
      while (!fresh) {
        cols[e] = g.below(nv);
        fresh = true;
        for (int f = 0; f < e; ++f) fresh = fresh && cols[f] != cols[e];
      }
      const double mag = 0.5 + 0.5 * g.uniform();
      r.push_back(nv + k);
      c.push_back(cols[e]);
      v.push_back(T(g.next() & 1 ? mag : -mag));
    }
  }
  return CrsMatrix<T>::from_triplets(nv + m, r, c, v, Storage::Lower, origin);
}

// The 7-point nx^3 grid with off-diagonals -1 and a diagonal 1/delta times
// smaller, +-delta with random signs (seeded): symmetric indefinite, about
// half of its eigenvalues of each sign, and no 1x1 pivot passes a
// threshold test until the elimination has built up the diagonal.
template <class T>
CrsMatrix<T> indefinite_grid_3d(std::int64_t nx, double delta = 1e-6, std::uint64_t seed = 1) {
  const std::string origin = "indef3d:" + std::to_string(nx) + ":" + detail::number_text(delta);
  if (nx < 1) throw sparse_error(origin + ": the grid size must be at least 1");
  const std::int64_t n = nx * nx * nx;
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  detail::SplitMix64 g{seed};
  for (std::int64_t row = 0; row < n; ++row)
    detail::for_each_stencil_entry<T>(row, nx, 3, false, [&](std::int64_t col, T value) {
      if (col > row) return;
      r.push_back(row);
      c.push_back(col);
      v.push_back(col == row ? T(g.next() & 1 ? delta : -delta) : value);
    });
  return CrsMatrix<T>::from_triplets(n, r, c, v, Storage::Lower, origin);
}

// The discrete magnetic Laplacian of the nx^2 grid plus a shift:
//     A = 4 I - T + shift I,   T(p, q) = e^{i theta_pq} for grid neighbours p, q,
// a charged particle hopping on the grid in a uniform magnetic field
// (Dirichlet boundary: the diagonal counts all four neighbours). The field
// is `flux` flux quanta per grid cell, in the Landau gauge: a hop up (from
// (x, y) to (x, y + 1)) has theta = 2 pi flux x, a hop sideways theta = 0,
// so that the phases around every cell add up to 2 pi flux; theta_qp =
// -theta_pq makes A Hermitian. Without a field (flux 0) A is the real 2-D
// Laplacian, whose eigenvalues are known in closed form,
//     4 - 2 cos(j pi / (nx + 1)) - 2 cos(k pi / (nx + 1)) + shift,  j, k = 1..nx,
// and a field keeps them inside (0, 8) + shift (the spectral radius of T
// is at most that of its entrywise moduli, the real grid's adjacency, below
// 4; the lower edge only rises with the field: diamagnetism).
// Hence: shift >= 0 gives a Hermitian positive definite matrix; a shift in
// (-8, 0) lands inside the spectrum: indefinite.
// gauge_seed != 0 applies a random gauge transformation, A := G^H A G with
// G = diag(e^{i phi_p}) (phases seeded, the same on every platform): a
// unitary similarity, so the eigenvalues (and, at flux 0, the closed form)
// are unchanged while every off-diagonal entry becomes complex.
// Unknown (x, y) is row x + nx * y.
inline CrsMatrix<std::complex<double>> magnetic_laplacian_2d(std::int64_t nx, double flux, double shift = 0,
                                                             std::uint64_t gauge_seed = 0) {
  using C = std::complex<double>;
  const std::string origin = "maglap:" + std::to_string(nx) + ":" + detail::number_text(flux) + ":" +
                             detail::number_text(shift) + (gauge_seed ? ":" + std::to_string(gauge_seed) : "");
  if (nx < 1) throw sparse_error(origin + ": the grid size must be at least 1");
  if (!std::isfinite(flux) || !std::isfinite(shift)) throw sparse_error(origin + ": flux and shift must be finite");
  const std::int64_t n = nx * nx;
  if (n > std::int64_t(std::numeric_limits<std::int32_t>::max()))
    throw sparse_error(origin + ": " + std::to_string(n) + " unknowns do not fit 32-bit column indices");
  const double two_pi = 2.0 * std::acos(-1.0);
  std::vector<double> phase(std::size_t(n), 0.0);
  if (gauge_seed != 0) {
    detail::SplitMix64 g{gauge_seed};
    for (double& p : phase) p = two_pi * g.uniform();
  }
  // A(p, q) for p > q (the lower triangle; from_triplets mirrors conjugates).
  auto hop = [&](std::int64_t p, std::int64_t q, double theta) {
    return -std::polar(1.0, theta - phase[std::size_t(p)] + phase[std::size_t(q)]);
  };
  std::vector<std::int64_t> r, c;
  std::vector<C> v;
  r.reserve(std::size_t(3 * n));
  c.reserve(std::size_t(3 * n));
  v.reserve(std::size_t(3 * n));
  for (std::int64_t y = 0; y < nx; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const std::int64_t p = x + nx * y;
      if (x > 0) r.push_back(p), c.push_back(p - 1), v.push_back(hop(p, p - 1, 0.0));
      if (y > 0) r.push_back(p), c.push_back(p - nx), v.push_back(hop(p, p - nx, two_pi * flux * double(x)));
      r.push_back(p), c.push_back(p), v.push_back(C(4.0 + shift));
    }
  return CrsMatrix<C>::from_triplets(n, r, c, v, Storage::Lower, origin);
}

// "lap2d:N", "lap3d:N", "lap3d27:N", "stokes:N[:delta]", "kkt:N:M[:seed]",
// "indef3d:N[:delta]", "maglap:N:flux[:shift[:gauge_seed]]" (complex T
// only), or a Matrix Market file.
template <class T>
CrsMatrix<T> make_matrix(const std::string& spec, const ReadOptions& opts = {}) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  auto fields = [&] {
    std::vector<std::string> f;
    for (std::size_t at = colon; at != std::string::npos;) {
      const std::size_t next = spec.find(':', at + 1);
      f.push_back(spec.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
      at = next;
    }
    return f;
  };
  auto integer = [&](const std::string& arg, const char* what) {
    std::int64_t x = 0;
    const auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), x);
    if (ec != std::errc() || p != arg.data() + arg.size() || x < 1)
      throw sparse_error("matrix spec '" + spec + "': " + what + " must be a positive integer, got '" + arg + "'");
    return x;
  };
  auto real = [&](const std::string& arg) {
    char* end = nullptr;
    const double x = std::strtod(arg.c_str(), &end);
    if (arg.empty() || *end != '\0' || !(x >= 0))
      throw sparse_error("matrix spec '" + spec + "': expected a number >= 0, got '" + arg + "'");
    return x;
  };
  if (colon != std::string::npos && (kind == "lap2d" || kind == "lap3d" || kind == "lap3d27")) {
    const std::int64_t nx = integer(spec.substr(colon + 1), "the grid size");
    if (kind == "lap2d") return laplacian_2d<T>(nx);
    if (kind == "lap3d") return laplacian_3d<T>(nx);
    return laplacian_3d_27pt<T>(nx);
  }
  if (colon != std::string::npos && (kind == "stokes" || kind == "indef3d")) {
    const auto f = fields();
    if (f.size() > 2) throw sparse_error("matrix spec '" + spec + "': expected " + kind + ":N[:delta]");
    const std::int64_t nx = integer(f[0], "the grid size");
    if (kind == "stokes") return stokes_2d<T>(nx, f.size() > 1 ? real(f[1]) : 0.0);
    return indefinite_grid_3d<T>(nx, f.size() > 1 ? real(f[1]) : 1e-6);
  }
  if (colon != std::string::npos && kind == "maglap") {
    const auto f = fields();
    if (f.size() < 2 || f.size() > 4) throw sparse_error("matrix spec '" + spec + "': expected maglap:N:flux[:shift[:gauge_seed]]");
    auto signed_real = [&](const std::string& arg) {
      char* end = nullptr;
      const double x = std::strtod(arg.c_str(), &end);
      if (arg.empty() || *end != '\0' || !std::isfinite(x))
        throw sparse_error("matrix spec '" + spec + "': expected a number, got '" + arg + "'");
      return x;
    };
    if constexpr (detail::is_complex_v<T>) {
      return magnetic_laplacian_2d(integer(f[0], "the grid size"), signed_real(f[1]),
                                   f.size() > 2 ? signed_real(f[2]) : 0.0,
                                   f.size() > 3 ? std::uint64_t(integer(f[3], "the gauge seed")) : 0);
    } else {
      throw sparse_error("matrix spec '" + spec + "': the magnetic Laplacian is complex Hermitian: make it as "
                         "std::complex<double> (tessera-solve: --complex)");
    }
  }
  if (colon != std::string::npos && kind == "kkt") {
    const auto f = fields();
    if (f.size() < 2 || f.size() > 3) throw sparse_error("matrix spec '" + spec + "': expected kkt:N:M[:seed]");
    return kkt_random<T>(integer(f[0], "the grid size"), integer(f[1], "the number of constraints"),
                         f.size() > 2 ? std::uint64_t(integer(f[2], "the seed")) : 1);
  }
  return read_matrix_market<T>(spec, opts);
}

}  // namespace tessera::sparse
