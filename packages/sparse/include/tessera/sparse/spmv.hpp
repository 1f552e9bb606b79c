#pragma once
// y = A x with the rows in parallel on a host execution space: the one
// sparse matrix-vector product of the solvers (PCG, iterative refinement).
// Each row is one dot product in column order, the same sum as
// CrsMatrix::multiply (the serial product the tests and tools use), so the
// two agree bit for bit.
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>

#include <cstdint>

namespace tessera::sparse {

template <class Space, class T>
void multiply(const CrsMatrix<T>& A, const T* x, T* y) {
  const std::int64_t* rm = A.row_map();
  const std::int32_t* ci = A.col_idx();
  const T* v = A.values();
  parallel_for("sparse::spmv", RangePolicy<Space>(0, A.num_rows()), [=](std::int64_t i) {
    T s = 0;
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k) s += v[k] * x[ci[k]];
    y[i] = s;
  });
}

}  // namespace tessera::sparse
