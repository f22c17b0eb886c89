"""The book (``make book``) holds every chapter, in CHAPTERS.md's order.

Fast checks of the committed sources of the book, without building it:
``book/_toc.yml`` is what ``tools/book_toc.py`` writes from CHAPTERS.md, it
names every notebook ``notebooks/NN_*.ipynb`` once, in chapter order, and the
first page really ends where the README's first screen does.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_toc  # noqa: E402  (tools/book_toc.py)


def test_toc_is_written_from_chapters_md():
    assert (ROOT / "book" / "_toc.yml").read_text() == book_toc.render(book_toc.chapter_notebooks()), (
        "book/_toc.yml is out of date: run `python tools/book_toc.py` (or `make book`) and commit it")


def test_toc_lists_every_chapter_notebook_in_order():
    toc = (ROOT / "book" / "_toc.yml").read_text()
    listed = re.findall(r"^- file: (notebooks/\S+)$", toc, flags=re.M)
    on_disk = sorted(f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert listed == on_disk  # every notebook once, and the file names sort by chapter
    chapters_md = (ROOT / "CHAPTERS.md").read_text()
    positions = [chapters_md.index(f"`{path}.ipynb`") for path in listed]
    assert positions == sorted(positions)


def test_chapter_rows_are_parsed_from_the_table():
    text = ("| # | title | notebook |\n|---|---|---|\n"
            "| 00 | Arrays | `notebooks/00_arrays.ipynb` |\n"
            "| 01 | Tracing | `notebooks/01_tracing.ipynb` |\n"
            "see `notebooks/02_other.ipynb` in prose\n")
    assert book_toc.chapter_notebooks(text) == ["notebooks/00_arrays", "notebooks/01_tracing"]
    assert book_toc.render(["notebooks/00_arrays"]).splitlines()[1:] == [
        "format: jb-book", "root: book/intro", "chapters:", "- file: notebooks/00_arrays"]


def test_intro_is_the_readme_first_screen():
    intro = (ROOT / "book" / "intro.md").read_text()
    marker = re.search(r':end-before: "(.+)"', intro).group(1)
    readme = (ROOT / "README.md").read_text()
    assert readme.count(marker) == 1
    first_screen = readme[:readme.index(marker)]
    assert "## Set-up" in first_screen and "make_jaxpr" in first_screen
    linked = re.findall(r"\]\((notebooks/[^)]+\.ipynb)\)", first_screen)
    on_disk = sorted(f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert linked == on_disk  # the chapter list links every chapter, in order
