#!/usr/bin/env bash
# Tessera's GPU check: build the CUDA tests and benchmarks where there is no
# GPU, run them where there is one.
#
#   bash ci/gpu.sh pack          # here (nvcc, no GPU needed): builds Serial+Threads+Cuda in $BUILD_DIR
#                                # (default build-gpu; Threads for the benchmarks' host columns on the
#                                # GPU machine's CPUs, left out of the typed test suites:
#                                # TESSERA_TEST_WITHOUT_THREADS) and packs every test program, the CUDA
#                                # benchmarks (core's tessera_bench_cuda, tasking's
#                                # tessera_bench_task_cuda, graph's tessera_bench_graph_cuda), the
#                                # data they read and the shared libraries they need into .gpu/
#                                # (git-ignored): one archive; with the checkout, at most 64 MiB
#   bash .gpu/run.sh [pattern] [seconds] [bench args]
#                                # on a machine with a GPU and only the CUDA driver, from a copy of
#                                # the checkout holding .gpu/: every test case whose name matches
#                                # pattern (default Cuda|Gpu) in its own process, several at a time,
#                                # each with a time limit (default 120 s), then tessera_bench_cuda
#                                # tessera_bench_task_cuda (the task driver, TASK_BENCH_ARGS) and
#                                # tessera_bench_graph_cuda (the graph algorithms against
#                                # cuSPARSE, CUB, ECL-CC-style and warp-intersection peers on
#                                # Kronecker 21 and a 2048^2 grid, answers checked, < 3 min on an
#                                # H100) (unless BENCH=0); one PASS/FAIL/SKIP/TIMEOUT line per case, a
#                                # summary last, every log in gpu-logs.tar.gz ($OUT/ when OUT is set)
#
# Environment of `pack`: BUILD_DIR, PACKAGES (default "core mempool tasking graph analytics sparse kokkos_compat"),
# CUDA_ARCHS (default 90: H100 and H200), JOBS (default 2), NVCC, BUILD=0 (pack without building),
# TARGETS (build and pack only these programs: target names, or the groups below, which name
# each issue's programs; the whole build takes about 70 minutes of 2 cores, a group much less,
# so a session lent a GPU can run one group while it builds the next):
#   core     core's and mempool's test programs, kokkos_compat's, tessera_bench_cuda
#   tasking  tasking's test programs and tessera_bench_task_cuda (gpu-tasking)
#   graph    graph's and analytics' test programs, the graph, graph-jobs and miniTri GPU
#            benchmarks, the finite-element assembly's test and GPU benchmark (gpu-graph)
#   sparse   sparse's test programs, bench_cholesky and tessera-solve (gpu-sparse)
# e.g. TARGETS=tasking bash ci/gpu.sh pack; then TARGETS="tasking graph" packs both groups.
# Environment of `run.sh`: BUDGET (seconds for the whole run, default 540: a lent GPU gives a
# session about 15 minutes, its start included), TESTS_SECONDS (the cases' share, default 240),
# JOBS (default: three in four CPUs, at most 12), BENCH (1), BENCH_ARGS,
# CUDA_BENCH=0 / TASK_BENCH=0 / GRAPH_BENCH=0 / SOLVE=0 (leave out one benchmark, or tessera-solve
# factoring lap3d:100 on Cuda (the defaults, the solves' teams at 128 rows, the factorization's at 128 (the default before 2026-12-04),
# 4 library streams) and stokes:30 by LDL^T), SPARSE_BENCH=1 (add bench_cholesky --gpu: minutes),
# TASK_BENCH_ARGS, GRAPH_BENCH_ARGS, SPARSE_BENCH_ARGS (e.g. --quick), SOLVE_ARGS (tessera-solve argument sets
# separated by "|", instead of the five above).
# The sparse benchmark alone: SPARSE_BENCH=1 CUDA_BENCH=0 TASK_BENCH=0 GRAPH_BENCH=0 SOLVE=0 BENCH=first bash .gpu/run.sh '^$'

# The graph benchmark alone, before any test: CUDA_BENCH=0 BENCH=first bash .gpu/run.sh '^$' 
# packages/core/docs/cuda.md ("Running the GPU check") says what a run has found so far.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cmd=${1:-pack}

if [ "$cmd" != pack ]; then
  echo "usage: bash ci/gpu.sh pack   (then, on the GPU machine: bash .gpu/run.sh)" >&2
  exit 2
fi

B=${BUILD_DIR:-build-gpu}
PK=${PACKAGES:-core mempool tasking graph analytics sparse kokkos_compat}
flags=(-DTessera_ENABLE_ALL_PACKAGES=OFF)
for p in $PK; do flags+=("-DTessera_ENABLE_$(echo "$p" | tr a-z A-Z)=ON"); done
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
# Configured every time (quick when nothing changed), so that a build directory
# made for other PACKAGES gets this set.
if [ "${BUILD:-1}" != 0 ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
    -DTessera_ENABLE_TESTS=ON -DTessera_ENABLE_BENCHMARKS=ON -DTessera_ENABLE_EXAMPLES=OFF \
    -DTessera_ENABLE_OPENMP=OFF -DTessera_ENABLE_THREADS=ON \
    -DCMAKE_CXX_FLAGS=-DTESSERA_TEST_WITHOUT_THREADS -DCMAKE_CUDA_FLAGS=-DTESSERA_TEST_WITHOUT_THREADS \
    "${flags[@]}" >/dev/null
fi
# TARGETS: the build-relative paths of the programs asked for (a group is a
# pattern over the build's executables), built alone; the pack then takes only
# those, so that no program left from an older build of this directory rides
# along under this commit's name.
group_pattern() {
  case "$1" in
    core) echo '^packages/(core/tests/core_test_|mempool/tests/mempool_test_|kokkos_compat/tests/kokkos_compat_test_|core/benchmarks/tessera_bench_cuda$)' ;;
    tasking) echo '^packages/(tasking/tests/tasking_test_|tasking/benchmarks/tessera_bench_task_cuda$)' ;;
    graph) echo '^packages/(graph/tests/graph_test_|analytics/tests/analytics_test_|graph/benchmarks/tessera_bench_graph(_jobs)?_cuda$|analytics/benchmarks/tessera_bench_minitri_cuda$|sparse/tests/sparse_test_fem_assembly$|sparse/benchmarks/bench_fem_assembly_cuda$)' ;;
    sparse) echo '^packages/(sparse/tests/sparse_test_|sparse/benchmarks/bench_cholesky$|sparse/tools/tessera-solve/tessera-solve$)' ;;
    *) echo "/$1\$" ;;
  esac
}
wanted=
if [ -n "${TARGETS:-}" ]; then
  all=$(ninja -C "$B" -t targets all | grep -E ': (CUDA|CXX)_EXECUTABLE_LINKER' | cut -d: -f1 | grep -vF '[')
  for t in $TARGETS; do
    hits=$(grep -E "$(group_pattern "$t")" <<<"$all" || true)
    [ -n "$hits" ] || { echo "TARGETS: '$t' names no program of $B (groups: core tasking graph sparse)" >&2; exit 2; }
    wanted+="$hits"$'\n'
  done
  wanted=$(sort -u <<<"$wanted" | sed '/^$/d')
  echo "TARGETS: $(wc -l <<<"$wanted") programs"
fi
# BUILD=0 packs what was built last (e.g. after rebuilding a few programs by hand).
if [ "${BUILD:-1}" != 0 ]; then
  if [ -n "$wanted" ]; then
    # shellcheck disable=SC2046
    cmake --build "$B" --parallel "${JOBS:-2}" --target $(xargs -n1 basename <<<"$wanted")
  else
    cmake --build "$B" --parallel "${JOBS:-2}"
  fi
fi
# packed FILE: whether the pack takes this built program (all of them without TARGETS).
packed() { [ -z "$wanted" ] || grep -qxF "${1#"$B"/}" <<<"$wanted"; }

# In a git worktree .git is a file: ask git where the exclude file is.
exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/tree"
while read -r f; do if packed "$f"; then cp "$f" "$stage/bin/"; fi; done < <(find "$B/packages" -path '*tests/*' -name '*_test_*' -type f -executable)
while read -r f; do if packed "$f"; then cp "$f" "$stage/"; fi; done < <(find "$B/packages" -path '*tools/*' -name 'tessera-*' -type f -executable)
# The CUDA benchmarks: core's, the task driver's (about 1.5 MiB of the
# archive), the graph algorithms' and sparse Cholesky's (bench_cholesky --gpu;
# it brings CHOLMOD, MUMPS and Tacho's libraries along).
for b in core/benchmarks/tessera_bench_cuda tasking/benchmarks/tessera_bench_task_cuda \
  graph/benchmarks/tessera_bench_graph_cuda graph/benchmarks/tessera_bench_graph_jobs_cuda sparse/benchmarks/bench_cholesky \
  sparse/benchmarks/bench_fem_assembly_cuda analytics/benchmarks/tessera_bench_minitri_cuda; do
  if [ -x "$B/packages/$b" ] && packed "$B/packages/$b"; then cp "$B/packages/$b" "$stage/"; fi
done
strip "$stage"/bin/* "$stage"/tessera* 2>/dev/null || true
# The shared libraries the programs load, but the C runtime and the driver
# (those come with the GPU machine): libcudart, OpenBLAS, METIS, Scotch, ...
# cuBLAS (over 500 MiB) stays behind: only tessera_bench_cuda's gemv peer uses
# it, and run.sh finds it in the machine's CUDA toolkit when there is one; so
# do cuSPARSE and the nvJitLink it loads (150 and 95 MiB), which only
# tessera_bench_graph_cuda's PageRank peer uses. cuSOLVER (140 MiB; it loads
# cuBLAS, cuBLASLt, cuSPARSE and nvJitLink) stays behind too: the sparse
# programs link it for Cholesky on Cuda, and run.sh finds it the same way.
for f in "$stage"/bin/* "$stage"/tessera*; do if [ -e "$f" ]; then { ldd "$f" 2>/dev/null || true; } | awk '/=> \//{print $3}'; fi; done | sort -u |
  grep -vE '/(ld-linux|libc|libm|libdl|libpthread|librt|libcuda|libnvidia|libcublas|libcublasLt|libcusparse|libcusolver|libnvJitLink)[.-]' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# What the tests read from the source tree, recreated at the same absolute path there.
tar cf - examples/data $(find packages -path '*/tests/*' -type d -name 'fuzz_regressions') | tar xf - -C "$stage/tree"
echo "$root" > "$stage/source-root"
git rev-parse --short HEAD > "$stage/commit" 2>/dev/null || echo unknown > "$stage/commit"
cp ci/gpu_run.sh "$stage/run-inner.sh"
rm -rf .gpu && mkdir .gpu
# xz at its strongest: the programs share most of their code (GoogleTest, core's
# headers), which xz -9's 64 MiB window finds; on the 0f6b840 pack, 49.0 MB
# against 56.9 MB at tar's default level, for two more minutes here.
tar cf - -C "$stage" . | xz -9e -T0 > .gpu/bins.tar.xz
printf '#!/usr/bin/env bash\nset -u; cd "$(dirname "$0")" && rm -rf x && mkdir x && tar xf bins.tar.xz -C x && cd x && exec bash run-inner.sh "$@"\n' > .gpu/run.sh
mib=$(( ($(stat -c %s .gpu/bins.tar.xz) + 1048575) / 1048576 ))
echo "packed $(ls "$stage/bin" | wc -l) test programs, $(ls "$stage/lib" | wc -l) libraries: ${mib} MiB in .gpu/ (commit $(cat "$stage/commit"))"
# A device run carries the pack and the checkout's files (tracked, and
# untracked ones git does not ignore): 64 MiB together.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
carried=$(( ($(stat -c %s .gpu/bins.tar.xz) + ${tree_bytes:-0} + 1048575) / 1048576 ))
echo "a device run carries ${carried} of its 64 MiB (the pack and the checkout's $(( (${tree_bytes:-0} + 1048575) / 1048576 )) MiB)"
if [ "$carried" -gt 64 ]; then
  echo "FAILED: the pack and the checkout are over the 64 MiB a device run can carry; pack fewer PACKAGES" >&2
  exit 1
fi
echo "on the GPU machine, from the checkout's root: bash .gpu/run.sh"
