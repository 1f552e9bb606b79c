#!/usr/bin/env bash
# Builds the file readers' libFuzzer harnesses with Clang (ASan + UBSan +
# coverage) and runs each on its seed corpus for a bounded time.
#
#   bash ci/fuzz.sh [seconds per target] [target...]   (default: 20 s each; targets:
#                                                       matrix_market snap binary_csr (graph's),
#                                                       sparse_matrix_market sparse_gmsh (sparse's))
#
# Fails (exit 1) when a fuzzer reports a finding: a crash, a sanitizer
# report, an exception other than the reader's own error type (graph::io_error,
# sparse_error) or one that does not name the file, a chunk-size-dependent
# result, a returned matrix or mesh that breaks its invariants, an allocation
# above MALLOC_MB, or an input running past 10 s (each harness's comment
# lists its checks). The failing input is saved as
# $FUZZ_BUILD/findings/<target>-crash-* (or leak-, timeout-, oom-); keep it
# as a regression test (packages/graph/tests/fuzz_regressions/, or a case
# of the sparse package's reader tests).
#
# Nothing is written into the source tree: the growing corpus lives in
# $FUZZ_BUILD/corpus/<target> (reused by the next run); the seeds
# (examples/data, packages/graph/fuzz/seeds/<target>, the regression inputs;
# ci/fuzz_seeds.sh) are only read.
#
# Environment: FUZZ_BUILD (default build-fuzz), JOBS (build jobs, default 2),
# MAX_LEN (largest input in bytes, default 8192), MALLOC_MB (largest single
# allocation, default 512), CXX_CLANG (default clang++-14 or clang++).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]} == 0)) && targets=(matrix_market snap binary_csr sparse_matrix_market sparse_gmsh)
build="${FUZZ_BUILD:-build-fuzz}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
jobs="${JOBS:-2}"
max_len="${MAX_LEN:-8192}"
malloc_mb="${MALLOC_MB:-512}"
cxx="${CXX_CLANG:-$(command -v clang++-14 || command -v clang++ || true)}"
if [[ -z "$cxx" ]]; then
  echo "fuzz: no clang++ found (apt-get install clang libclang-rt-14-dev)"
  exit 1
fi

x() {
  echo "+ $*"
  "$@"
}

# Instrument everything (core headers and the graph library too), Serial
# back-end only: the chunked parallel pass runs the same code on one thread,
# and the fuzzers pick chunk sizes that cut lines everywhere. Sparse is
# enabled for its harnesses, which compile the readers' sources themselves
# (packages/sparse/fuzz/CMakeLists.txt): the sparse library is not built.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
x cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_COMPILER=$cxx" \
  -DTessera_ENABLE_WERROR=ON -DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_GRAPH=ON -DTessera_ENABLE_SPARSE=ON \
  -DTessera_ENABLE_THREADS=OFF -DTessera_ENABLE_OPENMP=OFF -DTessera_ENABLE_TESTS=OFF -DTessera_ENABLE_EXAMPLES=OFF \
  -DTessera_ENABLE_FUZZING=ON "-DCMAKE_CXX_FLAGS=$flags" || exit 1
# shellcheck source=ci/fuzz_seeds.sh
source ci/fuzz_seeds.sh  # package_of, executable_of, dictionary_of, seeds_of
build_targets=()
for t in "${targets[@]}"; do build_targets+=("$(basename "$(executable_of "$t")")"); done
x cmake --build "$build" --parallel "$jobs" --target "${build_targets[@]}" || exit 1

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  findings="$build/findings"
  mkdir -p "$corpus" "$findings"
  dict=()
  d="$(dictionary_of "$t")"
  [[ -n "$d" ]] && dict=("-dict=$d")
  echo
  echo "======== fuzz $t: ${seconds} s ========"
  # The first corpus folder is the only one libFuzzer writes to.
  # shellcheck disable=SC2046
  x "$build/$(executable_of "$t")" "$corpus" $(seeds_of "$t") "${dict[@]}" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb="$malloc_mb" \
    -artifact_prefix="$findings/$t-" -print_final_stats=1 -close_fd_mask=1
  rc=$?
  if ((rc != 0)); then
    echo "fuzz $t: FINDING (exit $rc); input(s): $(ls "$findings"/"$t"-* 2>/dev/null | tr '\n' ' ')"
    status=1
  else
    echo "fuzz $t: no finding in ${seconds} s; corpus $(find "$corpus" -type f | wc -l) inputs"
  fi
done
exit $status
