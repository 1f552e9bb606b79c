#pragma once
// The distributed sparse solve (see packages/dist/docs/README.md,
// "Distributed sparse solve"): row-distributed CRS matrices with their halo
// plan, the overlapped SpMV, additive Schwarz / block Jacobi with node-level
// Cholesky or IC(k) blocks, and PCG.
#include <tessera/dist/sparse/dist_crs_matrix.hpp>
#include <tessera/dist/sparse/generators.hpp>
#include <tessera/dist/sparse/halo_plan.hpp>
#include <tessera/dist/sparse/pcg.hpp>
#include <tessera/dist/sparse/schwarz.hpp>
#include <tessera/dist/sparse/spmv.hpp>
