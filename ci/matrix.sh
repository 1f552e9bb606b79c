#!/usr/bin/env bash
# Tessera back-end matrix, each row in its own build directory under $BUILD_ROOT.
#
#   bash ci/matrix.sh [row...]      (no row = all rows except the *-quick ones)
#
# rows:
#   release     (a) Serial+Threads+OpenMP, Release, -Werror, every test (slow ones included)
#   asan        (b) Debug, Tessera_ENABLE_BOUNDS_CHECK, AddressSanitizer+UndefinedBehaviorSanitizer (LeakSanitizer
#                   on), every package's tests but the slow ones; Clang 14, Serial+Threads (OpenMP off;
#                   graph, sparse, analytics and dist: Threads alone)
#   asan-quick  (b) the same on the core package only
#   tsan        (c) ThreadSanitizer (Serial+Threads; OpenMP off: libgomp is not instrumented), tests labelled
#                   "concurrency" of every package (only their executables are built)
#   tsan-runtime (c) the same over core, mempool and tasking, the packages with the lock-free protocols
#   cuda        (d) Tessera_ENABLE_CUDA=ON with nvcc: every package's CUDA code, tests and headers built; tests run
#                   (CUDA tests skip themselves without a GPU)
#   cuda-quick  (d) the core library and one core test built with nvcc, and run;
#               the CUDA task driver's register/spill check
#   chain       (e) package by package: core installed alone, then each package configured standalone
#                   against the prefix, built, tested, installed, up the dependency chain
#   chain-install (e) the same chain, each package built (library; of the tools only tessera-minitri) and
#                   installed, tests not built (the README test command runs them in the super-build)
#   subset      (f) super-build with only core and graph (only core until graph exists), its tests
#   clang       Clang 14, Release, -Werror, build + tests but the slow ones
#   fuzz        the file readers' libFuzzer harnesses, graph's and sparse's (Clang 14, ASan+UBSan), FUZZ_SECONDS (default 20) per
#               reader on the seed corpus (bash ci/fuzz.sh); fails on any finding; the corpus stays in the build folder
#   format      clang-format check (reports every file; fails only for files in ci/format-enforced.txt)
#
# Environment: BUILD_ROOT (default build-ci), JOBS (build jobs, default 2),
# CTEST_JOBS (default 1; the asan row: ASAN_CTEST_JOBS, default 3), CXX_CLANG (the clang and asan
# rows; default clang++-14, else clang++), CUDA_ARCHS (default 90),
# NVCC (default /usr/local/cuda/bin/nvcc),
# TESSERA_CI_INSTALL_DEPS=1 to apt-get install what rows need (as root).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BUILD_ROOT="${BUILD_ROOT:-build-ci}"
case "$BUILD_ROOT" in /*) ;; *) BUILD_ROOT="$root/$BUILD_ROOT" ;; esac
JOBS="${JOBS:-2}"
CTEST_JOBS="${CTEST_JOBS:-1}"
CUDA_ARCHS="${CUDA_ARCHS:-90}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
all_rows=(release asan tsan cuda chain subset clang fuzz format)

present_packages() {
  for p in core mempool tasking graph sparse analytics dist kokkos_compat; do
    [[ -f "packages/$p/CMakeLists.txt" ]] || continue
    # dist exists where MPI does (as the super-build decides).
    if [[ "$p" == dist ]] && ! command -v mpicxx >/dev/null; then continue; fi
    echo "$p"
  done
}

# Runs a command, echoing it first.
x() {
  echo "+ $*"
  "$@"
}

configure() {  # configure <dir> <cmake args...>
  local dir="$1"; shift
  x cmake -S "$root" -B "$dir" -G Ninja -DTessera_ENABLE_WERROR=ON "$@"
}

ctest_run() {  # ctest_run <dir> <ctest args...>
  local dir="$1"; shift
  x ctest --test-dir "$dir" --output-on-failure -j "$CTEST_JOBS" "$@"
}

# LLVM's linker where it is installed (" -fuse-ld=lld", else nothing): an
# instrumented test program with debug information links in 0.7 s against
# GNU ld's 2.3 s (graph_test_algorithms, ASan).
fast_linker() {
  if command -v ld.lld >/dev/null; then echo " -fuse-ld=lld"; fi
}

sanitizer_flags() {  # sanitizer_flags <sanitizers> [debug-information option, default -g]
  echo "-fsanitize=$1 -fno-omit-frame-pointer -fno-sanitize-recover=all ${2:--g}"
}

row_release() {
  local b="$BUILD_ROOT/release"
  configure "$b" -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_TESTS=ON -DTessera_ENABLE_EXAMPLES=ON &&
    x cmake --build "$b" --parallel "$JOBS" &&
    ctest_run "$b" --no-tests=error
}

# The Clang the clang and asan rows build with (as ci/fuzz.sh finds it):
# CXX_CLANG, else clang++-14, else clang++; empty when there is none.
clang_cxx() {
  echo "${CXX_CLANG:-$(command -v clang++-14 || command -v clang++ || true)}"
}

row_asan_common() {  # row_asan_common <dir> <extra cmake args...> [-- <extra ctest args...>]
  local b="$1"; shift
  local cmake_args=() ctest_args=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do cmake_args+=("$1"); shift; done
  [[ "${1:-}" == "--" ]] && shift
  ctest_args=("$@")
  # Line tables only (-g1): a report's stack still names every function,
  # file and line; the variables' debug information took a tenth of the
  # instrumented compile time (core's sort test: 21 s against 24 s, Clang 14).
  local f; f="$(sanitizer_flags address,undefined -g1)"
  local ld; ld="$(fast_linker)"
  # allocator_may_return_null: tests check that impossible allocations throw Tessera's error.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:allocator_may_return_null=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  configure "$b" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DTessera_ENABLE_BOUNDS_CHECK=ON \
    -DTessera_ENABLE_TESTS=ON "-DCMAKE_CXX_FLAGS=$f" "-DCMAKE_EXE_LINKER_FLAGS=$f$ld" "${cmake_args[@]}" &&
    x cmake --build "$b" --parallel "$JOBS" &&
    ctest_run "$b" --no-tests=error -LE slow "${ctest_args[@]}"
}
# The MPI suites run on 2 ranks here, where every exchange has a peer:
# 4 ASan ranks oversubscribing 2 cores take 40-70 s per suite, and one rank
# doing all the work at -O0 took the longest of all (pcg 51 s, graph
# algorithms 48 s; the seven 1-rank suites 160 CPU-s against 68 for their
# 2-rank runs). The README test runs all three rank counts.
# Built by Clang 14 where it is installed: it compiles the instrumented tests
# in half GCC's time (core's sort test: 42 s against 82 s), which is what
# lets this row and the README test fit a 2-core CI. Serial and Threads only
# for the same reason: the OpenMP back-end's own code is the thin pragma
# layer, and the algorithms it runs are the ones checked here on Threads.
row_asan() {
  local compiler=() cxx; cxx="$(clang_cxx)"
  if [[ -n "$cxx" ]]; then
    compiler=("-DCMAKE_CXX_COMPILER=$cxx")
  else
    echo "asan: no clang++ found (apt-get install clang libclang-rt-14-dev); building with the default compiler"
  fi
  # Three tests at a time on two cores (ASAN_CTEST_JOBS): an instrumented
  # test spends part of its time starting, mapping shadow memory and
  # waiting; the MPI suites hold as many processors as their ranks
  # (PROCESSORS). 1,082 tests: 496 s against 543 s two at a time (2026-11-28;
  # 807 tests two at a time: 440 s against 635 s one at a time).
  local CTEST_JOBS="${ASAN_CTEST_JOBS:-3}"
  # The algorithm packages' typed suites on Threads alone
  # (Tessera_TEST_WITHOUT_SERIAL_IN): they run the same code with one
  # worker or two, so their Serial half repeated the Threads half under
  # the sanitizer. Core, mempool and tasking keep Serial (its back-end and
  # its task driver are code of their own). 2026-12-03: the row's tests
  # 1,195 -> 1,009, ctest 583 -> 451 s.
  row_asan_common "$BUILD_ROOT/asan" "${compiler[@]}" -DTessera_ENABLE_OPENMP=OFF -DTessera_ENABLE_EXAMPLES=OFF \
    "-DTessera_TEST_WITHOUT_SERIAL_IN=graph;sparse;analytics;dist" -- -E "_np[14]\$"
}
row_asan-quick() {
  row_asan_common "$BUILD_ROOT/asan-quick" -DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_CORE=ON \
    -DTessera_ENABLE_EXAMPLES=OFF
}

row_tsan_common() {  # row_tsan_common <dir> <extra cmake args...>
  local b="$1"; shift
  # -Wno-tsan: GCC warns that TSan does not model std::atomic_thread_fence;
  # code that uses fences is still checked through its atomic operations.
  # Line tables only (-g1), as in the asan row: a report names function, file and line.
  local f; f="$(sanitizer_flags thread -g1) -Wno-tsan"
  local ld; ld="$(fast_linker)"
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  configure "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DTessera_ENABLE_OPENMP=OFF -DTessera_ENABLE_TESTS=ON -DTessera_ENABLE_EXAMPLES=OFF \
    "-DCMAKE_CXX_FLAGS=$f" "-DCMAKE_EXE_LINKER_FLAGS=$f$ld" "$@" || return 1
  # Only the executables of concurrency-labelled tests (and what they link).
  x cmake --build "$b" --parallel "$JOBS" --target tessera_concurrency_tests || return 1
  ctest_run "$b" --no-tests=error -L concurrency
}
row_tsan() { row_tsan_common "$BUILD_ROOT/tsan"; }
row_tsan-runtime() {
  row_tsan_common "$BUILD_ROOT/tsan-runtime" -DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_TASKING=ON
}

cuda_configure() {  # cuda_configure <dir> <extra cmake args...>
  local b="$1"; shift
  if [[ ! -x "$NVCC" ]] && ! command -v nvcc >/dev/null; then
    echo "cuda: no nvcc at $NVCC (set NVCC=/path/to/nvcc)"
    return 1
  fi
  [[ -x "$NVCC" ]] || NVCC="$(command -v nvcc)"
  configure "$b" -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_CUDA=ON "-DCMAKE_CUDA_COMPILER=$NVCC" \
    "-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHS" -DTessera_ENABLE_TESTS=ON "$@"
}
gpu_note() {
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "cuda: GPU present: $(nvidia-smi -L | head -1)"
  else
    echo "cuda: no usable GPU here: the Cuda test instantiations skip themselves"
  fi
}
row_cuda() {
  local b="$BUILD_ROOT/cuda"
  gpu_note
  # Header self-containment runs too (under nvcc, with the CUDA back-end
  # headers); the nested install/super-build checks are left to row (a).
  cuda_configure "$b" -DTessera_ENABLE_EXAMPLES=ON "-DCMAKE_INSTALL_PREFIX=$b/prefix" &&
    x cmake --build "$b" --parallel "$JOBS" &&
    ctest_run "$b" --no-tests=error -LE "install|superbuild" &&
    # A user's project against the CUDA install: the config enables CUDA
    # (Tessera's architectures, nvcc's C++20 flag) and the kernels run on the
    # GPU, or on the host with a notice where there is none.
    x cmake --install "$b" &&
    x cmake -S examples/core-view-reduce -B "$b/example" -G Ninja "-DCMAKE_PREFIX_PATH=$b/prefix" &&
    x cmake --build "$b/example" &&
    ctest_run "$b/example" --no-tests=error
}
row_cuda-quick() {
  local b="$BUILD_ROOT/cuda-quick"
  gpu_note
  # Tasking is configured too (nothing of it is built) for its ctest case
  # tasking_cuda_driver_resources: nvcc -Xptxas -v on the task driver, which
  # fails on spills or more than 168 registers (it spilled unseen for a
  # while when only the full cuda row ran it).
  cuda_configure "$b" -DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_CORE=ON -DTessera_ENABLE_TASKING=ON \
    -DTessera_ENABLE_EXAMPLES=OFF &&
    x cmake --build "$b" --parallel "$JOBS" --target tessera_core core_test_parallel_range &&
    x "$b/packages/core/tests/core_test_parallel_range" --gtest_brief=1 &&
    ctest_run "$b" --no-tests=error -R '^tasking_cuda_driver_resources$'
}

row_chain_common() {  # row_chain_common <ON|OFF: build and run each package's tests>
  local tests="$1"
  local prefix="$BUILD_ROOT/chain/prefix"
  rm -rf "$BUILD_ROOT/chain"
  local p
  for p in $(present_packages); do
    echo "---- chain: $p against $prefix"
    local b="$BUILD_ROOT/chain/$p"
    # chain-install builds one command-line tool, tessera-minitri (the
    # smallest), to check that a standalone package builds its tools on the
    # installed tools support; the others are the same sources the README
    # test's super-build compiles with the same flags.
    local tools=ON opt=()
    if [[ "$tests" == OFF && "$p" != analytics ]]; then tools=OFF; fi
    # Without tests the chain checks packaging only (each package configured
    # standalone, built, installed, found by the next): it compiles at -O0,
    # as the super-build's nested packaging checks do; the README test
    # compiles the same sources with the Release flags.
    if [[ "$tests" == OFF ]]; then opt=("-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"); fi
    x cmake -S "packages/$p" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_WERROR=ON \
      "-DTessera_ENABLE_TESTS=$tests" "-DTessera_ENABLE_TOOLS=$tools" "-DCMAKE_PREFIX_PATH=$prefix" \
      "-DCMAKE_INSTALL_PREFIX=$prefix" "${opt[@]}" || return 1
    x cmake --build "$b" --parallel "$JOBS" || return 1
    if [[ "$tests" == ON ]]; then ctest_run "$b" --no-tests=error || return 1; fi
    x cmake --install "$b" || return 1
  done
  # The installed chain must serve an outside project too: the core example.
  x cmake -S examples/core-view-reduce -B "$BUILD_ROOT/chain/example" -G Ninja "-DCMAKE_PREFIX_PATH=$prefix" &&
    x cmake --build "$BUILD_ROOT/chain/example" --parallel "$JOBS" &&
    ctest_run "$BUILD_ROOT/chain/example" --no-tests=error
}
row_chain() { row_chain_common ON; }
row_chain-install() { row_chain_common OFF; }

row_subset() {
  local b="$BUILD_ROOT/subset"
  local args=(-DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_CORE=ON)
  if [[ -f packages/graph/CMakeLists.txt ]]; then
    args=(-DTessera_ENABLE_ALL_PACKAGES=OFF -DTessera_ENABLE_GRAPH=ON)
  fi
  configure "$b" -DCMAKE_BUILD_TYPE=Release -DTessera_ENABLE_TESTS=ON -DTessera_ENABLE_EXAMPLES=ON "${args[@]}" &&
    x cmake --build "$b" --parallel "$JOBS" &&
    ctest_run "$b" --no-tests=error -LE slow &&
    x "$b/examples/tessera-demo/tessera-demo" --quick
}

row_clang() {
  local b="$BUILD_ROOT/clang"
  local cxx; cxx="$(clang_cxx)"
  if [[ -z "$cxx" ]]; then
    echo "clang: no clang++ found (apt-get install clang libomp-dev)"
    return 1
  fi
  configure "$b" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=$cxx" -DTessera_ENABLE_TESTS=ON \
    -DTessera_ENABLE_EXAMPLES=ON &&
    x cmake --build "$b" --parallel "$JOBS" &&
    ctest_run "$b" --no-tests=error -LE slow
}

row_fuzz() {
  FUZZ_BUILD="$BUILD_ROOT/fuzz" JOBS="$JOBS" bash ci/fuzz.sh "${FUZZ_SECONDS:-20}"
}

row_format() {
  local cf; cf="$(command -v clang-format-14 || command -v clang-format || true)"
  if [[ -z "$cf" ]]; then
    echo "format: clang-format not found (apt-get install clang-format)"
    return 1
  fi
  local enforced=() bad=0 enforced_bad=0 total=0 f
  if [[ -f ci/format-enforced.txt ]]; then
    mapfile -t enforced < <(grep -v '^\s*#' ci/format-enforced.txt | sed '/^\s*$/d')
  fi
  while IFS= read -r f; do
    total=$((total + 1))
    if ! "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
      bad=$((bad + 1))
      local mark=""
      local e
      for e in "${enforced[@]}"; do
        if [[ "$e" == "$f" ]]; then mark=" (ENFORCED)"; enforced_bad=$((enforced_bad + 1)); fi
      done
      echo "format: needs clang-format: $f$mark"
    fi
  done < <(git ls-files '*.hpp' '*.cpp' '*.h' '*.cu' '*.cuh')
  echo "format: $bad of $total files differ from .clang-format; $enforced_bad of them enforced (ci/format-enforced.txt)"
  ((enforced_bad == 0))
}

usage() {
  sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

rows=("$@")
if ((${#rows[@]} == 0)); then rows=("${all_rows[@]}"); fi
for r in "${rows[@]}"; do
  case "$r" in
    -h|--help) usage; exit 0 ;;
    a) r=release ;; b) r=asan ;; c) r=tsan ;; d) r=cuda ;; e) r=chain ;; f) r=subset ;;
  esac
  if ! declare -F "row_$r" >/dev/null; then
    echo "matrix.sh: unknown row '$r'" >&2
    usage >&2
    exit 2
  fi
done

if [[ "${TESSERA_CI_INSTALL_DEPS:-0}" == 1 ]]; then
  extras=()
  for r in "${rows[@]}"; do
    case "$r" in format) extras+=(format) ;; clang) extras+=(clang) ;; fuzz|asan|b) extras+=(fuzz) ;; esac
  done
  bash ci/quickstart.sh deps "${extras[@]}" || exit 1
fi

declare -a summary
status=0
for r in "${rows[@]}"; do
  case "$r" in a) r=release ;; b) r=asan ;; c) r=tsan ;; d) r=cuda ;; e) r=chain ;; f) r=subset ;; esac
  echo
  echo "======== row $r ========"
  t0=$(date +%s)
  # Each row in a subshell: a row's exports (sanitizer options) stay in it.
  (row_"$r")
  rc=$?
  t1=$(date +%s)
  if ((rc == 0)); then res=pass; else res="FAIL (exit $rc)"; status=1; fi
  summary+=("$(printf '%-12s %-16s %4dm%02ds' "$r" "$res" $(((t1 - t0) / 60)) $(((t1 - t0) % 60)))")
  echo "======== row $r: $res in $((t1 - t0)) s ========"
done
echo
echo "matrix summary (row, result, wall time):"
printf '  %s\n' "${summary[@]}"
exit $status
