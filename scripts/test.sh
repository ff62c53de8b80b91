#!/usr/bin/env bash
# The project's test command: installs what the tests need on a fresh Debian/Ubuntu machine,
# then builds and runs the whole test suite. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
[ -e /usr/include/sqlite3.h ] || need_apt+=(libsqlite3-dev)
# zlib: LocalForce's gzip and deflate bodies (compress-nio); part of Swift's own Linux requirements.
[ -e /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || need_apt+=(postgresql)
# A real browser for the OAuth login pages (driven headless through chromedriver).
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -x /usr/bin/chromedriver ] || need_apt+=(chromium-driver)
# mandoc renders msync's manual page to check it (scripts/man.sh).
command -v mandoc >/dev/null 2>&1 || need_apt+=(mandoc)
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

# The real third-party client the LocalForce tests run (simple-salesforce, from PyPI).
if ! python3 -c "import simple_salesforce" >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check simple-salesforce==1.12.10 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages simple-salesforce==1.12.10
fi

# A Bulk API 1.0 client that speaks XML (salesforce-bulk, PyPI; it brings unicodecsv).
if ! python3 -c "import salesforce_bulk" >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check salesforce-bulk==2.2.0 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages salesforce-bulk==2.2.0
fi

# The Streaming API's real client: aiosfstream-ng (PyPI, the maintained fork of aiosfstream).
if ! python3 -c "import aiosfstream_ng" >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check aiosfstream-ng==0.7.5 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages aiosfstream-ng==0.7.5
fi

# simple-salesforce's JWT flow signs with PyJWT's RS256, which needs cryptography; Selenium
# drives Chromium through the OAuth pages.
for module in cryptography:cryptography selenium:selenium==4.51.0; do
  if ! python3 -c "import ${module%%:*}" >/dev/null 2>&1; then
    python3 -m pip install --quiet --disable-pip-version-check "${module#*:}" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${module#*:}"
  fi
done

# SQLCipher 4 (community, with JSON1 and FTS5), which the encrypted-store tests check our
# stores against, both ways (sqlcipher3-binary, from PyPI).
if ! python3 -c "import sqlcipher3" >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check sqlcipher3-binary==0.6.0 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages sqlcipher3-binary==0.6.0
fi

# Formatting and lint rules (.swift-format); swift-format ships with the Swift 6 toolchain.
swift format lint --strict --recursive --parallel Package.swift Sources Tests \
  Server/Package.swift Server/Sources Server/Tests/*Tests Server/Tests/SDKTemplateApp Server/Fuzz Server/Examples

# Nothing Linux-only outside #if guards: Apple platforms are built elsewhere (.github/workflows/apple.yml).
python3 scripts/checks/portability_lint.py --self-test
python3 scripts/checks/portability_lint.py

# Apple platforms' privacy manifests: a target that calls a required-reason API (stat, fstat …)
# declares it, or App Store Connect flags the app (ITMS-91053).
python3 scripts/checks/privacy_manifest.py --self-test
python3 scripts/checks/privacy_manifest.py

# Every Swift example in the README, docs/ and the DocC articles is a compiled snippet (Snippets/,
# Server/Snippets/, built below) or a test (Server/Tests/DocumentationTests, run below), shown unchanged.
python3 scripts/checks/snippets.py --self-test
python3 scripts/checks/snippets.py

# No function over 60 lines unless it is a table (the tables are named in the script).
python3 scripts/checks/function_length.py --self-test
python3 scripts/checks/function_length.py

# What an app that depends on this repository resolves: GRDB, swift-crypto (with swift-asn1) and
# OpenCombine, nothing else (the server's packages are Server/'s).
swift package resolve >&2
resolved="$(swift package show-dependencies --format flatlist | LC_ALL=C sort | tr '\n' ' ')"
if [ "$resolved" != "grdb.swift opencombine swift-asn1 swift-crypto " ]; then
  echo "the root package resolves more than GRDB, swift-crypto and OpenCombine: $resolved" >&2
  exit 1
fi

# Two packages: the root (what apps depend on: the store, the sync engine, the REST client) and
# Server/ (LocalForce, msync, the benchmarks, and the tests that need a server), each with its
# own .build. `swift build` also builds each package's snippets (the documentation's examples).
# The builds must be free of warnings in our own code (dependencies' are theirs).
build_log="$(mktemp)"
swift build --build-tests 2>&1 | tee "$build_log"
swift build --build-tests --package-path Server 2>&1 | tee -a "$build_log"
if grep -E "^$(pwd)/(Server/)?(Sources|Tests|Fuzz|Examples|Snippets)/.*: warning:" "$build_log" | sort -u | grep .; then
  echo "the build has warnings (above): fix them" >&2
  exit 1
fi
rm -f "$build_log"

# Every line only Apple platforms compile (#if canImport(Security), os(iOS) …), compiled here per
# Apple platform against stand-ins for Apple's frameworks (Tests/AppleStandIns); prints the count.
python3 scripts/checks/apple_typecheck.py --self-test
python3 scripts/checks/apple_typecheck.py

swift test --skip-build "$@"
swift test --skip-build --package-path Server "$@"

# The DocC catalogs (swift-docc-plugin, which the root package declares only with MSYNC_DOCS=1):
# any warning (a broken link, an undocumented parameter) fails.
MSYNC_DOCS=1 swift package --disable-sandbox generate-documentation --warnings-as-errors \
  --target SmartStore --target MobileSync --target SalesforceREST --target SalesforceStreaming \
  --target FastJSON --target SOQL --target SalesforceWire --target MobileSyncSDKCompat
swift package --package-path Server --disable-sandbox generate-documentation --warnings-as-errors \
  --target LocalForce --target LocalForceTesting

# msync's manual page (scripts/man.sh, ArgumentParser's generate-manual): it renders, and it
# names every command and its options.
manual="$(mandoc -T markdown "$(scripts/man.sh)")"
for entry in '*demo*' '*put*' '*edit*' '*delete*' '*sync*' '*serve*' '*inspect*' '**--store** *store*' '**--version**'; do
  if ! grep -qF -- "$entry" <<<"$manual"; then
    echo "msync's manual page lacks $entry" >&2
    exit 1
  fi
done

# Every fuzz target for a short, bounded time (its own instrumented build): a crash fails the run.
scripts/fuzz.sh "${MSYNC_FUZZ_SECONDS:-30}"

# The LocalForce suite once more, on PostgreSQL (a throwaway server, stopped on exit).
source scripts/postgres.sh
swift test --skip-build --package-path Server --filter LocalForceTests "$@"
