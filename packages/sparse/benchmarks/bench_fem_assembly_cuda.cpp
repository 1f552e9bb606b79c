// bench_fem_assembly on a GPU: the same program with Space = Cuda (bench
// name fem_assembly_cuda). Built when Tessera_ENABLE_CUDA is on; ci/gpu.sh
// packs it, .gpu/run.sh runs it.
#define TESSERA_BENCH_FEM_CUDA 1
#include "bench_fem_assembly.cpp"
