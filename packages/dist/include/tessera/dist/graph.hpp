#pragma once
// Distributed graphs (see packages/dist/docs/README.md, "Distributed graphs").
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/dist/graph/kronecker.hpp>
#include <tessera/dist/graph/read.hpp>
#include <tessera/dist/graph/bfs.hpp>
#include <tessera/dist/graph/components.hpp>
#include <tessera/dist/graph/pagerank.hpp>
#include <tessera/dist/graph/triangles.hpp>
#include <tessera/dist/graph/minitri.hpp>
