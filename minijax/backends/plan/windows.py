"""Chapter 09 — the loops over one window, shared by every target's windowed reductions.

``reduce_window_sum``/``max``/``min``, ``select_and_gather_add`` and
``select_and_scatter_add`` all visit, for one output position ``o``, every
element of its window. Element ``w`` of the window (one index per axis)
sits at position ``q = o * stride + w * window_dilation - pad_low`` of the
operand *as dilated and padded*; it is operand element ``q // base_dilation``
when ``q`` is in range and a multiple of ``base_dilation``, else padding or a
hole, which holds the reduction's identity. :func:`window_loops` writes those
loops as source lines, for the CPU's Numba kernels and the CUDA kernels alike
(both are Python): the caller adds its body at the returned indentation.
"""
from __future__ import annotations

import numpy as np

__all__ = ["window_loops", "write_reduce", "write_select_and_gather", "write_select_and_scatter",
           "plain_tail", "checked_window_loops", "combine", "fold_pads_into_window_sums"]


def window_loops(o, operand_shape, params, prefix: str) -> tuple[list[str], list[str], str, int]:
    """The lines that open one loop per window axis (relative indentation), the
    operand index of the current element (expressions), the condition that it
    is a real element (not padding, not a hole), and the body's indentation."""
    dims, strides = params["window_dimensions"], params["window_strides"]
    pads, base = params["padding"], params.get("base_dilation", (1,) * len(dims))
    dilation = params.get("window_dilation", (1,) * len(dims))
    lines, idx, terms = [], [], []
    for d, n in enumerate(operand_shape):
        pad = "    " * d
        lines.append(f"{pad}for {prefix}w{d} in range({dims[d]}):")
        q = f"{o[d]} * {strides[d]} + {prefix}w{d} * {dilation[d]} - {pads[d][0]}"
        lines.append(f"{pad}    {prefix}q{d} = {q}")
        if base[d] > 1:
            lines.append(f"{pad}    {prefix}i{d} = {prefix}q{d} // {base[d]}")
            terms.append(f"{prefix}q{d} >= 0 and {prefix}q{d} % {base[d]} == 0 "
                         f"and {prefix}i{d} < {n}")
        else:
            lines.append(f"{pad}    {prefix}i{d} = {prefix}q{d}")
            terms.append(f"0 <= {prefix}i{d} < {n}")
        idx.append(f"{prefix}i{d}")
    inside = " and ".join(f"({t})" for t in terms) or "True"
    return lines, idx, inside, len(operand_shape)


# =============================================================================
# Windows over the leading axes only: a row at a time (the CPU's pooling)
# =============================================================================
def _plain_axis(params, d: int) -> bool:
    """Does the window leave axis ``d`` alone: one element wide, stride 1, no
    padding, no dilation (output element ``o`` reads operand element ``o``)?"""
    return (params["window_dimensions"][d] == 1 and params["window_strides"][d] == 1
            and tuple(params["padding"][d]) == (0, 0)
            and params.get("base_dilation", (1,) * (d + 1))[d] == 1)


def plain_tail(params, ndim: int) -> int:
    """The first axis of the trailing run of plain axes (:func:`_plain_axis`):
    ``ndim`` when the last axis is windowed. Pooling an NHWC image leaves the
    features, the last axis, alone: every window then reads whole rows of
    features, contiguous in memory, and each output row is the sum (max, min)
    of those rows, element by element: a loop the compiler vectorizes."""
    t = ndim
    while t > 0 and _plain_axis(params, t - 1):
        t -= 1
    return t


def checked_window_loops(o, operand_shape, params, prefix: str, axes: int) -> tuple[list[str], int]:
    """The window loops over the first ``axes`` axes of the operand (relative
    indentation), each real element's index in ``{prefix}i{d}``, and the depth
    of the body inside them.

    Unlike :func:`window_loops`, each axis is checked as soon as its index is
    known (a row of padding or holes skips the loops inside it), an axis with
    no padding and no base dilation needs no check (the window stays inside
    the operand), and a window one element wide has no loop."""
    dims, strides = params["window_dimensions"], params["window_strides"]
    pads, base = params["padding"], params.get("base_dilation", (1,) * len(dims))
    dilation = params.get("window_dilation", (1,) * len(dims))
    lines, depth = [], 0
    for d in range(axes):
        if dims[d] > 1:
            lines.append(f"{'    ' * depth}for {prefix}w{d} in range({dims[d]}):")
            depth += 1
        terms = [o[d] if strides[d] == 1 else f"{o[d]} * {strides[d]}"]
        if dims[d] > 1:
            terms.append(f"{prefix}w{d}" + (f" * {dilation[d]}" if dilation[d] != 1 else ""))
        q = " + ".join(terms) + (f" - {pads[d][0]}" if pads[d][0] else "")
        pad = "    " * depth
        if base[d] > 1:
            lines += [f"{pad}{prefix}q{d} = {q}", f"{pad}{prefix}i{d} = {prefix}q{d} // {base[d]}",
                      f"{pad}if {prefix}q{d} >= 0 and {prefix}q{d} % {base[d]} == 0 "
                      f"and {prefix}i{d} < {operand_shape[d]}:"]
            depth += 1
        else:
            lines.append(f"{pad}{prefix}i{d} = {q}")
            if tuple(pads[d]) != (0, 0):
                lines.append(f"{pad}if 0 <= {prefix}i{d} < {operand_shape[d]}:")
                depth += 1
    return lines, depth


# =============================================================================
# A pass: zero padding folded into the window sum that reads it
# =============================================================================
def fold_pads_into_window_sums(closed_jaxpr):
    """``p = pad[low, high, interior] x 0.0`` read by ``reduce_window_sum`` becomes
    ``reduce_window_sum[padding=(low, high), base_dilation=interior + 1] x``.

    That is the transpose of average pooling (JAX writes the gradient of a
    window sum that way): the zeros of ``pad`` become the padding and holes
    the window loops skip, and the padded array is never written. The bits do
    not change: the window is still visited in the same order, from the
    initial ``0``, and a skipped zero added nothing (``acc + 0.0`` is ``acc``
    unless ``acc`` is ``-0.0``, which a sum started at ``+0.0`` never is).
    The ``pad``, unread, is then dropped by dead-code elimination.
    """
    from minijax.backends.plan.passes import map_subjaxprs
    from minijax.jaxpr import ClosedJaxpr, Literal
    from minijax.lax.shapes import pad_p
    from minijax.lax.windowed import reduce_window_sum_p
    jaxpr = closed_jaxpr.jaxpr
    pads = {e.outvars[0]: e for e in jaxpr.eqns
            if e.primitive is pad_p and isinstance(e.invars[1], Literal)
            and np.all(np.asarray(e.invars[1].val) == 0)
            and all(lo >= 0 and hi >= 0 for lo, hi, _ in e.params["padding_config"])}
    eqns, changed = [], False
    for eqn in jaxpr.eqns:
        pad = pads.get(eqn.invars[0]) if eqn.primitive is reduce_window_sum_p else None
        if pad is not None and _no_own_padding(eqn.params):
            config = pad.params["padding_config"]
            eqn = eqn.replace(invars=[pad.invars[0]], params={
                **eqn.params, "padding": tuple((int(lo), int(hi)) for lo, hi, _ in config),
                "base_dilation": tuple(int(i) + 1 for _, _, i in config)})
            changed = True
        new = map_subjaxprs(eqn, fold_pads_into_window_sums)
        changed |= new is not eqn
        eqns.append(new)
    if not changed:
        return closed_jaxpr
    return ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts)


def _no_own_padding(params) -> bool:
    """A window sum with no padding and no base dilation of its own (the pad's go there)."""
    ndim = len(params["window_dimensions"])
    return (all(tuple(p) == (0, 0) for p in params["padding"])
            and tuple(params.get("base_dilation", (1,) * ndim)) == (1,) * ndim)


# =============================================================================
# The bodies: one output position's window (written by the CPU and CUDA rules)
# =============================================================================
# ``w`` is the target's kernel writer: ``emit(line)`` at its current depth,
# ``read(value, idx)`` one element of a value in memory, ``helper(name)`` a
# scalar helper both targets have (``_fmax``/``_fmin``: XLA's NaN-propagating
# max and min), ``var(value)`` its name.
def _lines(w, lines, indent: int = 0) -> None:
    for line in lines:
        w.emit("    " * indent + line)


def combine(w, kind: str, dtype, acc: str, v: str) -> str:
    """``acc`` folded with ``v`` (integers wrap: the sum is cast back)."""
    from minijax.backends.cpu.syntax import cast
    floating = np.issubdtype(dtype, np.inexact)
    if kind == "sum":
        return f"{acc} + {v}" if floating else cast(dtype, f"{acc} + {v}")
    if floating:
        return f"{w.helper('_fmax' if kind == 'max' else '_fmin')}({acc}, {v})"
    return f"{kind}({acc}, {v})"


def write_reduce(w, eqn, kind: str, o, store) -> None:
    """``reduce_window_{kind}`` at output position ``o``; ``store(expr)`` writes it."""
    from minijax.backends.cpu.syntax import literal
    from minijax.lax.windowed import identity_of
    x = eqn.invars[0]
    dtype = np.dtype(eqn.outvars[0].aval.dtype)
    ident = literal(identity_of(kind, dtype), dtype)
    lines, idx, inside, depth = window_loops(o, x.aval.shape, eqn.params, "r_")
    w.emit(f"acc_v = {ident}")
    _lines(w, lines)
    _lines(w, [f"if {inside}:", f"    acc_v = {combine(w, kind, dtype, 'acc_v', w.read(x, idx))}"],
           depth)
    store("acc_v")


def _select(w, eqn, operand, o, also=None, *, keep_index=False) -> None:
    """Walk ``o``'s window of ``operand`` and keep XLA's winner in ``best_v``
    (the first element not beaten: ``select_prim`` is ``ge`` for a max): its
    element of ``also`` in ``also_v``, or its index in ``b0_v``, ``b1_v``...
    (and ``real_v``: it is an element, not padding)."""
    from minijax.backends.cpu.syntax import literal
    from minijax.lax.windowed import identity_of
    dtype = np.dtype(operand.aval.dtype)
    kind = "max" if eqn.params["select_prim"].name == "ge" else "min"
    op = ">=" if kind == "max" else "<="
    ident = literal(identity_of(kind, dtype), dtype)
    lines, idx, inside, depth = window_loops(o, operand.aval.shape, eqn.params, "s_")
    w.emit(f"best_v = {ident}")
    w.emit("started_v = False")
    if also is not None:
        w.emit(f"also_v = {literal(0, also.aval.dtype)}")
    if keep_index:
        w.emit("real_v = False")
        for d in range(len(idx)):
            w.emit(f"b{d}_v = 0")
    _lines(w, lines)
    body = [f"ok_v = {inside}",
            f"v_v = {w.read(operand, idx)} if ok_v else {ident}",
            f"if not started_v or not (best_v {op} v_v):",
            "    best_v = v_v",
            "    started_v = True"]
    if also is not None:
        body.append(f"    also_v = {w.read(also, idx)} if ok_v else {literal(0, also.aval.dtype)}")
    if keep_index:
        body.append("    real_v = ok_v")
        body += [f"    b{d}_v = {i}" for d, i in enumerate(idx)]
    _lines(w, body, depth)


def write_select_and_gather(w, eqn, o, store) -> None:
    """``select_and_gather_add`` at output position ``o``: the tangent of the winner."""
    tangents, operand = eqn.invars
    _select(w, eqn, operand, o, also=tangents)
    store("also_v")


def write_select_and_scatter(w, eqn, o, out) -> None:
    """One element of ``select_and_scatter_add``'s source, added onto its
    window's winner in ``out`` (run by one thread: windows may overlap)."""
    from minijax.backends.cpu.syntax import cast
    source, operand = eqn.invars
    _select(w, eqn, operand, o, keep_index=True)
    at = [f"b{d}_v" for d in range(operand.aval.ndim)]
    target = w.read(out, at)
    value = f"{target} + {w.read(source, o)}"
    if not np.issubdtype(out.aval.dtype, np.inexact):
        value = cast(out.aval.dtype, value)
    w.emit("if real_v:")
    w.emit(f"    {target} = {value}")
