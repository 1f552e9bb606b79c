// tessera_bench_graph_jobs on a GPU: the same program with Space = Cuda
// (bench name graph_jobs_cuda). Built when Tessera_ENABLE_CUDA is on;
// ci/gpu.sh packs it, .gpu/run.sh runs it.
#define TESSERA_BENCH_GRAPH_JOBS_CUDA 1
#include "bench_graph_jobs.cpp"
