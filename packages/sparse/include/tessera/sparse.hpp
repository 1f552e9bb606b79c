#pragma once
// Tessera sparse: task-parallel sparse Cholesky (the Tacho design) on
// Tessera's task DAG, namespace tessera::sparse. The one header users
// include. Manual: packages/sparse/docs/README.md.
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/matrix_io.hpp>
#include <tessera/sparse/generators.hpp>
#include <tessera/sparse/ordering.hpp>
#include <tessera/sparse/symbolic.hpp>
#include <tessera/sparse/spmv.hpp>
#include <tessera/sparse/cholesky.hpp>
#include <tessera/sparse/incomplete.hpp>
#include <tessera/sparse/block_layout.hpp>
#include <tessera/sparse/fem.hpp>
