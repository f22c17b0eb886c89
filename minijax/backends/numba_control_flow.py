"""Chapter 09 — control flow as native branches and loops.

Chapter 08's ``cond``, ``while`` and ``scan`` carry their bodies as jaxprs.
The interpreter runs a body by calling ``eval_jaxpr`` once per iteration; XLA
compiles it into the same program as the loop. So does this backend: each
body gets a fusion plan of its own and is written *inside* the entry
function, under a Python ``if``, ``while`` or ``for`` that Numba compiles to
a native branch or loop. For ``scan(lambda c, x: (c + x, c * x), 0.0, xs)``::

    # b:f32[] c:f32[4] = scan[length=4 num_carry=1 num_consts=0 reverse=False unroll=1] 0.0:f32[] a
    d = np.float32(0.0)
    c = np.empty((4,), dtype=np.float32)
    for it0 in range(4):
        e = a[it0]
        # --- fused loop nest over []: 4 equation(s)
        f = d  # f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
        g = f + e  # g:f32[] = add f e
        h = d  # h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
        i = h * e  # i:f32[] = mul h e
        c[it0] = i
        d = np.float32(g)
    b = d

The carry lives in the variables of the body's inputs (``d``), so the body
reads like the jaxpr printed above it; ``ys`` are written into arrays
allocated before the loop. Carries (and the outputs of ``if`` branches) are
assigned with ``one_type=True``, which casts scalars so that a variable keeps
one Numba type across iterations and branches.

A body that cannot be lowered (a primitive without a rule) makes the plan of
the whole jaxpr unsupported (``fusion`` checks nested jaxprs too), so the
whole function runs on the interpreter.
"""
from __future__ import annotations

from contextlib import contextmanager

from minijax.backends import fusion
from minijax.backends.numba_calls import CALL_LOWERINGS
from minijax.backends.numba_scalar import np_dtype

__all__ = ["lower_cond", "lower_while", "lower_scan"]


def _header(w, eqn) -> str:
    """The equation as a comment line, its nested jaxprs left out (they are written below)."""
    return "# " + fusion.eqn_header(eqn, w.plan.names)


@contextmanager
def _indented(w, levels: int = 1):
    """``with _indented(w):`` writes the lines of a block, one level deeper."""
    w.depth += levels
    try:
        yield
    finally:
        w.depth -= levels


def lower_cond(w, eqn, index, *operands):
    """``if index <= 0: ... elif index == 1: ... else: ...``: the index is clamped
    into range, as XLA does (below 0 runs branch 0, above runs the last)."""
    branches = eqn.params["branches"]
    w.emit(_header(w, eqn))
    last = len(branches) - 1
    for k, branch in enumerate(branches):
        if k == 0 and last > 0:
            w.emit(f"if {index} <= 0:")
        elif k < last:
            w.emit(f"elif {index} == {k}:")
        elif last > 0:
            w.emit("else:")
        with _indented(w, 1 if last > 0 else 0):
            outs = w.inline(branch, list(operands))
            w.assign(eqn.outvars, outs, one_type=True)
    return None


def lower_while(w, eqn, *operands):
    """``while True:`` the condition, ``break`` when false, then the body.

    The carry lives in the body's input variables; the condition's inputs
    are bound to them at the top of each iteration. A predicate with a shape
    (``vmap`` of a loop whose condition depends on the example) runs while
    *any* holds, and examples whose predicate is false keep their carry.
    """
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond_consts, body_consts, init = operands[:nc], operands[nc:nc + nb], operands[nc + nb:]
    carry = body.jaxpr.invars[nb:]
    w.emit(_header(w, eqn))
    w.assign(cond.jaxpr.invars[:nc], cond_consts)
    w.assign(body.jaxpr.invars[:nb], body_consts)
    w.assign(carry, init, one_type=True)
    w.emit("while True:")
    with _indented(w):
        w.assign(cond.jaxpr.invars[nc:], [w.var(v) for v in carry])  # after its consts
        (pred,) = w.inline(cond)
        batched = bool(cond.jaxpr.out_avals[0].shape)
        w.emit(f"if not {pred}{'.any()' if batched else ''}:")
        w.emit("    break")
        outs = w.inline(body)
        if batched:
            outs = [_keep_finished(w, cond.jaxpr.outvars[0], c, v)
                    for c, v in zip(carry, body.jaxpr.outvars)]
        w.assign(carry, outs, one_type=True)
    w.assign(eqn.outvars, [w.var(v) for v in carry])
    return None


def _keep_finished(w, pred, old, new) -> str:
    """``where(pred, new, old)``, ``pred`` indexing the leading axes of the carry."""
    shape = tuple(old.aval.shape)
    name = f"{w.var(old)}_kept"
    idx = [f"i{d}" for d in range(len(shape))]
    w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(old.aval.dtype)})")
    for d, n in enumerate(shape):
        w.emit("    " * d + f"for i{d} in range({n}):")
    at = ", ".join(idx)
    running = w.read(pred, idx[:len(pred.aval.shape)])
    choice = f"{w.read(new, idx)} if {running} else {w.var(old)}[{at}]"
    w.emit("    " * len(shape) + f"{name}[{at}] = {choice}")
    return name


def lower_scan(w, eqn, *operands):
    """``for it in range(length):`` (backwards if ``reverse``), slicing ``xs``
    and writing each iteration's ``ys`` into arrays allocated before the loop."""
    p = eqn.params
    body, length = p["jaxpr"], p["length"]
    n_consts, n_carry = p["num_consts"], p["num_carry"]
    consts, init, xs = (operands[:n_consts], operands[n_consts:n_consts + n_carry],
                        operands[n_consts + n_carry:])
    invars = body.jaxpr.invars
    carry, x_vars = invars[n_consts:n_consts + n_carry], invars[n_consts + n_carry:]
    carry_out, ys = eqn.outvars[:n_carry], eqn.outvars[n_carry:]
    w.emit(_header(w, eqn))
    w.assign(invars[:n_consts], consts)
    w.assign(carry, init, one_type=True)
    for y in ys:
        if w.var(y) != "_":
            w.emit(f"{w.var(y)} = np.empty({tuple(y.aval.shape)}, dtype={np_dtype(y.aval.dtype)})")
    it = w.fresh("it")
    steps = f"range({length - 1}, -1, -1)" if p["reverse"] else f"range({length})"
    w.emit(f"for {it} in {steps}:")
    with _indented(w):
        w.assign(x_vars, [f"{x}[{it}]" for x in xs])
        outs = w.inline(body)
        for y, out in zip(ys, outs[n_carry:]):  # before the carry: a y may be the old carry
            if w.var(y) != "_":
                w.emit(f"{w.var(y)}[{it}] = {out}")
        w.assign(carry, outs[:n_carry], one_type=True)
    w.assign(carry_out, [w.var(v) for v in carry])
    return None


CALL_LOWERINGS.update({"cond": lower_cond, "while": lower_while, "scan": lower_scan})
