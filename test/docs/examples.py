#!/usr/bin/env python3
"""Checks that a page's code examples are code the test suite compiles.

Every ```cpp, ```c and ```cmake block of the page follows a line
`<!-- from PATH -->` naming a file of the repository that the suite builds,
and its lines (each stripped of the indentation around it) are lines of that
file, in order. A block that isn't, or that names no file, is printed with
where it stands, and the exit status is 1.

    examples.py ROOT PAGE.md
"""
import re
import sys
from pathlib import Path

CODE = {"cpp", "c", "cmake"}


def blocks(text):
    """(line, language, source, lines) of each fenced block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        start, language = i, fence.group(1)
        end = start + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        source = re.match(r"^<!-- from (\S+) -->$", lines[before].strip()) if before >= 0 else None
        yield start + 1, language, source.group(1) if source else None, lines[start + 1:end]
        i = end + 1


def inOrder(wanted, have):
    """The first of `wanted` not found after the one before it in `have`."""
    at = 0
    for line in wanted:
        while at < len(have) and have[at] != line:
            at += 1
        if at == len(have):
            return line
        at += 1
    return None


def main():
    root, page = Path(sys.argv[1]), Path(sys.argv[2])
    failures = 0
    checked = 0
    for line, language, source, code in blocks(page.read_text()):
        if language not in CODE:
            continue
        checked += 1
        where = f"{page}:{line}"
        if not source:
            print(f"{where}: a {language} example names no file the suite compiles "
                  "(`<!-- from PATH -->` on the line before it)")
            failures += 1
            continue
        path = root / source
        if not path.is_file():
            print(f"{where}: the example's file {source} doesn't exist")
            failures += 1
            continue
        have = [l.strip() for l in path.read_text().splitlines()]
        missing = inOrder([l.strip() for l in code if l.strip()], have)
        if missing is not None:
            print(f"{where}: the example isn't {source}'s code: `{missing}` is not there, "
                  "in this order")
            failures += 1
    print(f"{checked} examples checked, {failures} not the suite's code")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
