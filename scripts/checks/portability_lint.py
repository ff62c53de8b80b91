#!/usr/bin/env python3
"""Fails on Linux-only Swift outside `#if` guards, as Xcode would compile the code for Apple
platforms: the package is built only on Linux here, so this reads the sources the way the
Apple compilers would see them.

Rules (each names what breaks and where it builds):
  - `homeDirectoryForCurrentUser` (unavailable on iOS, tvOS, watchOS);
  - Glibc socket constants used as enums (`SOCK_STREAM.rawValue`: an Int32 in Darwin);
  - `import Glibc` outside `#if canImport(Glibc)`;
  - `weak let` while Package.swift's tools version is below 6.2 (it needs Swift 6.2.3);
  - `Process(` in library code (Process is unavailable on iOS, tvOS and watchOS): only the
    msync and msync-bench executables, tests and TestSupport may start processes;
  - a workflow in .github/workflows whose run steps are not all in bash (`defaults: run: shell:
    bash`, which GitHub runs with pipefail): a failed command in a pipe would pass its step.
A line inside an `#if` whose condition names Glibc, Musl, Linux or Android, or in the `#else` of
one that names an Apple platform or Darwin, is exempt.

Usage: portability_lint.py [ROOT]  (ROOT: the repository, by default this script's grandparent)

Both manifests must say the same tools version; the root's is the one checked.
       portability_lint.py --self-test
"""
import os
import re
import sys
import tempfile

LINUX_CONDITION = re.compile(r"canImport\((Glibc|Musl|Android)\)|os\((Linux|Android)\)")
APPLE_CONDITION = re.compile(r"canImport\((Darwin|Security|UIKit|AppKit|AuthenticationServices|BackgroundTasks)\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)")
EXECUTABLES = ("Server/Sources/msync/", "Server/Sources/msync-bench/")
# The Swift sources of both packages (the root and Server/); Server/Tests/TestSupport is a link
# to Tests/TestSupport, read once.
FOLDERS = ("Sources", "Tests", "Server/Sources", "Server/Tests", "Server/Examples", "Server/Fuzz")


def tools_version(root):
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as manifest:
        first = manifest.readline()
    match = re.search(r"swift-tools-version:\s*(\d+)\.(\d+)", first)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def check_file(path, relative, version):
    problems = []
    # For each open #if: [whether the current branch is Linux-only, whether a branch so far was Apple-only].
    stack = []
    with open(path, encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            stripped = line.strip()
            if stripped.startswith("#if "):
                stack.append([bool(LINUX_CONDITION.search(stripped)), bool(APPLE_CONDITION.search(stripped))])
                continue
            if stripped.startswith("#elseif"):
                if stack:
                    stack[-1][0] = bool(LINUX_CONDITION.search(stripped))
                    stack[-1][1] = stack[-1][1] or bool(APPLE_CONDITION.search(stripped))
                continue
            if stripped.startswith("#else"):
                if stack:
                    # The #else of an Apple-only condition is what Apple never compiles.
                    stack[-1][0] = stack[-1][1]
                continue
            if stripped.startswith("#endif"):
                if stack:
                    stack.pop()
                continue
            if any(linux for linux, _ in stack) or stripped.startswith("//"):
                continue
            code = line.split("//", 1)[0]
            if "homeDirectoryForCurrentUser" in code:
                problems.append((number, "homeDirectoryForCurrentUser is unavailable on iOS, tvOS and watchOS"))
            if re.search(r"\bSOCK_(STREAM|DGRAM|RAW)\.rawValue", code):
                problems.append((number, "SOCK_*.rawValue works only with Glibc (an Int32 in Darwin)"))
            if re.match(r"\s*import\s+Glibc\b", code):
                problems.append((number, "import Glibc outside #if canImport(Glibc)"))
            if re.search(r"\bweak\s+let\b", code) and version < (6, 2):
                problems.append((number, "weak let needs Swift 6.2.3; Package.swift says %d.%d" % version))
            if (relative.startswith(("Sources/", "Server/Sources/")) and not relative.startswith(EXECUTABLES)
                    and re.search(r"\bProcess\(\)", code)):
                problems.append((number, "Process is unavailable on iOS, tvOS and watchOS (library code)"))
    return [(relative, number, message) for number, message in problems]


def check_workflows(root):
    """Every workflow runs its steps in bash (GitHub's `bash -eo pipefail`), set once for all."""
    problems = []
    folder = os.path.join(root, ".github", "workflows")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith((".yml", ".yaml")):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as workflow:
            text = workflow.read()
        if not re.search(r"^defaults:\s*\n\s+run:\s*\n\s+shell:\s*bash\s*$", text, re.M):
            problems.append((".github/workflows/" + name, 1, "no `defaults: run: shell: bash`: steps run without pipefail"))
        for number, line in enumerate(text.split("\n"), 1):
            shell = re.match(r"\s*shell:\s*(\S+)", line)
            if shell and shell.group(1) != "bash":
                problems.append((".github/workflows/" + name, number, "a step's shell other than bash: no pipefail"))
    return problems


def check(root):
    version = tools_version(root)
    problems = check_workflows(root)
    for folder in FOLDERS:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    problems += check_file(path, os.path.relpath(path, root), version)
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "Sources", "Lib"))
        with open(os.path.join(root, "Package.swift"), "w") as manifest:
            manifest.write("// swift-tools-version:6.1\n")
        with open(os.path.join(root, "Sources", "Lib", "Bad.swift"), "w") as bad:
            bad.write("let home = FileManager.default.homeDirectoryForCurrentUser\n"
                      "weak let owner: AnyObject?\n"
                      "let child = Process()\n"
                      "let kind = SOCK_STREAM.rawValue\n"
                      "#if canImport(Glibc)\n    let fine = SOCK_STREAM.rawValue\n    import Glibc\n#else\n"
                      "    let stream = SOCK_STREAM\n#endif\n"
                      "// homeDirectoryForCurrentUser in a comment is fine\n"
                      "#if canImport(Darwin)\n    let a = 1\n#else\n    let h = FileManager.default.homeDirectoryForCurrentUser\n#endif\n")
        os.makedirs(os.path.join(root, ".github", "workflows"))
        with open(os.path.join(root, ".github", "workflows", "a.yml"), "w") as workflow:
            workflow.write("on: push\njobs:\n  a:\n    steps:\n      - run: make | tee log\n        shell: sh\n")
        found = sorted(number for _, number, _ in check(root))
        expected = [1, 1, 2, 3, 4, 6]
        if found != expected:
            print("portability lint self-test: expected problems on lines %s, found %s" % (expected, found))
            return 1
    print("portability lint self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = check(root)
    for relative, number, message in problems:
        print("%s:%d: %s" % (relative, number, message))
    if problems:
        print("portability lint: %d problem(s): Apple platforms would not build this" % len(problems))
        return 1
    print("portability lint: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
