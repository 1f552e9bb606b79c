#pragma once
// Model problems: finite-difference Laplacians with Dirichlet boundaries,
// symmetric positive definite, and a spec parser shared by the CLI, the
// benchmark and the tests.
//
//   laplacian_2d<double>(1000)        5-point, 1000^2 unknowns (diagonal 4, neighbours -1)
//   laplacian_3d<double>(60)          7-point, 60^3 unknowns   (diagonal 6)
//   laplacian_3d_27pt<double>(30)     27-point, 30^3 unknowns  (diagonal 26, all 26 neighbours -1)
//   make_matrix<double>("lap3d:60")   also "lap2d:N", "lap3d27:N" or a Matrix Market path
// Unknown (x, y, z) is row x + nx * (y + nx * z).
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/matrix_io.hpp>

#include <charconv>
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

// "lap2d:N", "lap3d:N", "lap3d27:N", or a Matrix Market file.
template <class T>
CrsMatrix<T> make_matrix(const std::string& spec, const ReadOptions& opts = {}) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (colon != std::string::npos && (kind == "lap2d" || kind == "lap3d" || kind == "lap3d27")) {
    const std::string arg = spec.substr(colon + 1);
    std::int64_t nx = 0;
    const auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), nx);
    if (ec != std::errc() || p != arg.data() + arg.size() || nx < 1)
      throw sparse_error("matrix spec '" + spec + "': the grid size must be a positive integer, got '" + arg + "'");
    if (kind == "lap2d") return laplacian_2d<T>(nx);
    if (kind == "lap3d") return laplacian_3d<T>(nx);
    return laplacian_3d_27pt<T>(nx);
  }
  return read_matrix_market<T>(spec, opts);
}

}  // namespace tessera::sparse
