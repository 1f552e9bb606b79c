#pragma once
// Tessera tasking: a dynamic task DAG with futures, respawn, when_all,
// priorities and thread-team tasks (Kokkos' task-DAG API).
// Manual: packages/tasking/docs/README.md.
#include <tessera/core.hpp>
#include <tessera/mempool.hpp>
#include <tessera/tasking/future.hpp>
#include <tessera/tasking/statistics.hpp>
#include <tessera/tasking/task_scheduler.hpp>
