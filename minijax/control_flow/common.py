"""Chapter 08 — what every control-flow primitive shares: functions become jaxprs.

A Python ``if`` or ``while`` on a traced value cannot be recorded: Python
needs a ``bool`` *now*, and a tracer has no value yet (chapter 01). So the
control-flow functions take the branches and loop bodies as *functions*,
trace each one once to a jaxpr (chapter 05), and bind a primitive that holds
those jaxprs as parameters: ``cond[branches=(...)]``, ``while[cond_jaxpr=...
body_jaxpr=...]``, ``scan[jaxpr=...]``. The loop or the choice then happens
inside the primitive, where every interpretation (eager, ``jit``, ``jvp``,
``vmap``, ``grad``) can handle it as a whole.

This module has the pieces they all use:

- :func:`trace_to_subjaxpr` traces a pytree-in, pytree-out function on
  abstract values and returns a jaxpr whose captured constants have become
  leading *inputs* (JAX's ``separate_consts``): the primitive receives them
  as operands, so a closed-over tracer of an outer transformation is an
  operand that transformation sees, never a hidden constant;
- :func:`check_carry_type` raises JAX's ``TypeError`` when a loop body
  changes the type of its carry, naming the offending leaf;
- :func:`jaxpr_forwarding`, :func:`prune_outputs`, :func:`move_binders_to_front`
  let the API functions drop outputs that merely forward an input, as JAX does;
- :func:`jvp_jaxpr` and :func:`batch_jaxpr` transform a *jaxpr* (not a
  function call) by re-tracing it under a ``JVPTrace`` or ``BatchTrace``:
  the rules of the control-flow primitives are built out of these.
"""
from __future__ import annotations

import inspect
import types
from typing import Callable, Sequence

from minijax import dtypes, lax
from minijax.abstract_arrays import ShapedArray
from minijax.core import find_cur_trace, get_aval, set_current_trace
from minijax.interpreters.ad import JVPTrace, JVPTracer, Zero, instantiate_zeros, tangent_aval
from minijax.interpreters.batching import (BatchTrace, BatchTracer, batched_aval, matchaxis,
                                           not_mapped)
from minijax.interpreters.partial_eval import (DebugInfo, debug_info, fun_sourceinfo,
                                               trace_to_jaxpr_dynamic)
from minijax.jaxpr import ClosedJaxpr, Jaxpr, Literal, eval_jaxpr
from minijax.tree_util import (equality_errors, keystr, tree_flatten, tree_flatten_with_path,
                               tree_unflatten)

__all__ = ["trace_to_subjaxpr", "typeof", "debug_info", "fun_sourceinfo", "typematch",
           "aval_mismatch_extra", "check_carry_type", "promote_weak_typed_input",
           "jaxpr_forwarding", "prune_outputs", "move_binders_to_front", "jvp_jaxpr",
           "batch_jaxpr", "split_list", "merge_lists", "capitalize", "bullets"]


# =============================================================================
# Tracing a branch or a body
# =============================================================================
def trace_to_subjaxpr(fun: Callable, args: Sequence, in_avals: Sequence[ShapedArray],
                      dbg: DebugInfo | None = None):
    """Trace ``fun(*args)`` with abstract values of types ``in_avals`` for its leaves.

    ``args`` is a tuple of pytrees (only its structure is used) and
    ``in_avals`` has one aval per leaf. Returns ``(closed_jaxpr, consts,
    out_tree)``: the jaxpr takes ``consts`` first, then the flat arguments,
    and returns the flat outputs; its ``ClosedJaxpr`` has no consts of its own.
    """
    _, in_tree = tree_flatten(tuple(args))
    out_trees = []

    def flat_fun(*leaves):
        out = fun(*tree_unflatten(in_tree, leaves))
        flat_out, out_tree = tree_flatten(out)
        out_trees.append(out_tree)
        if dbg is not None:
            dbg.result_paths = lambda: [keystr(p) for p, _ in tree_flatten_with_path(out)[0]]
        return flat_out

    jaxpr, _, consts = trace_to_jaxpr_dynamic(flat_fun, list(in_avals), dbg)
    jaxpr = jaxpr.replace(constvars=[], invars=jaxpr.constvars + jaxpr.invars)
    return ClosedJaxpr(jaxpr, []), consts, out_trees[0]


def typeof(x) -> ShapedArray:
    """The aval of an operand, or JAX's TypeError for a value that is not an array."""
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def split_list(xs: Sequence, sizes: Sequence[int]) -> list[list]:
    """``split_list([a, b, c, d], [1, 2]) == [[a], [b, c], [d]]``."""
    xs, parts = list(xs), []
    for n in sizes:
        parts.append(xs[:n])
        xs = xs[n:]
    return parts + [xs]


def merge_lists(which: Sequence[bool], falses: Sequence, trues: Sequence) -> list:
    """Interleave two lists back: position ``i`` takes from ``trues`` where ``which[i]``."""
    falses, trues = iter(falses), iter(trues)
    return [next(trues) if w else next(falses) for w in which]


# =============================================================================
# Types of carries and branches, with JAX's messages
# =============================================================================
def typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Same shape and dtype; weak types are ignored (as JAX's ``core.typematch``)."""
    return a.shape == b.shape and a.dtype == b.dtype


def aval_mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    """``", so the dtypes do not match"``: what differs between two types."""
    what = (["the dtypes do not match"] if a.dtype != b.dtype else []) + \
           (["the shapes do not match"] if a.shape != b.shape else [])
    if not what:
        return ""
    return ", so " + (what[0] if len(what) == 1 else f"{what[0]}, and {what[1]}")


def capitalize(s: str) -> str:
    return s[0].upper() + s[1:]


def bullets(diffs: list[str], *, capital: bool = True, blank_lines: bool = False) -> str:
    """Differences as JAX lists them: one as a sentence, several as ``*`` items.

    Some of JAX's messages put a blank line between items (``blank_lines``),
    except before the last one; we reproduce that layout exactly.
    """
    if len(diffs) == 1:
        return f"{capitalize(diffs[0]) if capital else diffs[0]}.\n"
    join = "\n" if blank_lines else ""
    return join.join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def check_carry_type(name: str, body_fun: Callable, in_tree, in_avals, out_tree,
                     out_avals) -> None:
    """Raise JAX's TypeError unless the body returns a carry of the type it received.

    The structure must be the same, and each leaf must have the same shape and
    dtype (a weak type may become strong). The message names each offending
    leaf by the body's first parameter and the leaf's key path:
    ``the input carry component carry['b'] has type float32[] ...``.
    """
    try:
        carry_name = list(inspect.signature(body_fun).parameters)[0]
    except (ValueError, TypeError, IndexError):
        carry_name = None
    if carry_name:
        component = lambda p: (f"the input carry component {carry_name}{keystr(p)}"
                               if p else f"the input carry {carry_name}")
    else:
        component = lambda p: (f"the input carry at path {keystr(p)}" if p
                               else "the input carry")
    if in_tree != out_tree:
        in_carry, out_carry = tree_unflatten(in_tree, in_avals), tree_unflatten(out_tree, out_avals)
        diffs = [f"{component(path)} is a {thing1} but the corresponding component of the "
                 f"carry output is a {thing2}, so {why}"
                 for path, thing1, thing2, why in equality_errors(in_carry, out_carry)]
        if not diffs:
            return
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\n{bullets(diffs, blank_lines=True)}\n"
            "Revise the function so that the carry output has the same pytree "
            "structure as the carry input.")
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(in_tree, in_avals))[0]]
    diffs = [f"{component(p)} has type {a.str_short()} but the corresponding output carry "
             f"component has type {b.str_short()}{aval_mismatch_extra(a, b)}"
             for p, a, b in zip(paths, in_avals, out_avals) if not typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, but "
            f"they differ:\n\n{bullets(diffs, blank_lines=True)}\n"
            "Revise the function so that all output types match the corresponding "
            "input types.")


def promote_weak_typed_input(x, in_aval: ShapedArray, out_aval: ShapedArray):
    """``(x', changed)``: a weakly typed initial carry cast to what the body returns.

    ``fori_loop(0, 3, lambda i, c: c + 1.5, 0)`` starts from a weak ``int32``
    and the body returns a ``float32``: the initial value is promoted and the
    body traced again, rather than raising a type error.
    """
    if in_aval.weak_type and not typematch(in_aval, out_aval):
        new_dtype = dtypes.result_type(x, types.SimpleNamespace(aval=out_aval))
        return lax.convert_element_type(x, new_dtype), True
    return x, False


# =============================================================================
# Rewriting jaxprs: forwarding, pruning, moving binders
# =============================================================================
def _is_noop(eqn) -> bool:
    """A ``convert_element_type`` or ``broadcast_in_dim`` that changes nothing."""
    if eqn.primitive not in (lax.convert_element_type_p, lax.broadcast_in_dim_p):
        return False
    x, params = eqn.invars[0], eqn.params
    if isinstance(x, Literal):
        return False
    if eqn.primitive is lax.convert_element_type_p:
        return x.aval.dtype == params["new_dtype"] and x.aval.weak_type == params["weak_type"]
    return tuple(params["shape"]) == x.aval.shape


def jaxpr_forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it simply *is* (or ``None``).

    A branch ``lambda x, y: (x, x + y)`` forwards its input 0 to its output 0:
    the API functions then return the input itself and drop that output from
    the primitive, so nothing is copied through it.
    """
    alias = {v: v for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        if _is_noop(eqn) and eqn.invars[0] in alias:
            alias[eqn.outvars[0]] = alias[eqn.invars[0]]
    index = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if isinstance(v, Literal) else index.get(alias.get(v)) for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    """The jaxpr without the outputs where ``keep`` is False."""
    if all(keep):
        return closed
    outvars = [v for v, k in zip(closed.jaxpr.outvars, keep) if k]
    return ClosedJaxpr(closed.jaxpr.replace(outvars=outvars), closed.consts)


def move_binders_to_front(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    """The jaxpr with the inputs where ``to_move`` is True moved first (in order)."""
    invars = closed.jaxpr.invars
    new = [v for v, m in zip(invars, to_move) if m] + [v for v, m in zip(invars, to_move) if not m]
    return ClosedJaxpr(closed.jaxpr.replace(invars=new), closed.consts)


# =============================================================================
# Transforming a jaxpr by re-tracing it under another interpreter
# =============================================================================
def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool]
              ) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of a jaxpr, as a jaxpr: ``(*primals, *nonzero_tangents) -> (*outs, *out_tangents)``.

    ``nonzeros[i]`` says whether input ``i`` has a tangent (the jaxpr takes
    only those). An output's tangent is returned when it is not a symbolic
    zero or when ``instantiate`` asks for it (as real zeros); the second
    result says which outputs have one. It is built by evaluating the jaxpr
    under a :class:`~minijax.interpreters.ad.JVPTrace` while recording a new one.
    """
    in_avals = closed.in_avals
    tan_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
    out_nonzeros: list[bool] = []

    def fun(*args):
        primals, tangents = args[:len(in_avals)], iter(args[len(in_avals):])
        trace = JVPTrace(find_cur_trace())
        ins = [JVPTracer(trace, p, next(tangents)) if nz else p
               for p, nz in zip(primals, nonzeros)]
        with set_current_trace(trace):
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        pairs = [trace.to_primal_tangent_pair(o) for o in outs]
        out_nonzeros[:] = [type(t) is not Zero or inst for (_, t), inst in zip(pairs, instantiate)]
        tangents_out = [instantiate_zeros(t) for (_, t), nz in zip(pairs, out_nonzeros) if nz]
        return [p for p, _ in pairs] + tangents_out

    jaxpr, _, consts = trace_to_jaxpr_dynamic(fun, list(in_avals) + tan_avals)
    return ClosedJaxpr(jaxpr, consts), out_nonzeros



def batch_jaxpr(closed: ClosedJaxpr, size: int, in_dims: Sequence, out_dims: Sequence[int],
                instantiate: Sequence[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    """The batched version of a jaxpr, as a jaxpr, and which of its outputs are batched.

    ``in_dims[i]`` is where input ``i`` has its batch axis of size ``size``
    (``None``: not batched). An output that comes out batched is moved to
    axis ``out_dims[i]``; an unbatched one stays unbatched unless
    ``instantiate[i]`` asks for it to be broadcast there. Built by evaluating
    the jaxpr under a :class:`~minijax.interpreters.batching.BatchTrace`
    while recording a new jaxpr.
    """
    in_avals = [batched_aval(a, size, d) for a, d in zip(closed.in_avals, in_dims)]
    out_batched: list[bool] = []

    def fun(*args):
        trace = BatchTrace(find_cur_trace(), size)
        ins = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
        with set_current_trace(trace):
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        vals_dims = [trace.to_batch_info(o) for o in outs]
        out_batched[:] = [d is not not_mapped or inst for (_, d), inst in zip(vals_dims, instantiate)]
        return [matchaxis(size, d, dst if b else not_mapped, v)
                for (v, d), dst, b in zip(vals_dims, out_dims, out_batched)]

    jaxpr, _, consts = trace_to_jaxpr_dynamic(fun, in_avals)
    return ClosedJaxpr(jaxpr, consts), out_batched
