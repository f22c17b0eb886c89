"""Chapter 10 — the CUDA lowering of windowed reductions (pooling) and their derivatives.

The same window loops as the CPU's (:mod:`minijax.backends.plan.windows`),
one output element per thread: ``reduce_window_sum``/``max``/``min`` and
``select_and_gather_add`` are grid-stride kernels over the output.
``select_and_scatter_add`` (max pooling's gradient) adds each source element
onto its window's winner; windows may overlap, so it runs in one thread, in
order (the CPU's result, bit for bit), as this target's general scatters do.
The generic ``reduce_window`` (chapter 08) runs its impl on the host.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.backends.cuda import helpers
from minijax.backends.cuda.rules import _grid_kernel, _host_call, register, unravel
from minijax.backends.plan.windows import (write_reduce, write_select_and_gather,
                                           write_select_and_scatter)
from minijax.control_flow.windowed import reduce_window_p

__all__ = []


class _Writer:
    """The CUDA writer, with the ``helper`` method the shared window bodies call."""

    def __init__(self, w, eqn):
        self._w, self._what = w, eqn.primitive.name

    def helper(self, name: str) -> str:
        return helpers.request(self._w.helpers, name, self._what)

    def __getattr__(self, attr):
        return getattr(self._w, attr)


def _each_output(write):
    def rule(w, eqn) -> None:
        out = eqn.outvars[0]
        shape = tuple(out.aval.shape)
        w.allocate(out)
        size = int(np.prod(shape, dtype=np.int64))
        if size == 0:
            return

        def body():
            o = unravel("t_flat", shape)
            write(_Writer(w, eqn), eqn, o, lambda expr: w.emit(f"{w.read(out, o)} = {expr}"))
        _grid_kernel(w, f"{eqn.primitive.name}: one output element per thread", size,
                     [*eqn.invars, out], body)
    return rule


for _kind, _prim in (("sum", lax.reduce_window_sum_p), ("max", lax.reduce_window_max_p),
                     ("min", lax.reduce_window_min_p)):
    register(_prim, _each_output(
        lambda w, eqn, o, store, kind=_kind: write_reduce(w, eqn, kind, o, store)),
        "kernel", complex=_kind == "sum")
register(lax.select_and_gather_add_p, _each_output(write_select_and_gather), "kernel")


def _select_and_scatter_add(w, eqn) -> None:
    source, operand = eqn.invars
    out = eqn.outvars[0]
    w.allocate(out)
    shape = tuple(source.aval.shape)
    size = int(np.prod(shape, dtype=np.int64))
    total = int(np.prod(out.aval.shape, dtype=np.int64))
    if total == 0:
        return

    def zero():
        w.emit(f"{w.read(out, unravel('t_flat', tuple(out.aval.shape)))} = 0")
    _grid_kernel(w, "select_and_scatter_add: zeros", total, [out], zero)
    if size == 0:
        return

    def body():  # one thread walks every source element, in order
        w.emit("if t_flat == 0:")
        w.emit(f"    for flat_v in range({size}):")
        w.depth += 2
        write_select_and_scatter(_Writer(w, eqn), eqn, unravel("flat_v", shape), out)
        w.depth -= 2
    _grid_kernel(w, "select_and_scatter_add: one thread, in order", 1, [source, operand, out],
                 body)


register(lax.select_and_scatter_add_p, _select_and_scatter_add, "kernel")


# The generic form (chapter 08): its impl on the host, between kernels (a computation
# written for scalars would need its own device function per jaxpr).
register(reduce_window_p, _host_call, "host", complex=True)
