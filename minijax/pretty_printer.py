"""Chapter 05 — a small pretty-printer: documents that choose their own line breaks.

A jaxpr prints on one line when it fits in 80 columns and one equation per
line when it does not; a long parameter list breaks one parameter per line.
Rather than deciding this with ad-hoc string code, JAX (and minijax) builds a
*document* and lets a pretty-printer lay it out, the approach of Wadler's
"A prettier printer" in the strict form of Lindig's "Strictly Pretty".

A document is built from six pieces:

- ``text(s)``: literal text;
- ``concat([d1, d2, ...])`` (or ``d1 + d2``): one after the other;
- ``brk(s=" ")``: a *break*: prints ``s`` when its group is laid out flat,
  or a newline (plus the current indentation) when the group is broken;
- ``group(d)``: a layout choice. If ``d`` fits on the rest of the line with
  every break flat, print it flat; otherwise its breaks become newlines
  (inner groups then choose again, for themselves);
- ``nest(n, d)``: newlines inside ``d`` are indented ``n`` more columns;
- ``nil()``: nothing.

The layout rule is the one JAX uses (``jax/_src/pretty_printer.py``): a group
is printed flat when *the group itself* fits in the remaining width — the
text after the group does not count. Printing the same documents with the
same rule is what makes minijax's jaxprs match JAX's character for character.
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["Doc", "nil", "text", "concat", "brk", "group", "nest", "join"]


class Doc:
    """A pretty-printer document. ``str(doc)`` lays it out at width 80."""
    __slots__ = ()

    def __add__(self, other: "Doc") -> "Doc":
        return concat([self, other])

    def __str__(self) -> str:
        return self.format()

    def format(self, width: int = 80) -> str:
        """Lay the document out in ``width`` columns."""
        return _format(self, width)


class _Nil(Doc):
    __slots__ = ()

    def __repr__(self):
        return "nil"


class _Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return f"text({self.text!r})"


class _Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = tuple(children)

    def __repr__(self):
        return f"concat({list(self.children)!r})"


class _Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return f"brk({self.text!r})"


class _Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child: Doc):
        self.child = child

    def __repr__(self):
        return f"group({self.child!r})"


class _Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n: int, child: Doc):
        self.n, self.child = n, child

    def __repr__(self):
        return f"nest({self.n}, {self.child!r})"


_nil = _Nil()


def nil() -> Doc:
    """The empty document."""
    return _nil


def text(s: str) -> Doc:
    """Literal text (it should contain no newline)."""
    return _Text(s)


def concat(docs: Sequence[Doc]) -> Doc:
    """The documents one after the other."""
    docs = list(docs)
    return docs[0] if len(docs) == 1 else _Concat(docs)


def brk(s: str = " ") -> Doc:
    """``s`` when the enclosing group is flat, a newline when it is broken."""
    return _Break(s)


def group(doc: Doc) -> Doc:
    """Print ``doc`` flat if it fits in the rest of the line, else break its breaks."""
    return _Group(doc)


def nest(n: int, doc: Doc) -> Doc:
    """Indent the lines that start inside ``doc`` by ``n`` more columns."""
    return _Nest(n, doc)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    """``docs`` with ``sep`` between each two."""
    docs = list(docs)
    if not docs:
        return nil()
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return concat(out)


# --- the renderer ----------------------------------------------------------------

def _fits(doc: Doc, width: int) -> bool:
    """Does ``doc``, printed flat, take at most ``width`` columns?"""
    agenda = [doc]
    while width >= 0 and agenda:
        d = agenda.pop()
        if isinstance(d, (_Text, _Break)):
            width -= len(d.text)
        elif isinstance(d, _Concat):
            agenda.extend(reversed(d.children))
        elif isinstance(d, (_Group, _Nest)):
            agenda.append(d.child)
    return width >= 0


_FLAT, _BREAK = "flat", "break"


def _format(doc: Doc, width: int) -> str:
    """Walk the document with an explicit stack of (indent, mode, doc).

    ``column`` is the current position on the line. A break in a flat group
    prints its text; in a broken group it starts a new line indented by the
    indentation in force where the break sits. Each group decides its mode
    once, when the walk reaches it, by measuring itself with :func:`_fits`.
    """
    out: list[str] = []
    column = 0
    agenda = [(0, _BREAK, doc)]
    while agenda:
        indent, mode, d = agenda.pop()
        if isinstance(d, _Text):
            out.append(d.text)
            column += len(d.text)
        elif isinstance(d, _Concat):
            agenda.extend((indent, mode, c) for c in reversed(d.children))
        elif isinstance(d, _Break):
            if mode == _FLAT:
                out.append(d.text)
                column += len(d.text)
            else:
                out.append("\n" + " " * indent)
                column = indent
        elif isinstance(d, _Nest):
            agenda.append((indent + d.n, mode, d.child))
        elif isinstance(d, _Group):
            child_mode = _FLAT if _fits(d.child, width - column) else _BREAK
            agenda.append((indent, child_mode, d.child))
    return "".join(out)
