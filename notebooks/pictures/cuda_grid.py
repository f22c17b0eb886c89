"""Chapter 10's picture: a grid of blocks of threads mapped onto an array.

The CUDA backend writes an elementwise kernel as a *grid-stride loop*::

    t_flat = cuda.grid(1)                 # blockIdx.x * blockDim.x + threadIdx.x
    while t_flat < n:
        ...element t_flat...
        t_flat += cuda.gridsize(1)        # gridDim.x * blockDim.x

:func:`grid_stride` runs exactly that index arithmetic in Python for a launch
of ``blocks`` blocks of ``threads`` threads (take them from a real kernel:
``lowered.compiler_ir().module.kernels[k].grid`` and ``.block``) and says
which thread computes which element, in which pass of the loop; it checks
that every element is computed exactly once. :func:`draw_cuda_grid` draws it,
in the manner of GPU-Puzzles: the blocks and their threads on top, the
elements below, one row per pass, each element in the colour of its thread.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

__all__ = ["grid_stride", "thread_color", "draw_cuda_grid"]


def grid_stride(blocks: int, threads: int, n: int) -> dict:
    """``{element: (block, thread, pass)}``: the kernel's loop, run for its indices only."""
    owner = {}
    for b in range(blocks):
        for t in range(threads):
            t_flat, p = b * threads + t, 0            # t_flat = cuda.grid(1)
            while t_flat < n:
                assert t_flat not in owner            # nobody computes an element twice
                owner[t_flat] = (b, t, p)
                t_flat, p = t_flat + blocks * threads, p + 1   # += cuda.gridsize(1)
    assert sorted(owner) == list(range(n))            # and every element is computed
    for i, (b, t, p) in owner.items():                # in each pass, consecutive threads
        assert i == p * blocks * threads + b * threads + t   # take consecutive elements
    return owner


def thread_color(b: int, t: int, blocks: int, threads: int):
    """Thread ``t`` of block ``b``: one colour family per block, lighter to darker."""
    cmap = plt.get_cmap(["Blues", "Oranges", "Greens", "Purples"][b % 4])
    return cmap(0.35 + 0.55 * t / max(1, threads - 1))


def draw_cuda_grid(name: str, blocks: int, threads: int, n: int, max_cols: int = 48):
    """A matplotlib Figure: the launch ``name[blocks, threads]`` over ``n`` elements,
    thread by thread; a launch with more than ``max_cols`` threads (a GPU's) is drawn
    block by block instead (:func:`_draw_blocks`)."""
    if blocks * threads > max_cols and n > max_cols:
        return _draw_blocks(name, blocks, threads, n)
    owner = grid_stride(blocks, threads, n)
    size = blocks * threads
    passes = -(-n // size)
    cols = min(size, n, max_cols)
    fig, ax = plt.subplots(figsize=(0.42 * cols + 2.6, 0.5 * (passes + 4)))
    for g in range(cols):                             # top: the grid, block by block
        b, t = divmod(g, threads)
        ax.add_patch(Rectangle((g, passes + 1.2), 1, 1, fc=thread_color(b, t, blocks, threads), ec="k"))
        ax.text(g + 0.5, passes + 1.7, str(t), ha="center", va="center", fontsize=8)
    for b in range(blocks):
        lo, hi = b * threads, min((b + 1) * threads, cols)
        if lo < cols:
            ax.add_patch(Rectangle((lo, passes + 1.2), hi - lo, 1, fill=False, ec="k", lw=2.5))
            ax.text((lo + hi) / 2, passes + 2.6, f"block {b}", ha="center", fontsize=9)
    ax.text(-0.3, passes + 1.7, "threadIdx.x", ha="right", va="center", fontsize=9)
    ax.text(-0.3, passes + 0.35, "elements x[t_flat], by thread:", ha="right", va="center",
            fontsize=9, style="italic")
    for i, (b, t, p) in owner.items():                # below: the elements, one row per pass
        g = i - p * size
        if g >= cols:
            continue
        ax.add_patch(Rectangle((g, passes - 1 - p), 1, 1, fc=thread_color(b, t, blocks, threads), ec="k"))
        ax.text(g + 0.5, passes - 0.5 - p, str(i), ha="center", va="center", fontsize=8)
    for p in range(passes):
        idle = max(0, (p + 1) * size - n)
        label = "pass 0: t_flat = cuda.grid(1)" if p == 0 else f"pass {p}: t_flat += {size}"
        ax.text(-0.3, passes - 0.5 - p, label, ha="right", va="center", fontsize=9)
        if idle and p == passes - 1:
            ax.text(cols + 0.2, passes - 0.5 - p, f"{idle} threads idle\n(t_flat >= {n})",
                    va="center", fontsize=8, color="gray")
    ax.set_xlim(-7, cols + 3)
    ax.set_ylim(-0.3, passes + 3)
    ax.set_aspect("equal")
    ax.axis("off")
    shown = "" if cols == min(size, n) else f" (the first {cols} columns)"
    ax.set_title(f"{name}[{blocks}, {threads}]: {blocks} block(s) x {threads} threads, "
                 f"{n} elements, {passes} pass(es){shown}", fontsize=10)
    return fig


def _block_span(b: int, p: int, blocks: int, threads: int, n: int):
    """The elements block ``b`` covers in pass ``p``: ``(first, last)``, or None if idle.
    Its threads take ``threads`` consecutive elements: the grid-stride loop again."""
    first = p * blocks * threads + b * threads
    last = min(first + threads, n) - 1
    return (first, last) if first < n else None


def _draw_blocks(name: str, blocks: int, threads: int, n: int, shown: int = 4):
    """The launch block by block: one box per block and pass, the block's ``threads``
    consecutive elements; the first ``shown`` blocks, a gap, and the last two."""
    size = blocks * threads
    passes = -(-n // size)
    cols = list(range(min(shown, blocks))) + ([None] if blocks > shown + 2 else []) + \
        [b for b in range(max(shown, blocks - 2), blocks)]
    for b in range(blocks):                          # the loop covers each element once
        for p in range(passes):
            span = _block_span(b, p, blocks, threads, n)
            assert span is None or span[1] - span[0] < threads
    assert sum(s[1] - s[0] + 1 for b in range(blocks) for p in range(passes)
               if (s := _block_span(b, p, blocks, threads, n))) == n
    w = 2.6
    fig, ax = plt.subplots(figsize=(w * len(cols) * 0.75 + 3.2, 0.62 * (passes + 3)))
    for c, b in enumerate(cols):
        x = c * w
        if b is None:
            ax.text(x + w / 2, passes + 0.9, "...", ha="center", va="center", fontsize=12)
            for p in range(passes):
                ax.text(x + w / 2, passes - 0.5 - p, "...", ha="center", va="center", fontsize=12)
            continue
        ax.add_patch(Rectangle((x, passes + 0.5), w, 0.8, fc=thread_color(b, threads // 2, 4, threads),
                               ec="k", lw=1.5))
        ax.text(x + w / 2, passes + 0.9, f"block {b}\n{threads} threads", ha="center", va="center",
                fontsize=7)
        for p in range(passes):
            span = _block_span(b, p, blocks, threads, n)
            y = passes - 1 - p
            if span is None:
                ax.add_patch(Rectangle((x, y + 0.05), w, 0.9, fc="whitesmoke", ec="lightgray"))
                ax.text(x + w / 2, y + 0.5, "idle", ha="center", va="center", fontsize=7, color="gray")
                continue
            ax.add_patch(Rectangle((x, y + 0.05), w, 0.9, fc=thread_color(b, threads // 2, 4, threads),
                                   ec="k", alpha=0.8))
            ax.text(x + w / 2, y + 0.5, f"x[{span[0]:,}]\n... x[{span[1]:,}]", ha="center",
                    va="center", fontsize=7.5)
    for p in range(passes):
        label = "pass 0: t_flat = cuda.grid(1)" if p == 0 else f"pass {p}: t_flat += {size:,}"
        ax.text(-0.2, passes - 0.5 - p, label, ha="right", va="center", fontsize=8)
    ax.set_xlim(-5.5, len(cols) * w + 0.2)
    ax.set_ylim(-0.2, passes + 1.5)
    ax.axis("off")
    ax.set_title(f"{name}[{blocks}, {threads}]: {blocks} blocks x {threads} threads = {size:,} "
                 f"threads, {n:,} elements, {passes} passes\n(each box: the consecutive elements "
                 f"one block's threads take in one pass)", fontsize=9)
    return fig
