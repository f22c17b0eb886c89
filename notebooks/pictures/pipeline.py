"""The pipeline from a Python function to machine code and back, one box per stage.

``draw_pipeline()`` returns a matplotlib Figure: the stages a jitted minijax
function goes through, each labelled with the chapter that builds it. The
front end (tracing and transformations, chapters 01-08) runs along the top
row, the back end (kernel plan and code generation, chapters 09-10) down the
right, and the runtime (chapter 11) along the bottom row, which brings the
result back to Python as an ``Array``.

Run ``python pictures/pipeline.py out.png`` to save it as a PNG.
"""
from __future__ import annotations

import sys

import matplotlib

if __name__ == "__main__":
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

# three families of stages, three pale colours
_FRONT = "#dbe9f6"    # tracing, the jaxpr, transformations
_BACK = "#fde5cc"     # kernel plan, code generation, machine code
_RUN = "#dcefd9"      # executor, arrays
_YOU = "#eeeeee"      # your program
_EDGE = "#555555"

#: (key, x, y, title, detail, chapter label, colour): the stages, in order.
_STAGES = [
    ("py", 0.0, 2.0, "Python function", "def f(x): ...\nf(x) on Arrays", "ch 00 (primitives, jnp)", _YOU),
    ("trace", 2.55, 2.0, "trace", "Tracers meet bind():\nthe current Trace\nsees each primitive", "ch 01 (pytrees: ch 03)", _FRONT),
    ("jaxpr", 5.1, 2.0, "jaxpr", "the program as typed\nequations, closed:\nb:f32[3] = sin a", "ch 05", _FRONT),
    ("transform", 7.65, 2.0, "transformations", "jvp · vmap · grad\n(linearize, transpose)\ncond, while, scan", "ch 02, 04, 07, 08", _FRONT),
    ("jit", 10.2, 2.0, "jit", "cache by avals and\nstatic args; AOT\ntrace / lower / compile", "ch 06", _FRONT),
    ("plan", 10.2, 0.0, "kernel plan", "fusion: elementwise\nloops, reductions,\nBLAS calls", "ch 09", _BACK),
    ("codegen", 7.65, 0.0, "code generation", "kernel source → Numba\nor our llvmlite stage;\nnumba.cuda kernels", "ch 09 (CPU), ch 10 (CUDA)", _BACK),
    ("machine", 5.1, 0.0, "machine code", "x86/ARM on the CPU\nPTX on CUDA GPUs\n(disk cache)", "ch 09, ch 10", _BACK),
    ("exec", 2.55, 0.0, "executor", "per-device in-order\nqueues; futures;\neffect tokens", "ch 11 (effects: ch 12)", _RUN),
    ("array", 0.0, 0.0, "Array", "a future of a buffer\non a device:\nblock_until_ready()", "ch 00, ch 11", _RUN),
]

_W, _H = 2.05, 1.5  # box width and height, in data units


def _box(ax, x, y, title, detail, chapter, colour):
    ax.add_patch(FancyBboxPatch((x - _W / 2, y - _H / 2), _W, _H,
                                boxstyle="round,pad=0.02,rounding_size=0.12",
                                fc=colour, ec=_EDGE, lw=1.0))
    ax.text(x, y + _H / 2 - 0.2, title, ha="center", va="center", fontsize=10.5,
            fontweight="bold", color="#222222")
    ax.text(x, y + 0.02, detail, ha="center", va="center", fontsize=7.6,
            color="#333333", linespacing=1.25)
    ax.text(x, y - _H / 2 + 0.17, chapter, ha="center", va="center", fontsize=7.8,
            color={_BACK: "#8a4b00", _FRONT: "#1f4e79", _RUN: "#2e6b2a"}.get(colour, "#444444"),
            style="italic")


def _arrow(ax, start, end, label="", curve=0.0, label_at=(0.0, 0.0)):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12,
                                 lw=1.2, color=_EDGE, shrinkA=2, shrinkB=2,
                                 connectionstyle=f"arc3,rad={curve}"))
    if label:
        ax.text(*label_at, label, ha="center", va="center", fontsize=7.3, color="#444444",
                bbox=dict(fc="white", ec="none", pad=0.6))


def draw_pipeline():
    """The stages from a Python function to machine code and back, with their chapters."""
    fig, ax = plt.subplots(figsize=(12.4, 4.9))
    where = {key: (x, y) for key, x, y, *_ in _STAGES}
    for _, x, y, title, detail, chapter, colour in _STAGES:
        _box(ax, x, y, title, detail, chapter, colour)

    def right(k):
        return where[k][0] + _W / 2, where[k][1]

    def left(k):
        return where[k][0] - _W / 2, where[k][1]

    # top row, left to right: the front end
    for a, b in [("py", "trace"), ("trace", "jaxpr"), ("jaxpr", "transform"), ("transform", "jit")]:
        _arrow(ax, right(a), left(b))
    # a transformation maps a jaxpr to a jaxpr: a loop over the top of the two boxes
    jx, jy = where["jaxpr"]
    tx, ty = where["transform"]
    _arrow(ax, (tx, ty + _H / 2), (jx + 0.3, jy + _H / 2), curve=0.45,
           label="jaxpr → jaxpr", label_at=((jx + tx) / 2 + 0.15, jy + _H / 2 + 0.52))
    # down the right: jit lowers the jaxpr to a kernel plan
    _arrow(ax, (where["jit"][0], where["jit"][1] - _H / 2 - 0.02),
           (where["plan"][0], where["plan"][1] + _H / 2), label="lower",
           label_at=(where["jit"][0] + 0.3, 1.0))
    # bottom row, right to left: the back end, then the runtime
    for a, b in [("plan", "codegen"), ("codegen", "machine"), ("machine", "exec"), ("exec", "array")]:
        _arrow(ax, left(a), right(b))
    # and back to Python: the result is an Array the program reads
    _arrow(ax, (where["array"][0], where["array"][1] + _H / 2),
           (where["py"][0], where["py"][1] - _H / 2 - 0.02), label="result",
           label_at=(where["py"][0] + 0.3, 1.0))

    # the three families, named once in a legend
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(fc=_FRONT, ec=_EDGE, label="front end: trace and transform"),
                       Patch(fc=_BACK, ec=_EDGE, label="back end: plan and compile"),
                       Patch(fc=_RUN, ec=_EDGE, label="runtime: run and return")],
              loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=3, frameon=False, fontsize=8.5)
    ax.set_xlim(-1.2, 11.4)
    ax.set_ylim(-1.05, 3.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("minijax: from a Python function to machine code and back", fontsize=12, pad=4)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python pipeline.py OUT.png")
    draw_pipeline().savefig(sys.argv[1], dpi=120)
