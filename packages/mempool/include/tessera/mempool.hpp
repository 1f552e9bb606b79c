#pragma once
// Tessera mempool: tessera::MemoryPool, a lock-free pool of power-of-two
// blocks usable from host code and inside kernels on every back-end.
#include <tessera/core.hpp>
#include <tessera/mempool/memory_pool.hpp>
