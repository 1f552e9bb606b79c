#!/usr/bin/env bash
# Which lines of the graph readers the fuzz corpus reaches: builds the
# harnesses with Clang's source-based coverage (no sanitizers), runs each over
# its corpus and seeds once (-runs=0), and prints llvm-cov's summary of
# packages/graph/src and every reader line no input executed.
#
#   bash ci/fuzz_coverage.sh [target...]   (default: matrix_market snap binary_csr)
#
# Why: libFuzzer's "cov:" count can stop growing because the fuzzer cannot
# reach a branch (a header word it never combines, an option the harness
# never sets), not because nothing is left. The lines listed here are what to
# seed or what the harness must exercise next; the rest of the list should be
# failures the harness cannot provoke (open/stat/read errors on a memory file).
#
# Environment: FUZZ_BUILD (the fuzzing build whose corpus is read, default
# build-fuzz), COV_BUILD (default build-fuzz-cov), JOBS (default 2),
# CXX_CLANG (default clang++-14 or clang++).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
targets=("$@")
((${#targets[@]} == 0)) && targets=(matrix_market snap binary_csr)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
fuzz_build="$(abs "${FUZZ_BUILD:-build-fuzz}")"
cov_build="$(abs "${COV_BUILD:-build-fuzz-cov}")"
jobs="${JOBS:-2}"
cxx="${CXX_CLANG:-$(command -v clang++-14 || command -v clang++ || true)}"
profdata="$(command -v llvm-profdata-14 || command -v llvm-profdata || true)"
llvm_cov="$(command -v llvm-cov-14 || command -v llvm-cov || true)"
if [[ -z "$cxx" || -z "$profdata" || -z "$llvm_cov" ]]; then
  echo "fuzz_coverage: needs clang++, llvm-profdata and llvm-cov (apt-get install clang llvm)"
  exit 1
fi

cmake -S "$root" -B "$cov_build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_COMPILER=$cxx" \
  -DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_GRAPH=ON -DTessera_ENABLE_THREADS=OFF -DTessera_ENABLE_OPENMP=OFF \
  -DTessera_ENABLE_TESTS=OFF -DTessera_ENABLE_EXAMPLES=OFF -DTessera_ENABLE_FUZZING=ON \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fprofile-instr-generate -fcoverage-mapping" \
  -DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("graph_fuzz_$t"); done
cmake --build "$cov_build" --parallel "$jobs" --target "${build_targets[@]}" >/dev/null

# The same inputs ci/fuzz.sh reads, plus the grown corpus.
# shellcheck source=ci/fuzz_seeds.sh
source ci/fuzz_seeds.sh  # seeds_of
inputs_of() {
  seeds_of "$1"
  [[ -d "$fuzz_build/corpus/$1" ]] && echo "$fuzz_build/corpus/$1"
  return 0
}

out="$cov_build/coverage"
mkdir -p "$out"
for t in "${targets[@]}"; do
  exe="$cov_build/packages/graph/fuzz/graph_fuzz_$t"
  rm -f "$out/$t".prof*
  # shellcheck disable=SC2046
  LLVM_PROFILE_FILE="$out/$t.profraw" "$exe" -runs=0 $(inputs_of "$t") >"$out/$t.log" 2>&1
  "$profdata" merge -o "$out/$t.profdata" "$out/$t.profraw"
  echo "======== $t: $(grep -aoE 'files: [0-9]+' "$out/$t.log" | head -1 | cut -d' ' -f2) inputs ========"
  "$llvm_cov" report "$exe" "-instr-profile=$out/$t.profdata" packages/graph/src | sed -n '1,2p;/^[a-z_]*\.[ch]pp /p;/^TOTAL/p'
  echo "lines of the readers no input executed:"
  # Writers and the by-extension dispatcher in the same files are not readers: skipped.
  "$llvm_cov" show "$exe" "-instr-profile=$out/$t.profdata" -use-color=0 packages/graph/src |
    awk '/^\/.*:$/ { file = $0; sub(/^.*\//, "", file); sub(/:$/, "", file); skip = 0; next }
         match($0, /^ *[0-9]+\|[^|]*\|/) {
           code = substr($0, RLENGTH + 1); split($0, a, "|"); line = a[1]; count = a[2]
           gsub(/ /, "", line); gsub(/ /, "", count)
           if (code ~ /^[A-Za-z].*\(/) skip = code ~ /(write_matrix_market|write_snap|read_edge_list)\(/
           if (count == "0" && !skip) print "  " file ":" line ":" code
         }' |
    grep -E "^  (read_matrix_market|read_snap|text_chunks|io)\.[ch]pp" |
    if [[ "$t" == binary_csr ]]; then grep "io\.cpp"; else grep -v "io\.cpp"; fi || true
done
