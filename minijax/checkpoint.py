"""Chapter 07 — rematerialization: ``checkpoint`` (``remat``) trades compute for memory.

Reverse mode keeps, from the forward pass, every value the backward pass
reads: the *residuals* (``cos x`` for ``sin x``...). For a deep network that
is every layer's activations, and memory runs out before compute does.
``checkpoint(f)`` changes the deal for ``f``: save only what a *policy*
allows, and recompute ("rematerialize") the rest inside the backward pass.

How it is built:

- calling ``checkpoint(f)`` traces ``f`` to a jaxpr and binds one primitive,
  ``remat2`` (JAX's name), with that jaxpr as a parameter. Evaluating it runs
  the jaxpr; ``vmap`` batches the jaxpr; ``jvp`` differentiates the jaxpr
  into a new ``remat2`` (the jvp happens *inside* the checkpoint);
- the work is done by its **partial evaluation rule**. Under ``linearize``
  the ``remat2`` of the jvp has known inputs (primals) and unknown ones
  (tangents). Each known equation is run now, and then one of two things:
  if the policy says its outputs are *saveable*, they become residuals;
  if not, the equation is *also* copied into the staged jaxpr, which will
  recompute it from the inputs. The staged jaxpr is a new ``remat2``
  (``differentiated=True``) in the linear jaxpr;
- its **transpose rule** transposes the inner jaxpr (recomputation
  included) into one more ``remat2``: so the recomputation happens in the
  backward pass, right where it is needed.

The effect is visible in ``make_jaxpr(grad(checkpoint(f)))``: with the
default policy (``nothing_saveable``) the ``sin``/``cos`` of the forward pass
appear again inside the backward ``remat2``; with ``everything_saveable``
their values are passed in instead.
"""
from __future__ import annotations

import dataclasses
import functools
import types
import weakref
from typing import Callable, NamedTuple, Sequence

import numpy as np

from minijax import dtypes
from minijax.custom_derivatives import vmap_flat
from minijax.core import get_aval, set_current_trace
from minijax.dispatch import to_numpy
from minijax.errors import ConcretizationTypeError
from minijax.interpreters.ad import Zero, jvp_rules, tangent_aval
from minijax.interpreters.batching import batch_size, batching_rules, not_mapped
from minijax.interpreters.linearize import custom_partial_eval_rules, dce_jaxpr, dce_rules
from minijax.interpreters.partial_eval import debug_info, trace_to_jaxpr_dynamic
from minijax.interpreters.transpose import is_undefined_primal, transpose_rules
from minijax.interpreters.transpose_rules import transpose_jaxpr
from minijax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr
from minijax.jit import jvp_jaxpr
from minijax.lax.dot import dot_general_p
from minijax.lax.elementwise import reduce_precision_p
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten

__all__ = ["checkpoint", "remat", "checkpoint_policies", "checkpoint_name", "remat_p",
           "name_p", "everything_saveable", "nothing_saveable", "dots_saveable",
           "dots_with_no_batch_dims_saveable", "Saveable", "Recompute", "Offloadable",
           "save_and_offload_only_these_names", "offload_dot_with_no_batch_dims"]


# =============================================================================
# Policies: which values may be saved for the backward pass
# =============================================================================
# A policy is called as ``policy(primitive, *input_avals, **params)`` for each
# equation whose inputs are all known, and answers "may its outputs be saved?":
# True or ``Saveable`` (save them), False or ``Recompute`` (recompute them in the
# backward pass), or ``Offloadable(src, dst)`` (save them in another memory).
class RecomputeType:
    """A policy's answer: recompute this value in the backward pass."""

    def __repr__(self):
        return "Recompute"


class SaveableType:
    """A policy's answer: save this value for the backward pass."""

    def __repr__(self):
        return "Saveable"


Recompute, Saveable = RecomputeType(), SaveableType()


class Offloadable(NamedTuple):
    """A policy's answer: save this value, moved from memory ``src`` to ``dst``.

    JAX moves it to host memory to free the accelerator's. minijax has one
    memory per device, so an offloaded value is simply saved where it is.
    """
    src: str
    dst: str


def is_saveable(answer) -> bool:
    """Does a policy's answer mean "save it"?"""
    if answer is True or answer is Saveable or isinstance(answer, Offloadable):
        return True
    if answer is False or answer is Recompute:
        return False
    raise TypeError("Value returned by a remat policy should be a bool or "
                    "`ad_checkpoint.Recompute`, `ad_checkpoint.Saveable` or "
                    f"`ad_checkpoint.Offloadable(...)`. Got {answer} of type {type(answer)}.")


def everything_saveable(*_, **__) -> bool:
    """Save every residual: as if ``checkpoint`` were not used at all."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing but the inputs; recompute everything (the default policy)."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix multiplications (the expensive part); recompute the rest."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *_, **params) -> bool:
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not lhs_batch and not rhs_batch


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)

#: ``y = name[name=...] x``: the identity, marking ``x`` for name-based policies.
name_p = Primitive("name", kind="call", linear_in=(0,))


def checkpoint_name(x, name: str):
    """Name the value ``x`` (a pytree) for ``save_only_these_names`` and friends."""
    return tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset

    def __call__(self, prim, *_, **params) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset

    def __call__(self, prim, *_, **params) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names: str) -> SaveOnlyTheseNames:
    """Save only the values named (with :func:`checkpoint_name`) ``names``."""
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names: str) -> SaveAnyNamesButThese:
    """Save only named values, except those named ``names``."""
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names: str) -> Callable:
    """JAX 0.10's version saves everything (the names are ignored); so does minijax's."""
    return lambda *_, **__: True


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src, offload_dst):
    """Save the values named ``names_which_can_be_saved``, offload (from memory
    ``offload_src`` to ``offload_dst``) those named ``names_which_can_be_offloaded``,
    recompute everything else."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} "
            f"and the intersection={both}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """``dots_with_no_batch_dims_saveable``, offloading instead of saving."""
    def policy(prim, *_, **params):
        if prim is dot_general_p:
            (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
            if not lhs_batch and not rhs_batch:
                return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
    """Saveable if either policy says so."""
    def policy(prim, *args, **params):
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError("The return value of the policies should be a boolean. Got: "
                             f"{out1} and {out2}. Please write a custom policy function "
                             "directly, rather than using this helper function.")
        return out1 or out2
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims)


# =============================================================================
# checkpoint / remat
# =============================================================================
class _Deprecated:
    pass


_DEPRECATED = _Deprecated()

_STATIC_HINT = (
    "\n\nConsider using the `static_argnums` parameter for `jax.remat` or `jax.checkpoint`. "
    "See the `jax.checkpoint` docstring and its example involving `static_argnums`:\n"
    "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n")


def checkpoint(fun: Callable, *, prevent_cse: bool | Sequence[bool] = True,
               policy: Callable | None = None, static_argnums: int | tuple = (),
               static_argnames: str | Sequence[str] = (), concrete=_DEPRECATED) -> Callable:
    """``fun``, made to save fewer residuals for reverse mode and recompute the rest.

    ``policy(prim, *avals, **params) -> bool`` says which intermediate values
    may be saved (see :data:`checkpoint_policies`); by default none are, and
    everything ``fun`` computes is recomputed in the backward pass from its
    inputs. Values are unchanged: only what ``grad`` stores and recomputes.
    ``static_argnums`` are passed as Python values (e.g. for a Python ``if``).
    ``prevent_cse`` is kept as a parameter (minijax does no CSE).
    """
    if concrete is not _DEPRECATED:
        raise NotImplementedError(
            "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and "
            "removed in JAX v0.10.0. In its place please use `static_argnums`; for details "
            "refer to https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html.")
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(prevent_cse, (list, tuple)):
        prevent_cse = tuple(prevent_cse)
    if not isinstance(prevent_cse, (tuple, bool)):
        raise TypeError("prevent_cse must be a bool or tuple of bools, got "
                        f"type(prevent_cse)={type(prevent_cse)}")
    static_names = (static_argnames,) if isinstance(static_argnames, str) else \
        tuple(static_argnames)

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        static = _static_positions(static_argnums, len(args))
        dbg = debug_info("checkpoint / remat", fun,
                         args, {k: v for k, v in kwargs.items() if k not in static_names},
                         static_argnums=static)
        dyn_args = tuple(x for i, x in enumerate(args) if i not in static)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
        flat_args, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        out_trees = []

        def flat_fun(*leaves):
            dyn, kw = tree_unflatten(in_tree, leaves)
            dyn = iter(dyn)
            full = [x if i in static else next(dyn) for i, x in enumerate(args)]
            out, out_tree = tree_flatten(fun(*full, **kw, **{k: v for k, v in kwargs.items()
                                                              if k in static_names}))
            out_trees.append(out_tree)
            return out

        try:
            jaxpr, _, consts = trace_to_jaxpr_dynamic(
                flat_fun, [get_aval(x) for x in flat_args], dbg)
        except ConcretizationTypeError as e:
            msg, = e.args
            if "for checkpoint" in msg:
                e.args = (msg + _STATIC_HINT,)
            raise
        jaxpr, consts = _consts_to_invars(jaxpr, consts)
        cse = prevent_cse
        if isinstance(prevent_cse, tuple):
            cse_args = (dyn_args, dyn_kwargs) if dyn_kwargs else dyn_args
            cse = (False,) * len(consts) + tuple(broadcast_prefix(prevent_cse, cse_args))
        outs = remat_p.bind(*consts, *flat_args, jaxpr=jaxpr, prevent_cse=cse,
                            differentiated=False, policy=policy)
        return tree_unflatten(out_trees[0], outs)

    return fun_remat


def remat(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
          static_argnums: int | tuple = (), concrete=_DEPRECATED) -> Callable:
    """Alias of :func:`checkpoint`."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy,
                      static_argnums=static_argnums, concrete=concrete)


def _static_positions(static_argnums, nargs: int) -> frozenset:
    """The static positions, with JAX's checks (and messages) of ``static_argnums``."""
    for d in static_argnums if isinstance(static_argnums, tuple) else ():
        if type(d) is int and d < -nargs:
            raise ValueError("Positional argument indices, e.g. for `static_argnums`, must "
                             "have value greater than or equal to -len(args) and less than "
                             f"len(args), but got value {d} for len(args) == {nargs}.")
    if not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
        raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must "
                        f"be an int, tuple of ints or, bool, but got value {static_argnums}")
    if not all(-nargs <= d < nargs for d in static_argnums):
        raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can "
                         "only take integer values greater than or equal to `-len(args)` and "
                         f"less than `len(args)`, but got {static_argnums}, while `len(args)` "
                         f"= {nargs}")
    return frozenset(d % nargs for d in static_argnums)


def _consts_to_invars(jaxpr: Jaxpr, consts: list) -> tuple[Jaxpr, list]:
    """The jaxpr with its constvars as leading inputs (the primitive gets ``consts`` first)."""
    return jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars]), list(consts)


_closed_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _closed(jaxpr: Jaxpr) -> ClosedJaxpr:
    """``ClosedJaxpr(jaxpr, [])``, one per jaxpr (so the caches keyed on it work)."""
    closed = _closed_jaxprs.get(jaxpr)
    if closed is None:
        closed = _closed_jaxprs[jaxpr] = ClosedJaxpr(jaxpr, [])
    return closed


def _cse(prevent_cse, keep=None, front=(), back=()):
    """``prevent_cse`` of a derived equation: a bool stays; a tuple follows the operands."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    kept = prevent_cse if keep is None else [p for p, k in zip(prevent_cse, keep) if k]
    return (*front, *kept, *back)


# =============================================================================
# The primitive: evaluation, types, jvp, vmap, dce
# =============================================================================
#: ``outs = remat2[jaxpr={...} prevent_cse differentiated policy] *args``
remat_p = Primitive("remat2", multiple_results=True, kind="call")


def _remat_impl(*args, jaxpr, **_):
    return [to_numpy(o) for o in eval_jaxpr(jaxpr, [], *args)]


def _remat_abstract_eval(*avals, jaxpr, **_):
    return [v.aval for v in jaxpr.outvars]


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    """Differentiate *inside* the checkpoint: a ``remat2`` of the jvp jaxpr."""
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nonzeros = jvp_jaxpr(_closed(jaxpr), nonzeros)
    jvp_open, consts = _consts_to_invars(jvp_closed.jaxpr, jvp_closed.consts)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    outs = remat_p.bind(*consts, *primals, *nz_tangents, jaxpr=jvp_open,
                        prevent_cse=_cse(prevent_cse, front=(False,) * len(consts),
                                         back=(True,) * len(nz_tangents)),
                        differentiated=differentiated, policy=policy)
    n = len(jaxpr.outvars)
    tangents_out = iter(outs[n:])
    return outs[:n], [next(tangents_out) if nz else Zero(tangent_aval(v.aval))
                      for v, nz in zip(jaxpr.outvars, out_nonzeros)]


def _remat_batching(args, dims, *, jaxpr, prevent_cse, **params):
    """Batch the inner jaxpr; batched outputs come out at axis 0, unbatched ones stay so."""
    size = batch_size(args, dims)
    in_avals = [a if d is not_mapped else
                a.update(shape=(*a.shape[:d], size, *a.shape[d:]))
                for a, d in zip(jaxpr.in_avals, dims)]
    run = functools.partial(eval_jaxpr, jaxpr, [])
    out_batched: list = []

    def batched(*xs):
        outs, out_batched[:] = vmap_flat(run, size, dims, xs, instantiate=False)
        return outs

    new_jaxpr, _, consts = trace_to_jaxpr_dynamic(batched, in_avals)
    new_jaxpr, consts = _consts_to_invars(new_jaxpr, consts)
    outs = remat_p.bind(*consts, *args, jaxpr=new_jaxpr,
                        prevent_cse=_cse(prevent_cse, front=(False,) * len(consts)), **params)
    return outs, [0 if b else not_mapped for b in out_batched]


def _remat_dce(used_outputs, eqn: JaxprEqn):
    """Drop unused outputs, what computed them inside, and unused inputs."""
    if not any(used_outputs) and not eqn.effects:  # (effects are kept)
        return [False] * len(eqn.invars), None
    inner, used_inputs = dce_jaxpr(eqn.params["jaxpr"], list(used_outputs))
    params = dict(eqn.params, jaxpr=inner,
                  prevent_cse=_cse(eqn.params["prevent_cse"], keep=used_inputs))
    return used_inputs, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u], params=params)


# =============================================================================
# Partial evaluation: what is saved, what is recomputed
# =============================================================================
def split_by_policy(jaxpr: Jaxpr, unknowns: Sequence[bool], policy: Callable):
    """Split ``jaxpr`` into a known part (run now) and a staged part (run later).

    ``unknowns[i]`` says whether input ``i`` is unknown. Every equation with
    an unknown input is staged. An equation whose inputs are all known goes
    to the known jaxpr, and, unless ``policy`` says its outputs are saveable,
    *also* to the staged jaxpr, which recomputes it. A known value that the
    staged jaxpr reads and cannot recompute (a saveable equation's output) is
    a *residual*. All inputs, known or not, are available to the staged part.

    Returns ``(jaxpr_known, jaxpr_staged, out_unknowns, num_res)``: the
    known jaxpr maps the known inputs to the known outputs and the
    residuals; the staged jaxpr maps the residuals and all the inputs to the
    unknown outputs. (JAX's ``partial_eval_jaxpr_custom``.)
    """
    unknown = {v for v, uk in zip(jaxpr.invars, unknowns) if uk}
    available = set(jaxpr.invars)   # values the staged jaxpr has or recomputes
    residuals: list[Var] = []
    known_eqns, staged_eqns = [], []

    def stage(eqn):
        for v in eqn.invars:
            if isinstance(v, Var) and v not in available and v not in residuals:
                residuals.append(v)
        staged_eqns.append(eqn)
        available.update(eqn.outvars)

    for eqn in jaxpr.eqns:
        if any(isinstance(v, Var) and v in unknown for v in eqn.invars):
            stage(eqn)
            unknown.update(eqn.outvars)
            continue
        known_eqns.append(eqn)
        if not is_saveable(policy(eqn.primitive, *(v.aval for v in eqn.invars),
                                  **eqn.params)):
            stage(eqn)  # not saveable: recompute it
    out_unknowns = [isinstance(v, Var) and v in unknown for v in jaxpr.outvars]
    jaxpr_known = Jaxpr([], [v for v, uk in zip(jaxpr.invars, unknowns) if not uk],
                        [v for v, uk in zip(jaxpr.outvars, out_unknowns) if not uk] + residuals,
                        known_eqns)
    jaxpr_staged = Jaxpr([], residuals + list(jaxpr.invars),
                         [v for v, uk in zip(jaxpr.outvars, out_unknowns) if uk], staged_eqns)
    return jaxpr_known, jaxpr_staged, out_unknowns, len(residuals)


def _insert_reduce_precision(jaxpr: Jaxpr, num_res: int) -> Jaxpr:
    """Round each saved residual that the forward pass also reads, as JAX does.

    (On XLA a value may be kept in higher precision inside a fusion; the
    explicit ``reduce_precision`` makes the forward pass and the saved copy
    agree. It changes nothing numerically in minijax, but keeps the jaxprs
    identical to JAX's.)
    """
    read = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    eqns = list(jaxpr.eqns)
    for v in jaxpr.outvars[len(jaxpr.outvars) - num_res:]:
        if not (isinstance(v, Var) and v in read and dtypes.issubdtype(v.aval.dtype, np.inexact)):
            continue
        i = next(i for i, e in enumerate(eqns) if v in e.outvars)
        info = dtypes.finfo(v.aval.dtype)
        params = dict(exponent_bits=info.nexp, mantissa_bits=info.nmant)
        if eqns[i].primitive is reduce_precision_p and eqns[i].params == params:
            continue
        unrounded = Var(v.aval)
        eqns[i] = eqns[i].replace(outvars=[unrounded if o is v else o for o in eqns[i].outvars])
        eqns.insert(i + 1, JaxprEqn([unrounded], [v], reduce_precision_p, params))
    return jaxpr.replace(eqns=eqns)


def _remat_partial_eval(trace, *args, jaxpr, prevent_cse, differentiated, policy):
    """Run the known part now; stage a ``remat2`` that recomputes what was not saved."""
    unknowns = [trace.is_unknown(x) for x in args]
    known, staged, out_unknowns, num_res = split_by_policy(
        jaxpr, unknowns, policy or nothing_saveable)
    staged, used = dce_jaxpr(staged, True)
    used_res, used_args = used[:num_res], used[num_res:]
    num_known_outs = len(out_unknowns) - sum(out_unknowns)
    known, used_known = dce_jaxpr(known, [True] * num_known_outs + used_res)
    known = _insert_reduce_precision(known, sum(used_res))
    known_args = [x for x, uk in zip(args, unknowns) if not uk]
    with set_current_trace(trace.parent):
        outs = eval_jaxpr(known, [], *[x for x, u in zip(known_args, used_known) if u])
    known_outs, residuals = outs[:num_known_outs], outs[num_known_outs:]
    unknown_outs = []
    if any(out_unknowns):
        params = dict(jaxpr=staged, differentiated=True, policy=policy,
                      prevent_cse=_cse(prevent_cse, keep=used_args,
                                       front=(True,) * len(residuals)))
        staged_args = [*residuals, *[x for x, u in zip(args, used_args) if u]]
        unknown_outs = trace.default_process_primitive(remat_p, staged_args, params)
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if uk else next(known_it) for uk in out_unknowns]


# =============================================================================
# Transposition: recompute inside the backward pass
# =============================================================================
def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    """The transpose of the inner jaxpr (with its recomputation), as one more ``remat2``."""
    undefined = tuple(map(is_undefined_primal, args))
    ct_nonzero = tuple(type(ct) is not Zero for ct in cts)
    transposed, out_nonzero = transpose_jaxpr(_closed(jaxpr), undefined, ct_nonzero)
    t_jaxpr, consts = _consts_to_invars(transposed.jaxpr, transposed.consts)
    nz_cts = [ct for ct in cts if type(ct) is not Zero]
    outs = remat_p.bind(*consts, *[x for x, u in zip(args, undefined) if not u], *nz_cts,
                        jaxpr=t_jaxpr, differentiated=differentiated, policy=policy,
                        prevent_cse=_cse(prevent_cse, keep=[not u for u in undefined],
                                         front=(False,) * len(consts),
                                         back=(True,) * len(nz_cts)))
    outs, nonzero = iter(outs), iter(out_nonzero)
    return [(next(outs) if next(nonzero) else Zero(x.aval)) if u else None
            for x, u in zip(args, undefined)]


impl_rules[remat_p] = _remat_impl
abstract_eval_rules[remat_p] = _remat_abstract_eval
jvp_rules[remat_p] = _remat_jvp
batching_rules[remat_p] = _remat_batching
custom_partial_eval_rules[remat_p] = _remat_partial_eval
transpose_rules[remat_p] = _remat_transpose
dce_rules[remat_p] = _remat_dce

# --- name: the identity, seen by name-based policies --------------------------------------
impl_rules[name_p] = lambda x, *, name: x
abstract_eval_rules[name_p] = lambda x, *, name: x
jvp_rules[name_p] = lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                         tangents[0])
batching_rules[name_p] = lambda args, dims, *, name: (name_p.bind(args[0], name=name), dims[0])
transpose_rules[name_p] = lambda ct, x, *, name: [ct]
