#!/usr/bin/env bash
# The GPU side of ci/gpu.sh, run from the unpacked archive on the GPU machine.
# Arguments: a gtest pattern (default Cuda|Gpu), seconds per case (120), then
# arguments for tessera_bench_cuda (TASK_BENCH_ARGS: for
# tessera_bench_task_cuda). BENCH=0 skips the benchmarks; BENCH=first runs
# them before the tests.
set -u
pat=${1:-Cuda|Gpu}
limit=${2:-120}
shift $(( $# > 2 ? 2 : $# ))
# The packed libraries first; cuBLAS (for tessera_bench_cuda's gemv peer)
# from the machine's CUDA toolkit, when it has one.
cuda_libs=
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [ -d "$d" ] && cuda_libs=$cuda_libs:$d; done
export LD_LIBRARY_PATH=$PWD/lib${cuda_libs}:${LD_LIBRARY_PATH:-}
src=$(cat source-root)
mkdir -p "$src"
for d in $(cd tree && find . -mindepth 1 -maxdepth 3 -type d); do
  [ -e "$src/$d" ] || { mkdir -p "$(dirname "$src/$d")"; ln -s "$PWD/tree/$d" "$src/$d"; }
done
L=$PWD/logs
mkdir -p "$L/cases"
# Results and the benchmark's table are written where they come back even if
# the run is cut short ($OUT on a lent device machine).
R=${OUT:-$L}
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
echo "GPU: ${gpu:-none found by nvidia-smi}; commit $(cat commit); $(date -u +%Y-%m-%dT%H:%MZ)" | tee "$L/machine.txt"
cpus=$(nproc)
jobs=${JOBS:-$(( cpus / 2 > 12 ? 12 : (cpus / 2 > 0 ? cpus / 2 : 1) ))}

# tessera_bench_cuda (core), then tessera_bench_task_cuda (the task driver,
# TASK_BENCH_ARGS; its own time limit, so a stalled DAG cannot eat the run).
bench() {
  [ "${BENCH:-1}" = 0 ] && return 0
  if [ -x ./tessera_bench_cuda ]; then
    echo "== tessera_bench_cuda ${BENCH_ARGS:-} $*"
    timeout 600 ./tessera_bench_cuda ${BENCH_ARGS:-} "$@" 2>&1 | tee "$R/bench_cuda.txt"
  fi
  if [ -x ./tessera_bench_task_cuda ]; then
    echo "== tessera_bench_task_cuda ${TASK_BENCH_ARGS:-}"
    timeout 300 ./tessera_bench_task_cuda ${TASK_BENCH_ARGS:-} 2>&1 | tee "$R/bench_task_cuda.txt"
  fi
  return 0
}
[ "${BENCH:-1}" = first ] && bench "$@"

: > "$L/cases.txt"
for t in bin/*; do
  "$t" --gtest_list_tests 2>/dev/null |
    awk -v b="$t" '/^[^ ]/{s=$1} /^  /{print b, s $1}' | grep -E "$pat" >> "$L/cases.txt" || true
done
echo "cases: $(wc -l < "$L/cases.txt"), $jobs at a time, ${limit} s each"
run_case() {
  b=$1; n=$2; f=$L/cases/$(basename "$b").$(echo "$n" | tr '/' '_').log
  start=$(date +%s%N)
  timeout "$limit" "$b" --gtest_filter="$n" > "$f" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ $rc -eq 124 ]; then r=TIMEOUT; elif grep -q "\[  SKIPPED \] 1" "$f"; then r=SKIP
  elif [ $rc -eq 0 ]; then r=PASS; else r=FAIL; fi
  printf '%s %s %s %d.%ds\n' "$r" "$(basename "$b")" "$n" $((ms / 1000)) $((ms % 1000 / 100))
}
export -f run_case
export L limit
s=$SECONDS
xargs -P "$jobs" -L 1 bash -c 'run_case "$0" "$1"' < "$L/cases.txt" > "$R/results.txt" 2>&1
[ "$R" = "$L" ] || cp "$R/results.txt" "$R/bench_cuda.txt" "$R/bench_task_cuda.txt" "$L/" 2>/dev/null
echo "cases ran in $((SECONDS - s)) s"
[ "${BENCH:-1}" = 1 ] && bench "$@"

out=${OUT:-$PWD/..}
tar czf "$out/gpu-logs.tar.gz" -C "$L" . && echo "logs: $out/gpu-logs.tar.gz"
echo "== not passed:"
grep -vE '^(PASS|SKIP) ' "$R/results.txt" | head -60
echo "== skipped:"
grep -E '^SKIP ' "$R/results.txt" | head -20
echo "== summary ($gpu)"
awk '{print $1}' "$R/results.txt" | sort | uniq -c
