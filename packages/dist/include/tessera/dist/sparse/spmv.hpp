#pragma once
// y = A x for a row-distributed matrix, communication overlapped with the
// interior product:
//
//   1. post the halo receives and sends (HaloPlan::start; the owned entries
//      the neighbours need are packed first),
//   2. multiply the interior rows (no ghost column: the diagonal block's row
//      alone) while the messages travel,
//   3. wait (HaloPlan::finish),
//   4. multiply the boundary rows, which read the ghosts (both blocks).
//
// x and y are this rank's owned parts (num_owned() entries, host memory);
// the loops run on the host execution space Space (Serial, Threads, OpenMP);
// MPI is called by the calling thread only (MPI_THREAD_FUNNELED). Each row
// sums its entries in increasing global column, as the node-level
// CrsMatrix::multiply does, so the two agree to rounding (bit for bit
// whenever the same compiler contracts the same way). The halo's bytes and
// MPI seconds go to A.halo_volume().
#include <tessera/core.hpp>
#include <tessera/dist/sparse/dist_crs_matrix.hpp>

namespace tessera::dist {

namespace detail {
// Packs x's entries that the neighbours need, in the plan's send order.
template <class Space, class T>
void pack_halo(const HaloPlan& plan, const T* x, T* packed) {
  const std::int32_t* idx = plan.send_indices().data();
  parallel_for("dist::halo_pack", RangePolicy<Space>(0, plan.num_sends()),
               [=](std::int64_t k) { packed[k] = x[idx[k]]; });
}
}  // namespace detail

template <class Space, class T>
void multiply(const DistCrsMatrix<T>& A, const T* x, T* y) {
  const HaloPlan& plan = A.halo();
  CommVolume& volume = A.halo_volume();
  T* packed = A.send_buffer().data();
  T* ghosts = A.ghost_buffer().data();
  const sparse::CrsMatrix<T>& D = A.diagonal_block();
  const std::int64_t* rm = D.row_map();
  const std::int32_t* ci = D.col_idx();
  const T* va = D.values();
  const std::int64_t* off_rm = A.off_diagonal_row_map().data();
  const std::int32_t* off_g = A.off_diagonal_ghosts().data();
  const T* off_va = A.off_diagonal_values().data();
  const std::int32_t before = A.ghosts_before();
  detail::pack_halo<Space>(plan, x, packed);
  plan.start(A.comm(), packed, ghosts, volume);
  const std::int32_t* interior = A.interior_rows().data();
  const std::int32_t* boundary = A.boundary_rows().data();
  // Interior rows read only x (no test per entry). They are ascending and
  // unique, so they form one run when the last is the first + count - 1:
  // then the loop runs over the rows themselves, without reading the list
  // (one rank, a slab partition's middle: 0.21 -> 0.18 ms for lap3d:40 on
  // one thread).
  const std::int64_t n_interior = std::int64_t(A.interior_rows().size());
  auto row_product = [=](std::int64_t i) {
    T s = 0;
    for (std::int64_t k = rm[i]; k < rm[i + 1]; ++k) s += va[k] * x[ci[k]];
    y[i] = s;
  };
  if (n_interior > 0 && interior[n_interior - 1] - interior[0] + 1 == n_interior) {
    const std::int64_t first = interior[0];
    parallel_for("dist::spmv_interior", RangePolicy<Space>(first, first + n_interior), row_product);
  } else {
    parallel_for("dist::spmv_interior", RangePolicy<Space>(0, n_interior),
                 [=](std::int64_t q) { row_product(interior[q]); });
  }
  plan.finish(volume);
  // Boundary rows in increasing global column: the ghosts left of the owned
  // range, the diagonal block's entries, the ghosts right of it.
  parallel_for("dist::spmv_boundary", RangePolicy<Space>(0, std::int64_t(A.boundary_rows().size())),
               [=](std::int64_t q) {
                 const std::int32_t i = boundary[q];
                 T s = 0;
                 std::int64_t k = off_rm[i];
                 const std::int64_t k_end = off_rm[i + 1];
                 for (; k < k_end && off_g[k] < before; ++k) s += off_va[k] * ghosts[off_g[k]];
                 for (std::int64_t d = rm[i]; d < rm[i + 1]; ++d) s += va[d] * x[ci[d]];
                 for (; k < k_end; ++k) s += off_va[k] * ghosts[off_g[k]];
                 y[i] = s;
               });
}

// Inner product of two distributed vectors (owned parts of n_local entries),
// summed over the ranks through comm (counted in comm.volume()).
template <class T>
T dot(const Comm& comm, const T* a, const T* b, std::int64_t n_local) {
  T s = 0;
  for (std::int64_t i = 0; i < n_local; ++i) s += a[i] * b[i];
  return comm.sum(s);
}

}  // namespace tessera::dist
