#pragma once
// Shared helpers of the distributed-solve tests (test_solve*.cpp): the host
// back-ends the solvers run on, the repository's matrices, and gathering a
// distributed vector to compare it with the node-level packages.
#include "tessera_test_spaces.hpp"

#include <gtest/gtest.h>
#include <tessera/core.hpp>
#include <tessera/dist.hpp>
#include <tessera/dist/sparse.hpp>
#include <tessera/sparse.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace solve_test {

namespace td = tessera::dist;
namespace ts = tessera::sparse;

// The dist solvers run on host spaces only (as the node-level ones).
using HostSpaces = tessera::test::HostExecutionSpaces;
using tessera::test::SpaceNames;

inline std::string data_file(const std::string& relative) {
  const std::string path = std::string(TESSERA_DATA_DIR) + "/" + relative;
  if (!std::filesystem::exists(path)) ADD_FAILURE() << "test data file missing: " << path;
  return path;
}

// The SPD matrices of examples/data/matrices (pattern files become L + I).
inline std::vector<std::string> spd_matrices() {
  return {"matrices/LFAT5.mtx", "matrices/494_bus.mtx", "matrices/bcsstk13.mtx", "matrices/can___24.mtx",
          "matrices/dwt_992.mtx"};
}

// The whole vector from every rank's owned part, in global order.
inline std::vector<double> gather(const td::Comm& comm, const std::vector<double>& mine) {
  return comm.allgatherv(mine);
}

// This rank's part of a global vector.
inline std::vector<double> owned_part(const td::Partition& p, int rank, const std::vector<double>& global) {
  return std::vector<double>(global.begin() + p.begin(rank), global.begin() + p.end(rank));
}

// A vector with no structure a bug could hide behind: x_i = sin(i + 1) + 0.5.
inline std::vector<double> test_vector(std::int64_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[std::size_t(i)] = std::sin(double(i + 1)) + 0.5;
  return x;
}

// Normwise backward error ||b - A x||inf / (||A||inf ||x||inf + ||b||inf),
// computed with the node-level matrix (independent of the distributed code).
inline double backward_error(const ts::CrsMatrix<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax(x.size());
  A.multiply(x.data(), ax.data());
  double rn = 0, xn = 0, bn = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    rn = std::max(rn, std::abs(b[i] - ax[i]));
    xn = std::max(xn, std::abs(x[i]));
    bn = std::max(bn, std::abs(b[i]));
  }
  return rn / (A.norm_inf() * xn + bn);
}

}  // namespace solve_test
