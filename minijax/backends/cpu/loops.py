"""Chapter 09 — writing loops: the copies and loop nests rules and the writer share.

Element loops compile much faster in Numba than NumPy's slice assignments
(``out[a:b] = x``) or ``x.transpose(perm)``, and run as fast, so the kernel
writer and the call rules move data with the loops written here.
"""
from __future__ import annotations

import numpy as np

__all__ = ["PARALLEL_THRESHOLD", "ELEMENTWISE_PARALLEL_THRESHOLD", "TRANSPOSE_TILE", "copy_loops", "permuted_copy",
           "open_loops", "opened", "close_loops", "index"]

#: Reductions over at least this many elements run in chunks, in parallel
#: (``prange``); the chunks are fixed by the shape, so are the bits.
PARALLEL_THRESHOLD = 2 ** 16
#: Fused elementwise loop nests (and big copies) with at least this many
#: elements run their outer loop in parallel. Higher than for reductions: a
#: parallel loop wakes Numba's sleeping threads, 20-40 us on the project's
#: 2-core machine, while an elementwise nest does little per element (the
#: digits MLP's momentum update of a 256x256 weight, 65,536 elements: 3.8 us
#: for half of it on one thread, 30-46 us as a parallel loop).
ELEMENTWISE_PARALLEL_THRESHOLD = 2 ** 18


def copy_loops(w, prefix: str, shape, dst, src) -> None:
    """Emit loops over ``shape`` copying ``src(idx)`` to ``dst(idx)`` element by element.

    ``dst`` and ``src`` map the list of loop variables to an element's code.
    Element loops compile much faster in Numba than assigning an array to a
    slice (``out[a:b] = x``) or ``x.transpose(perm)``, and run as fast.
    """
    idx = open_loops(w, shape, prefix)
    w.emit(f"{dst(idx)} = {src(idx)}")
    close_loops(w, idx)


#: The side of the square tiles a transposing copy goes through. Measured on a
#: 1000x1000 float32 transpose (one core / two): no tiles 0.66 ms; 4: 0.45 / 0.25;
#: 8: 0.29 / 0.26; 16: 0.58 / 0.65; 32: 0.50 / 0.47 (JAX: 0.25, NumPy: 0.68).
TRANSPOSE_TILE = 8


def permuted_copy(w, name: str, x: str, shape, dtype: str, perm, comment=None) -> None:
    """Emit ``name``, a new C-contiguous array of ``shape``: ``x`` with its axes
    permuted by ``perm`` (``name[i] = x[i permuted back]``), as element loops.

    When the innermost output axis does not read the innermost input axis (a
    transpose), plain loops read ``x`` with a stride: every element a new
    cache line, used once. The copy then goes tile by tile over the two axes
    involved (``TRANSPOSE_TILE`` square), so the lines read for a tile are
    used for all its rows; a big copy spreads its outermost loop over threads.
    """
    w.emit(f"{name} = np.empty({tuple(shape)}, dtype={dtype})", comment)
    src = lambda i: f"{x}[{', '.join(i[perm.index(d)] for d in range(len(perm)))}]"  # noqa: E731
    rank, j = len(shape), perm.index(len(perm) - 1)  # output axis j reads x's last axis
    last = rank - 1
    if j == last or min(shape[j], shape[last]) < TRANSPOSE_TILE:
        copy_loops(w, f"{name}_i", shape, lambda i: f"{name}[{', '.join(i)}]", src)
        return
    idx = [f"{name}_i{d}" for d in range(rank)]
    parallel = int(np.prod(shape, dtype=np.int64)) >= ELEMENTWISE_PARALLEL_THRESHOLD
    loops = [f"for {idx[d]} in range({shape[d]}):" for d in range(rank) if d not in (j, last)]
    t = TRANSPOSE_TILE  # (prange takes no step: the tile loops count tiles)
    loops += [f"for {name}_t{d} in range({-(-shape[d] // t)}):" for d in (j, last)]
    loops += [f"for {idx[d]} in range({name}_t{d} * {t}, min({name}_t{d} * {t} + {t}, "
              f"{shape[d]})):" for d in (j, last)]
    if parallel:
        loops[0] = loops[0].replace(" in range(", " in prange(", 1)
        w.parallel = True
    for loop in loops:
        w.emit(loop)
        w.depth += 1
    w.emit(f"{name}[{', '.join(idx)}] = {src(idx)}")
    w.depth -= len(loops)


def open_loops(w, shape, prefix: str, dims=None) -> list[str]:
    """Emit nested ``for`` loops over ``shape`` (over its dimensions ``dims`` only,
    when given) and return their index variables, ``{prefix}{d}``. A dimension of
    size 1 gets no loop: its index is ``"0"``. The caller closes the loops with
    :func:`close_loops`."""
    names = []
    for d in range(len(shape)) if dims is None else dims:
        if shape[d] == 1:
            names.append("0")
            continue
        w.emit(f"for {prefix}{d} in range({shape[d]}):")
        w.depth += 1
        names.append(f"{prefix}{d}")
    return names


def opened(names) -> int:
    """How many loops :func:`open_loops` opened for ``names``."""
    return sum(name != "0" for name in names)


def close_loops(w, names) -> None:
    """Close the loops :func:`open_loops` opened."""
    w.depth -= opened(names)


def index(parts) -> str:
    return ", ".join(parts) if parts else "()"
