#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of the FastJSON parser, the SOQL/SOSL parsers with
# LocalForce's compilation, the Smart SQL translator, LocalForce's request handler, the
# encrypting VFS reading altered store files (cipherstore), the Bulk APIs' CSV reader, and the
# Bulk API 1.0's XML reader.
#
#   scripts/fuzz.sh [seconds per target] [target…]     (default: 60 s, every target)
#
# MSYNC_FUZZ_CONFIGURATION=release builds optimised (slower to build, 3-10x more executions
# per second: use it for long campaigns); the default is debug.
#
# Builds msync-fuzz (a target of the Server package) with --sanitize fuzzer in .build-fuzz (the ordinary .build is untouched),
# then runs each target for the given time from the seeds in Server/Fuzz/Corpus/<target> plus what
# earlier runs found (.build-fuzz/corpus/<target>). Exits non-zero on the first crash, leaving
# the crashing input in .build-fuzz/crashes/. Prints one summary line per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json soql smartsql request cipherstore csv xml)

configuration="${MSYNC_FUZZ_CONFIGURATION:-debug}"
build=(swift build --package-path Server --scratch-path .build-fuzz --sanitize fuzzer -c "$configuration")
build_log="$(mktemp)"
MSYNC_FUZZ=1 "${build[@]}" --product msync-fuzz 2>&1 | tee "$build_log" >&2
# The fuzz targets are held to the same rule as the rest: no warnings in our own code.
if grep -E "^$(pwd)/(Server/)?(Sources|Fuzz)/.*: warning:" "$build_log" | sort -u | grep .; then
  echo "the fuzz build has warnings (above): fix them" >&2
  exit 1
fi
rm -f "$build_log"
binary="$(MSYNC_FUZZ=1 "${build[@]}" --show-bin-path)/msync-fuzz"

for target in "${targets[@]}"; do
  corpus=".build-fuzz/corpus/$target"
  mkdir -p "$corpus" .build-fuzz/crashes
  log=".build-fuzz/$target.log"
  dict=()
  [ -f "Server/Fuzz/Dictionaries/$target.dict" ] && dict=(-dict="Server/Fuzz/Dictionaries/$target.dict")
  status=0
  MSYNC_FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix=".build-fuzz/crashes/$target-" "${dict[@]}" "$corpus" "Server/Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)"
  if [ "$status" -ne 0 ]; then
    echo "fuzz $target: CRASH after ${runs:-?} executions (status $status); input in .build-fuzz/crashes/, log $log" >&2
    grep -E "ERROR|Fatal error|SUMMARY|Test unit written" "$log" | head -20 >&2 || true
    exit 1
  fi
  echo "fuzz $target: ${runs} executions in ${seconds} s, 0 crashes (corpus $(ls "$corpus" | wc -l) inputs)"
done
