#pragma once
// tessera::dist: the node-level packages over MPI ranks (see
// packages/dist/docs/README.md).
#include <tessera/dist/comm.hpp>
#include <tessera/dist/partition.hpp>
#include <tessera/dist/graph.hpp>
#include <tessera/dist/sparse.hpp>
