#!/usr/bin/env bash
# The two README commands, for a fresh Debian 12 machine:
#   bash ci/quickstart.sh demo   # installs what is missing, builds, runs tessera-demo
#   bash ci/quickstart.sh test   # installs what is missing, builds everything, runs the whole test suite
#   bash ci/quickstart.sh deps [extra...]   # only the Debian packages (extras: benchmarks format clang fuzz git)
# As root, missing Debian packages are installed (apt-get update + install);
# otherwise the exact apt-get line is printed and the script stops.
# Environment: BUILD_DIR (default build), JOBS (default 2), TESSERA_CMAKE_ARGS
# (extra cmake arguments, e.g. -DTessera_ENABLE_WERROR=ON), CTEST_ARGS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode="${1:-}"
build="${BUILD_DIR:-build}"
jobs="${JOBS:-2}"

ensure_debian_packages() {
  local wanted missing=()
  wanted="$(bash ci/debian-packages.sh "$@")"
  for p in $wanted; do
    # dpkg-query prints "install ok installed" only for a fully installed package.
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  if [[ "$(id -u)" == 0 ]]; then
    echo "== installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    echo "Tessera needs these Debian packages; install them as root, then run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
}

configure() {
  # shellcheck disable=SC2086  # TESSERA_CMAKE_ARGS is a list of arguments
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TESSERA_CMAKE_ARGS:-} "$@"
}

case "$mode" in
  deps)
    shift
    ensure_debian_packages "$@"
    ;;
  demo)
    ensure_debian_packages
    configure -DTessera_ENABLE_EXAMPLES=ON
    cmake --build "$build" --parallel "$jobs" --target tessera-demo
    "$build/examples/tessera-demo/tessera-demo"
    ;;
  test)
    ensure_debian_packages
    configure -DTessera_ENABLE_TESTS=ON -DTessera_ENABLE_EXAMPLES=ON
    cmake --build "$build" --parallel "$jobs"
    # shellcheck disable=SC2086
    ctest --test-dir "$build" --output-on-failure --no-tests=error ${CTEST_ARGS:-}
    ;;
  *)
    echo "usage: bash ci/quickstart.sh demo|test|deps [extra...]" >&2
    exit 2
    ;;
esac
