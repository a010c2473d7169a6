#!/usr/bin/env python3
"""Turns every ```c block of a Markdown file into a C function, so that a test compiles and runs
the README's examples as they are written (tests/test_readme_c.c includes the output).

Each block becomes `static void readme_block_N(void)` with a #line directive pointing back at the
Markdown, so that a compiler error names the README's line; its #include lines are lifted to the
top of the file.  The names a block uses but does not declare (a frame, a buffer, a callback) are
the harness's to declare before it includes this file.

usage: readme_c_blocks.py README.md OUT.inc"""
import re
import sys


def blocks(text: str):
    """(first line number, lines) of each ```c block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if re.fullmatch(r"```c\s*", lines[i]):
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                raise SystemExit(f"{sys.argv[1]}:{i + 1}: a ```c block that never ends")
            yield start + 1, lines[start:j]
            i = j
        i += 1


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    src, out = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        found = list(blocks(f.read()))
    if not found:
        raise SystemExit(f"{src}: no ```c block")
    includes, bodies = [], []
    for n, (line, body) in enumerate(found, 1):
        kept = []
        for text in body:
            if text.startswith("#include"):
                includes.append(text)
                kept.append("")  # (keeps the line numbers)
            else:
                kept.append(text)
        bodies.append(f"static void readme_block_{n}(void)\n{{\n#line {line} \"{src}\"\n" + "\n".join(kept) + "\n}\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"/* Generated from {src} by tests/readme_c_blocks.py: do not edit. */\n")
        f.write("\n".join(dict.fromkeys(includes)) + "\n\n")
        f.write("\n".join(bodies))
        f.write(f"\n#define README_BLOCKS {len(found)}\n")
        f.write("static void (*const readme_blocks[README_BLOCKS])(void) = {"
                + ", ".join(f"readme_block_{n}" for n in range(1, len(found) + 1)) + "};\n")
        f.write("static const unsigned readme_block_lines[README_BLOCKS] = {"
                + ", ".join(str(line) for line, _ in found) + "};\n")


if __name__ == "__main__":
    main()
