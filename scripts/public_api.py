#!/usr/bin/env python3
"""The public paths of `codec`, one per line, read from rustdoc's all.html
(built by `cargo doc --all-features --no-deps`): the list users see.

    python3 scripts/public_api.py              # prints the list
    python3 scripts/public_api.py --check F    # fails unless the list is F's
    python3 scripts/public_api.py --write F    # writes it to F

A change to the public surface is then a reviewed diff of `public-api.txt`,
checked in CI as schemas are.
"""

import difflib
import html
import os
import re
import sys

# rustdoc's file name prefixes, as the kinds of items.
KINDS = {
    "struct": "struct", "enum": "enum", "trait": "trait", "fn": "fn",
    "macro": "macro", "derive": "derive", "attr": "attribute macro",
    "constant": "const", "type": "type", "static": "static", "union": "union",
    "traitalias": "trait alias", "primitive": "primitive",
}


def paths(all_html: str) -> list[str]:
    """`kind codec::path` for each item all.html lists, sorted."""
    out = set()
    for href, name in re.findall(r'<li><a href="([^"]+)">([^<]+)</a></li>', all_html):
        prefix = os.path.basename(href).split(".", 1)[0]
        kind = KINDS.get(prefix)
        if kind is None:
            raise SystemExit(f"unknown kind of item in all.html: {href}")
        out.add(f"{kind} codec::{html.unescape(name)}")
    return sorted(out, key=lambda line: (line.split(" ")[-1], line))


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    all_html = os.path.join(target, "doc", "codec", "all.html")
    try:
        with open(all_html, encoding="utf-8") as f:
            listed = paths(f.read())
    except FileNotFoundError:
        raise SystemExit(f"no {all_html}: run `cargo doc --workspace --all-features --no-deps` first")
    text = "".join(line + "\n" for line in listed)
    args = sys.argv[1:]
    if not args:
        sys.stdout.write(text)
        return 0
    if len(args) == 2 and args[0] == "--write":
        with open(args[1], "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    if len(args) == 2 and args[0] == "--check":
        try:
            with open(args[1], encoding="utf-8") as f:
                committed = f.read()
        except FileNotFoundError:
            committed = ""
        if committed == text:
            return 0
        diff = difflib.unified_diff(
            committed.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{args[1]} (committed)", tofile="the code's public paths",
        )
        sys.stderr.write("".join(diff))
        sys.stderr.write(
            f"\nthe public paths of codec changed: if that is meant, run\n"
            f"    python3 scripts/public_api.py --write {args[1]}\n"
            f"and commit the file with the change\n"
        )
        return 1
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
