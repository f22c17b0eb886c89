"""Chapter 08 — ``cond`` and ``switch``: choosing a branch by a traced value.

``if pred: ...`` needs ``bool(pred)`` while the function runs, which a tracer
cannot give. ``lax.cond(pred, true_fun, false_fun, *operands)`` asks for the
branches as *functions* instead: both are traced to jaxprs (so both run in
Python once, at trace time), and one primitive is bound::

    d:f32[] = cond[branches=({ lambda ; e:f32[]. let f = cos e in (f,) }
                             { lambda ; g:f32[]. let h = sin g in (h,) })] c a

Its first operand is the branch *index* (``int32``; a boolean ``pred``
becomes ``0`` for false, ``1`` for true, so ``branches`` lists ``false_fun``
first); the rest are the operands, preceded by the constants the branches
captured. ``switch(index, branches, *operands)`` is the n-way version, with
the index clamped into range.

The rules, one per interpretation:

- **impl**: evaluate the chosen branch's jaxpr;
- **abstract eval**: the branches' common output types;
- **jvp**: a ``cond`` of the branches' JVP jaxprs (tangents ride along as
  extra operands);
- **batching**: with an unbatched index, a ``cond`` of batched branches; with
  a *batched* index each example may take a different branch, so all branches
  run and ``select_n`` picks each example's result: ``vmap`` of ``cond`` is a
  ``select``.

Reverse mode (partial evaluation into known and unknown parts, and
transposition) is at the end of the file.
"""
from __future__ import annotations

from collections.abc import Sequence as _SequenceABC
from typing import Callable, Sequence

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.config import disable_jit
from minijax.core import eval_trace, get_aval, is_concrete, set_current_trace
from minijax.lax.shapes import empty_like_aval
from minijax.interpreters.ad import Zero, instantiate_zeros, jvp_rules, tangent_aval
from minijax.interpreters.batching import (batch_size, batching_rules, bdim_at_front,
                                           moveaxis, not_mapped)
from minijax.interpreters.linearize import (custom_partial_eval_rules, dce_jaxpr, dce_rules,
                                            partial_eval_jaxpr_nounits)
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.interpreters.transpose import (UndefinedPrimal, backward_pass, is_undefined_primal,
                                            transpose_rules)
from minijax.jaxpr import ClosedJaxpr, Var, eval_jaxpr, jaxpr_as_fun
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import (equality_errors_pytreedef, keystr, tree_flatten,
                               tree_flatten_with_path, tree_unflatten)

from minijax.control_flow.common import (aval_mismatch_extra, batch_jaxpr, bullets, debug_info,
                                         fun_sourceinfo, jaxpr_forwarding, jvp_jaxpr,
                                         merge_lists, prune_outputs, split_list,
                                         trace_to_subjaxpr, typematch, typeof)

__all__ = ["cond", "switch", "cond_p"]

#: ``cond[branches=(jaxpr_0, ..., jaxpr_n-1)] index *operands``
cond_p = Primitive("cond", multiple_results=True, kind="control_flow")

# ``operand=`` is the old calling convention, still accepted by JAX 0.10.
_no_operand = object()


# =============================================================================
# The user-facing functions
# =============================================================================
def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_no_operand):
    """``true_fun(*operands) if pred else false_fun(*operands)``, with a traced ``pred``.

    ``pred`` is a scalar boolean or number (nonzero is true). Both functions
    are traced (their Python side effects happen once each, at trace time)
    and must return the same pytree of the same types; only one of them is
    evaluated. Under ``vmap`` with a batched ``pred`` both are evaluated and
    the result is selected, as ``lax.select`` does. With ``jax_disable_jit``
    and a concrete ``pred``, the chosen function is simply called.

    >>> cond(x > 0, jnp.sin, jnp.cos, x)  # doctest: +SKIP
    """
    if not (callable(true_fun) and callable(false_fun)):
        # the old signature: cond(pred, true_operand, true_fun, false_operand, false_fun)
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operands(operands, operand)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, _SequenceABC) or np.ndim(pred) != 0:
        raise TypeError(f"Pred must be a scalar, got {pred} of " +
                        (f"type {type(pred)}" if isinstance(pred, _SequenceABC)
                         else f"shape {np.shape(pred)}."))
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")
        pred = pred != 0
    if disable_jit.value and is_concrete(pred):  # debugging: plain Python
        return true_fun(*operands) if pred else false_fun(*operands)

    jaxprs, consts, out_trees = _trace_branches("cond", [true_fun, false_fun], operands)
    _check_branch_outputs("cond", "true_fun", "false_fun", true_fun, false_fun,
                          out_trees[0], jaxprs[0].out_avals, out_trees[1], jaxprs[1].out_avals)
    true_jaxpr, false_jaxpr = jaxprs
    index = lax.convert_element_type(pred, np.int32)
    return _bind_cond(index, (false_jaxpr, true_jaxpr), consts, operands, out_trees[0])


def switch(index, branches: Sequence[Callable], *operands, operand=_no_operand):
    """``branches[clamp(0, index, len(branches) - 1)](*operands)`` with a traced ``index``.

    ``index`` is a scalar integer; out-of-range values pick the first or the
    last branch. Every branch is traced; all must return the same types.
    """
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operands(operands, operand)
    if len(np.shape(index)) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax.convert_element_type(index, np.int32)
    index = lax.clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    if disable_jit.value and is_concrete(index):  # debugging: plain Python
        return branches[int(index)](*operands)

    jaxprs, consts, out_trees = _trace_branches("switch", branches, operands)
    for i in range(1, len(branches)):
        _check_branch_outputs("switch", "branch 0", f"branch{i}", branches[0], branches[i],
                              out_trees[0], jaxprs[0].out_avals, out_trees[i], jaxprs[i].out_avals)
    return _bind_cond(index, tuple(jaxprs), consts, operands, out_trees[0])


def _operands(operands, operand):
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got {operand=} and positional operands {operands}")
    return (operand,)


def _trace_branches(api_name: str, funs, operands):
    """Trace each branch on the operands' types; give all of them the same const inputs."""
    leaves, _ = tree_flatten(operands)
    avals = [typeof(x) for x in leaves]
    traced = [trace_to_subjaxpr(f, operands, avals, debug_info(api_name, f, operands, {}))
              for f in funs]
    jaxprs, consts = _merge_common_consts([j for j, _, _ in traced], [c for _, c, _ in traced])
    return jaxprs, consts, [t for _, _, t in traced]


def _merge_common_consts(jaxprs: list[ClosedJaxpr], all_consts: list[list]):
    """Let every branch take every branch's constants (each uses its own).

    A ``cond`` has one list of operands for all branches, so the constants
    captured by any branch are passed to all of them; the same object
    captured by two branches is passed once.
    """
    unique: dict[int, object] = {}
    for consts in all_consts:
        for c in consts:
            unique.setdefault(id(c), c)
    merged = []
    for closed, consts in zip(jaxprs, all_consts):
        own = dict(zip(map(id, consts), closed.jaxpr.invars[:len(consts)]))
        const_vars = [own.get(i) or Var(get_aval(c)) for i, c in unique.items()]
        jaxpr = closed.jaxpr.replace(invars=const_vars + closed.jaxpr.invars[len(consts):])
        merged.append(ClosedJaxpr(jaxpr, closed.consts))
    return merged, list(unique.values())


def _bind_cond(index, branches: tuple, consts: list, operands, out_tree):
    """Bind ``cond``; outputs that every branch forwards from an input skip the primitive."""
    args, _ = tree_flatten(operands)
    all_inputs = [*consts, *args]
    fwds = [jaxpr_forwarding(b.jaxpr) for b in branches]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    branches = tuple(prune_outputs(b, keep) for b in branches)
    outs = iter(cond_p.bind(index, *all_inputs, branches=branches))
    flat = [next(outs) if f is None else jnp.asarray(all_inputs[f]) for f in in_fwd]
    return tree_unflatten(out_tree, flat)


def _check_branch_outputs(api_name, name1, name2, f1, f2, tree1, avals1, tree2, avals2):
    """JAX's TypeError when two branches return different pytrees or types."""
    info1, info2 = fun_sourceinfo(f1), fun_sourceinfo(f2)
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(tree1, avals1))[0]]
    component = lambda p: f" at path {keystr(p)}" if p else ""
    if tree1 != tree2:
        diffs = [f"{name1} output{component(p)} is a {t1} but {name2} output{component(p)} "
                 f"is a {t2}, so {why}"
                 for p, t1, t2, why in equality_errors_pytreedef(tree1, tree2)]
        if not diffs:
            return
        differences = bullets(diffs, capital=False, blank_lines=True)
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but they "
            f"differ:\n\n{name1} is {info1}\n{name2} is {info2}\n\n{differences}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure.")
    diffs = [f"the output of {name1}{component(p)} has type {a1.str_short()} but the "
             f"corresponding output of {name2} has type {a2.str_short()}"
             f"{aval_mismatch_extra(a1, a2)}"
             for p, a1, a2 in zip(paths, avals1, avals2) if not typematch(a1, a2)]
    if diffs:
        raise TypeError(
            f"{api_name} branches must have equal output types but they differ.\n\n"
            f"{name1} is {info1}\n{name2} is {info2}\n\n{bullets(diffs)}\n"
            f"Revise {name1} and/or {name2} so that all output types match.")


# =============================================================================
# The primitive: impl, abstract eval, jvp, batching
# =============================================================================
def _cond_impl(index, *args, branches):
    """Run one branch. Out of range means the last branch (XLA's convention)."""
    i = int(index)
    branch = branches[i if 0 <= i < len(branches) else len(branches) - 1]
    with set_current_trace(eval_trace):
        outs = eval_jaxpr(branch.jaxpr, branch.consts, *args)
    return [np.asarray(o) for o in outs]


def _cond_abstract_eval(index, *args, branches):
    return list(branches[0].out_avals)


def _cond_jvp(primals, tangents, *, branches):
    """``cond`` of the branches' JVPs: the nonzero tangents become extra operands.

    An output has a tangent if it has one in *any* branch; the other branches
    then return zeros for it, so all branches keep one output type.
    """
    index, *ops = primals
    ops_dot = tangents[1:]
    ops_nz = [type(t) is not Zero for t in ops_dot]
    n_out = len(branches[0].out_avals)
    out_nz = [any(nzs) for nzs in
              zip(*(jvp_jaxpr(b, ops_nz, [False] * n_out)[1] for b in branches))]
    branches_jvp = tuple(jvp_jaxpr(b, ops_nz, out_nz)[0] for b in branches)
    out = cond_p.bind(index, *ops, *[t for t in ops_dot if type(t) is not Zero],
                      branches=branches_jvp)
    out_primals, out_tangents = split_list(out, [n_out])
    out_tangents = iter(out_tangents)
    return out_primals, [next(out_tangents) if nz else Zero.from_primal_value(p)
                         for p, nz in zip(out_primals, out_nz)]


def _bcast_select(pred, on_true, on_false):
    """``select`` with a per-example ``pred`` broadcast over the operands' other axes."""
    if np.ndim(pred) != np.ndim(on_true):
        pred = lax.broadcast_in_dim(pred, np.shape(on_true), tuple(range(np.ndim(pred))))
    return lax.select(pred, on_true, on_false)


def _bcast_select_n(which, *cases):
    if np.ndim(which) != np.ndim(cases[0]):
        which = lax.broadcast_in_dim(which, np.shape(cases[0]), tuple(range(np.ndim(which))))
    return lax.select_n(which, *cases)


def _cond_batching_rule(args, dims, *, branches):
    """Batch a ``cond``; a batched index turns it into ``select_n`` over all branches."""
    size = batch_size(args, dims)
    n_in, n_out = len(branches[0].in_avals), len(branches[0].out_avals)
    index, *ops = args
    if dims[0] is not not_mapped:
        index, *ops = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
        outs_per_branch = []
        for i, branch in enumerate(branches):
            batched, _ = batch_jaxpr(branch, size, [0] * n_in, [0] * n_out, [True] * n_out)
            # Operands of the branches not taken are cut off from differentiation
            # (their gradient would otherwise leak through a NaN in the other branch).
            taken = lax.eq(index, np.array(i, index.dtype))
            ops_i = [_bcast_select(taken, x, lax.stop_gradient(x)) for x in ops]
            outs_per_branch.append(jaxpr_as_fun(batched)(*ops_i))
        return [_bcast_select_n(index, *outs) for outs in zip(*outs_per_branch)], [0] * n_out
    op_dims = [0 if d is not not_mapped else not_mapped for d in dims[1:]]
    ops = [moveaxis(x, d, 0) if d is not not_mapped else x for x, d in zip(ops, dims[1:])]
    out_bat = [any(bs) for bs in zip(*(batch_jaxpr(b, size, op_dims, [0] * n_out,
                                                    [False] * n_out)[1] for b in branches))]
    branches_batched = tuple(batch_jaxpr(b, size, op_dims, [0] * n_out, out_bat)[0]
                             for b in branches)
    out = cond_p.bind(index, *ops, branches=branches_batched)
    return out, [0 if b else not_mapped for b in out_bat]


impl_rules[cond_p] = _cond_impl
abstract_eval_rules[cond_p] = _cond_abstract_eval
jvp_rules[cond_p] = _cond_jvp
batching_rules[cond_p] = _cond_batching_rule


# =============================================================================
# Reverse mode: partial evaluation, transposition, dead-code elimination
# =============================================================================
# ``grad`` linearizes (chapter 07): the JVP rule above binds ``cond`` on known
# primals and unknown tangents, and partial evaluation must split it into a
# ``cond`` computed now (the primal outputs, plus the *residuals* the tangent
# computation needs) and a ``cond`` staged into the linear jaxpr, which the
# backward pass then transposes branch by branch.
def _cond_partial_eval(trace, index, *ops, branches):
    """Split one ``cond`` into a known ``cond`` (run now) and an unknown one (staged).

    Each branch is split with ``partial_eval_jaxpr_nounits``. An output is
    unknown if it is in any branch. Branches need different residuals, but a
    ``cond``'s branches must have one output type: the residual lists are
    merged (:func:`_merge_branch_residuals`), each known branch fills the
    slots it does not use with placeholders (``empty2``), and each unknown branch takes
    them all.
    """
    if trace.is_unknown(index):  # the branch itself is unknown: stage everything
        return trace.default_process_primitive(cond_p, [index, *ops], dict(branches=branches))
    ops_uk = [trace.is_unknown(x) for x in ops]
    n_out = len(branches[0].out_avals)
    out_uk = [any(uks) for uks in zip(*(partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                        for b in branches))]
    splits = [partial_eval_jaxpr_nounits(b, ops_uk, out_uk) for b in branches]
    all_res_avals, res_indices = _merge_branch_residuals([s[3] for s in splits])
    n_known = n_out - sum(out_uk)
    known = tuple(_join_cond_outputs(s[0], all_res_avals, idx, n_known)
                  for s, idx in zip(splits, res_indices))
    unknown = tuple(_join_cond_inputs(s[1], all_res_avals, idx)
                    for s, idx in zip(splits, res_indices))
    with set_current_trace(trace.parent):
        outs = cond_p.bind(index, *[x for x, uk in zip(ops, ops_uk) if not uk], branches=known)
    known_outs, residuals = split_list(outs, [n_known])
    unknown_ops = [x for x, uk in zip(ops, ops_uk) if uk]
    unknown_outs = trace.default_process_primitive(
        cond_p, [index, *residuals, *unknown_ops], dict(branches=unknown))
    return merge_lists(out_uk, known_outs, unknown_outs)


def _merge_branch_residuals(branch_res_avals):
    """One residual list for all branches, sharing slots of equal type.

    ``[x], [y], [x, x] -> [x, y, x]`` with slot indices ``[[0], [1], [0, 2]]``:
    branch ``i`` puts its ``k``-th residual in slot ``indices[i][k]``.
    """
    def tag(avals):  # the n-th occurrence of a type in one branch is (type, n)
        counts: dict = {}
        tags = []
        for a in avals:
            tags.append((a, counts.get(a, 0)))
            counts[a] = counts.get(a, 0) + 1
        return tags
    tagged = [tag(avals) for avals in branch_res_avals]
    slots = list(dict.fromkeys(t for ts in tagged for t in ts))
    where = {t: i for i, t in enumerate(slots)}
    return [a for a, _ in slots], [[where[t] for t in ts] for ts in tagged]


def _join_cond_outputs(closed: ClosedJaxpr, all_res_avals, res_indices, n_known):
    """A known branch returning every residual slot (``empty2`` in the slots it does not fill)."""
    def joined(*args):
        known, res = split_list(eval_jaxpr(closed.jaxpr, closed.consts, *args), [n_known])
        # as JAX: a placeholder for every slot, then the branch's own residuals in theirs
        slots = [empty_like_aval(a) for a in all_res_avals]
        for i, r in zip(res_indices, res):
            slots[i] = r
        return known + slots
    jaxpr, _, consts = trace_to_jaxpr_dynamic(joined, closed.in_avals)
    return ClosedJaxpr(jaxpr, consts)


def _join_cond_inputs(closed: ClosedJaxpr, all_res_avals, res_indices):
    """An unknown branch taking every residual slot first (ignoring the others' slots)."""
    invars = [Var(a) for a in all_res_avals]
    for i, v in zip(res_indices, closed.jaxpr.invars):
        invars[i] = v
    jaxpr = closed.jaxpr.replace(invars=invars + closed.jaxpr.invars[len(res_indices):])
    return ClosedJaxpr(jaxpr, closed.consts)


def _cond_transpose(cts, index, *ops, branches):
    """Transpose each branch; the result is a ``cond`` on the same index.

    The operands that are not linear (residuals) stay operands; the output
    cotangents become operands too, and the transposed branches return the
    cotangents of the linear operands.
    """
    linear = [is_undefined_primal(x) for x in ops]
    residuals = [x for x, lin in zip(ops, linear) if not lin]
    cts = [instantiate_zeros(ct) for ct in cts]
    transposed = tuple(_transpose_branch(b, linear) for b in branches)
    outs = iter(cond_p.bind(index, *residuals, *cts, branches=transposed))
    return [None] + [next(outs) if lin else None for lin in linear]


def _transpose_branch(closed: ClosedJaxpr, linear) -> ClosedJaxpr:
    """``(*residuals, *out_cts) -> linear inputs' cts``: one branch run backwards."""
    res_avals = [a for a, lin in zip(closed.in_avals, linear) if not lin]

    def transposed(*args):
        residuals, cts = split_list(args, [len(res_avals)])
        residuals = iter(residuals)
        primals = [UndefinedPrimal(a) if lin else next(residuals)
                   for a, lin in zip(closed.in_avals, linear)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts)
        return [instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin]
    ct_avals = [tangent_aval(a) for a in closed.out_avals]
    jaxpr, _, consts = trace_to_jaxpr_dynamic(transposed, res_avals + ct_avals)
    return ClosedJaxpr(jaxpr, consts)


def _cond_dce_rule(used_outputs, eqn):
    """Drop unused outputs from every branch, and operands no branch then reads."""
    if not any(used_outputs) and not eqn.effects:  # (effects are kept)
        return [False] * len(eqn.invars), None
    branches = eqn.params["branches"]
    used_inputs = [False] * (len(eqn.invars) - 1)
    for b in branches:
        used_inputs = [a or b for a, b in
                       zip(used_inputs, dce_jaxpr(b.jaxpr, used_outputs, False)[1])]
    new_branches = tuple(ClosedJaxpr(dce_jaxpr(b.jaxpr, used_outputs, used_inputs)[0], b.consts)
                         for b in branches)
    used = [True, *used_inputs]
    return used, eqn.replace(invars=[v for v, u in zip(eqn.invars, used) if u],
                             outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                             params=dict(eqn.params, branches=new_branches))


custom_partial_eval_rules[cond_p] = _cond_partial_eval
transpose_rules[cond_p] = _cond_transpose
dce_rules[cond_p] = _cond_dce_rule
