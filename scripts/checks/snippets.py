#!/usr/bin/env python3
"""Every Swift example in the documentation is code the build compiles.

Each ```swift block in README.md, docs/*.md and the DocC articles (*.docc/*.md) must follow a
line `<!-- snippet: PATH -->` or `<!-- snippet: PATH#SLICE -->`, where PATH is a SwiftPM
snippet (Snippets/… of the root package, Server/Snippets/… of the server's), which `swift build`
compiles, or a test file (Tests/…, Server/Tests/…: examples that are tests, which the test
command runs, such as Server/Tests/DocumentationTests), or an example target's file
(Server/Examples/…: the code that needs UIKit, which the Apple workflow builds for the iOS
Simulator). The block must equal the file's visible text, or its slice:

- `// snippet.hide` hides the lines after it, `// snippet.show` shows them again (setup code
  the reader does not need: a store opened, a client made);
- `// snippet.NAME` starts the slice NAME, `// snippet.end` ends it (words after the marker are
  a comment: `// snippet.syncDown (the Custom targets article shows it)`);
- marker lines never show; the text is compared without its common indentation.

The same holds for the examples in doc comments (`///` lines of Sources/ and Server/Sources/):
the marker is a `/// <!-- snippet: PATH#SLICE -->` line before the block; DocC and Xcode's Quick
Help show neither it nor the hidden code.

Run from the repository root. `--fix` rewrites each differing block from its snippet (edit the
snippet, build, then fix the documents); `--self-test` checks the checker.
"""

import pathlib
import re
import sys

MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(\S+?)(?:#(\S+))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`~]*)")
DIRECTIVE = re.compile(r"^\s*//\s*snippet\.(\w+)\b.*$")
SNIPPET_FOLDERS = ("Snippets", "Server/Snippets", "Tests", "Server/Tests", "Server/Examples")


def dedented(lines):
    """The lines without leading/trailing blank lines, common indentation or trailing spaces."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indents = [len(line) - len(line.lstrip()) for line in lines if line]
    cut = min(indents) if indents else 0
    return [line[cut:] for line in lines]


def visible(source, slice_name=None):
    """The snippet's visible lines (or those of one slice); None when the slice is absent."""
    hidden = False
    current = None
    found = slice_name is None
    shown = []
    for line in source.splitlines():
        directive = DIRECTIVE.match(line)
        if directive:
            name = directive.group(1)
            if name == "hide":
                hidden = True
            elif name == "show":
                hidden = False
            elif name == "end":
                current = None
            else:
                current = name
                found = found or name == slice_name
            continue
        if hidden:
            continue
        if slice_name is None or current == slice_name:
            shown.append(line)
    return dedented(shown) if found else None


def blocks(text):
    """(line number, marker or None, block lines) for each ```swift block of a Markdown text."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        indent, marks, language = fence.group(1), fence.group(2), fence.group(3).lower()
        start = index
        index += 1
        body = []
        closing = re.compile(r"^\s*" + re.escape(marks[0]) + "{" + str(len(marks)) + r",}\s*$")
        while index < len(lines) and not closing.match(lines[index]):
            line = lines[index]
            body.append(line[len(indent):] if line.startswith(indent) else line)
            index += 1
        index += 1
        if language != "swift":
            continue
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marker = MARKER.match(lines[previous]) if previous >= 0 else None
        yield start + 1, marker, dedented(body)


DOC_LINE = re.compile(r"^(\s*///) ?(.*)$")
# What a line that is not a doc comment becomes: not blank, so that a block's marker is looked
# for in its own doc comment only, never in the comment of the declaration before.
CODE_LINE = "\x00"


def doc_text(source):
    """A Swift file's doc comments as Markdown, line for line (other lines a CODE_LINE)."""
    return "\n".join(match.group(2) if (match := DOC_LINE.match(line)) else CODE_LINE for line in source.splitlines())


def block_end(lines, start):
    """The index of the fence closing the block opened at `start`, or None when none does."""
    marks = FENCE.match(lines[start]).group(2)
    closing = re.compile(r"^\s*" + re.escape(marks[0]) + "{" + str(len(marks)) + r",}\s*$")
    end = start + 1
    while end < len(lines) and not closing.match(lines[end]):
        end += 1
    return end if end < len(lines) else None


def fixed_source(source, read_snippet):
    """The Swift file with each differing doc-comment block replaced by its snippet's text."""
    lines = source.splitlines(keepends=True)
    markdown = doc_text(source).splitlines()
    for line, marker, body in reversed(list(blocks(doc_text(source)))):
        snippet = read_snippet(marker.group(1)) if marker else None
        expected = visible(snippet, marker.group(2)) if snippet is not None else None
        end = block_end(markdown, line - 1)
        if expected is None or expected == body or end is None:
            continue
        prefix = DOC_LINE.match(lines[line - 1]).group(1)
        indent = FENCE.match(markdown[line - 1]).group(1)
        lines[line:end] = [(prefix + " " + indent + shown).rstrip() + "\n" for shown in expected]
    return "".join(lines)


def fixed(text, read_snippet):
    """The text with each differing block replaced by its snippet's text (same indentation)."""
    lines = text.splitlines(keepends=True)
    for line, marker, body in reversed(list(blocks(text))):
        if marker is None or read_snippet(marker.group(1)) is None:
            continue
        expected = visible(read_snippet(marker.group(1)), marker.group(2))
        end = block_end(lines, line - 1)
        if expected is None or expected == body or end is None:
            continue
        indent = FENCE.match(lines[line - 1]).group(1)
        lines[line:end] = [(indent + shown).rstrip() + "\n" for shown in expected]
    return "".join(lines)


def check(documents, read_snippet):
    """The problems found: a list of `path:line: message` strings."""
    problems = []
    for path, text in documents:
        for line, marker, body in blocks(text):
            where = f"{path}:{line}"
            if marker is None:
                problems.append(f"{where}: a ```swift block without a `<!-- snippet: PATH -->` line before it")
                continue
            snippet_path, slice_name = marker.group(1), marker.group(2)
            source = read_snippet(snippet_path)
            if source is None:
                problems.append(f"{where}: no snippet at {snippet_path}")
                continue
            expected = visible(source, slice_name)
            if expected is None:
                problems.append(f"{where}: {snippet_path} has no slice {slice_name}")
            elif expected != body:
                shown = "\n    ".join(expected)
                problems.append(f"{where}: differs from {marker.group(0).strip()}; the snippet shows:\n    {shown}")
    return problems


def documents(root):
    paths = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for base in (root / "Sources", root / "Server" / "Sources"):
        paths += sorted(base.glob("*/*.docc/**/*.md"))
    return [(str(path.relative_to(root)), path.read_text(encoding="utf-8")) for path in paths if path.exists()]


def sources(root):
    """(path, source) of each Swift file whose doc comments are checked."""
    paths = []
    for base in (root / "Sources", root / "Server" / "Sources"):
        paths += sorted(base.rglob("*.swift"))
    return [(str(path.relative_to(root)), path.read_text(encoding="utf-8")) for path in paths]


def snippet_reader(root):
    def read(relative):
        path = (root / relative).resolve()
        inside = any(path.is_relative_to((root / base).resolve()) for base in SNIPPET_FOLDERS)
        if not inside or path.suffix != ".swift" or not path.is_file():
            return None
        return path.read_text(encoding="utf-8")

    return read


def self_test():
    snippet = "\n".join([
        "// snippet.hide",
        "import Setup",
        "let store = try open()",
        "// snippet.show",
        "import SmartStore",
        "// snippet.query",
        "let rows = try store.query(q)",
        "// snippet.end",
        "print(rows)",
    ])
    read = {"Snippets/A.swift": snippet}.get
    good = "<!-- snippet: Snippets/A.swift -->\n```swift\nimport SmartStore\nlet rows = try store.query(q)\nprint(rows)\n```\n"
    sliced = "<!-- snippet: Snippets/A.swift#query -->\n\n```swift\n  let rows = try store.query(q)\n```\n"
    indented = "- item:\n\n  <!-- snippet: Snippets/A.swift#query -->\n  ```swift\n  let rows = try store.query(q)\n  ```\n"
    assert check([("good", good), ("sliced", sliced), ("indented", indented)], read) == [], "matching blocks pass"
    cases = {
        "```swift\nlet x = 1\n```\n": "without a",
        "<!-- snippet: Snippets/B.swift -->\n```swift\nx\n```\n": "no snippet at",
        "<!-- snippet: Snippets/A.swift#nope -->\n```swift\nx\n```\n": "has no slice",
        good.replace("print(rows)", "print(rows.count)"): "differs from",
        good.replace("import SmartStore\n", "import Setup\nimport SmartStore\n"): "differs from",
    }
    for text, expected in cases.items():
        problems = check([("doc", text)], read)
        assert len(problems) == 1 and expected in problems[0], (text, problems)
    assert check([("sh", "```sh\nswift build\n```\n")], read) == [], "other languages are not checked"
    # Any spelling of a Swift fence is checked: a capital, an info string, tildes, more marks.
    for opener, closer in [("```Swift", "```"), ("```swift title", "```"), ("~~~swift", "~~~"), ("````swift", "````")]:
        text = f"{opener}\nlet x = 1\n{closer}\n"
        assert len(check([("doc", text)], read)) == 1, opener
    # A four-mark fence holding a three-mark one does not end early.
    nested = "````md\n```swift\nlet x = 1\n```\n````\n"
    assert check([("doc", nested)], read) == [], "a block inside another language's block is that block's text"
    stale = indented.replace("let rows = try store.query(q)", "let rows = old()")
    assert fixed(stale, read) == indented, "--fix restores the snippet's text with the block's indentation"
    # Doc comments: the same rules, the marker a `///` line too; --fix keeps the prefix.
    commented = "    /// Reads.\n    ///\n    /// <!-- snippet: Snippets/A.swift#query -->\n    /// ```swift\n    /// let rows = try store.query(q)\n    /// ```\n    func f() {}\n"
    assert check([("doc", doc_text(commented))], read) == [], "a doc comment's block that matches passes"
    bare = commented.replace("    /// <!-- snippet: Snippets/A.swift#query -->\n", "")
    assert "without a" in check([("doc", doc_text(bare))], read)[0], "a doc comment's block needs a marker"
    stale_doc = commented.replace("try store.query(q)", "old()")
    assert len(check([("doc", doc_text(stale_doc))], read)) == 1, "a stale doc comment's block is found"
    assert fixed_source(stale_doc, read) == commented, "--fix rewrites a doc comment's block with its prefix"
    code = 'let text = """\n```swift\nnot documentation\n```\n"""\n'
    assert check([("code", doc_text(code))], read) == [], "code outside doc comments is not checked"
    listed = "/// - item:\n///\n///   <!-- snippet: Snippets/A.swift#query -->\n///   ```swift\n///   let rows = try store.query(q)\n///   ```\n"
    assert check([("doc", doc_text(listed))], read) == [], "a doc comment's block in a list item passes"
    assert fixed_source(listed.replace("try store.query(q)", "old()"), read) == listed, "--fix keeps a list item's indentation"
    borrowed = "/// <!-- snippet: Snippets/A.swift#query -->\nfunc f() {}\n/// ```swift\n/// let rows = try store.query(q)\n/// ```\n"
    assert "without a" in check([("doc", doc_text(borrowed))], read)[0], "a marker in another declaration's comment does not count"
    tildes = "/// ~~~swift\n/// let x = 1\n/// ~~~\n"
    assert len(check([("doc", doc_text(tildes))], read)) == 1, "a doc comment's ~~~ block is checked"
    unclosed = "<!-- snippet: Snippets/A.swift#query -->\n```swift\nold()\n"
    assert fixed(unclosed, read) == unclosed, "--fix leaves an unclosed block alone"
    print("snippets self-test passed")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
        return 0
    root = pathlib.Path.cwd()
    if "--fix" in sys.argv[1:]:
        for path, text in documents(root):
            repaired = fixed(text, snippet_reader(root))
            if repaired != text:
                (root / path).write_text(repaired, encoding="utf-8")
                print(f"rewrote the examples of {path}")
        for path, source in sources(root):
            repaired = fixed_source(source, snippet_reader(root))
            if repaired != source:
                (root / path).write_text(repaired, encoding="utf-8")
                print(f"rewrote the doc-comment examples of {path}")
    found = documents(root) + [(path, doc_text(source)) for path, source in sources(root)]
    found = [(path, text) for path, text in found if "```" in text or "~~~" in text]
    problems = check(found, snippet_reader(root))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} documentation example(s) are not compiled snippets (scripts/checks/snippets.py)", file=sys.stderr)
        return 1
    count = sum(1 for _, text in found for _ in blocks(text))
    print(f"{count} Swift examples in {len(found)} documents match their compiled snippets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
