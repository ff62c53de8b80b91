#!/usr/bin/env python3
"""No function of the project's sources is longer than 60 lines, unless it is a table.

Counts each `func`, `init` and `subscript` body in Sources/ and Server/Sources/ (Server/Fuzz
and the examples too) from its first line to its closing brace, with strings and comments
masked so that their braces do not count. A table (a switch that only dispatches, a C method
table) is named in TABLES with the reason. Run from the repository root; `--self-test` checks
the checker.
"""

import pathlib
import re
import sys

LIMIT = 60
ROOTS = ("Sources", "Server/Sources", "Server/Fuzz", "Server/Examples")
# (file name, function name): why it may be longer.
TABLES = {
    ("CipherFile+Methods.swift", "methods"): "SQLite's I/O method table, one C callback per entry",
    ("FunctionSQL.swift", "compile"): "a switch over the SOQL functions, one case each",
}
DECLARATION = re.compile(r"^[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*(?:[a-z]+[ \t]+)*(func[ \t]+([^\s(<]+)|init[?!]?|subscript)[ \t]*[(<]", re.M)


def masked(text):
    """The text with string literals and comments replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i
            i += hashes
            # A multi-line literal's opening delimiter ends its line (`##""","a"##` is one line).
            if re.match(r'"""[ \t]*\n', text[i:]):
                close = '"""' + "#" * hashes
                end = text.find(close, i + 3)
                end = n if end < 0 else end + len(close)
            else:
                close = '"' + "#" * hashes
                j = i + 1
                while j < n and not text.startswith(close, j) and text[j] != "\n":
                    j += 2 if (text[j] == "\\" and hashes == 0) else 1
                end = j + len(close) if text.startswith(close, j) else j
            blank(start, end)
            i = end
        else:
            i += 1
    return "".join(out)


def long_functions(text):
    """(name, first line, length) of each function body over LIMIT lines."""
    plain = masked(text)
    found = []
    for match in DECLARATION.finditer(plain):
        name = match.group(2) or match.group(1).split("[")[0].rstrip("?!")
        # The body: the first `{` after the signature at bracket depth zero (a protocol
        # requirement has none before the next declaration or closing brace).
        i, depth = match.end() - 1, 0
        while i < len(plain):
            c = plain[i]
            if c in "([<":
                depth += 1
            elif c in ")]>" and depth:
                depth -= 1
            elif c == "{" and depth == 0:
                break
            elif c == "}" or (c == "\n" and DECLARATION.match(plain, i + 1)):
                i = -1
                break
            i += 1
        if i < 0 or i >= len(plain):
            continue
        braces, j = 0, i
        while j < len(plain):
            if plain[j] == "{":
                braces += 1
            elif plain[j] == "}":
                braces -= 1
                if braces == 0:
                    break
            j += 1
        first = plain.count("\n", 0, match.start()) + 1
        last = plain.count("\n", 0, j) + 1
        if last - first + 1 > LIMIT:
            found.append((name, first, last - first + 1))
    return found


def check(root):
    problems = []
    for base in ROOTS:
        for path in sorted((root / base).rglob("*.swift")):
            if ".build" in path.parts:
                continue
            for name, line, length in long_functions(path.read_text(encoding="utf-8")):
                if (path.name, name) in TABLES:
                    continue
                problems.append(f"{path.relative_to(root)}:{line}: {name} is {length} lines (at most {LIMIT}: split it by job)")
    return problems


def self_test():
    body = "\n".join(f"    let x{k} = \"}}\" // }}" for k in range(LIMIT))
    long = f"struct S {{\n    func long() {{\n{body}\n    }}\n}}\n"
    assert [(n, l) for n, l, _ in long_functions(long)] == [("long", 2)], long_functions(long)
    short = "func short() {\n    let s = #\"{\"#\n    let t = \"\"\"\n    {{{\n    \"\"\"\n}\n"
    assert long_functions(short) == []
    requirement = "protocol P {\n    func f() -> Int\n    func g()\n}\n" + long.replace("long()", "g()")
    assert [n for n, _, _ in long_functions(requirement)] == ["g"], long_functions(requirement)
    generic = long.replace("func long()", "public init<T: Sequence>(_ t: T) where T.Element == Int")
    assert [n for n, _, _ in long_functions(generic)] == ["init"], long_functions(generic)
    # A raw string that starts with quotes is not a multi-line literal: the function after it counts.
    raw = 'func f() {\n    let s = ##""","a"##\n}\n' + long
    assert [n for n, _, _ in long_functions(raw)] == ["long"], long_functions(raw)
    print("function length self-test passed")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
        return 0
    problems = check(pathlib.Path.cwd())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"function length: ok (at most {LIMIT} lines; {len(TABLES)} tables named)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
