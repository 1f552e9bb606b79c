#!/usr/bin/env bash
# Prints the Debian 12 packages Tessera needs, one line, for the packages
# present under packages/ (and the extras named as arguments: "format",
# "benchmarks", "clang", "fuzz", "git"). Sourced knowledge lives here so that
# quickstart.sh, matrix.sh and .ci/run agree. A package that needs more adds
# its line below.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkgs=(cmake ninja-build g++ pkg-config libgtest-dev libhwloc-dev)
# Every program's command line and JSON output (header-only: CLI11, nlohmann-json).
pkgs+=(libcli11-dev nlohmann-json3-dev)
# .ci/run's check that docs/performance.md matches its data (ci/perf_report.py --check).
pkgs+=(python3)
have() { [[ -f "$root/packages/$1/CMakeLists.txt" ]]; }
# sparse: dense-block kernels and the orderings (nested dissection, SuiteSparse's AMD);
# sequential MUMPS is the LDL^T tests' inertia reference.
if have sparse; then pkgs+=(libopenblas-dev liblapacke-dev libscotch-dev libmetis-dev libsuitesparse-dev libmumps-seq-dev); fi
# dist: Open MPI (compiler wrappers, headers and mpiexec).
if have dist; then pkgs+=(libopenmpi-dev openmpi-bin); fi
for extra in "$@"; do
  case "$extra" in
    # Peers compared against in the benchmarks (memory pools, task runtimes, graph and sparse libraries).
    benchmarks) pkgs+=(libtbb-dev libmimalloc-dev libjemalloc-dev libopenblas-dev liblapacke-dev
                       libsuitesparse-dev libgraphblas-dev libscotch-dev libmetis-dev
                       libtrilinos-shylu-dev libtrilinos-kokkos-dev libmumps-seq-dev petsc-dev libhypre-dev
                       libcombblas-dev) ;;
    format) pkgs+=(clang-format) ;;
    clang) pkgs+=(clang libomp-dev) ;;
    # libFuzzer and the sanitizer runtimes of Clang 14 (ci/fuzz.sh; the asan row of ci/matrix.sh),
    # and LLVM's linker, which links the asan row's instrumented tests in a third of GNU ld's time.
    fuzz) pkgs+=(clang libclang-rt-14-dev lld) ;;
    git) pkgs+=(git ca-certificates) ;;
    *) echo "debian-packages.sh: unknown extra '$extra'" >&2; exit 2 ;;
  esac
done
printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $/\n/'
