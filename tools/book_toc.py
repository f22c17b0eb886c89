"""Write the book's table of contents, ``book/_toc.yml``, from CHAPTERS.md.

The chapters come in the order of CHAPTERS.md's table: each row names its
notebook (``notebooks/NN_name.ipynb``). The first page is ``book/intro.md``
(the README's first screen). ``make book`` runs this before building, and
``tests/test_book.py`` checks that the committed file is what it writes.

Usage::

    python tools/book_toc.py          # write book/_toc.yml
    python tools/book_toc.py --check  # exit 1 if book/_toc.yml is out of date
"""
from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "CHAPTERS.md"
TOC = ROOT / "book" / "_toc.yml"

_ROW = re.compile(r"^\|\s*(\d\d)\s*\|.*?`(notebooks/\1_\w+)\.ipynb`", re.M)


def chapter_notebooks(text=None):
    """The chapter notebooks named in CHAPTERS.md's table, in its order (no suffix)."""
    text = CHAPTERS.read_text() if text is None else text
    return [m.group(2) for m in _ROW.finditer(text)]


def render(notebooks):
    """The text of ``_toc.yml`` (paths relative to the book's root, the repository)."""
    lines = ["# Written by tools/book_toc.py from CHAPTERS.md: edit those, not this file.",
             "format: jb-book",
             "root: book/intro",
             "chapters:"]
    lines += [f"- file: {path}" for path in notebooks]
    return "\n".join(lines) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = render(chapter_notebooks())
    if "--check" in argv:
        if not TOC.exists() or TOC.read_text() != text:
            print(f"{TOC.relative_to(ROOT)} is out of date: run python tools/book_toc.py", file=sys.stderr)
            return 1
        return 0
    TOC.parent.mkdir(exist_ok=True)
    TOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
