"""Chapter 08 — loops: ``while_loop``, ``fori_loop``, ``scan`` and ``map``.

A Python loop inside a traced function is *unrolled*: the tracer sees each
iteration's operations, one after the other, and the jaxpr grows with the
trip count. A loop whose trip count depends on a traced value cannot be
traced at all. The loop primitives trace the *body* once and loop inside
the primitive instead:

- ``while[cond_jaxpr body_jaxpr ...]`` runs ``body`` while ``cond`` holds.
  The trip count is unknown until it runs, so it cannot be differentiated in
  reverse mode (there would be no bound on what to store);
- ``scan[jaxpr length num_consts num_carry ...]`` runs the body exactly
  ``length`` times, threading a *carry* and slicing inputs ``xs`` / stacking
  outputs ``ys`` along a leading axis. A fixed trip count is what makes it
  reverse-differentiable: the residuals of each iteration are stacked as one
  more ``ys``;
- ``fori_loop`` is a ``scan`` when its bounds are concrete (so ``grad``
  works), else a ``while``; ``map`` is a ``scan`` without a carry.

Operands of both primitives are laid out as ``*consts, *carry, *xs``
(``while``: ``*cond_consts, *body_consts, *carry``), with the counts as
parameters. Rules: impl (a Python loop over ``eval_jaxpr``), abstract eval,
jvp (the body's JVP jaxpr, found by a *fixpoint*: a carry whose tangent is
zero on entry may become nonzero after one iteration), batching (again a
fixpoint, for which carries end up batched; a batched ``while`` predicate
keeps the loop running until every example is done, freezing the finished
ones), and at the end of the file the reverse-mode rules.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.config import disable_jit
from minijax.core import concrete_or_error, eval_trace, get_aval, is_concrete, set_current_trace
from minijax.errors import ConcretizationTypeError
from minijax.interpreters.ad import (Zero, instantiate_zeros, jvp_rules, tangent_aval,
                                     zeros_like_aval)
from minijax.interpreters.batching import (batch_size, batching_rules, broadcast, moveaxis,
                                           not_mapped, vmap)
from minijax.interpreters.linearize import (custom_partial_eval_rules, dce_jaxpr, dce_rules,
                                            partial_eval_jaxpr_nounits)
from minijax.interpreters.partial_eval import DebugInfo, trace_to_jaxpr_dynamic
from minijax.interpreters.transpose import (UndefinedPrimal, add_cotangents, backward_pass,
                                            is_undefined_primal, transpose_rules)
from minijax.jaxpr import ClosedJaxpr, Var, eval_jaxpr
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import tree_flatten, tree_map, tree_unflatten, treedef_is_leaf

from minijax.control_flow.common import (batch_jaxpr, check_carry_type, debug_info,
                                         jaxpr_forwarding, jvp_jaxpr,
                                         merge_lists, move_binders_to_front,
                                         promote_weak_typed_input, prune_outputs, split_list,
                                         trace_to_subjaxpr, typeof)

__all__ = ["while_loop", "fori_loop", "scan", "map", "while_p", "scan_p"]

#: ``while[cond_jaxpr cond_nconsts body_jaxpr body_nconsts] *cond_consts *body_consts *carry``
while_p = Primitive("while", multiple_results=True, kind="control_flow")
#: ``scan[jaxpr length num_consts num_carry reverse unroll] *consts *carry *xs``
scan_p = Primitive("scan", multiple_results=True, kind="control_flow")


def _bools_to_dims(batched) -> list:
    return [0 if b else not_mapped for b in batched]


def _aval_str(aval) -> str:
    """A type as JAX's ``str(ShapedArray)`` writes it: ``~float32[]`` when weak."""
    return ("~" if aval.weak_type else "") + aval.str_short()


# =============================================================================
# while_loop
# =============================================================================
def _as_array(x):
    """``jnp.asarray(x)``; a PRNG key (an extended dtype, chapter 13) is already one."""
    return x if getattr(getattr(x, "dtype", None), "extended", False) else jnp.asarray(x)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``.

    ``init_val`` is any pytree; ``body_fun`` must return one of the same
    structure and types (a weakly typed initial value is promoted to what the
    body returns). ``cond_fun`` must return a boolean scalar. Both are traced
    once. Not reverse-mode differentiable: use ``scan`` or a ``fori_loop``
    with static bounds for ``grad``.
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if disable_jit.value:  # debugging: a plain Python loop, unless values are not concrete
        try:
            val = tree_map(_as_array, init_val)
            while cond_fun(val):
                val = tree_map(_as_array, body_fun(val))
            return val
        except ConcretizationTypeError:
            pass
    cond_dbg = debug_info("while_cond", cond_fun, (init_val,), {})
    body_dbg = debug_info("while_body", body_fun, (init_val,), {})
    return _while_loop(cond_fun, body_fun, init_val, cond_dbg, body_dbg)


def _while_loop(cond_fun, body_fun, init_val, cond_dbg, body_dbg):
    init_flat, in_tree = tree_flatten(init_val)
    init_avals = [typeof(x) for x in init_flat]

    def trace_both(avals):
        cond_jaxpr, cond_consts, cond_tree = trace_to_subjaxpr(cond_fun, (init_val,), avals,
                                                               cond_dbg)
        body_jaxpr, body_consts, body_tree = trace_to_subjaxpr(body_fun, (init_val,), avals,
                                                               body_dbg)
        if not treedef_is_leaf(cond_tree) or len(cond_jaxpr.out_avals) != 1:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
        pred = cond_jaxpr.out_avals[0]
        if pred.shape != () or pred.dtype != np.bool_:
            raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                            f"{cond_jaxpr.out_avals}.")
        return cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree

    cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = trace_both(init_avals)
    if len(body_jaxpr.out_avals) != len(init_avals):
        check_carry_type("while_loop body", body_fun, in_tree, init_avals, body_tree,
                         body_jaxpr.out_avals)
    promoted = [promote_weak_typed_input(x, a, b)
                for x, a, b in zip(init_flat, init_avals, body_jaxpr.out_avals)]
    if any(changed for _, changed in promoted):  # trace again with the promoted types
        init_flat = [x for x, _ in promoted]
        init_avals = [get_aval(x) for x in init_flat]
        cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = trace_both(init_avals)
    check_carry_type("while_loop body", body_fun, in_tree, init_avals, body_tree,
                     body_jaxpr.out_avals)

    # A carry the body passes through unchanged, and the condition never
    # reads, is a constant of the body: it moves out of the carry.
    n_cc, n_bc = len(cond_consts), len(body_consts)
    carry_nofwd = [n_bc + i != f for i, f in enumerate(jaxpr_forwarding(body_jaxpr.jaxpr))]
    cond_dce, keep = dce_jaxpr(cond_jaxpr.jaxpr, [True], [True] * n_cc + carry_nofwd)
    move = [not k for k in keep[n_cc:]]
    carry, moved = list(init_flat), []
    if any(move):
        cond_jaxpr = ClosedJaxpr(cond_dce, [])
        body_jaxpr = prune_outputs(body_jaxpr, [not m for m in move])
        body_jaxpr = move_binders_to_front(body_jaxpr, [False] * n_bc + move)
        moved = [x for x, m in zip(carry, move) if m]
        carry = [x for x, m in zip(carry, move) if not m]
        body_consts = moved + body_consts
    outs = while_p.bind(*cond_consts, *body_consts, *carry,
                        cond_nconsts=n_cc, cond_jaxpr=cond_jaxpr,
                        body_nconsts=len(body_consts), body_jaxpr=body_jaxpr)
    return tree_unflatten(body_tree, merge_lists(move, outs, moved))


# =============================================================================
# scan
# =============================================================================
def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
    """Loop ``f`` over the leading axis of ``xs``, threading a carry: ``(carry, ys)``.

    Semantics (``ys`` stacked leaf by leaf, ``xs`` any pytree of arrays of
    one leading length, or ``None`` with ``length``)::

        carry, ys = init, []
        for x in xs:                   # reversed(xs) with reverse=True
            carry, y = f(carry, x)
            ys.append(y)
        return carry, stack(ys)

    ``f`` is traced once; its carry output must have the carry input's
    structure and types. ``unroll`` is recorded (minijax's loop is never
    unrolled); ``_split_transpose`` is accepted and ignored.
    """
    del _split_transpose
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    return _scan(f, init, xs, length, reverse, unroll, debug_info("scan", f, (init, xs), {}))


def _scan(f, init, xs, length, reverse, unroll, dbg):
    init_flat, init_tree = tree_flatten(init)
    xs_flat, xs_tree = tree_flatten(xs)
    init_avals = [typeof(x) for x in init_flat]
    xs_avals = [typeof(x) for x in xs_flat]
    length = _infer_scan_length(xs_flat, length)
    if disable_jit.value:
        return _python_scan(f, init, xs_flat, xs_tree, length, reverse)
    x_avals = [a.update(shape=a.shape[1:]) for a in xs_avals]

    def trace_body(carry_avals):
        jaxpr, consts, out_tree = trace_to_subjaxpr(f, (init, xs), carry_avals + x_avals, dbg)
        if treedef_is_leaf(out_tree) or len(out_tree.children()) != 2:
            out = tree_unflatten(out_tree, jaxpr.out_avals)
            shown = _aval_str(out) if treedef_is_leaf(out_tree) and out is not None else out
            raise TypeError(f"scan body output must be a pair, got {shown}.")
        carry_tree = out_tree.children()[0]
        return jaxpr, consts, out_tree, carry_tree

    jaxpr, consts, out_tree, carry_tree = trace_body(init_avals)
    num_carry = carry_tree.num_leaves
    carry_out_avals = jaxpr.out_avals[:num_carry]
    if num_carry != len(init_avals):
        check_carry_type("scan body", f, init_tree, init_avals, carry_tree, carry_out_avals)
    promoted = [promote_weak_typed_input(x, a, b)
                for x, a, b in zip(init_flat, init_avals, carry_out_avals)]
    if any(changed for _, changed in promoted):
        init_flat = [x for x, _ in promoted]
        init_avals = [get_aval(x) for x in init_flat]
        jaxpr, consts, out_tree, carry_tree = trace_body(init_avals)
    check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                     jaxpr.out_avals[:num_carry])
    unroll = concrete_or_error(unroll, "The `unroll` argument to `scan` expects a concrete "
                                       "`int` or `bool` value.")
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return tree_unflatten(out_tree, _bind_scan(jaxpr, consts, init_flat, xs_flat, num_carry,
                                               length, reverse, unroll))


def _python_scan(f, init, xs_flat, xs_tree, length, reverse):
    """``scan`` as the Python loop it stands for (under ``jax_disable_jit``)."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                         "the output type is unknown.")
    carry, ys = init, []
    for i in (reversed(range(length)) if reverse else range(length)):
        carry, y = f(carry, tree_unflatten(xs_tree, [x[i] for x in xs_flat]))
        ys.append(y)
    ys = ys[::-1] if reverse else ys
    stack = lambda *ys: lax.concatenate([lax.expand_dims(y, (0,)) for y in ys], 0)
    return carry, tree_map(stack, *ys)


def _bind_scan(jaxpr, consts, init_flat, xs_flat, num_carry, length, reverse, unroll):
    """Bind ``scan``, first taking out what the body merely forwards (as JAX does).

    A carry passed through unchanged is a constant; a ``ys`` that is an
    ``xs`` slice passed through is that ``xs`` itself.
    """
    num_ys = len(jaxpr.out_avals) - num_carry
    args = [*init_flat, *xs_flat]
    fwd = jaxpr_forwarding(jaxpr.jaxpr)
    carry_fwd, ys_fwd = fwd[:num_carry], fwd[num_carry:]
    move = [len(consts) + i == f for i, f in enumerate(carry_fwd)]
    moved = [x for x, m in zip(args, move) if m]
    if any(move):
        jaxpr = prune_outputs(jaxpr, [not m for m in move] + [True] * num_ys)
        jaxpr = move_binders_to_front(jaxpr, [False] * len(consts) + move + [False] * len(xs_flat))
        args = [x for x, m in zip(args, move + [False] * len(xs_flat)) if not m]
        consts = [*moved, *consts]
        num_carry -= len(moved)
    first_x = len(consts) + num_carry
    ys_from_xs = [f - len(consts) if f is not None and f >= first_x else None for f in ys_fwd]
    jaxpr = prune_outputs(jaxpr, [True] * num_carry + [f is None for f in ys_from_xs])
    out = scan_p.bind(*consts, *args, reverse=reverse, length=length, jaxpr=jaxpr,
                      num_consts=len(consts), num_carry=num_carry, unroll=unroll)
    carry_out, ys = split_list(out, [num_carry])
    ys = iter(ys)
    ys = [next(ys) if f is None else jnp.asarray(args[f]) for f in ys_from_xs]
    return merge_lists(move, carry_out, moved) + ys


def _infer_scan_length(xs_flat, length) -> int:
    """The trip count: the one leading size of every ``xs`` leaf, and/or ``length``."""
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError:
        bad = ", ".join(str(x) for x in xs_flat if not hasattr(x, "shape"))
        raise ValueError(f"scan got value with no leading axis to scan over: {bad}.") from None
    if length is not None:
        try:
            length = int(length)
        except ConcretizationTypeError:
            raise ConcretizationTypeError(
                length, "The `length` argument to `scan` expects a concrete `int` value. For "
                        "scan-like iteration with a dynamic length, use `while_loop` or "
                        "`fori_loop`.") from None
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return length
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


# =============================================================================
# fori_loop and map: scans (or a while) in disguise
# =============================================================================
def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll: int | bool | None = None):
    """``for i in range(lower, upper): val = body_fun(i, val)``; returns ``val``.

    With concrete bounds the loop is a ``scan`` of ``upper - lower`` steps
    (reverse-differentiable; ``unroll`` allowed); with traced bounds it is a
    ``while_loop`` carrying ``(i, upper, val)``. The bounds must have the same
    integer type, except that a Python int adapts to the other bound.
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_dtype = dtypes.dtype(lower, canonicalize=True)
    upper_dtype = dtypes.dtype(upper, canonicalize=True)
    dtype = lower_dtype if lower_dtype == upper_dtype else None
    if dtype is None and all(np.issubdtype(d, np.signedinteger)
                             for d in (lower_dtype, upper_dtype)):
        lower_weak, upper_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
        if lower_weak != upper_weak:  # a Python int takes the other bound's type
            dtype = upper_dtype if lower_weak else lower_dtype
    if dtype is None:
        raise TypeError("lower and upper arguments to fori_loop must have equal types, "
                        f"got {lower_dtype.name} and {upper_dtype.name}")
    dbg = debug_info("fori_loop", body_fun, (0, init_val), {})

    if is_concrete(lower) and is_concrete(upper):
        lower_, upper_ = int(lower), int(upper)
        length = max(upper_ - lower_, 0)
        if disable_jit.value and length == 0:
            return init_val
        unroll = False if unroll is None else unroll

        def scanned_fun(loop_carry, _):
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None

        scan_dbg = DebugInfo("fori_loop", dbg.func_src_info, dbg.arg_names)
        (_, result), _ = _scan(scanned_fun, (lower_, init_val), None, length, False, unroll,
                               scan_dbg)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    lower = lax.convert_element_type(lower, dtype) if lower_dtype != dtype else lower
    upper = lax.convert_element_type(upper, dtype) if upper_dtype != dtype else upper

    def while_cond(loop_carry):
        i, upper, _ = loop_carry
        return lax.lt(i, upper)

    def while_body(loop_carry):
        i, upper, x = loop_carry
        return lax.add(i, np.array(1, get_aval(i).dtype)), upper, body_fun(i, x)

    names = dbg.arg_names and (dbg.arg_names[0], "", *dbg.arg_names[1:])
    body_dbg = DebugInfo("fori_loop", dbg.func_src_info, names)
    cond_dbg = debug_info("while_cond", while_cond, ((lower, upper, init_val),), {})
    _, _, result = _while_loop(while_cond, while_body, (lower, upper, init_val),
                               cond_dbg, body_dbg)
    return result


def map(f: Callable, xs, *, batch_size: int | None = None):
    """``stack([f(x) for x in xs])`` as a ``scan`` (so ``f`` is traced once).

    With ``batch_size``, ``f`` is ``vmap``-ed over chunks of that many
    elements, scanned over the chunks; a remainder that does not fill a chunk
    gets one more ``vmap`` (``batch_size=0``: one ``vmap`` of everything).
    """
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    scan_xs, rest_xs = _batch_and_remainder(xs, batch_size)
    scan_ys = None
    if scan_xs is not None:
        _, scan_ys = scan(lambda _, x: ((), vmap(f)(x)), (), scan_xs)
    if scan_ys is None:
        return vmap(f)(rest_xs)
    flatten = lambda y: y.reshape(-1, *y.shape[2:])
    if rest_xs is None:
        return tree_map(flatten, scan_ys)
    rest_ys = vmap(f)(rest_xs)
    return tree_map(lambda y, r: lax.concatenate([flatten(y), r], 0), scan_ys, rest_ys)


def _batch_and_remainder(xs, batch_size: int):
    """``xs`` as (chunks of shape ``(n, batch_size, ...)`` or None, remainder or None)."""
    leaves, tree = tree_flatten(xs)
    if not leaves:
        return xs, None
    total = leaves[0].shape[0]
    num_batches, remainder = (0, total) if batch_size == 0 else divmod(total, batch_size)
    cut = num_batches * batch_size
    if num_batches == 0:
        return None, tree_unflatten(tree, [x[cut:] for x in leaves])
    chunks = tree_unflatten(tree, [x[:cut].reshape(num_batches, batch_size, *x.shape[1:])
                                   for x in leaves])
    rest = tree_unflatten(tree, [x[cut:] for x in leaves]) if remainder else None
    return chunks, rest


# =============================================================================
# The primitives: impl and abstract eval
# =============================================================================
def _run(closed: ClosedJaxpr, *args) -> list:
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _while_impl(*args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    """A Python ``while``. A predicate with a shape (from ``vmap``) runs until all
    are false, and only the examples whose predicate is still true move on."""
    cconsts, bconsts, carry = split_list(args, [cond_nconsts, body_nconsts])
    with set_current_trace(eval_trace):
        while True:
            pred = np.asarray(_run(cond_jaxpr, *cconsts, *carry)[0])
            if not pred.any():
                break
            new = [np.asarray(x) for x in _run(body_jaxpr, *bconsts, *carry)]
            if pred.ndim:
                new = [np.where(pred.reshape(pred.shape + (1,) * (n.ndim - pred.ndim)), n, c)
                       for n, c in zip(new, carry)]
            carry = new
    return [np.asarray(c) for c in carry]


def _while_abstract_eval(*avals, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    return list(body_jaxpr.out_avals)


def _scan_impl(*args, reverse, length, num_consts, num_carry, jaxpr, unroll):
    """A Python ``for`` over the leading axis of ``xs``, stacking the ``ys``."""
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    ys = []
    with set_current_trace(eval_trace):
        for i in (reversed(range(length)) if reverse else range(length)):
            # x[i, ...]: a 0-d array even for a scan over keys (x[i] of their
            # structured storage would be a NumPy scalar, np.void)
            outs = [np.asarray(o) for o in _run(jaxpr, *consts, *carry, *(x[i, ...] for x in xs))]
            carry, y = split_list(outs, [num_carry])
            ys.append(y)
    ys = ys[::-1] if reverse else ys
    y_avals = jaxpr.out_avals[num_carry:]
    stacked = [np.stack([y[k] for y in ys]) if ys else np.zeros((0, *a.shape), a.dtype)
               for k, a in enumerate(y_avals)]
    return [np.asarray(c) for c in carry] + stacked


def _scan_abstract_eval(*avals, reverse, length, num_consts, num_carry, jaxpr, unroll):
    carry_avals, y_avals = split_list(jaxpr.out_avals, [num_carry])
    return carry_avals + [a.update(shape=(length, *a.shape)) for a in y_avals]


# =============================================================================
# JVP: the body's JVP, with a fixpoint on which carries have tangents
# =============================================================================
def rearrange_binders(closed: ClosedJaxpr, primals_in, tangents_in, primals_out, tangents_out):
    """A JVP jaxpr takes ``(*primals, *tangents)``; a loop wants, group by group
    (consts, carry, xs), each group's tangents right after its primals."""
    def interleave(xs, p_sizes, t_sizes):
        n = sum(p_sizes)
        ps, ts = split_list(xs[:n], p_sizes[:-1]), split_list(xs[n:], t_sizes[:-1])
        return [x for p, t in zip(ps, ts) for x in p + t]
    jaxpr = closed.jaxpr
    return ClosedJaxpr(jaxpr.replace(
        invars=interleave(jaxpr.invars, primals_in, tangents_in),
        outvars=interleave(jaxpr.outvars, primals_out, tangents_out)), closed.consts)


def _carry_fixpoint(step, carry_in: list[bool]) -> tuple:
    """Grow a set of flags ("has a tangent", "is batched") over the carry until stable.

    ``step(flags) -> (result, flags_out)`` runs one iteration's analysis. A
    carry flagged on entry or on exit of the body must be flagged on entry
    (the next iteration sees it); at most ``len(carry)`` rounds are needed.
    """
    flags = list(carry_in)
    for _ in range(1 + len(flags)):
        result, flags_out = step(flags)
        if flags_out == flags:
            return result, flags
        flags = [a or b for a, b in zip(flags, flags_out)]
    raise AssertionError("fixpoint not reached")


def _nonzero(tangents) -> list[bool]:
    return [type(t) is not Zero for t in tangents]


def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    num_ys = len(jaxpr.out_avals) - num_carry
    const_nz, init_nz, xs_nz = split_list(_nonzero(tangents), [num_consts, num_carry])

    def step(carry_nz):
        jvp, nz_out = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * num_ys)
        return (jvp, nz_out), nz_out[:num_carry]

    (jaxpr_jvp, nz_out), carry_nz = _carry_fixpoint(step, init_nz)
    consts, init, xs = split_list(primals, [num_consts, num_carry])
    consts_t, init_t, xs_t = split_list(tangents, [num_consts, num_carry])
    consts_dot = [t for t in consts_t if type(t) is not Zero]
    init_dot = [instantiate_zeros(t) for t, nz in zip(init_t, carry_nz) if nz]
    xs_dot = [t for t in xs_t if type(t) is not Zero]
    jaxpr_jvp = rearrange_binders(
        jaxpr_jvp, [num_consts, num_carry, num_xs], [len(consts_dot), len(init_dot), len(xs_dot)],
        [num_carry, num_ys], [len(init_dot), sum(nz_out) - len(init_dot)])
    out = scan_p.bind(*consts, *consts_dot, *init, *init_dot, *xs, *xs_dot,
                      reverse=reverse, length=length, jaxpr=jaxpr_jvp,
                      num_consts=num_consts + len(consts_dot),
                      num_carry=num_carry + len(init_dot), unroll=unroll)
    carry, carry_dot, ys, ys_dot = split_list(out, [num_carry, len(init_dot), num_ys])
    primals_out, tangents_out = carry + ys, iter(carry_dot + ys_dot)
    return primals_out, [next(tangents_out) if nz else Zero.from_primal_value(p)
                         for p, nz in zip(primals_out, nz_out)]


def _while_jvp(primals, tangents, *, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconst_nz, bconst_nz, init_nz = split_list(_nonzero(tangents), [cond_nconsts, body_nconsts])
    num_carry = len(init_nz)

    def step(carry_nz):
        jvp, nz_out = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
        return jvp, nz_out

    body_jvp, carry_nz = _carry_fixpoint(step, init_nz)
    cconsts, bconsts, init = split_list(primals, [cond_nconsts, body_nconsts])
    _, bconst_t, init_t = split_list(tangents, [cond_nconsts, body_nconsts])
    bconst_dot = [t for t in bconst_t if type(t) is not Zero]
    init_dot = [instantiate_zeros(t) for t, nz in zip(init_t, carry_nz) if nz]
    body_jvp = rearrange_binders(body_jvp, [body_nconsts, num_carry],
                                 [len(bconst_dot), len(init_dot)], [num_carry], [len(init_dot)])
    # The condition ignores the tangents, which are now part of the carry.
    cj = cond_jaxpr.jaxpr
    cond_aug = ClosedJaxpr(cj.replace(invars=cj.invars + [Var(get_aval(t)) for t in init_dot]),
                           cond_jaxpr.consts)
    out = while_p.bind(*cconsts, *bconsts, *bconst_dot, *init, *init_dot,
                       cond_nconsts=cond_nconsts, cond_jaxpr=cond_aug,
                       body_nconsts=body_nconsts + len(bconst_dot), body_jaxpr=body_jvp)
    carry, carry_dot = split_list(out, [num_carry])
    carry_dot = iter(carry_dot)
    return carry, [next(carry_dot) if nz else Zero.from_primal_value(p)
                   for p, nz in zip(carry, carry_nz)]


# =============================================================================
# Batching: which carries end up batched is again a fixpoint
# =============================================================================
def _scan_batching_rule(args, dims, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    """Batch the body; the batch axis of ``xs`` and ``ys`` is axis 1 (axis 0 is time)."""
    size = batch_size(args, dims)
    num_ys = len(jaxpr.out_avals) - num_carry
    batched = [d is not not_mapped for d in dims]
    const_b, init_b, xs_b = split_list(batched, [num_consts, num_carry])

    def step(carry_b):
        in_dims = _bools_to_dims(const_b + carry_b + xs_b)
        out = batch_jaxpr(jaxpr, size, in_dims, [0] * len(jaxpr.out_avals),
                          carry_b + [False] * num_ys)
        return out, out[1][:num_carry]

    (jaxpr_batched, out_b), carry_b = _carry_fixpoint(step, init_b)
    consts, init, xs = split_list(args, [num_consts, num_carry])
    consts_d, init_d, xs_d = split_list(dims, [num_consts, num_carry])
    consts = [moveaxis(x, d, 0) if d is not not_mapped else x for x, d in zip(consts, consts_d)]
    init = [x if not now else broadcast(x, size, 0) if d is not_mapped else moveaxis(x, d, 0)
            for x, d, now in zip(init, init_d, carry_b)]
    xs = [moveaxis(x, d, 1) if d is not not_mapped else x for x, d in zip(xs, xs_d)]
    outs = scan_p.bind(*consts, *init, *xs, reverse=reverse, length=length, jaxpr=jaxpr_batched,
                       num_consts=num_consts, num_carry=num_carry, unroll=unroll)
    ys_b = out_b[num_carry:]
    return outs, _bools_to_dims(carry_b) + [1 if b else not_mapped for b in ys_b]


def _while_batching_rule(args, dims, *, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    """Batch a ``while``.

    If the predicate ends up batched, examples finish at different times: the
    whole carry is batched, the loop runs while *any* example's predicate
    holds, and the ``while`` impl only updates the examples still running.
    """
    size = batch_size(args, dims)
    batched = [d is not not_mapped for d in dims]
    cconst_b, bconst_b, init_b = split_list(batched, [cond_nconsts, body_nconsts])
    cconst_d, bconst_d, init_d = split_list(dims, [cond_nconsts, body_nconsts])
    num_carry = len(init_b)

    def step(carry_b):
        _, out_b = batch_jaxpr(body_jaxpr, size, _bools_to_dims(bconst_b + carry_b),
                               [0] * num_carry, carry_b)
        return None, out_b

    _, carry_b = _carry_fixpoint(step, init_b)
    _, (pred_b,) = batch_jaxpr(cond_jaxpr, size, _bools_to_dims(cconst_b + carry_b), [0], [False])
    if pred_b:
        carry_dims = [0] * num_carry
        body_b, _ = batch_jaxpr(body_jaxpr, size, bconst_d + carry_dims, carry_dims,
                                [True] * num_carry)
        cond_b, _ = batch_jaxpr(cond_jaxpr, size, cconst_d + carry_dims, [0], [True])
    else:  # the predicate's own rank (a nested vmap) is where batch axes must go
        rank = cond_jaxpr.out_avals[0].ndim
        carry_dims = [rank if b else not_mapped for b in carry_b]
        body_b, _ = batch_jaxpr(body_jaxpr, size, bconst_d + carry_dims, carry_dims, carry_b)
        cond_b, _ = batch_jaxpr(cond_jaxpr, size, cconst_d + carry_dims, [0], [False])
    init = [x if new is not_mapped else broadcast(x, size, new) if old is not_mapped
            else moveaxis(x, old, new)
            for x, old, new in zip(args[cond_nconsts + body_nconsts:], init_d, carry_dims)]
    outs = while_p.bind(*args[:cond_nconsts + body_nconsts], *init,
                        cond_nconsts=cond_nconsts, cond_jaxpr=cond_b,
                        body_nconsts=body_nconsts, body_jaxpr=body_b)
    return outs, carry_dims


impl_rules[while_p] = _while_impl
abstract_eval_rules[while_p] = _while_abstract_eval
jvp_rules[while_p] = _while_jvp
batching_rules[while_p] = _while_batching_rule
impl_rules[scan_p] = _scan_impl
abstract_eval_rules[scan_p] = _scan_abstract_eval
jvp_rules[scan_p] = _scan_jvp
batching_rules[scan_p] = _scan_batching_rule


# =============================================================================
# Reverse mode: partial evaluation, transposition, dead-code elimination
# =============================================================================
def _scan_partial_eval(trace, *args, reverse, length, num_consts, num_carry, jaxpr, unroll):
    """Split one ``scan`` into a known scan (run now) and an unknown scan (staged).

    Which carries are unknown is a fixpoint (an unknown carry makes the next
    iteration's carry unknown). The body is split with
    ``partial_eval_jaxpr_nounits``: the known body also returns the
    *residuals* the unknown body needs, as extra ``ys``, so the known scan
    stacks them, one per iteration; the unknown scan reads them as extra
    ``xs``. Two residuals are not stacked, as in JAX: one that depends only
    on constants is computed once, before the loop (it is *hoisted*), and
    passed as a constant; one that is just the slice of a known ``xs`` is
    that ``xs`` itself.
    """
    num_ys = len(jaxpr.out_avals) - num_carry
    const_uk, init_uk, xs_uk = split_list([trace.is_unknown(x) for x in args],
                                          [num_consts, num_carry])

    def step(carry_uk):
        split = partial_eval_jaxpr_nounits(jaxpr, const_uk + carry_uk + xs_uk,
                                           carry_uk + [False] * num_ys)
        return split, split[2][:num_carry]

    (jaxpr_known, jaxpr_unknown, out_uk, res_avals), carry_uk = _carry_fixpoint(step, init_uk)
    consts, init, xs = split_list(args, [num_consts, num_carry])
    known = lambda vals, uks: [x for x, uk in zip(vals, uks) if not uk]
    known_consts, known_init, known_xs = (known(consts, const_uk), known(init, carry_uk),
                                          known(xs, xs_uk))
    num_res, num_known_outs = len(res_avals), len(out_uk) - sum(out_uk)

    jaxpr_known, known_consts, hoisted_mask, hoisted = _hoist_loop_invariants(
        trace, jaxpr_known, known_consts, num_known_outs, num_res)
    first_x = len(known_consts) + len(known_init)
    res_fwd = jaxpr_forwarding(jaxpr_known.jaxpr)[num_known_outs:]
    from_xs = [f - first_x if f is not None and f >= first_x else None for f in res_fwd]
    jaxpr_known = prune_outputs(jaxpr_known,
                                [True] * num_known_outs + [f is None for f in from_xs])
    outs = []
    if jaxpr_known.out_avals:
        with set_current_trace(trace.parent):
            outs = scan_p.bind(*known_consts, *known_init, *known_xs, reverse=reverse,
                               length=length, jaxpr=jaxpr_known, num_consts=len(known_consts),
                               num_carry=len(known_init), unroll=unroll)
    known_outs, stacked = split_list(outs, [num_known_outs])
    stacked = iter(stacked)
    loop_res = [next(stacked) if f is None else known_xs[f] for f in from_xs]

    # The unknown body takes (*residuals, *unknown inputs); the scan wants the
    # hoisted residuals as constants (first) and the stacked ones as xs (last).
    res_vars, in_vars = split_list(jaxpr_unknown.jaxpr.invars, [num_res])
    invars = ([v for v, h in zip(res_vars, hoisted_mask) if h] + in_vars
              + [v for v, h in zip(res_vars, hoisted_mask) if not h])
    jaxpr_unknown = ClosedJaxpr(jaxpr_unknown.jaxpr.replace(invars=invars), jaxpr_unknown.consts)
    unknown_args = [x for x, uk in zip(args, const_uk + carry_uk + xs_uk) if uk]
    unknown_outs = trace.default_process_primitive(
        scan_p, [*hoisted, *unknown_args, *loop_res],
        dict(reverse=reverse, length=length, jaxpr=jaxpr_unknown,
             num_consts=len(hoisted) + sum(const_uk), num_carry=sum(carry_uk), unroll=unroll))
    return merge_lists(out_uk, known_outs, unknown_outs)


def _hoist_loop_invariants(trace, jaxpr_known, known_consts, num_known_outs, num_res):
    """Move the known body's work on constants alone out of the loop.

    Partially evaluate the known body once more, with its constants known
    and its carry and ``xs`` unknown: what is "known" now does not change
    from one iteration to the next. It is computed here, once; the rest is the
    new loop body, whose constants are what that computation hands it.
    Returns ``(body, consts, hoisted_mask, hoisted)``: which residuals were
    hoisted, and their values.
    """
    num_in = len(jaxpr_known.in_avals)
    if not known_consts:
        return jaxpr_known, known_consts, [False] * num_res, []
    outer, inner, out_uk, _ = partial_eval_jaxpr_nounits(
        jaxpr_known, [False] * len(known_consts) + [True] * (num_in - len(known_consts)),
        [True] * num_known_outs + [False] * num_res)
    hoisted_mask = [not uk for uk in out_uk[num_known_outs:]]
    with set_current_trace(trace.parent):
        outs = eval_jaxpr(outer.jaxpr, outer.consts, *known_consts)
    hoisted, new_consts = split_list(outs, [sum(hoisted_mask)])
    return inner, new_consts, hoisted_mask, hoisted


def _scan_transpose(cts, *args, reverse, length, num_consts, num_carry, jaxpr, unroll):
    """Transpose a linear scan: a scan running the other way over the cotangents.

    The body ``(consts, carry, x) -> (carry, y)`` is linear in its undefined
    constants, its carry and its undefined ``xs`` (the others are residuals).
    Its transpose maps ``(ct_carry, ct_y)`` to ``(ct_carry_in, ct_x)`` and
    adds each iteration's cotangent of the linear constants into an
    accumulator. So the transposed scan has the residual constants as
    constants, ``(accumulators, ct_carry)`` as carry, ``(ct_ys, stacked
    residuals)`` as ``xs`` and the ``ct_xs`` as ``ys``, with ``reverse``
    flipped: the last iteration is transposed first.
    """
    consts, init, xs = split_list(args, [num_consts, num_carry])
    c_lin = [is_undefined_primal(x) for x in consts]
    x_lin = [is_undefined_primal(x) for x in xs]
    ires = [x for x, lin in zip(consts, c_lin) if not lin]
    eres = [x for x, lin in zip(xs, x_lin) if not lin]
    ct_carry, ct_ys = split_list([instantiate_zeros(ct) for ct in cts], [num_carry])
    ct_consts = [zeros_like_aval(tangent_aval(a))
                 for a, lin in zip(jaxpr.in_avals[:num_consts], c_lin) if lin]
    jaxpr_t = _transpose_scan_jaxpr(jaxpr, num_consts, num_carry, c_lin, x_lin)
    outs = scan_p.bind(*ires, *ct_consts, *ct_carry, *ct_ys, *eres, reverse=not reverse,
                       length=length, jaxpr=jaxpr_t, num_consts=len(ires),
                       num_carry=len(ct_consts) + num_carry, unroll=unroll)
    ct_consts, ct_init, ct_xs = split_list(outs, [len(ct_consts), num_carry])
    ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
    return ([next(ct_consts) if lin else None for lin in c_lin]
            + [ct if is_undefined_primal(x) else None for x, ct in zip(init, ct_init)]
            + [next(ct_xs) if lin else None for lin in x_lin])


def _transpose_scan_jaxpr(jaxpr: ClosedJaxpr, num_consts, num_carry, c_lin, x_lin):
    """The transposed body: ``(ires, ct_consts, ct_carry, ct_y, eres) -> (ct_consts', ct_carry', ct_x)``."""
    const_avals, carry_avals, x_avals = split_list(jaxpr.in_avals, [num_consts, num_carry])
    ires_avals = [a for a, lin in zip(const_avals, c_lin) if not lin]
    eres_avals = [a for a, lin in zip(x_avals, x_lin) if not lin]
    acc_avals = [tangent_aval(a) for a, lin in zip(const_avals, c_lin) if lin]
    ct_out_avals = [tangent_aval(a) for a in jaxpr.out_avals]
    sizes = [len(ires_avals), len(acc_avals), len(ct_out_avals)]

    def transposed(*args):
        ires, acc, cts, eres = split_list(args, sizes)
        ires, eres = iter(ires), iter(eres)
        primals = ([UndefinedPrimal(a) if lin else next(ires) for a, lin in zip(const_avals, c_lin)]
                   + [UndefinedPrimal(a) for a in carry_avals]
                   + [UndefinedPrimal(a) if lin else next(eres) for a, lin in zip(x_avals, x_lin)])
        ct_c, ct_carry, ct_x = split_list(backward_pass(jaxpr.jaxpr, jaxpr.consts, primals, cts),
                                          [num_consts, num_carry])
        acc = [add_cotangents(a, ct) for a, ct in zip(acc, [ct for ct, lin in zip(ct_c, c_lin) if lin])]
        ct_x = [ct for ct, lin in zip(ct_x, x_lin) if lin]
        return [instantiate_zeros(ct) for ct in acc + ct_carry + ct_x]

    in_avals = ires_avals + acc_avals + ct_out_avals + eres_avals
    out, _, consts = trace_to_jaxpr_dynamic(transposed, in_avals)
    return ClosedJaxpr(out, consts)


def _scan_dce_rule(used_outputs, eqn):
    """Drop unused ``ys`` and carries (a carry is used if its output is, or if a
    used part of the body reads it: a fixpoint) and the inputs nothing reads."""
    if not any(used_outputs) and not eqn.effects:  # (effects are kept)
        return [False] * len(eqn.invars), None
    jaxpr, num_consts, num_carry = (eqn.params[k] for k in ("jaxpr", "num_consts", "num_carry"))
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    used_carry_out, used_ys = split_list(used_outputs, [num_carry])

    def step(used_carry):
        new, used_in = dce_jaxpr(jaxpr.jaxpr, used_carry + used_ys,
                                 [False] * num_consts + used_carry + [False] * num_xs)
        return (new, used_in), used_in[num_consts:num_consts + num_carry]

    (new_jaxpr, used_inputs), used_carry = _carry_fixpoint(step, used_carry_out)
    params = dict(eqn.params, jaxpr=ClosedJaxpr(new_jaxpr, jaxpr.consts),
                  num_consts=sum(used_inputs[:num_consts]), num_carry=sum(used_carry))
    used_outputs = used_carry + used_ys
    return used_inputs, eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                                    outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                                    params=params)


def _while_partial_eval(trace, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    """Compute the known carries now; stage the whole loop for the unknown ones.

    A ``while`` has no trip count to stack residuals by, so nothing is saved:
    the staged loop recomputes the known part. That makes ``linearize`` (and
    ``jvp`` under ``jit``) work, and leaves in the linear jaxpr a ``while``
    that cannot be transposed: ``grad`` then raises JAX's error.
    """
    params = dict(cond_nconsts=cond_nconsts, cond_jaxpr=cond_jaxpr,
                  body_nconsts=body_nconsts, body_jaxpr=body_jaxpr)
    unknowns = [trace.is_unknown(x) for x in args]
    cc_uk, bc_uk, init_uk = split_list(unknowns, [cond_nconsts, body_nconsts])

    def step(carry_uk):
        split = partial_eval_jaxpr_nounits(body_jaxpr, bc_uk + carry_uk, carry_uk)
        return split[0], split[2]

    body_known, carry_uk = _carry_fixpoint(step, init_uk)
    cond_known, _, (cond_uk,), _ = partial_eval_jaxpr_nounits(cond_jaxpr, cc_uk + carry_uk, False)
    if cond_uk or all(carry_uk):
        return trace.default_process_primitive(while_p, list(args), params)
    num_known = len(carry_uk) - sum(carry_uk)
    body_known = _keep_outputs(body_known, num_known)  # (drop the residuals)
    cond_known = _keep_outputs(cond_known, 1)
    known_args = [x for x, uk in zip(args, cc_uk + bc_uk + carry_uk) if not uk]
    with set_current_trace(trace.parent):
        known_outs = while_p.bind(*known_args, cond_nconsts=len(cc_uk) - sum(cc_uk),
                                  cond_jaxpr=cond_known, body_nconsts=len(bc_uk) - sum(bc_uk),
                                  body_jaxpr=body_known)
    all_outs = trace.default_process_primitive(while_p, list(args), params)
    return merge_lists(carry_uk, known_outs, [t for t, uk in zip(all_outs, carry_uk) if uk])


def _keep_outputs(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """The first ``n`` outputs only, without the equations that fed the others."""
    jaxpr, _ = dce_jaxpr(closed.jaxpr, [i < n for i in range(len(closed.out_avals))], True)
    return ClosedJaxpr(jaxpr, closed.consts)


def _while_transpose_error(*args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


custom_partial_eval_rules[scan_p] = _scan_partial_eval
transpose_rules[scan_p] = _scan_transpose
dce_rules[scan_p] = _scan_dce_rule
custom_partial_eval_rules[while_p] = _while_partial_eval
transpose_rules[while_p] = _while_transpose_error
