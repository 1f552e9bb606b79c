#pragma once
// Tessera graph: generic multithreaded graph library (MTGL design on
// Tessera's Views and spaces), namespace tessera::graph. The one header
// users include.
#include <tessera/core.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/edge_list.hpp>
#include <tessera/graph/csr_graph.hpp>
#include <tessera/graph/property_map.hpp>
#include <tessera/graph/primitives.hpp>
