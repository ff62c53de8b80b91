#!/usr/bin/env python3
"""Compiles, on Linux, every line that only Apple platforms build, as each Apple platform would
select it: the branches of `#if canImport(Security)`, `canImport(UIKit)`, `os(iOS)` and the like.

No Mac is available to this project. So each module that has such lines is compiled again with
`swiftc`, once per Apple platform whose choice of branches differs, with:
  - its `#if` conditions rewritten (lines keep their numbers): `os(X)` is true for the platform
    checked, `canImport(M)` is true for the frameworks that platform has (the table below) and
    false for Linux-only ones (Glibc, Musl, FoundationNetworking);
  - stand-ins for Apple's frameworks on its import path (Tests/AppleStandIns: test-only, never
    shipped), declaring the Apple signatures the code calls, as Apple documents them. `Darwin`
    re-exports Glibc with Darwin's own additions; `Combine` re-exports OpenCombine;
  - what Apple's Foundation has and swift-corelibs-foundation keeps elsewhere: where a file
    imports Foundation, FoundationNetworking and the stand-in `FoundationOnApple` are imported
    beside it, on the same line;
  - the flags SwiftPM used for the Linux build (read from .build/debug.yaml, so run this after
    `swift build --build-tests` of both packages), whole-module, every function body checked.
Errors fail the check, and so do warnings on lines Linux does not compile.

What this cannot prove (a Mac must): that the stand-ins match Apple's SDK exactly, availability
(`@available`, deployment targets), Objective-C bridging beyond Foundation's, and linking.

Usage: apple_typecheck.py [--self-test]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAND_INS = os.path.join(ROOT, "Tests", "AppleStandIns")
OUT = os.path.join(ROOT, ".build", "apple-typecheck")

# The frameworks each platform has (Apple's documentation: the framework's availability), by the
# name `canImport` asks for. Darwin, Foundation, Security and Combine exist everywhere.
EVERYWHERE = {"Darwin", "Foundation", "Security", "Combine", "Dispatch", "AuthenticationServices"}
PLATFORMS = {
    "macOS": EVERYWHERE | {"AppKit", "BackgroundTasks"},
    "iOS": EVERYWHERE | {"UIKit", "BackgroundTasks"},
    "tvOS": EVERYWHERE | {"UIKit", "BackgroundTasks"},
    "watchOS": EVERYWHERE | {"UIKit"},
    "visionOS": EVERYWHERE | {"UIKit", "BackgroundTasks"},
}
APPLE_ONLY_MODULES = set().union(*PLATFORMS.values()) - {"Foundation", "Dispatch"}
LINUX_ONLY_MODULES = {"Glibc", "Musl", "FoundationNetworking", "Android", "WinSDK"}
ALL_OSES = ("macOS", "iOS", "tvOS", "watchOS", "visionOS", "Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI")

# The stand-ins, in the order they are built (each may import the ones before it).
STAND_IN_MODULES = ("AppleCoreFoundation", "Darwin", "FoundationOnApple", "Security", "Combine", "AppKit", "UIKit",
                    "AuthenticationServices", "BackgroundTasks")
# Stand-ins for what Apple's Foundation holds, on every platform.
FOUNDATION_PARTS = {"AppleCoreFoundation", "FoundationOnApple"}

# The modules checked: (package folder, target, platforms). Libraries for every Apple platform,
# the example app for iOS, server-side code for macOS only.
LIBRARY = tuple(PLATFORMS)
MODULES = (
    ("", "Keychain", LIBRARY),
    ("", "SmartStore", LIBRARY),
    ("", "SalesforceREST", LIBRARY),
    ("", "SalesforceStreaming", LIBRARY),
    ("", "MobileSync", LIBRARY),
    ("", "MobileSyncSDKCompat", LIBRARY),
    ("", "SmartStoreReference", LIBRARY),
    ("", "MobileSyncReference", LIBRARY),
    ("", "MobileSyncSDKCompatReference", LIBRARY),
    ("Server", "AccountsListExample", ("iOS",)),
    # What runs on a Mac only: the server, the command line, the tests and what they share.
    ("", "TestSupport", ("macOS",)),
    ("", "SmartStoreTests", ("macOS",)),
    ("", "MobileSyncSDKCompatTests", ("macOS",)),
    ("Server", "LocalForce", ("macOS",)),
    ("Server", "LocalForceTesting", ("macOS",)),
    ("Server", "msync", ("macOS",)),
    ("Server", "msync-bench", ("macOS",)),
    ("Server", "sdk-template-app", ("macOS",)),
    ("Server", "LocalForceTests", ("macOS",)),
    ("Server", "MobileSyncTests", ("macOS",)),
    ("Server", "CommandLineTests", ("macOS",)),
)

# Modules of one package that another must not take: Server/ builds its own TestSupport (the same
# sources, with TestLocking), checked once as the root's.
FOREIGN = {("Server", "TestSupport")}

CONDITION_LINE = re.compile(r"^(\s*)#(if|elseif)\b(.*)$")
ATOM = re.compile(r"\b(os|canImport|targetEnvironment)\(\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\)")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)", re.M)
FOUNDATION_IMPORT = re.compile(r"^(\s*)((?:@\w+\s+)*)((?:public|package|internal|fileprivate|private)\s+)?import\s+Foundation\s*$")


def flag(kind, name):
    return "MSYNC_APPLE_%s_%s" % (kind.upper(), re.sub(r"\W", "_", name).upper())


def rewrite_condition(condition):
    """A condition's atoms as compilation flags: `os(iOS)` -> MSYNC_APPLE_OS_IOS."""
    def replace(match):
        kind, name = match.group(1), match.group(2)
        if kind == "os":
            return flag("os", name)
        if kind == "targetEnvironment":
            return flag("environment", name)
        if name in APPLE_ONLY_MODULES or name in LINUX_ONLY_MODULES:
            return flag("canImport", name)
        return match.group(0)
    return ATOM.sub(replace, condition)


def platform_flags(platform):
    return [flag("os", platform)] + [flag("canImport", module) for module in sorted(PLATFORMS[platform])]


# C names whose Darwin type differs from Glibc's, declared in the Darwin stand-in. Glibc's reach
# the code through Foundation as well (swift-corelibs-foundation re-exports it), so in a file that
# imports Darwin or Foundation (which re-exports Darwin on Apple platforms, as the stand-in
# FoundationOnApple does here) they are spelled `Darwin.NAME`, as Apple's compiler resolves them.
DARWIN_TYPED = re.compile(r"(?<![\w.])(SOCK_STREAM|SOCK_DGRAM|SOCK_RAW)\b")
DARWIN_IMPORT = re.compile(r"^\s*(?:(?:public|package|internal)\s+)?import\s+(Darwin|Foundation)\s*$", re.M)


def rewrite_source(text):
    """The file as an Apple platform's compiler reads it, line for line."""
    darwin = bool(DARWIN_IMPORT.search(text))
    lines = []
    for line in text.split("\n"):
        match = CONDITION_LINE.match(line)
        if match:
            line = "%s#%s%s" % (match.group(1), match.group(2), rewrite_condition(match.group(3)))
        else:
            imported = FOUNDATION_IMPORT.match(line)
            if darwin and not line.lstrip().startswith("//"):
                line = DARWIN_TYPED.sub(r"Darwin.\1", line)
            if imported:
                prefix = (imported.group(2) or "") + (imported.group(3) or "")
                line = line.rstrip() + "; %simport FoundationNetworking; %simport FoundationOnApple" % (prefix, prefix)
        lines.append(line)
    return "\n".join(lines)


# --- Which lines only Apple compiles ------------------------------------------------------------

def evaluate(condition, truth):
    """A `#if` condition's value, where `truth(kind, name)` gives each atom's (unknown: False)."""
    expression = ATOM.sub(lambda m: " %s " % bool(truth(m.group(1), m.group(2))), condition)
    expression = re.sub(r"\b(compiler|swift|arch|hasFeature|hasAttribute)\([^)]*\)", " False ", expression)
    expression = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*\b", lambda m: m.group(0) if m.group(0) in ("True", "False") else " False ", expression)
    expression = expression.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(expression, {"__builtins__": {}}, {}))  # only True/False/and/or/not/() remain
    except SyntaxError:
        return False


def linux_truth(kind, name):
    if kind == "os":
        return name == "Linux"
    if kind == "canImport":
        return name in LINUX_ONLY_MODULES - {"Musl", "Android", "WinSDK"} or name not in APPLE_ONLY_MODULES
    return False


def apple_truth(platform):
    def truth(kind, name):
        if kind == "os":
            return name == platform
        if kind == "canImport":
            if name in LINUX_ONLY_MODULES:
                return False
            return name in PLATFORMS[platform] or name not in APPLE_ONLY_MODULES
        return False
    return truth


def active_lines(text, truth):
    """The numbers of the lines a compiler with these conditions reads (directives excluded)."""
    active, stack = set(), []  # each: [parent active, a branch taken, this branch active]
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        enclosing = all(frame[2] for frame in stack)
        if stripped.startswith("#if ") or stripped.startswith("#if("):
            value = enclosing and evaluate(stripped[3:], truth)
            stack.append([enclosing, value, value])
        elif stripped.startswith("#elseif") and stack:
            frame = stack[-1]
            frame[2] = frame[0] and not frame[1] and evaluate(stripped[7:], truth)
            frame[1] = frame[1] or frame[2]
        elif stripped.startswith("#else") and stack:
            frame = stack[-1]
            frame[2] = frame[0] and not frame[1]
            frame[1] = True
        elif stripped.startswith("#endif") and stack:
            stack.pop()
        elif enclosing and stripped and not stripped.startswith("//"):
            active.add(number)
    return active


def apple_only(text, platforms):
    """Per platform, the lines that platform compiles and Linux does not; and their blocks."""
    linux = active_lines(text, linux_truth)
    result = {}
    for platform in platforms:
        lines = sorted(active_lines(text, apple_truth(platform)) - linux)
        result[platform] = (lines, count_blocks(text, lines))
    return result


def _contiguous(text, first, last):
    """Whether only blank lines, comments and no directive lie between two lines."""
    between = text.split("\n")[first:last - 1]
    return all(not line.strip() or line.strip().startswith("//") for line in between)


# --- Building ----------------------------------------------------------------------------------

DROPPED_FLAGS = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics",
                 "-parseable-output", "-emit-objc-header", "-g", "-j2"}
DROPPED_WITH_VALUE = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path", "-o"}


def compile_command(package, target):
    """SwiftPM's swiftc arguments for the target, and its source files."""
    build = os.path.join(ROOT, package, ".build")
    manifest = os.path.join(build, "debug.yaml")
    if not os.path.exists(manifest):
        sys.exit("apple typecheck: %s is missing: run `swift build --build-tests%s` first"
                 % (os.path.relpath(manifest, ROOT), " --package-path Server" if package else ""))
    with open(manifest, encoding="utf-8") as text:
        yaml = text.read()
    # `C.<target>-<triple>-debug.module`: the triple has four parts (`msync` must not match `msync-bench`).
    match = re.search(r'^  "C\.%s-(?:[^-"]+-){4}debug\.module":\n(?:    .*\n)*?    args: (\[.*\])$' % re.escape(target), yaml, re.M)
    if not match:
        sys.exit("apple typecheck: no compile command for %s in %s" % (target, manifest))
    arguments = json.loads(match.group(1))
    kept, sources, skip, clang = [], [], False, False
    for argument in arguments[1:]:
        if skip:
            skip = False
            continue
        if clang:  # a clang flag, whatever it says
            kept.append(argument)
            clang = False
        elif argument == "-Xcc":
            kept.append(argument)
            clang = True
        elif argument in DROPPED_WITH_VALUE:
            skip = True
        elif argument.startswith("@"):
            with open(argument[1:], encoding="utf-8") as listed:
                sources += [line.strip() for line in listed if line.strip()]
        elif argument.endswith(".swift"):
            sources.append(argument)
        elif argument not in DROPPED_FLAGS:
            kept.append(argument)
    return kept, sources


def build_stand_ins(platform, directory, flags):
    """The stand-ins for one platform, with a checked module's flags (its -I and -Xcc paths)."""
    os.makedirs(directory, exist_ok=True)
    paths = [a for i, a in enumerate(flags) if a in ("-I", "-Xcc") or i and flags[i - 1] in ("-I", "-Xcc")]
    paths = [a for i, a in enumerate(paths) if a != "-Xcc" or i + 1 < len(paths)]
    for module in STAND_IN_MODULES:
        if module not in PLATFORMS[platform] | FOUNDATION_PARTS:
            continue  # a framework the platform lacks: its import fails, as in Xcode
        folder = os.path.join(STAND_INS, module)
        files = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".swift"))
        command = ["swiftc", "-emit-module", "-wmo", "-parse-as-library", "-swift-version", "6", "-module-name", module,
                   "-emit-module-path", os.path.join(directory, module + ".swiftmodule"), "-I", directory] + paths
        command += ["-D" + name for name in platform_flags(platform)] + files
        run(command, {})


def run(command, sources):
    """Runs swiftc; returns its diagnostics with the rewritten copies' paths mapped back."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = result.stdout
    for copy, original in sources.items():
        output = output.replace(copy, original)
    if result.returncode != 0:
        errors = [line for line in output.split("\n") if ": error: " in line or line.startswith("error:")]
        print("\n".join(dict.fromkeys(errors)) or output, file=sys.stderr)
        raise SystemExit("apple typecheck: %s failed" % command[command.index("-module-name") + 1])
    return output


# Issue 46's first finding, as SalesforceREST had it: a package method whose signature uses a type of
# an internal import (Security's OSStatus). The check must refuse it, as Xcode did.
CANARY = """import Security
package enum KeychainAccess {
    package static func run(_ call: () -> OSStatus) -> OSStatus { call() }
}
"""


def canary(platform, stand_ins, flags):
    """Proves the stand-ins catch what Apple's compiler refuses: the canary must fail to compile."""
    folder = os.path.join(OUT, "canary-" + platform)
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(folder, "Canary.swift")
    with open(source, "w", encoding="utf-8") as out:
        out.write(CANARY)
    options = [flag for flag in flags if flag != "-enable-testing"]
    options[options.index("-module-name") + 1] = "Canary"
    result = subprocess.run(["swiftc", "-typecheck", "-I", stand_ins] + options + [source],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode == 0 or "cannot be declared package because its" not in result.stdout:
        print(result.stdout, file=sys.stderr)
        raise SystemExit("apple typecheck: the canary (a package method using Security's OSStatus) compiled for %s: "
                         "the stand-ins no longer catch what Xcode refuses" % platform)


# Stand-ins whose declarations differ by platform: a module importing one is compiled for each.
PLATFORM_STAND_INS = {"UIKit", "AppKit", "AuthenticationServices", "BackgroundTasks"}


def variant_key(module_conditions, platform, dependency_keys, imported):
    truth = apple_truth(platform)
    varying = platform if imported & PLATFORM_STAND_INS else None
    return (tuple(evaluate(condition, truth) for condition in module_conditions), dependency_keys, varying)


def main():
    started = os.times().elapsed
    shutil.rmtree(OUT, ignore_errors=True)
    built = {}  # (target, key) -> output directory
    keys = {}  # (target, platform) -> key
    counted = {}  # source -> the Apple-only lines of any platform
    variants = {}  # target -> the platforms it was compiled for
    # Every platform's stand-ins, each proved by the canary, with MobileSync's flags: it imports
    # every dependency a stand-in re-exports.
    mobile_sync = compile_command("", "MobileSync")[0]
    for platform in PLATFORMS:
        build_stand_ins(platform, os.path.join(OUT, "stand-ins-" + platform), mobile_sync)
        canary(platform, os.path.join(OUT, "stand-ins-" + platform), mobile_sync)
    for package, target, platforms in MODULES:
        flags, sources = compile_command(package, target)
        texts = {os.path.realpath(source): open(source, encoding="utf-8").read() for source in sources}
        check_names(texts)
        own = sorted({match.group(3) for text in texts.values() for line in text.split("\n")
                      for match in [CONDITION_LINE.match(line)] if match and ATOM.search(match.group(3))})
        imported = {match.group(1) for text in texts.values() for match in IMPORT.finditer(text)}
        for platform in platforms:
            dependencies = tuple(sorted((name, key) for (name, p), key in keys.items()
                                        if p == platform and name in imported and (package, name) not in FOREIGN))
            key = variant_key(own, platform, dependencies, imported)
            keys[(target, platform)] = key
            for source, text in texts.items():
                counted.setdefault(source, set()).update(apple_only(text, [platform])[platform][0])
            if (target, key) in built:
                continue
            built[(target, key)] = compile_module(target, platform, flags, texts, dependencies, built)
            variants.setdefault(target, []).append(platform)
            print("apple typecheck: %s for %s compiled" % (target, platform), flush=True)
    check_coverage(set(counted))
    files = {source: lines for source, lines in counted.items() if lines}
    blocks = sum(count_blocks(open(source, encoding="utf-8").read(), sorted(lines)) for source, lines in files.items())
    print("apple typecheck: %d Apple-only blocks, %d lines in %d files; %d module builds, one per distinct platform choice "
          "(%s) (%.0f s)" % (blocks, sum(len(lines) for lines in files.values()), len(files), sum(map(len, variants.values())),
                             "; ".join("%s: %s" % (target, ", ".join(p)) for target, p in variants.items()),
                             os.times().elapsed - started))


def compile_module(target, platform, flags, texts, dependencies, built):
    """Compiles the module's rewritten copy for `platform`; returns where its module is."""
    directory = os.path.join(OUT, "%s-%s" % (target, platform))
    copies = {}
    for source, text in texts.items():
        copy = os.path.join(directory, "src", os.path.relpath(source, ROOT))
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        with open(copy, "w", encoding="utf-8") as out:
            out.write(rewrite_source(text))
        copies[copy] = source
    upstream = [arg for name, dependency in dependencies for arg in ("-I", built[(name, dependency)])]
    command = (["swiftc", "-emit-module", "-wmo", "-emit-module-path", os.path.join(directory, target + ".swiftmodule"),
                "-I", os.path.join(OUT, "stand-ins-" + platform)] + upstream + flags
               + ["-D" + name for name in platform_flags(platform)] + list(copies))
    report_warnings(run(command, copies), texts, platform)
    return directory


# canImport names known to be neither Apple's nor Linux's own: packages of the project's.
PACKAGE_MODULES = {"OpenCombine", "TestLocking"}


def check_names(texts):
    """Fails on a `canImport` of a module the table does not know: its branches would be
    neither compiled nor counted."""
    known = APPLE_ONLY_MODULES | LINUX_ONLY_MODULES | PACKAGE_MODULES | {"Foundation", "Dispatch"}
    for source, text in texts.items():
        for line in text.split("\n"):
            match = CONDITION_LINE.match(line)
            for atom in ATOM.finditer(match.group(3) if match else ""):
                if atom.group(1) == "canImport" and atom.group(2) not in known:
                    raise SystemExit("apple typecheck: %s: canImport(%s) is in no table of apple_typecheck.py: say on "
                                     "which platforms it exists" % (os.path.relpath(source, ROOT), atom.group(2)))
                if atom.group(1) == "os" and atom.group(2) not in ALL_OSES:
                    raise SystemExit("apple typecheck: %s: os(%s) is unknown" % (os.path.relpath(source, ROOT), atom.group(2)))


COVERED_FOLDERS = ("Sources", "Tests", "Snippets", "Server/Sources", "Server/Tests", "Server/Examples", "Server/Snippets",
                   "Server/Fuzz")


def check_coverage(compiled):
    """Fails when a Swift file with Apple-only lines is in none of the modules compiled."""
    missing = []
    for folder in COVERED_FOLDERS:
        for directory, _, names in os.walk(os.path.join(ROOT, folder)):
            if os.path.realpath(directory).startswith(os.path.realpath(STAND_INS)):
                continue
            for name in names:
                path = os.path.realpath(os.path.join(directory, name))
                if not name.endswith(".swift") or path in compiled:
                    continue
                with open(path, encoding="utf-8") as source:
                    text = source.read()
                if any(lines for lines, _ in apple_only(text, list(PLATFORMS)).values()):
                    missing.append(os.path.relpath(path, ROOT))
    if missing:
        raise SystemExit("apple typecheck: files with Apple-only lines in no module checked (add their target to MODULES): "
                         + ", ".join(sorted(set(missing))))


def count_blocks(text, lines):
    return sum(1 for i, n in enumerate(lines) if i == 0 or (n - lines[i - 1] > 1 and not _contiguous(text, lines[i - 1], n)))


def built_dirs(built, keys, name, platform):
    return built[(name, keys[(name, platform)])]


NETWORKING_TYPES = re.compile(r"\b(URLRequest|URLSession\w*|URLResponse|HTTPURLResponse|HTTPCookie\w*|URLCache|URLCredential\w*|"
                              r"URLProtectionSpace|URLAuthenticationChallenge)\b")


def report_warnings(output, texts, platform):
    """Warnings on lines Linux does not compile fail the check (Linux's own build reports the rest)."""
    problems = []
    for match in re.finditer(r"^(/[^:\n]+\.swift):(\d+):\d+: warning: (.*)$", output, re.M):
        path, number, message = os.path.realpath(match.group(1)), int(match.group(2)), match.group(3)
        if "FoundationNetworking" in message or "FoundationOnApple" in message or path not in texts:
            continue
        # Foundation's public import looks unused here when the file's public API uses only
        # types of FoundationNetworking, which is part of Foundation on Apple platforms.
        if "import of 'Foundation'" in message and NETWORKING_TYPES.search(texts[path]):
            continue
        lines, _ = apple_only(texts[path], [platform])[platform]
        if number in lines:
            problems.append("%s:%d: warning (%s): %s" % (os.path.relpath(path, ROOT), number, platform, message))
    if problems:
        print("\n".join(sorted(set(problems))), file=sys.stderr)
        raise SystemExit("apple typecheck: warnings in Apple-only lines (above)")


def self_test():
    source = "\n".join([
        "import Foundation",                        # 1
        "#if canImport(Security)",                  # 2
        "    import Security",                      # 3
        "#elseif canImport(Glibc)",                 # 4
        "    import Glibc",                         # 5
        "#endif",                                   # 6
        "#if os(iOS) || os(visionOS)",              # 7
        "    let a = 1",                            # 8
        "#else",                                    # 9
        "    let b = 2",                            # 10
        "#endif",                                   # 11
        "#if canImport(OpenCombine) && !canImport(Combine)",  # 12
        "    let c = 3",                            # 13
        "#endif",                                   # 14
        "public import Foundation",                 # 15
        "#if canImport(Darwin)",                    # 16
        "    import Darwin",                        # 17
        "#endif",                                   # 18
        "let s = socket(AF_INET, SOCK_STREAM, 0) // SOCK_STREAM",  # 19
    ])
    rewritten = rewrite_source(source).split("\n")
    assert rewritten[1] == "#if MSYNC_APPLE_CANIMPORT_SECURITY", rewritten[1]
    assert rewritten[3] == "#elseif MSYNC_APPLE_CANIMPORT_GLIBC", rewritten[3]
    assert rewritten[6] == "#if MSYNC_APPLE_OS_IOS || MSYNC_APPLE_OS_VISIONOS", rewritten[6]
    assert rewritten[11] == "#if canImport(OpenCombine) && !MSYNC_APPLE_CANIMPORT_COMBINE", rewritten[11]
    assert rewritten[0] == "import Foundation; import FoundationNetworking; import FoundationOnApple", rewritten[0]
    assert rewritten[14].startswith("public import Foundation; public import FoundationNetworking;"), rewritten[14]
    assert len(rewritten) == len(source.split("\n"))
    assert rewritten[18] == "let s = socket(AF_INET, Darwin.SOCK_STREAM, 0) // Darwin.SOCK_STREAM", rewritten[18]
    ios = apple_only(source, ["iOS"])["iOS"][0]
    macos = apple_only(source, ["macOS"])["macOS"][0]
    assert ios == [3, 8, 17], ios
    assert macos == [3, 17], macos  # line 10 is Linux's too
    assert active_lines(source, linux_truth) == {1, 5, 10, 13, 15, 19}, active_lines(source, linux_truth)
    assert count_blocks(source, [3, 8]) == 2
    print("apple_typecheck.py self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        main()
