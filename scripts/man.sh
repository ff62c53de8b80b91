#!/usr/bin/env bash
# Writes msync's manual page with ArgumentParser's generate-manual plugin (from the commands'
# own help, so it never drifts from --help) and prints its path. Read it with `man -l PATH`;
# install it with `install -D -m 644 PATH ~/.local/share/man/man1/msync.1`.
# Usage: scripts/man.sh [debug|release]   (the build configuration; debug by default)
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --package-path Server plugin generate-manual --configuration "${1:-debug}" >&2
page=Server/.build/plugins/GenerateManual/outputs/msync/msync.1
if [ ! -s "$page" ]; then
  echo "generate-manual wrote no page at $page" >&2
  exit 1
fi
echo "$page"
