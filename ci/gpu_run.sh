#!/usr/bin/env bash
# The GPU side of ci/gpu.sh, run from the unpacked archive on the GPU machine.
# Arguments: a gtest pattern (default Cuda|Gpu), seconds per case (120), then
# arguments for tessera_bench_cuda. BENCH=0 skips the benchmarks; BENCH=first
# runs them before the tests. The benchmarks: tessera_bench_cuda (CUDA_BENCH=0
# leaves it out), tessera_bench_task_cuda (TASK_BENCH=0 leaves it out; its
# arguments in TASK_BENCH_ARGS, its time limit TASK_BENCH_SECONDS, default 200), then tessera_bench_graph_cuda (GRAPH_BENCH=0
# leaves it out; its arguments in GRAPH_BENCH_ARGS, e.g. --quick), then
# tessera-solve factoring lap3d:100 (teams for the small fronts, then the
# library for all) and stokes:30 (LDL^T) on Cuda (SOLVE=0
# leaves it out; output in solve_cuda.txt), and, when SPARSE_BENCH=1,
# bench_cholesky --gpu (SPARSE_BENCH_ARGS; output in bench_sparse_cuda.txt). Each one's
# exit status is in the summary: a nonzero one means an answer check failed or
# it crashed. The benchmarks run with --json: their JSON lines come back as
# cuda.jsonl, task_cuda.jsonl, graph_cuda.jsonl and sparse_cholesky_gpu.jsonl,
# for docs/perf/.
#
# Time: a lent GPU gives a session about 15 minutes, its start included, so
# the run keeps to BUDGET seconds (default 540): every phase (the cases, each
# benchmark, the solves) has its own cap, cut further to what is left of the
# budget, and one that cannot get 20 s is skipped (named in the summary).
# After each phase the logs so far are packed into gpu-logs.tar.gz ($OUT/
# on a device machine), so a run stopped from outside still returns them.
# On an H200 (2026-11-29) the 339 cases took 116 s at 12 at a time, the core
# benchmark 50 s, the graph one 54 s (--max-seconds 70 --repeats 5) and
# lap3d:100 on Cuda about 40 s, load and analysis included.
set -u
T0=$SECONDS
BUDGET=${BUDGET:-540}
# cap SECONDS: the seconds a phase may take, at most what the budget has left
# (less 15 s for packing the logs); 0 when that is under 20 s.
cap() {
  local left=$(( BUDGET - (SECONDS - T0) - 15 ))
  local c=$(( $1 < left ? $1 : left ))
  [ "$c" -ge 20 ] && echo "$c" || echo 0
}
pat=${1:-Cuda|Gpu}
limit=${2:-120}
shift $(( $# > 2 ? 2 : $# ))
# The packed libraries first; cuBLAS (for tessera_bench_cuda's gemv peer)
# from the machine's CUDA toolkit, when it has one.
cuda_libs=
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [ -d "$d" ] && cuda_libs=$cuda_libs:$d; done
# cuSPARSE and nvJitLink (tessera_bench_graph_cuda's PageRank peer) and
# cuSOLVER (the sparse programs: Cholesky on Cuda) are not packed either;
# without a toolkit copy, Python wheels' (nvidia-cusparse, nvidia-cusolver,
# nvidia-cublas) will do.
if ! ls /usr/local/cuda/lib64/libcusparse.so.* /usr/local/cuda/lib64/libcusolver.so.* >/dev/null 2>&1; then
  for lib in libcusparse.so.12 libnvJitLink.so.13 libcusolver.so.12 libcublas.so.13 libcublasLt.so.13; do
    f=$(find / -xdev -name "$lib" -path '*nvidia*' 2>/dev/null | head -1)
    [ -n "$f" ] && cuda_libs=$cuda_libs:$(dirname "$f")
  done
fi
export LD_LIBRARY_PATH=$PWD/lib${cuda_libs}:${LD_LIBRARY_PATH:-}
# The packed OpenBLAS (Debian's 0.3.21, built for every x86 kernel set) does
# not recognize the GPU machine's "Intel(R) Xeon(R) Processor" and falls back
# to its Prescott kernels: dgemm at 84 GFLOP/s on 16 cores there
# (2026-11-29, the meta line's blas_core), so CHOLMOD and the host BLAS, the
# sparse benchmark's host peers, ran far below their speed. Name the kernel
# set by the CPU's flags unless the caller did; the meta lines say which ran.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; else export OPENBLAS_CORETYPE=Haswell; fi
fi
src=$(cat source-root)
mkdir -p "$src"
for d in $(cd tree && find . -mindepth 1 -maxdepth 3 -type d); do
  [ -e "$src/$d" ] || { mkdir -p "$(dirname "$src/$d")"; ln -s "$PWD/tree/$d" "$src/$d"; }
done
L=$PWD/logs
mkdir -p "$L/cases"
# Everything is written under logs/; save_logs packs it into gpu-logs.tar.gz
# after every phase, beside results.txt and bench_status.txt ($OUT on a lent
# device machine, which returns at most 8 files: so three, not one per
# benchmark), so a run cut short still returns what it did.
R=$L
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
echo "GPU: ${gpu:-none found by nvidia-smi}; commit $(cat commit); $(date -u +%Y-%m-%dT%H:%MZ)" | tee "$L/machine.txt"
cpus=$(nproc)
# Three in four CPUs, at most 12 (12 on the H200 machine: its 339 cases in 116 s).
jobs=${JOBS:-$(( cpus * 3 / 4 > 12 ? 12 : (cpus * 3 / 4 > 0 ? cpus * 3 / 4 : 1) ))}

: > "$R/bench_status.txt"
# Line-buffered output through the pipes to tee: a benchmark that crashes or
# is killed by its timeout still leaves every line it printed.
lines=""
command -v stdbuf >/dev/null 2>&1 && lines="stdbuf -oL -eL"
# run_bench TEXT JSONL SECONDS PROGRAM [ARGS...]: the program with --json under
# a time limit; all it prints goes to $R/TEXT, its JSON lines to $R/JSONL,
# ready to be copied into docs/perf/ (python3 ci/perf_report.py then makes
# docs/performance.md's tables and goal rows from them).
run_bench() {
  local text=$1 jsonl=$2 secs
  secs=$(cap "$3")
  shift 3
  if [ "$secs" = 0 ]; then
    echo "$(basename "$1"): skipped, the budget of ${BUDGET} s is spent" >> "$R/bench_status.txt"
    return
  fi
  echo "== $* --json (at most ${secs} s)"
  timeout "$secs" $lines "$@" --json 2>&1 | tee "$R/$text"
  local rc=${PIPESTATUS[0]}
  grep '^{' "$R/$text" > "$R/$jsonl"
  echo "$(basename "$1"): exit $rc$([ "$rc" = 124 ] && echo " (cut at ${secs} s)") (JSON lines: $jsonl)" >> "$R/bench_status.txt"
  save_logs
}
# The logs so far, where they come back (again after every phase).
save_logs() {
  local out=${OUT:-$PWD/..}
  tar czf "$out/gpu-logs.tar.gz" -C "$L" . 2>/dev/null
  cp "$L/results.txt" "$L/bench_status.txt" "$out/" 2>/dev/null
  return 0
}
bench() {
  if [ "${CUDA_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_cuda.txt cuda.jsonl 120 ./tessera_bench_cuda ${BENCH_ARGS:-} "$@"
  fi
  # The scan diagnostic (gpu-core: parallel_scan at 0.2 of CUB): the library's
  # scan rebuilt with one design choice switched at a time. Its lines go to
  # scan_probe.jsonl, not into docs/perf/ (SCAN_PROBE=0 leaves it out).
  if [ "${SCAN_PROBE:-1}" != 0 ] && [ "${CUDA_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_cuda ]; then
    run_bench scan_probe.txt scan_probe.jsonl 45 ./tessera_bench_cuda --only scan-probe --repeats 5
  fi
  # The task driver's benchmark has its own time limit (TASK_BENCH_SECONDS),
  # so that a stalled DAG cannot eat the run. On the H200 (2026-11-30) the
  # rows up to the empty Cholesky DAG took 100 s with 7 repeats, 60 of them
  # the one-spawner fan-out; the program now runs the fan-out last, so a run
  # cut at the limit still has fib and both Cholesky DAGs.
  if [ "${TASK_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_task_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_task_cuda.txt task_cuda.jsonl "${TASK_BENCH_SECONDS:-200}" ./tessera_bench_task_cuda ${TASK_BENCH_ARGS:-}
  fi
  # The graph benchmark sizes its cases to finish in under 3 minutes on an
  # H100 (54 s on an H200 with --max-seconds 70 --repeats 5); 150 s at most.
  if [ "${GRAPH_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_graph_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_graph_cuda.txt graph_cuda.jsonl 150 ./tessera_bench_graph_cuda ${GRAPH_BENCH_ARGS:-}
  fi
  # Graph job sets fused against one after another, on the GPU (gpu-graph's
  # job-set table; GRAPH_JOBS_BENCH=0 leaves it out).
  if [ "${GRAPH_JOBS_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_graph_jobs_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_graph_jobs_cuda.txt graph_jobs_cuda.jsonl 90 ./tessera_bench_graph_jobs_cuda --repeats 5 ${GRAPH_JOBS_BENCH_ARGS:-}
  fi
  # Finite-element assembly on the GPU (gpu-graph's assembly table;
  # FEM_BENCH=0 leaves it out).
  if [ "${FEM_BENCH:-1}" != 0 ] && [ -x ./bench_fem_assembly_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_fem_assembly_cuda.txt fem_assembly_cuda.jsonl "${FEM_BENCH_SECONDS:-90}" ./bench_fem_assembly_cuda --repeats 5 ${FEM_BENCH_ARGS:-}
  fi
  # miniTri's direct method on the GPU against the host's cores (gpu-graph's
  # miniTri table; MINITRI_BENCH=0 leaves it out).
  if [ "${MINITRI_BENCH:-1}" != 0 ] && [ -x ./tessera_bench_minitri_cuda ]; then
    # shellcheck disable=SC2086
    run_bench bench_minitri_cuda.txt minitri_cuda.jsonl 90 ./tessera_bench_minitri_cuda --repeats 5 ${MINITRI_BENCH_ARGS:-}
  fi
  # Sparse Cholesky on the GPU against Tessera, CHOLMOD on this machine's
  # cores and cuSOLVER's csrchol (gpu-sparse part 6): opt-in (SPARSE_BENCH=1),
  # as it takes minutes (lap3d:100 has a million unknowns; its time limit
  # SPARSE_BENCH_SECONDS, default 300); SPARSE_BENCH_ARGS=--quick for a short
  # first try, --ablations for the rows that attribute Tessera's time.
  # --warmup 0: each contender's warm-up is the factorization that checks
  # its residual, before the repeats; a second one would add a minute to
  # CHOLMOD's lap3d:100 on these cores. --slow-seconds 30: a contender whose
  # warm-up took longer is timed by it alone (four 100-second runs of a
  # slow peer would spend the budget); --skip-seconds 150: one predicted
  # to take longer on the next case is not run. Planned on this project's
  # 2-core machine (2026-12-04): lap3d:100's analysis 8.5 s per contender
  # (METIS, serial), Tessera's host factorization 75 s at 2 threads, so
  # about 10-20 s on the GPU machine's 16 cores for it and for CHOLMOD.
  if [ "${SPARSE_BENCH:-0}" != 0 ] && [ -x ./bench_cholesky ]; then
    # shellcheck disable=SC2086
    run_bench bench_sparse_cuda.txt sparse_cholesky_gpu.jsonl "${SPARSE_BENCH_SECONDS:-300}" ./bench_cholesky --gpu --threads "$(nproc)" \
      --repeats 3 --warmup 0 --slow-seconds 30 --skip-seconds 150 ${SPARSE_BENCH_ARGS:-}
  fi
  # The sparse CLI factoring on the GPU (gpu-sparse's "done when": lap3d:100
  # on Cuda, backward error <= 1e-12 in the JSON), the same with the solves'
  # teams at the factorization's 128 rows (what solving mid-sized fronts by
  # teams saves: compare solve_seconds; every front through the library was
  # measured on 2026-11-30: 6.65 s factorize, 7.49 s solve), the factorization's
  # teams up to 128 rows, the default until 2026-12-04 (512 since: the fronts
  # of 129 to 512 rows are 7,439 of lap3d:100's fronts, about 22,000 library
  # calls, for 0.2% of its flops; 0.730 s against 0.479 s on an H200), the
  # library fronts over 4 streams (Options::dense_streams: compare
  # factorize_seconds and solve_seconds), and LDL^T's inertia.
  if [ "${SOLVE:-1}" != 0 ] && [ -x ./tessera-solve ]; then
    # --repeat 3: the median factorization leaves out first-use costs (the
    # library streams' handles and workspaces are made by the first one).
    # SOLVE_ARGS: other argument sets, separated by '|', instead of these.
    local solves=("lap3d:100 --space cuda --repeat 3 --json" "lap3d:100 --space cuda --solve-small-front-rows 128 --repeat 3 --json"
      "lap3d:100 --space cuda --small-front-rows 128 --repeat 3 --json"
      "lap3d:100 --space cuda --dense-streams 4 --repeat 3 --json" "stokes:30:1e-12 --space cuda --factor ldlt --json")
    [ -n "${SOLVE_ARGS:-}" ] && IFS='|' read -r -a solves <<<"$SOLVE_ARGS"
    for args in "${solves[@]}"; do
      local secs
      secs=$(cap 120)
      if [ "$secs" = 0 ]; then
        echo "tessera-solve $args: skipped, the budget of ${BUDGET} s is spent" >> "$R/bench_status.txt"
        continue
      fi
      echo "== tessera-solve $args (at most ${secs} s)"
      timeout "$secs" $lines ./tessera-solve $args 2>&1 | tee -a "$R/solve_cuda.txt"
      echo "tessera-solve $args: exit ${PIPESTATUS[0]}" >> "$R/bench_status.txt"
      save_logs
    done
  fi
  return 0
}
[ "${BENCH:-1}" = first ] && bench "$@"

: > "$L/cases.txt"
for t in bin/*; do
  "$t" --gtest_list_tests 2>/dev/null |
    awk -v b="$t" '/^[^ ]/{s=$1} /^  /{print b, s $1}' | grep -E "$pat" | grep -v 'DISABLED_' >> "$L/cases.txt" || true
done
echo "cases: $(wc -l < "$L/cases.txt"), $jobs at a time, ${limit} s each"
run_case() {
  b=$1; n=$2; f=$L/cases/$(basename "$b").$(echo "$n" | tr '/' '_').log
  start=$(date +%s%N)
  # One host thread per case (the pack enables Threads for the benchmarks'
  # host columns; the cases are Cuda's, run 12 at a time): CASE_THREADS.
  TESSERA_NUM_THREADS=${CASE_THREADS:-1} timeout "$limit" "$b" --gtest_filter="$n" > "$f" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ $rc -eq 124 ]; then r=TIMEOUT; elif grep -q "\[  SKIPPED \] 1" "$f"; then r=SKIP
  elif [ $rc -eq 0 ]; then r=PASS; else r=FAIL; fi
  printf '%s %s %s %d.%ds\n' "$r" "$(basename "$b")" "$n" $((ms / 1000)) $((ms % 1000 / 100))
}
export -f run_case
export L limit CASE_THREADS
s=$SECONDS
# -r: no case matched the pattern (a benchmark-only run) runs nothing. The
# cases together get TESTS_SECONDS (default 240) of the budget; those not
# started by then have no line in results.txt (the summary counts them).
tsecs=$(cap "${TESTS_SECONDS:-240}")
if [ "$tsecs" = 0 ]; then
  : > "$R/results.txt"
else
  timeout "$tsecs" xargs -r -P "$jobs" -L 1 bash -c 'run_case "$0" "$1"' < "$L/cases.txt" > "$R/results.txt" 2>&1
fi
echo "cases ran in $((SECONDS - s)) s; $(wc -l < "$R/results.txt") of $(wc -l < "$L/cases.txt") have a result"
save_logs
[ "${BENCH:-1}" = 1 ] && bench "$@"
save_logs
echo "logs: ${OUT:-$PWD/..}/gpu-logs.tar.gz"
# The benchmarks' rows in short (the tables themselves: docs/performance.md,
# once the .jsonl files are in docs/perf/).
if command -v python3 >/dev/null 2>&1 && ls "$R"/*.jsonl >/dev/null 2>&1; then
  echo "== benchmark rows: median, and the reference's time / this row's (above 1: this row faster)"
  python3 - "$R"/*.jsonl <<'PY'
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if "contender" in o:
            ratio = f"{o['ratio_median']:.3g} vs {o['reference'][:28]}" if "ratio_median" in o else ""
            print(f"{o['bench'][:12]:12} | {o['case'][:34]:34} | {o['contender'][:34]:34} | "
                  f"{o['median']:.4g} {o['unit']} | {ratio}")
PY
fi
echo "== not passed:"
grep -vE '^(PASS|SKIP) ' "$R/results.txt" | head -60
echo "== skipped:"
grep -E '^SKIP ' "$R/results.txt" | head -20
echo "== benchmarks:"
cat "$R/bench_status.txt"
echo "== summary ($gpu; $((SECONDS - T0)) s of the ${BUDGET} s budget)"
awk '{print $1}' "$R/results.txt" | sort | uniq -c
missing=$(( $(wc -l < "$L/cases.txt") - $(wc -l < "$R/results.txt") ))
[ "$missing" -gt 0 ] && echo "$missing cases not run (TESTS_SECONDS or the budget ran out)"
true
