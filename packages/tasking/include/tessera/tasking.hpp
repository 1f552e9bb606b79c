#pragma once
// Tessera tasking: a dynamic task DAG with futures, respawn, when_all,
// priorities and thread-team tasks (Kokkos' task-DAG API), and the static
// KernelGraph of split kernels over partitioned Views.
// Manual: packages/tasking/docs/README.md.
#include <tessera/core.hpp>
#include <tessera/mempool.hpp>
#include <tessera/tasking/future.hpp>
#include <tessera/tasking/kernel_graph/kernel_graph.hpp>
#include <tessera/tasking/spawn_for.hpp>
#include <tessera/tasking/statistics.hpp>
#include <tessera/tasking/task_scheduler.hpp>
