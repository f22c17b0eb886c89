"""A jaxpr drawn as a dataflow graph (chapter 05).

:func:`draw_jaxpr` takes a real jaxpr (what ``make_jaxpr`` returns) and draws
it left to right: the inputs (constvars, then invars) in the first column,
each equation as a box named after its primitive in the column of its
*depth* (one more than the deepest equation it reads from), and the outputs
in the last column. An arrow runs along each variable, from the equation
that defines it to each one that reads it, labelled with the variable's
name, the same name the printed jaxpr gives it. Equations in the same
column do not depend on each other: they could run in parallel.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from minijax.jaxpr import (ClosedJaxpr, JaxprPpContext, JaxprPpSettings, Literal, _dropvars,
                           _pp_atom, pp_jaxpr)

INPUT_COLOR, EQN_COLOR, OUTPUT_COLOR, HIGHLIGHT_COLOR = "#cfe0f3", "#fff3d6", "#d5ecd4", "#ee9a9a"


def _names(jaxpr) -> JaxprPpContext:
    """The printer's names for every variable of ``jaxpr`` (``_`` for unread outputs)."""
    ctx = JaxprPpContext(_dropvars(jaxpr))
    pp_jaxpr(jaxpr, ctx, JaxprPpSettings())     # names variables in print order
    return ctx


def _literal(v) -> str:
    val = np.asarray(v.val)
    return f"{val.item():.4g}" if val.ndim == 0 else str(v.aval)


def _eqn_label(eqn, read) -> str:
    name = eqn.primitive.name
    if "name" in eqn.params and isinstance(eqn.params["name"], str):   # jit[name=f]
        name = f"{name}[{eqn.params['name']}]"
    lits = [_literal(v) for v in eqn.invars if isinstance(v, Literal)]
    return name + ("\n" + " ".join(lits) if lits else "")


def graph_of(jaxpr):
    """``(nodes, edges)``: nodes are dicts (label, kind, column), edges ``(src, dst, var name)``."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    ctx = _names(jaxpr)
    name = lambda v: _pp_atom(v, ctx, print_dtype=False)  # noqa: E731
    nodes, edges, producer = [], [], {}
    for v in list(jaxpr.constvars) + list(jaxpr.invars):
        producer[v] = len(nodes)
        kind = "const" if v in jaxpr.constvars else "input"
        nodes.append(dict(label=f"{name(v)}:{v.aval.str_short(short_dtypes=True)}", kind=kind,
                          column=0))
    for eqn in jaxpr.eqns:
        srcs = [(producer[v], name(v)) for v in eqn.invars if not isinstance(v, Literal)]
        column = 1 + max((nodes[s]["column"] for s, _ in srcs), default=0)
        edges += [(s, len(nodes), label) for s, label in srcs]
        for v in eqn.outvars:
            producer[v] = len(nodes)
        nodes.append(dict(label=_eqn_label(eqn, name), kind="eqn", column=column, eqn=eqn))
    last = 1 + max(n["column"] for n in nodes) if nodes else 1
    readers: dict = {}
    for s, t, _ in edges:
        readers.setdefault(s, []).append(nodes[t]["column"])
    for i, n in enumerate(nodes):   # an input sits just left of its first reader, not far away
        if n["kind"] in ("input", "const") and i in readers:
            n["column"] = min(readers[i]) - 1
    for i, v in enumerate(jaxpr.outvars):
        if isinstance(v, Literal):
            nodes.append(dict(label=f"out {i}\n{_literal(v)}", kind="output", column=last))
        else:
            edges.append((producer[v], len(nodes), name(v)))
            nodes.append(dict(label=f"out {i}", kind="output", column=last))
    return nodes, edges


def _rows(nodes, edges) -> list[float]:
    """A row for each node: columns left to right, each ordered by the mean row of
    its predecessors (few crossings), centred on 0."""
    preds = {i: [] for i in range(len(nodes))}
    for s, t, _ in edges:
        preds[t].append(s)
    row = {}
    columns = sorted({n["column"] for n in nodes})
    for c in columns:
        members = [i for i, n in enumerate(nodes) if n["column"] == c]
        key = lambda i: (np.mean([row[p] for p in preds[i]]) if preds[i] else 0.0, i)  # noqa: E731
        if c > 0:
            members.sort(key=key)
        for k, i in enumerate(members):
            row[i] = k - (len(members) - 1) / 2
    return [row[i] for i in range(len(nodes))]


def draw_jaxpr(closed_jaxpr, ax=None, title=None, highlight=None, highlight_label=None):
    """Draw a jaxpr (a ``ClosedJaxpr`` or ``Jaxpr``) as a graph; returns the Figure.

    ``ax``: draw into these axes (else a new figure sized to the graph).
    ``highlight``: a function ``eqn -> bool``; the equations it selects are drawn in red,
    and ``highlight_label`` names them in a legend.
    """
    nodes, edges = graph_of(closed_jaxpr)
    rows = _rows(nodes, edges)
    ncols = max(n["column"] for n in nodes) + 1
    if ax is None:
        height = max(2.2, 0.85 * (max(rows) - min(rows) + 1) + 0.8)
        fig, ax = plt.subplots(figsize=(max(4.0, 1.5 * ncols + 0.4), height))
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9 if title else 0.99)
    fig = ax.figure
    xy = [(n["column"], r) for n, r in zip(nodes, rows)]
    for s, t, label in edges:
        (x0, y0), (x1, y1) = xy[s], xy[t]
        bend = 0.25 if x1 - x0 > 1 and y0 == y1 else 0.0      # keep long straight edges visible
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=1, arrowprops=dict(
            arrowstyle="-|>", color="0.45", lw=1.0, shrinkA=20, shrinkB=20,
            connectionstyle=f"arc3,rad={bend}"))
        at = 0.15 if bend else 0.42       # a bent edge: label it near its start, still on the curve
        ax.text(x0 + at * (x1 - x0), y0 + at * (y1 - y0), label,
                fontsize=7, color="0.25", ha="center", va="center", zorder=2,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.9))
    colors = {"input": INPUT_COLOR, "const": INPUT_COLOR, "eqn": EQN_COLOR, "output": OUTPUT_COLOR}
    for n, (x, y) in zip(nodes, xy):
        color = colors[n["kind"]]
        if highlight is not None and n["kind"] == "eqn" and highlight(n["eqn"]):
            color = HIGHLIGHT_COLOR
        style = "round,pad=0.3" if n["kind"] == "eqn" else "square,pad=0.3"
        ax.text(x, y, n["label"], ha="center", va="center", fontsize=8, zorder=3,
                family="monospace", bbox=dict(boxstyle=style, fc=color, ec="0.4",
                                              ls="--" if n["kind"] == "const" else "-"))
    if highlight_label:
        ax.scatter([], [], marker="s", s=60, color=HIGHLIGHT_COLOR, ec="0.4", label=highlight_label)
        ax.legend(loc="lower right", fontsize=7, frameon=False)
    ax.set_xlim(-0.7, ncols - 0.3)
    ax.set_ylim(max(rows) + 0.7, min(rows) - 0.7)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return fig
