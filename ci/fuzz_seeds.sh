# Sourced by ci/fuzz.sh and ci/fuzz_coverage.sh (run from the repository
# root): where each reader fuzzer lives, and its read-only seed folders.
#
# Targets: matrix_market, snap, binary_csr (the graph readers:
# packages/graph/fuzz/graph_fuzz_<target>), sparse_matrix_market and
# sparse_gmsh (the sparse package's: packages/sparse/fuzz/sparse_fuzz_<name>).

# The package folder of a target (graph or sparse).
package_of() {
  case "$1" in sparse_*) echo sparse ;; *) echo graph ;; esac
}
# The target's executable, under the build folder.
executable_of() {
  local p; p="$(package_of "$1")"
  echo "packages/$p/fuzz/${p}_fuzz_${1#sparse_}"
}
# Its libFuzzer dictionary, when it has one (the sparse Matrix Market
# harness takes the graph one's: the same format).
dictionary_of() {
  local d="packages/$(package_of "$1")/fuzz/${1#sparse_}.dict"
  [[ "$1" == sparse_matrix_market ]] && d=packages/graph/fuzz/matrix_market.dict
  [[ -f "$d" ]] && echo "$d"
  return 0
}
# Its seed folders, one per line, the regression inputs of that reader included.
seeds_of() {
  local d
  d="packages/$(package_of "$1")/tests/fuzz_regressions/${1#sparse_}"
  case "$1" in
    matrix_market) echo examples/data/graphs examples/data/matrices examples/data/bad packages/graph/fuzz/seeds/matrix_market ;;
    snap) echo examples/data/graphs packages/graph/fuzz/seeds/snap ;;
    binary_csr) echo packages/graph/fuzz/seeds/binary_csr ;;
    sparse_matrix_market) echo examples/data/matrices examples/data/rhs examples/data/bad packages/graph/fuzz/seeds/matrix_market ;;
    sparse_gmsh) echo examples/data/meshes ;;
  esac
  [[ -d "$d" ]] && echo "$d"
  return 0
}
