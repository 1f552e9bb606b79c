#!/usr/bin/env bash
# Benchmark runner: builds the peer-comparison benchmarks (Release, in
# $BUILD_DIR, default build-bench-report), runs the named ones (all by default)
# at each thread count with --json, stores their JSON lines in
# docs/perf/<bench>.jsonl and regenerates docs/performance.md's tables and
# figures with ci/perf_report.py.
#
#   bash ci/bench.sh [bench...]
#
#   bench            package    program                      peers
#   stream           core       tessera_bench_stream         raw OpenMP loops (STREAM copy/scale/add/triad)
#   dispatch         core       tessera_bench_dispatch       raw OpenMP (empty parallel for, reduction)
#   spmv             core       tessera_bench_spmv           raw OpenMP CSR row loop
#   stencil          core       tessera_bench_stencil        raw OpenMP 7-point loop nest
#   struct_layout    core       tessera_bench_struct_layout  hand-written separate Views, plain View of structs (per host back-end)
#   mempool          mempool    bench_mempool                glibc, mimalloc, jemalloc, TBB scalable_malloc
#   task_overhead    tasking    bench_task_overhead          oneTBB, Taskflow, OpenMP tasks (libgomp)
#   tiled_cholesky   tasking    bench_tiled_cholesky         the same DAG on oneTBB (flow graph) and Taskflow, threaded OpenBLAS dpotrf
#   task_trace       tasking    bench_task_trace             the same DAG untraced (cost of TESSERA_TRACE task timelines)
#   kernel_graph     tasking    bench_kernel_graph           the same kernels as parallel_for + fence (KernelGraph, 1/2/4 partitions)
#   graph            graph      tessera_bench_graph          gapbs, SuiteSparse:GraphBLAS
#   graph_jobs       graph      tessera_bench_graph_jobs     the same jobs one after another (fused job sets)
#   sparse_cholesky  sparse     bench_cholesky               CHOLMOD, Tacho, MUMPS (+ OpenBLAS dgemm ceiling)
#   sparse_ldlt      sparse     bench_cholesky --indefinite  MUMPS (SYM = 2; inertia checked against it)
#   fem_assembly     sparse     bench_fem_assembly           a serial element loop (ScatterView, colouring, element map)
#   minitri          analytics  tessera_bench_minitri        SuiteSparse:GraphBLAS
#   dist_solve       dist       bench_dist_solve             PETSc CG + block Jacobi (ICC(0), Cholesky), hypre PCG + BoomerAMG;
#                                                            node-level sparse::pcg at 1 rank
#                                                            (an MPI program: run on RANKS ranks instead of THREADS threads)
#   dist_graph       dist       bench_dist_graph             CombBLAS BFS and triangles; node-level graph package at 1 rank
#                                                            (MPI, as dist_solve; CombBLAS only on square rank counts: 1, 4)
#   cuda             core       tessera_bench_cuda           raw CUDA kernels, CUB, cuBLAS, device malloc; needs a GPU,
#                                                            so ci/gpu.sh runs it, not this script (nor is it in all=(...))
#
# Environment:
#   THREADS       thread counts, one run each (default: 1, 2, 4, ... up to the machine's
#                 hardware threads, and that count: "1 2" on the 2-core machine, "1 2 4 8 16"
#                 on a 16-core one). A program also takes a list itself, e.g.
#                 bench_cholesky --threads 1,2,4: one run per count, in a fresh process
#                 (packages/core/benchmarks/support/tessera/bench/thread_sweep.hpp).
#   RANKS         MPI rank counts of the dist benchmarks, one run each, one
#                 thread per rank (default "1 2 4"; above the cores they are
#                 oversubscribed: cost, not speedup)
#   REPEATS       repeats per case (default 9; the sparse and tiled Cholesky
#                 and minitri runs take REPEATS too, each repeat is seconds long)
#   JOBS          build jobs (default 2)
#   TASKFLOW_DIR  Taskflow source tree, a peer of task_overhead and tiled_cholesky (left out without it)
#   GAPBS_DIR     a built gapbs tree, the peer of graph (left out without it)
#   GRAPH_FILES   graph files for graph, each PATH[@SOURCE] (.tgb, .mtx or an
#                 edge list; gapbs reads the .sg beside it), e.g.
#                 "/work/peers/data/k20.tgb@237606 /work/peers/data/grid2048.tgb";
#                 without it graph runs on a generated Kronecker graph and the
#                 real graphs of examples/data
#   <BENCH>_ARGS  extra arguments for one benchmark, e.g. STREAM_ARGS="--n 1000000"
#   SETTLE        seconds a run may wait, at most, for the 1-minute load average
#                 to fall below half the hardware threads (the report's "busy" mark)
#                 before it starts (default 90; 0 waits not at all): the load that a
#                 pass leaves behind decays with a one-minute time constant, so
#                 without the wait the next pass records its predecessor's load
#                 or GRAPH_ARGS="--algorithms bfs,pr" (for quick trial runs)
#   DATA_ONLY=1   only run and store docs/perf/*.jsonl, leave docs/performance.md
#   PERF_DIR      where the .jsonl files go (default docs/perf) and REPORT the
#                 markdown file to regenerate (default docs/performance.md; its
#                 figures go to figures/ beside it): a scratch copy for trial runs
#   PYTHON        the python3 with matplotlib (default /usr/bin/python3)
#
# Run it on a quiet machine (nothing else compiling): each run records its
# load average and the report flags busy runs. Peers come from Debian:
#   apt-get install $(bash ci/debian-packages.sh benchmarks)
set -euo pipefail
# Some machines pin OpenBLAS to an older kernel set (OPENBLAS_CORETYPE, with
# OPENBLAS_L2_SIZE) because old OpenBLAS builds misbehave on their processor.
# The benchmarks measure against the BLAS's best kernels, and every one checks
# its answers, so both are unset here (KEEP_OPENBLAS_ENV=1 keeps them); each
# run's meta line names the kernel set OpenBLAS chose.
if [[ -z "${KEEP_OPENBLAS_ENV:-}" && -n "${OPENBLAS_CORETYPE:-}${OPENBLAS_L2_SIZE:-}" ]]; then
  echo "bench.sh: unsetting OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-} (KEEP_OPENBLAS_ENV=1 keeps them)"
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
fi
# Debian 12's OpenBLAS (0.3.21) does not recognize some virtual CPUs
# ("Intel(R) Xeon(R) Processor", with AVX-512) and falls back to its Prescott
# kernels: the host BLAS peers (CHOLMOD, MUMPS, dpotrf) and Tessera's own
# dense fronts would run at a fraction of their speed (dgemm n = 2000 on one
# thread of such a VM, 2026-12-01: Prescott 17.0 GFLOP/s, Haswell 42.3,
# SkylakeX 61.4), and the tables would say so only in the meta line. When it chose Prescott on a CPU with AVX2,
# the kernel set is named by the CPU's flags, as ci/gpu_run.sh does on the
# GPU machine.
if [[ -z "${KEEP_OPENBLAS_ENV:-}" && -z "${OPENBLAS_CORETYPE:-}" ]] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  openblas_core=$("${PYTHON:-/usr/bin/python3}" -c 'import ctypes
l = ctypes.CDLL("libopenblas.so.0")
l.openblas_get_corename.restype = ctypes.c_char_p
print(l.openblas_get_corename().decode())' 2>/dev/null || true)
  if [[ "$openblas_core" == Prescott ]]; then
    if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; else export OPENBLAS_CORETYPE=Haswell; fi
    echo "bench.sh: OpenBLAS chose Prescott on a CPU with AVX2; OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE (by the CPU's flags)"
  fi
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BUILD_DIR="${BUILD_DIR:-build-bench-report}"
default_threads() {  # 1 2 4 ... up to the hardware threads, and that count
  local hw t=1 list=""
  hw=$(nproc)
  while ((t < hw)); do list+="$t "; t=$((t * 2)); done
  echo "$list$hw"
}
THREADS="${THREADS:-$(default_threads)}"
REPEATS="${REPEATS:-9}"
JOBS="${JOBS:-2}"
all=(stream dispatch spmv stencil struct_layout mempool task_overhead tiled_cholesky task_trace kernel_graph graph graph_jobs sparse_cholesky sparse_ldlt fem_assembly minitri dist_solve dist_graph)
benches=("$@")
((${#benches[@]})) || benches=("${all[@]}")

# bench name -> "ninja target|program path under $BUILD_DIR"
where_of() {
  case "$1" in
    stream | dispatch | spmv | stencil | struct_layout) echo "tessera_bench_$1|packages/core/benchmarks/tessera_bench_$1" ;;
    mempool) echo "bench_mempool|packages/mempool/benchmarks/bench_mempool" ;;
    task_overhead) echo "bench_task_overhead|packages/tasking/benchmarks/bench_task_overhead" ;;
    tiled_cholesky) echo "bench_tiled_cholesky|packages/tasking/benchmarks/bench_tiled_cholesky" ;;
    task_trace) echo "bench_task_trace|packages/tasking/benchmarks/bench_task_trace" ;;
    kernel_graph) echo "bench_kernel_graph|packages/tasking/benchmarks/bench_kernel_graph" ;;
    graph) echo "tessera_bench_graph|packages/graph/benchmarks/tessera_bench_graph" ;;
    graph_jobs) echo "tessera_bench_graph_jobs|packages/graph/benchmarks/tessera_bench_graph_jobs" ;;
    sparse_cholesky | sparse_ldlt) echo "bench_cholesky|packages/sparse/benchmarks/bench_cholesky" ;;
    fem_assembly) echo "bench_fem_assembly|packages/sparse/benchmarks/bench_fem_assembly" ;;
    minitri) echo "tessera_bench_minitri|packages/analytics/benchmarks/tessera_bench_minitri" ;;
    dist_solve) echo "bench_dist_solve|packages/dist/benchmarks/bench_dist_solve" ;;
    dist_graph) echo "bench_dist_graph|packages/dist/benchmarks/bench_dist_graph" ;;
    cuda) echo "bench.sh: cuda needs a GPU and runs through ci/gpu.sh (docs/performance.md, GPU section, says how)" >&2
      return 2 ;;
    *) echo "bench.sh: unknown benchmark '$1' (known: ${all[*]})" >&2; return 2 ;;
  esac
}
args_of() {  # args_of <bench> <threads>: the arguments of one run (before <BENCH>_ARGS)
  local t="$2"
  case "$1" in
    stream | dispatch | spmv | stencil | struct_layout | task_overhead | tiled_cholesky | task_trace | kernel_graph | fem_assembly)
      echo "--repeats $REPEATS --tessera-num-threads=$t" ;;
    mempool) echo "--threads $t --repeats $REPEATS --workloads abc" ;;
    graph)
      local files=""
      for f in ${GRAPH_FILES:-}; do files+=" --file $f"; done
      echo "--threads $t --repeats $REPEATS --tessera-num-threads=$t$files" ;;
    # At most 5 repeats: 64 jobs one after another take about a minute on Kronecker 18.
    graph_jobs) echo "--repeats $((REPEATS < 5 ? REPEATS : 5)) --per-kind --tessera-num-threads=$t" ;;
    sparse_cholesky) echo "--threads $t --repeats $REPEATS" ;;
    sparse_ldlt) echo "--indefinite --threads $t --repeats $REPEATS" ;;
    # Kronecker 18 is left out: one GraphBLAS run takes minutes there and the
    # data and tasks methods store 3.3 GB of triangles.
    minitri) echo "--threads $t --repeats $REPEATS --tessera-num-threads=$t" \
      "--graphs oregon1_010331.txt,facebook_combined.txt,kron:16:16" ;;
    # t is the rank count here.
    dist_solve) echo "--repeats $REPEATS --matrix lap3d:40" ;;
    dist_graph) echo "--repeats $REPEATS --scale 16 --edge-factor 16 --sources 8" ;;
  esac
}
# MPI benchmarks run once per rank count under mpiexec, one thread per rank.
is_mpi() { [[ "$1" == dist_* ]]; }
counts_of() { if is_mpi "$1"; then echo "${RANKS:-1 2 4}"; else echo "$THREADS"; fi; }
launcher_of() {  # launcher_of <bench> <ranks>: the command prefix of one run
  if is_mpi "$1"; then
    local root=""
    [[ "$(id -u)" == 0 ]] && root="--allow-run-as-root"
    echo "env TESSERA_NUM_THREADS=1 OMP_NUM_THREADS=1 mpiexec -n $2 --oversubscribe $root"
  fi
}

for b in "${benches[@]}"; do where_of "$b" >/dev/null; done
extra=()
[[ -n "${TASKFLOW_DIR:-}" ]] && extra+=("-DTASKFLOW_DIR=$TASKFLOW_DIR")
[[ -n "${GAPBS_DIR:-}" ]] && extra+=("-DGAPBS_DIR=$GAPBS_DIR")
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_BENCHMARKS=ON \
  -DTessera_ENABLE_TESTS=OFF -DTessera_ENABLE_EXAMPLES=OFF "${extra[@]}" >/dev/null
# A peer the configure step did not find drops its rows and leaves its goal
# rows "not measured"; the configure output above is silenced, so say so here.
# peer_library <bench> <cache variable> <peer> <Debian package>: warns when
# the variable's library was not found.
peer_library() {
  if grep -qE "^$2:FILEPATH=.*NOTFOUND" "$BUILD_DIR/CMakeCache.txt"; then
    echo "bench.sh: warning: $3 not found (apt-get install $4, or bash ci/quickstart.sh deps benchmarks," \
      "as root): $1 runs without that peer" >&2
  fi
}
# peer_tree <bench> <variable> <peer>: warns when the variable naming its source tree is unset.
peer_tree() {
  if [[ -z "${!2:-}" ]]; then
    echo "bench.sh: warning: $2 is not set: $1 runs without $3 (a tree built outside the repository)" >&2
  fi
}
for b in "${benches[@]}"; do
  case "$b" in
    graph) peer_library "$b" GRAPHBLAS_LIBRARY SuiteSparse:GraphBLAS libgraphblas-dev
      peer_tree "$b" GAPBS_DIR gapbs ;;
    minitri) peer_library "$b" TESSERA_GRAPHBLAS_LIB SuiteSparse:GraphBLAS libgraphblas-dev ;;
    mempool) peer_library "$b" TESSERA_MIMALLOC_LIB mimalloc libmimalloc-dev
      peer_library "$b" TESSERA_JEMALLOC_LIB jemalloc libjemalloc-dev
      peer_library "$b" TESSERA_TBBMALLOC_LIB "TBB's scalable_malloc" libtbb-dev ;;
    task_overhead | tiled_cholesky) peer_tree "$b" TASKFLOW_DIR Taskflow ;;
    sparse_cholesky) peer_library "$b" TESSERA_BENCH_CHOLMOD_LIB CHOLMOD libsuitesparse-dev
      peer_library "$b" TESSERA_BENCH_TACHO_LIB Tacho libtrilinos-shylu-dev
      peer_library "$b" TESSERA_BENCH_DMUMPS_SEQ_LIB MUMPS libmumps-seq-dev ;;
    sparse_ldlt) peer_library "$b" TESSERA_BENCH_DMUMPS_SEQ_LIB MUMPS libmumps-seq-dev ;;
    dist_solve) peer_library "$b" TESSERA_HYPRE_LIBRARY hypre libhypre-dev ;;
  esac
done
targets=()
for b in "${benches[@]}"; do targets+=("$(where_of "$b" | cut -d'|' -f1)"); done
cmake --build "$BUILD_DIR" --parallel "$JOBS" --target "${targets[@]}"

PERF_DIR="${PERF_DIR:-docs/perf}"
REPORT="${REPORT:-docs/performance.md}"
mkdir -p "$PERF_DIR"
# Waits (bounded by SETTLE) for the load that earlier passes and the build left
# to decay below the report's busy threshold (ci/perf_report.py,
# BUSY_LOAD_PER_THREAD = 0.5). A load that stays up comes from something
# else on the machine: the run goes ahead and the report marks it busy.
hw_threads=$(nproc)
settle() {
  local waited=0
  while [ "$waited" -lt "${SETTLE:-90}" ] &&
    awk -v hw="$hw_threads" '{ exit !($1 > 0.5 * hw) }' /proc/loadavg; do
    sleep 5
    waited=$((waited + 5))
  done
  [ "$waited" -eq 0 ] || echo "---- waited $waited s for the load to settle"
}
for b in "${benches[@]}"; do
  program="$BUILD_DIR/$(where_of "$b" | cut -d'|' -f2)"
  own_var="$(echo "$b" | tr '[:lower:]' '[:upper:]')_ARGS"
  out="$PERF_DIR/$b.jsonl"
  tmp="$(mktemp)"
  start=$SECONDS
  for t in $(counts_of "$b"); do
    settle
    echo "---- $b at $t thread(s)$(is_mpi "$b" && echo " (MPI ranks)"): load average $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2046
    # The meta line gets the thread count this run asked for (the report
    # groups by it): the programs write it themselves; the MPI ones, run on
    # ranks, get it here.
    $(launcher_of "$b" "$t") "$program" --json $(args_of "$b" "$t") ${!own_var:-} | grep '^{' |
      sed "/threads_requested/!s/\"meta\":true,/\"meta\":true,\"threads_requested\":$t,/" >>"$tmp"
  done
  mv "$tmp" "$out"
  echo "---- wrote $out in $((SECONDS - start)) s"
done
# Debian's python3 has matplotlib (python3-matplotlib); a python3 earlier on PATH may not.
if [[ -z "${PYTHON:-}" ]]; then
  PYTHON=python3
  if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; fi
fi
[[ -n "${DATA_ONLY:-}" ]] || "$PYTHON" ci/perf_report.py --data "$PERF_DIR" --report "$REPORT"
