"""Chapter 09 — the CPU lowering of windowed reductions (pooling) and their derivatives.

Each output element of ``reduce_window_sum``/``max``/``min`` and of
``select_and_gather_add`` is its window walked by plain loops
(:mod:`minijax.backends.plan.windows` writes them, for this target and
CUDA's): one loop nest over the output, a nested one over the window, the
outer loop spread over threads when the work is big. ``select_and_scatter_add``
adds each source element onto its window's winner; windows may overlap, so
one thread does it all, in order, as the CPU's scatters do.

Pooling an image laid out NHWC leaves its last axis, the features, alone
(a window one element wide, stride 1): then the window sums, maxima and
minima go a *row* of features at a time (:func:`_write_rows`): each output
row starts as the identity and takes the window's rows in turn, a
contiguous loop the compiler vectorizes, and a row of padding or holes is
skipped with one test instead of one per element. The order of the
operations on each element is the element-at-a-time order, so the bits are
the same. (The transpose of average pooling, ``pad`` then a window sum, is
one such window sum, over the padding and holes the ``pad`` put in:
:func:`minijax.backends.plan.windows.fold_pads_into_window_sums`.) The generic
``reduce_window`` (chapter 08) writes its computation's jaxpr inline, in the
window loops.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.backends.cpu.loops import PARALLEL_THRESHOLD
from minijax.backends.cpu.rules import lowering
from minijax.backends.cpu.syntax import cast, is_half, literal, np_dtype
from minijax.backends.plan.windows import (checked_window_loops, combine, plain_tail, window_loops,
                                           write_reduce, write_select_and_gather,
                                           write_select_and_scatter)
from minijax.lax.windowed import identity_of
from minijax.control_flow.windowed import reduce_window_p
from minijax.jaxpr import ClosedJaxpr

__all__ = []


def _open_output_loops(w, shape, work: int, parallel_ok: bool = True) -> list[str]:
    """Loops over ``shape`` (the first in ``prange`` when ``work`` is big); their indices."""
    idx, opened = [], 0
    for d, n in enumerate(shape):
        if n == 1:
            idx.append("0")
            continue
        loop = "prange" if parallel_ok and not opened and work >= PARALLEL_THRESHOLD else "range"
        w.parallel |= loop == "prange"
        w.emit(f"for o{d}_v in {loop}({n}):")
        w.depth += 1
        opened += 1
        idx.append(f"o{d}_v")
    w.opened_window_loops = opened
    return idx


def _each_output(write):
    """A rule: allocate the output, loop over it, ``write(w, eqn, o, store)`` each element."""
    def rule(w, eqn, *operands) -> None:
        out = eqn.outvars[0]
        shape = tuple(out.aval.shape)
        name = w.var(out)
        w.emit(f"# {w.text(eqn)}")
        w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(out.aval.dtype)})")
        window = int(np.prod(eqn.params["window_dimensions"], dtype=np.int64))
        o = _open_output_loops(w, shape, int(np.prod(shape, dtype=np.int64)) * window)
        write(w, eqn, o, lambda expr: w.emit(f"{name}[{', '.join(o) or '()'}] = {expr}"))
        w.depth -= w.opened_window_loops
    return rule


def _reduce_rows(kind: str):
    """A rule for ``reduce_window_{kind}``: rows of features at a time when the
    window leaves the trailing axes alone (pooling NHWC images), else one
    output element at a time (:func:`_each_output`)."""
    each_element = _each_output(lambda w, eqn, o, store: write_reduce(w, eqn, kind, o, store))

    def rule(w, eqn, *operands) -> None:
        x, out = eqn.invars[0], eqn.outvars[0]
        shape, dtype = tuple(out.aval.shape), np.dtype(out.aval.dtype)
        t = plain_tail(eqn.params, len(shape))
        if t == len(shape) or is_half(dtype):
            return each_element(w, eqn, *operands)
        _write_rows(w, eqn, kind, t)
    return rule


def _write_rows(w, eqn, kind: str, t: int) -> None:
    """``out[o, :] = fold of x[i, :]`` over the window positions ``i`` of each
    position ``o`` of the first ``t`` axes; the trailing axes (the features) are
    the innermost loops, contiguous: each output row starts as the identity and
    takes each real row of the window in turn, in the window's order, the
    order the element-at-a-time loops add in (the same bits)."""
    x, out = eqn.invars[0], eqn.outvars[0]
    shape, dtype = tuple(out.aval.shape), np.dtype(out.aval.dtype)
    name = w.var(out)
    w.emit(f"# {w.text(eqn)}  (a row of {shape[t:]} at a time)")
    w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(dtype)})")
    window = int(np.prod(eqn.params["window_dimensions"], dtype=np.int64))
    o = _open_output_loops(w, shape[:t], int(np.prod(shape, dtype=np.int64)) * window)
    opened = w.opened_window_loops

    def over_row(body) -> None:
        """``body(tail)`` inside loops over the trailing axes."""
        tail, depth = [], 0
        for d in range(t, len(shape)):
            if shape[d] == 1:
                tail.append("0")
                continue
            w.emit(f"for t{d}_v in range({shape[d]}):")
            w.depth += 1
            depth += 1
            tail.append(f"t{d}_v")
        body(tail)
        w.depth -= depth

    at = lambda tail: f"{name}[{', '.join([*o, *tail])}]"  # noqa: E731
    ident = literal(identity_of(kind, dtype), dtype)
    over_row(lambda tail: w.emit(f"{at(tail)} = {ident}"))
    lines, depth = checked_window_loops(o, x.aval.shape, eqn.params, "r_", t)
    for line in lines:
        w.emit(line)
    w.depth += depth
    idx = [f"r_i{d}" for d in range(t)]
    over_row(lambda tail: w.emit(
        f"{at(tail)} = {combine(w, kind, dtype, at(tail), w.read(x, [*idx, *tail]))}"))
    w.depth -= depth + opened


for _kind, _prim in (("sum", lax.reduce_window_sum_p), ("max", lax.reduce_window_max_p),
                     ("min", lax.reduce_window_min_p)):
    lowering(_prim, complex=_kind == "sum")(_reduce_rows(_kind))

lowering(lax.select_and_gather_add_p)(_each_output(write_select_and_gather))


@lowering(lax.select_and_scatter_add_p)
def _select_and_scatter_add(w, eqn, source, operand) -> None:
    out = eqn.outvars[0]
    name = w.var(out)
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name} = np.zeros({tuple(out.aval.shape)}, dtype={np_dtype(out.aval.dtype)})")
    o = _open_output_loops(w, tuple(eqn.invars[0].aval.shape), 0, parallel_ok=False)
    write_select_and_scatter(w, eqn, o, out)
    w.depth -= w.opened_window_loops


@lowering(reduce_window_p, complex=True)
def _reduce_window(w, eqn, *operands) -> None:
    """The generic form (chapter 08): the computation's jaxpr written inline in the
    window loops, folding each window from the initial values."""
    params = eqn.params
    if params["consts"]:
        raise NotImplementedError("reduce_window whose computation captures constants")
    n = len(eqn.invars) // 2
    xs, inits = eqn.invars[:n], eqn.invars[n:]
    outs = eqn.outvars
    shape = tuple(outs[0].aval.shape)
    w.emit(f"# {w.text(eqn)}")
    for out in outs:
        w.emit(f"{w.var(out)} = np.empty({shape}, dtype={np_dtype(out.aval.dtype)})")
    window = int(np.prod(params["window_dimensions"], dtype=np.int64))
    o = _open_output_loops(w, shape, int(np.prod(shape, dtype=np.int64)) * window)
    opened = w.opened_window_loops
    accs = [f"acc{j}_v" for j in range(n)]
    for acc, init in zip(accs, inits):
        w.emit(f"{acc} = {w.read(init, [])}")
    lines, idx, inside, depth = window_loops(o, xs[0].aval.shape, params, "r_")
    for line in lines:
        w.emit(line)
    w.depth += depth
    w.emit(f"if {inside}:  # (padding and holes are skipped, as XLA does)")
    w.depth += 1
    for j, x in enumerate(xs):
        w.emit(f"x{j}_v = {w.read(x, idx)}")
    results = w.inline(ClosedJaxpr(params["jaxpr"], []), [*accs, *(f"x{j}_v" for j in range(n))])
    for acc, result, out in zip(accs, results, outs):
        w.emit(f"{acc} = {cast(out.aval.dtype, result)}")
    w.depth -= depth + 1
    for acc, out in zip(accs, outs):
        w.emit(f"{w.var(out)}[{', '.join(o) or '()'}] = {acc}")
    w.depth -= opened
