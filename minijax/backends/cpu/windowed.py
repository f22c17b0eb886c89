"""Chapter 09 — the CPU lowering of windowed reductions (pooling) and their derivatives.

Each output element of ``reduce_window_sum``/``max``/``min`` and of
``select_and_gather_add`` is its window walked by plain loops
(:mod:`minijax.backends.plan.windows` writes them, for this target and
CUDA's): one loop nest over the output, a nested one over the window, the
outer loop spread over threads when the work is big. ``select_and_scatter_add``
adds each source element onto its window's winner; windows may overlap, so
one thread does it all, in order, as the CPU's scatters do. The generic
``reduce_window`` (chapter 08) writes its computation's jaxpr inline, in the
window loops.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.backends.cpu.loops import PARALLEL_THRESHOLD
from minijax.backends.cpu.rules import lowering
from minijax.backends.cpu.syntax import cast, np_dtype
from minijax.backends.plan.windows import (window_loops, write_reduce, write_select_and_gather,
                                           write_select_and_scatter)
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


for _kind, _prim in (("sum", lax.reduce_window_sum_p), ("max", lax.reduce_window_max_p),
                     ("min", lax.reduce_window_min_p)):
    lowering(_prim, complex=_kind == "sum")(
        _each_output(lambda w, eqn, o, store, kind=_kind: write_reduce(w, eqn, kind, o, store)))

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
