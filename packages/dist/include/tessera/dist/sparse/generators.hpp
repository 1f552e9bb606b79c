#pragma once
// Distributed matrices from a spec, as the node-level make_matrix reads them:
//
//   make_dist_matrix<double>(comm, "lap3d:60")   each rank generates its own rows
//   make_dist_matrix<double>(comm, "lap2d:N"), "lap3d27:N"
//   make_dist_matrix<double>(comm, "file.mtx")   rank 0 reads, then scatters
//
// The generated Laplacians are the node-level ones (tessera::sparse::
// laplacian_2d/3d/3d_27pt: unknown (x, y, z) is row x + N (y + N z),
// diagonal = the stencil's neighbour count, -1 for each neighbour inside the
// grid), row for row; every rank computes the nonzero-balanced partition
// from the closed-form row lengths and generates only its rows, so no rank
// ever holds the whole matrix. A Matrix Market file is read whole by rank 0
// (the node-level reader, with its file:line errors agreed on every rank)
// and its rows scattered: rank 0 needs the memory of the whole matrix.
#include <tessera/dist/sparse/dist_crs_matrix.hpp>
#include <tessera/sparse/generators.hpp>

#include <charconv>
#include <cstdlib>
#include <string>

namespace tessera::dist {

// The stencil Laplacian of the node-level generators, rows [first, last)
// only, on the nonzero-balanced partition. dims = 2 or 3; full_box = the
// 27-point stencil.
template <class T>
DistCrsMatrix<T> distributed_stencil_laplacian(const Comm& comm, std::int64_t nx, int dims, bool full_box,
                                               const std::string& origin) {
  const std::int64_t ny = dims >= 2 ? nx : 1, nz = dims >= 3 ? nx : 1;
  const std::int64_t n = nx * ny * nz;
  // Row lengths in closed form: 1 + the neighbours inside the grid (the
  // number of in-range offsets per axis multiply for the full box).
  auto in_range = [](std::int64_t c, std::int64_t extent) { return std::int64_t(1 + (c > 0) + (c + 1 < extent)); };
  auto row_length = [&](std::int64_t row) -> std::int64_t {
    const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / (nx * ny);
    const std::int64_t ax = in_range(x, nx), ay = dims >= 2 ? in_range(y, ny) : 1, az = dims >= 3 ? in_range(z, nz) : 1;
    return full_box ? ax * ay * az : 1 + (ax - 1) + (ay - 1) + (az - 1);
  };
  std::vector<std::int64_t> prefix(std::size_t(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) prefix[std::size_t(i) + 1] = prefix[std::size_t(i)] + row_length(i);
  const Partition rows = Partition::balanced(prefix, comm.size());
  const std::int64_t first = rows.begin(comm.rank()), last = rows.end(comm.rank());
  std::vector<std::int64_t> row_map{0}, cols;
  std::vector<T> vals;
  cols.reserve(std::size_t(prefix[std::size_t(last)] - prefix[std::size_t(first)]));
  vals.reserve(cols.capacity());
  for (std::int64_t i = first; i < last; ++i) {
    sparse::detail::for_each_stencil_entry<T>(i, nx, dims, full_box, [&](std::int64_t j, T v) {
      cols.push_back(j);
      vals.push_back(v);
    });
    row_map.push_back(std::int64_t(cols.size()));
  }
  return DistCrsMatrix<T>::from_local_rows(comm, rows, std::move(row_map), std::move(cols), std::move(vals), origin);
}

// "lap2d:N", "lap3d:N", "lap3d27:N" (generated per rank) or a Matrix Market
// file (read by rank 0 and scattered). Collective; a bad spec or file is a
// dist_error on every rank with the node-level reader's message.
template <class T>
DistCrsMatrix<T> make_dist_matrix(const Comm& comm, const std::string& spec, const sparse::ReadOptions& opts = {}) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (colon != std::string::npos && (kind == "lap2d" || kind == "lap3d" || kind == "lap3d27")) {
    const std::string arg = spec.substr(colon + 1);
    std::int64_t nx = 0;
    // A named result, not a structured binding: Clang 14 cannot capture
    // structured bindings in a lambda.
    const std::from_chars_result parsed = std::from_chars(arg.data(), arg.data() + arg.size(), nx);
    const int dims = kind == "lap2d" ? 2 : 3;
    comm.agreed([&] {
      if (parsed.ec != std::errc() || parsed.ptr != arg.data() + arg.size() || nx < 1)
        throw dist_error("matrix spec '" + spec + "': the grid size must be a positive integer, got '" + arg + "'");
      std::int64_t n = 1;
      for (int d = 0; d < dims; ++d) n *= nx;
      if (nx > 2000000 || n > std::int64_t(std::numeric_limits<std::int32_t>::max()))
        throw dist_error("matrix spec '" + spec + "': too many unknowns for 32-bit column indices");
    });
    return distributed_stencil_laplacian<T>(comm, nx, dims, kind == "lap3d27", spec);
  }
  sparse::CrsMatrix<T> A;
  comm.agreed([&] {
    if (comm.rank() == 0) A = sparse::read_matrix_market<T>(spec, opts);
  });
  return DistCrsMatrix<T>::scatter(comm, comm.rank() == 0 ? &A : nullptr);
}

}  // namespace tessera::dist
