#pragma once
// Tessera analytics: miniTri (triangle enumeration, triangle vertex and edge
// degrees, the k-count histogram) in direct, task-DAG and data-parallel
// formulations; namespace tessera::analytics. The one header users include.
// Manual: packages/analytics/docs/README.md.
#include <tessera/graph.hpp>
#include <tessera/tasking.hpp>
#include <tessera/analytics/triangle.hpp>
#include <tessera/analytics/oriented_graph.hpp>
#include <tessera/analytics/minitri_options.hpp>
#include <tessera/analytics/minitri_direct.hpp>
#include <tessera/analytics/minitri_data.hpp>
#include <tessera/analytics/minitri_tasks.hpp>
#include <tessera/analytics/minitri.hpp>
#include <tessera/analytics/load.hpp>
