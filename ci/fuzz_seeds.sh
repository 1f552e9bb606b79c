# Sourced by ci/fuzz.sh and ci/fuzz_coverage.sh (run from the repository
# root): the read-only seed folders of a graph reader fuzzer, one per line,
# the regression inputs of that reader included.
seeds_of() {
  local d=packages/graph/tests/fuzz_regressions/$1
  case "$1" in
    matrix_market) echo examples/data/graphs examples/data/matrices examples/data/bad packages/graph/fuzz/seeds/matrix_market ;;
    snap) echo examples/data/graphs packages/graph/fuzz/seeds/snap ;;
    binary_csr) echo packages/graph/fuzz/seeds/binary_csr ;;
  esac
  [[ -d "$d" ]] && echo "$d"
  return 0
}
