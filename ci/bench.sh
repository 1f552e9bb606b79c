#!/usr/bin/env bash
# Benchmark runner: builds the peer-comparison benchmarks (Release, in
# $BUILD_DIR, default build-bench-report), runs the named ones (all by default)
# at each thread count with --json, stores their JSON lines in
# docs/perf/<bench>.jsonl and regenerates docs/performance.md's tables and
# figures with ci/perf_report.py.
#
#   bash ci/bench.sh [bench...]     benches: task_overhead struct_layout fem_assembly
#
# Environment: THREADS (thread counts, default "1 2"), REPEATS (default 9),
# TASKFLOW_DIR (Taskflow source tree, a peer of task_overhead; skipped
# without it), JOBS (build jobs, default 2).
# Run it on a quiet machine (nothing else compiling): each run records its
# load average and the report flags busy runs. Peers come from Debian:
#   apt-get install $(bash ci/debian-packages.sh benchmarks)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BUILD_DIR="${BUILD_DIR:-build-bench-report}"
THREADS="${THREADS:-1 2}"
REPEATS="${REPEATS:-9}"
JOBS="${JOBS:-2}"
all=(task_overhead struct_layout fem_assembly)
benches=("$@")
((${#benches[@]})) || benches=("${all[@]}")

# bench name -> ninja target, program path, arguments
target_of() {
  case "$1" in
    task_overhead) echo bench_task_overhead ;;
    struct_layout) echo tessera_bench_struct_layout ;;
    fem_assembly) echo bench_fem_assembly ;;
    *) echo "bench.sh: unknown benchmark '$1' (known: ${all[*]})" >&2; return 2 ;;
  esac
}
program_of() {
  case "$1" in
    task_overhead) echo "$BUILD_DIR/packages/tasking/benchmarks/bench_task_overhead" ;;
    struct_layout) echo "$BUILD_DIR/packages/core/benchmarks/tessera_bench_struct_layout" ;;
    fem_assembly) echo "$BUILD_DIR/packages/sparse/benchmarks/bench_fem_assembly" ;;
  esac
}
args_of() {  # args_of <bench> <threads>
  case "$1" in
    task_overhead | struct_layout | fem_assembly) echo "--repeats $REPEATS --tessera-num-threads=$2" ;;
  esac
}

extra=()
[[ -n "${TASKFLOW_DIR:-}" ]] && extra+=("-DTASKFLOW_DIR=$TASKFLOW_DIR")
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_BENCHMARKS=ON \
  -DTessera_ENABLE_TESTS=OFF -DTessera_ENABLE_EXAMPLES=OFF "${extra[@]}" >/dev/null
targets=()
for b in "${benches[@]}"; do targets+=("$(target_of "$b")"); done
cmake --build "$BUILD_DIR" --parallel "$JOBS" --target "${targets[@]}"

mkdir -p docs/perf
for b in "${benches[@]}"; do
  out="docs/perf/$b.jsonl"
  tmp="$(mktemp)"
  for t in $THREADS; do
    echo "---- $b at $t thread(s): load average $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2046
    "$(program_of "$b")" --json $(args_of "$b" "$t") | grep '^{' >>"$tmp"
  done
  mv "$tmp" "$out"
  echo "---- wrote $out"
done
python3 ci/perf_report.py
