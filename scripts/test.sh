#!/usr/bin/env bash
# The project's test command: installs what the tests need on a fresh Debian/Ubuntu machine,
# then builds and runs the whole test suite. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
[ -e /usr/include/sqlite3.h ] || need_apt+=(libsqlite3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
  else
    echo "missing packages: ${need_apt[*]} (install them with your package manager)" >&2
    exit 1
  fi
fi

swift build --build-tests
swift test --skip-build "$@"
