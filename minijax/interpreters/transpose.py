"""Chapter 07 — transposition: running a *linear* jaxpr backwards.

:func:`~minijax.interpreters.linearize.linearize` turns ``f`` at a point into
a linear jaxpr ``t -> J t`` (plus the residuals it reads). Reverse mode needs
the other product, ``ct -> J^T ct``: the **transpose** of that jaxpr. Because
the jaxpr is linear, its transpose is mechanical:

1. walk the equations *backwards*, carrying a *cotangent* for every linear
   variable (how much the output moves per unit of that variable);
2. for each equation, ask its primitive's **transpose rule** for the
   cotangents of its linear inputs, given the cotangent of its output;
3. a variable used twice receives two contributions, which are added with
   the primitive ``add_any`` (JAX's name for "add two cotangents").

The linear inputs of the jaxpr have no values, only types: they are
:class:`UndefinedPrimal` s. A transpose rule sees which of its inputs are
undefined — those it must produce a cotangent for — and uses the others (the
residuals, known numbers) as coefficients: the rule of ``mul`` with an
undefined ``x`` and a known ``y`` returns ``ct * y``.

A cotangent that is zero is a symbolic :class:`~minijax.interpreters.ad.Zero`,
as tangents are in chapter 02: equations whose output cotangent is zero are
skipped entirely.

The rules themselves live in :mod:`minijax.interpreters.transpose_rules`;
:func:`linear_transpose` is the user-facing door, and
:mod:`minijax.autodiff` builds ``vjp`` and ``grad`` on :func:`backward_pass`.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax import lax, tree_util
from minijax.abstract_arrays import ShapedArray
from minijax.core import get_aval, set_current_trace
from minijax.interpreters import ad
from minijax.interpreters.ad import Zero, add_any_p, add_tangents, instantiate_zeros
from minijax.interpreters.linearize import JaxprTrace, PartialVal, dce_jaxpr
from minijax.interpreters.partial_eval import ShapeDtypeStruct
from minijax.jaxpr import Literal, Var
from minijax.primitives import Primitive, RuleTable, register_rule_table

__all__ = ["UndefinedPrimal", "is_undefined_primal", "backward_pass", "transpose_rules",
           "add_any_p", "add_jaxvals", "deflinear2", "defbilinear", "linear_transpose",
           "unbroadcast"]


# =============================================================================
# Linear inputs and cotangents
# =============================================================================
class UndefinedPrimal:
    """A linear input of a transpose rule: its type is known, its value is not.

    ``mul(x, y)`` is linear in ``x`` when ``y`` is known; its transpose rule is
    called with ``x`` an ``UndefinedPrimal`` and ``y`` the known array.
    """
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


tree_util.register_pytree_node(UndefinedPrimal, lambda u: ((), u.aval),
                               lambda aval, _: UndefinedPrimal(aval))


# --- add_any: the sum of two cotangents ---------------------------------------------------
# The primitive is chapter 02's (jvp sums tangent terms with it); its batching
# rule is chapter 04's. The backward pass accumulates cotangents with it.
add_cotangents = add_tangents


def add_jaxvals(x, y):
    """``add_any(x, y)`` (JAX's name)."""
    return add_any_p.bind(x, y)


# =============================================================================
# The rule table and the helpers that fill it
# =============================================================================
#: primitive -> rule(ct, *invals, **params) -> one cotangent per input.
#: ``invals`` are known values and :class:`UndefinedPrimal` s; the result has a
#: cotangent (an array or a Zero) for each undefined input and ``None`` for the
#: others. ``ct`` is the output's cotangent, a list for a multiple-results
#: primitive (where some entries may be Zero).
transpose_rules: dict[Primitive, Callable] = register_rule_table("transpose", RuleTable())


def _zeros_for_undefined(args) -> list:
    return [Zero(x.aval) if is_undefined_primal(x) else None for x in args]


def _linear_transpose2(rule, ct, *args, **params):
    if type(ct) is Zero:
        return _zeros_for_undefined(args)
    return rule(ct, *args, **params)


def deflinear2(primitive: Primitive, rule: Callable) -> None:
    """``primitive`` is linear; ``rule(ct, *args, **params)`` returns the input cotangents.

    A zero output cotangent gives zero input cotangents without calling the rule.
    Only a primitive *created* linear (``linear_in``, chapter 00) may have one:
    linearity is stated once, where the primitive is made, and chapter 02's
    linear JVP rule relies on the same statement.
    """
    if primitive.linear_in is None:
        raise TypeError(f"deflinear2({primitive}, ...): {primitive} is not declared linear; "
                        "create it with linear_in=(the positions in which it is linear)")
    transpose_rules[primitive] = functools.partial(_linear_transpose2, rule)


def _bilinear_transpose(lhs_rule, rhs_rule, ct, x, y, **params):
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise TypeError(f"the product of two linear values is not linear: {x} and {y}")
    if type(ct) is Zero:
        return _zeros_for_undefined([x, y])
    if is_undefined_primal(x):
        return [lhs_rule(ct, x, y, **params), None]
    return [None, rhs_rule(ct, x, y, **params)]


def defbilinear(primitive: Primitive, lhs_rule: Callable, rhs_rule: Callable) -> None:
    """``primitive(x, y)`` is linear in ``x`` for a known ``y`` and vice versa (``mul``, ``dot``).

    ``lhs_rule(ct, x, y)`` is the cotangent of an undefined ``x`` (``y`` known),
    ``rhs_rule(ct, x, y)`` that of an undefined ``y``. Both undefined: the
    product of two linear values is quadratic, and cannot be transposed.
    The primitive must be created ``bilinear=True``.
    """
    if not primitive.bilinear:
        raise TypeError(f"defbilinear({primitive}, ...): {primitive} is not declared bilinear; "
                        "create it with bilinear=True")
    transpose_rules[primitive] = functools.partial(_bilinear_transpose, lhs_rule, rhs_rule)


def unbroadcast(aval: ShapedArray, x):
    """``x`` summed back to ``aval``'s shape: the transpose of lax's implicit broadcasting.

    A rank-0 operand of ``add`` was broadcast to the output's shape, a size-1
    dimension was stretched: their cotangents are sums over what they fed.
    """
    x_shape = get_aval(x).shape
    if x_shape == aval.shape:
        return x
    if not aval.shape:
        return lax.reduce_sum(x, tuple(range(len(x_shape))))
    dims = tuple(i for i, (a, b) in enumerate(zip(x_shape, aval.shape)) if a != b)
    x = lax.reduce_sum(x, dims) if dims else x
    return lax.reshape(x, aval.shape)


# =============================================================================
# The backward pass
# =============================================================================
def _ct_aval(v) -> ShapedArray:
    return ad.tangent_aval(v.aval)


def _check_cotangent(aval: ShapedArray, ct) -> None:
    ct_aval = ct.aval if type(ct) is Zero else get_aval(ct)
    if ct_aval.shape != aval.shape:
        raise ValueError(f"Expected cotangent type {aval.str_short()} but got "
                         f"{ct_aval.str_short()}")


def backward_pass(jaxpr, consts: Sequence, primals_in: Sequence,
                  cotangents_out: Sequence) -> list:
    """Transpose the linear ``jaxpr``: map output cotangents to input cotangents.

    ``primals_in`` has a value for each known input and an
    :class:`UndefinedPrimal` for each linear one; ``cotangents_out`` has one
    cotangent (an array or a Zero) per output. Returns one cotangent per input
    (a Zero where nothing flowed back; ``None`` for known inputs).

    Forward sweep: equations that read no linear variable (they compute from
    residuals only) are evaluated now. Backward sweep: the others, in reverse
    order, each through its transpose rule; contributions to one variable are
    summed with ``add_any``. Everything is bound under the current trace, so a
    backward pass can itself be traced, differentiated or batched.
    """
    env: dict[Var, object] = {}   # known values
    linear: set[Var] = set()      # variables that depend on an undefined input
    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, primals_in):
        if is_undefined_primal(x):
            linear.add(v)
        else:
            env[v] = x

    def read(v):
        if isinstance(v, Literal):
            return v.val
        return UndefinedPrimal(v.aval) if v in linear else env[v]

    is_linear = lambda v: isinstance(v, Var) and v in linear
    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(map(is_linear, eqn.invars)):
            linear.update(eqn.outvars)
            linear_eqns.append(eqn)
        else:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))

    cts: dict[Var, object] = {}

    def write_ct(v, ct):
        if ct is None or type(ct) is Zero or not is_linear(v):
            return
        _check_cotangent(_ct_aval(v), ct)
        cts[v] = add_cotangents(cts[v], ct) if v in cts else ct

    for v, ct in zip(jaxpr.outvars, cotangents_out):
        write_ct(v, ct)
    for eqn in reversed(linear_eqns):
        cts_out = [cts.pop(v, None) for v in eqn.outvars]
        if all(ct is None for ct in cts_out):
            continue  # nothing flows back through this equation
        cts_out = [Zero(_ct_aval(v)) if ct is None else ct for v, ct in zip(eqn.outvars, cts_out)]
        rule = transpose_rules.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError("Transpose rule (for reverse-mode differentiation) for "
                                      f"'{eqn.primitive}' not implemented")
        ct = cts_out if eqn.primitive.multiple_results else cts_out[0]
        cts_in = rule(ct, *map(read, eqn.invars), **eqn.params)
        for v, ct_in in zip(eqn.invars, cts_in):
            write_ct(v, ct_in)
    return [cts.pop(v, Zero(_ct_aval(v))) if is_undefined_primal(x) else None
            for v, x in zip(jaxpr.invars, primals_in)]


# =============================================================================
# linear_transpose
# =============================================================================
def _abstractify(x) -> ShapedArray:
    """The aval of an array, or of a ``ShapeDtypeStruct`` standing for one."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return ad._typeof(x)


def _typecheck(aval: ShapedArray, x) -> bool:
    try:
        x_aval = get_aval(x)
    except TypeError:
        return False
    return x_aval.shape == aval.shape and x_aval.dtype == aval.dtype


def linear_transpose(fun: Callable, *primals, reduce_axes=()) -> Callable:
    """The transpose of the linear function ``fun``: ``ct -> J^T ct``.

    ``primals`` (arrays or ``ShapeDtypeStruct`` s, in pytrees) give only the
    shapes and dtypes of ``fun``'s arguments. ``fun`` is traced once with all
    its inputs unknown, so everything it computes from them is staged into a
    linear jaxpr (constants are evaluated); the returned function runs
    :func:`backward_pass` on it and returns a tuple like ``primals``.

    >>> f_t = linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, 1.0, 1.0)  # doctest: +SKIP
    >>> f_t(1.0)  # doctest: +SKIP
    (Array(0.5, dtype=float32, weak_type=True), Array(-0.5, dtype=float32, weak_type=True))
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_tree = tree_util.tree_flatten(primals)
    in_avals = [_abstractify(x) for x in leaves]
    trace = JaxprTrace()
    tracers = [trace.new_arg(PartialVal.unknown(a)) for a in in_avals]
    with set_current_trace(trace):
        out = fun(*tree_util.tree_unflatten(in_tree, tracers))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    jaxpr, consts = trace.to_jaxpr([trace.instantiate_const(x) for x in out_leaves])
    jaxpr, _ = dce_jaxpr(jaxpr, [True] * len(jaxpr.outvars), True)
    out_avals = [v.aval for v in jaxpr.outvars]
    in_dtypes, out_dtypes = [a.dtype for a in in_avals], [a.dtype for a in out_avals]
    all_dtypes = in_dtypes + out_dtypes
    if not (all(dtypes.issubdtype(d, np.inexact) for d in all_dtypes)
            or all(np.issubdtype(d, np.integer) for d in all_dtypes)):
        raise TypeError("linear_transpose only supports [float or complex] -> "
                        "[float or complex], and integer -> integer functions, "
                        f"but got {in_dtypes} -> {out_dtypes}.")

    return tree_util.Partial(functools.partial(
        _transposed, jaxpr, in_tree, out_tree, in_avals, out_avals), list(consts))


def _transposed(jaxpr, in_tree, out_tree, in_avals, out_avals, consts, out_cotangent):
    """The function :func:`linear_transpose` returns, as a
    :class:`~minijax.tree_util.Partial` whose leaves are the jaxpr's constants."""
    out_cts, ct_tree = tree_util.tree_flatten(out_cotangent)
    if ct_tree != out_tree:
        raise TypeError("cotangent tree does not match function output, "
                        f"expected {out_tree} but got {ct_tree}")
    if not all(map(_typecheck, out_avals, out_cts)):
        raise TypeError("cotangent type does not match function output, "
                        f"expected {tuple(out_avals)} but got {out_cts}")
    dummies = [UndefinedPrimal(a) for a in in_avals]
    in_cts = backward_pass(jaxpr, consts, dummies, out_cts)
    return tree_util.tree_unflatten(in_tree, [instantiate_zeros(ct) for ct in in_cts])


# The rules live in their own module, which fills ``transpose_rules`` when imported.
from minijax.interpreters import transpose_rules as _transpose_rules  # noqa: E402,F401
