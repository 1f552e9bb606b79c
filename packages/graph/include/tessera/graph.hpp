#pragma once
// Tessera graph: a generic multithreaded graph library (the MTGL design on
// Tessera's Views and spaces), namespace tessera::graph. The one header
// users include. Manual: packages/graph/docs/README.md.
#include <tessera/core.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/edge_list.hpp>
#include <tessera/graph/csr_graph.hpp>
#include <tessera/graph/property_map.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/advance.hpp>
#include <tessera/graph/adapters.hpp>
#include <tessera/graph/io.hpp>
#include <tessera/graph/generators.hpp>
#include <tessera/graph/bfs.hpp>
#include <tessera/graph/multi_source_bfs.hpp>
#include <tessera/graph/components.hpp>
#include <tessera/graph/pagerank.hpp>
#include <tessera/graph/triangles.hpp>
#include <tessera/graph/sssp.hpp>
#include <tessera/graph/graph_jobs.hpp>
#include <tessera/graph/job_file.hpp>
