"""Chapter 02 — forward-mode automatic differentiation: ``jvp`` and ``jacfwd``.

Forward mode carries, next to every value ``x`` (the *primal*), the value of
its directional derivative ``dx`` (the *tangent*). A primitive ``y = f(x)``
becomes ``(y, dy) = (f(x), f'(x) dx)``: its *JVP rule*
(Jacobian-vector product) says how to push a tangent through it.

This module is the machinery; the rules, one per primitive, are in
:mod:`minijax.interpreters.jvp_rules`:

- :class:`JVPTracer` is a (primal, tangent) pair that behaves like an array.
- :class:`JVPTrace` interprets each primitive applied to such pairs: it looks
  the primitive up in :data:`jvp_rules` and runs the rule under its *parent*
  trace, so the rule's own operations are seen by whatever transformation is
  outside (that is how ``jvp(jvp(f))`` gives second derivatives).
- :class:`Zero` is a *symbolic* zero tangent: it knows its shape and dtype
  but holds no numbers. Inputs we do not differentiate, constants and
  integer values all have Zero tangents, and rules skip them: a primitive
  whose tangents are all Zero is simply evaluated, with no rule at all.
- Integers and booleans are not differentiable; their tangents have the
  special dtype :data:`float0` (a NumPy structured dtype with no bytes, as in
  JAX), and are always Zero inside the trace.

Each call of :func:`jvp` makes a fresh trace, and a trace treats as its own
only the tracers it created. Two nested ``jvp`` calls therefore never mix up
their tangents — the bug called *perturbation confusion*.
"""
from __future__ import annotations

import functools
import operator
from typing import Callable

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.abstract_arrays import ShapedArray
from minijax.api_util import tree_flatten, tree_unflatten
from minijax.core import Trace, Tracer, find_cur_trace, get_aval, set_current_trace
from minijax.primitives import (Primitive, RuleTable, abstract_eval_rules, impl_rules,
                                register_rule_table)

__all__ = ["float0", "Zero", "JVPTrace", "JVPTracer", "jvp_rules", "jvp", "jacfwd",
           "instantiate_zeros", "zeros_like_aval", "add_tangents", "maybe_broadcast",
           "defjvp", "defjvp2", "deflinear", "defbilinear", "defjvp_zero",
           "primal_dtype_to_tangent_dtype", "set_push_basis"]

#: The tangent dtype of integers and booleans (defined with the other dtypes).
float0 = dtypes.float0


# --- tangent types ---------------------------------------------------------------
def primal_dtype_to_tangent_dtype(dtype) -> np.dtype:
    """Floats and complex numbers are their own tangent dtype; everything else has float0."""
    dtype = np.dtype(dtype)
    return dtype if dtypes.issubdtype(dtype, np.inexact) else float0


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The abstract value of a tangent of a value of type ``aval``."""
    return ShapedArray(aval.shape, primal_dtype_to_tangent_dtype(aval.dtype), aval.weak_type)


def _typeof(x) -> ShapedArray:
    """``get_aval`` with JAX's message for something that is not an array."""
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


class Zero:
    """A symbolic zero tangent: an abstract value and no numbers.

    Rules test ``type(t) is Zero`` to skip work: ``0 * anything`` is never
    computed, and a linear rule maps Zero to Zero.
    """
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    @staticmethod
    def from_primal_value(x) -> "Zero":
        """The zero tangent of the value ``x``."""
        return Zero(tangent_aval(_typeof(x)))

    def __repr__(self):
        return f"Zero({self.aval})"


def _is_float0(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype == float0


def zeros_like_aval(aval: ShapedArray):
    """A concrete zero tangent of type ``aval``: a NumPy float0 array, or an Array of zeros."""
    if aval.dtype == float0:
        return np.zeros(aval.shape, float0)
    zero = lax._convert_element_type(0, aval.dtype, aval.weak_type)
    return lax.broadcast(zero, aval.shape)


def instantiate_zeros(tangent):
    """Turn a symbolic Zero into real zeros (rules that need an array call this)."""
    return zeros_like_aval(tangent.aval) if type(tangent) is Zero else tangent


# --- add_any: the sum of two tangents (or, in chapter 07, of two cotangents) ----------
add_any_p = Primitive("add_any", kind="elementwise", linear_in=(0, 1))
"""``add_any(x, y)``: ``x + y`` for two values of one type (no broadcasting, no promotion).

Tangent terms are summed with it, not with ``add``, so a jaxpr shows which
additions come from differentiation (JAX's name; it prints as ``add_any``).
"""


def _add_any_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.shape != y.shape:
        raise TypeError(f"add_any requires operands of equal shapes, got {x.str_short()} "
                        f"and {y.str_short()}")
    return x


abstract_eval_rules[add_any_p] = _add_any_abstract_eval
impl_rules[add_any_p] = lambda x, y: np.add(x, y, dtype=x.dtype)


def add_tangents(x, y):
    """``x + y`` where either may be a symbolic Zero."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


# --- the tracer and the trace -------------------------------------------------------
class JVPTracer(Tracer):
    """A value being differentiated: its primal and its (never Zero) tangent."""
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: "JVPTrace", primal, tangent):
        super().__init__(trace)
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.primal)

    def to_concrete_value(self):
        """The primal, when it is concrete: ``if x > 0:`` works under ``jvp`` as in JAX."""
        primal = self.primal
        return primal.to_concrete_value() if isinstance(primal, Tracer) else primal

    def _short_repr(self) -> str:
        show = lambda x: x._short_repr() if isinstance(x, Tracer) else str(x)
        return f"JVPTracer(primal={show(self.primal)}, tangent={show(self.tangent)})"

    __repr__ = _short_repr


def maybe_jvp_tracer(trace: "JVPTrace", primal, tangent):
    """A tracer for (primal, tangent), or the bare primal when the tangent is zero."""
    if type(tangent) is Zero or _is_float0(tangent):
        return primal
    return trace.tracer_class(trace, primal, tangent)


class JVPTrace(Trace):
    """Interpret primitives on (primal, tangent) pairs with the rules of :data:`jvp_rules`.

    Anything that is not one of *this* trace's tracers — a constant, an
    argument of an outer ``jvp`` — is a primal with a Zero tangent.
    """
    #: The class of this trace's tracers (chapter 07's linearize prints its own).
    tracer_class = JVPTracer

    def __init__(self, parent: Trace):
        self.parent = parent

    def to_primal_tangent_pair(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_primal_value(x)

    def process_primitive(self, primitive: Primitive, args, params):
        pairs = [self.to_primal_tangent_pair(x) for x in args]
        primals = [p for p, _ in pairs]
        tangents = [t for _, t in pairs]
        if all(type(t) is Zero for t in tangents):  # nothing to differentiate
            with set_current_trace(self.parent):
                return primitive.bind(*primals, **params)
        rule = jvp_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive}' not implemented")
        with set_current_trace(self.parent):
            primal_out, tangent_out = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [maybe_jvp_tracer(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return maybe_jvp_tracer(self, primal_out, tangent_out)


# --- the rule table and the helpers that fill it ---------------------------------------
#: primitive -> rule(primals, tangents, **params) -> (primal_out, tangent_out).
#: A tangent is an array of the primal's shape and tangent dtype, or a Zero.
#: The rule runs under the parent trace, on the primals and tangents.
jvp_rules: dict[Primitive, Callable] = register_rule_table("jvp", RuleTable())


def _add_any_jvp(primals, tangents):
    return add_any_p.bind(*primals), add_tangents(*tangents)


jvp_rules[add_any_p] = _add_any_jvp


def maybe_broadcast(x, shape):
    """``x`` broadcast to ``shape`` (rank-0 or size-1 dimensions grow), or ``x`` itself."""
    x_shape = get_aval(x).shape
    if x_shape == tuple(shape):
        return x
    if not x_shape:
        return lax.broadcast_in_dim(x, shape, ())
    dims = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
    squeezed = lax.reshape(x, [x_shape[i] for i in dims])
    return lax.broadcast_in_dim(squeezed, shape, dims)


def _zero_tangents_of(out, multiple_results: bool):
    if multiple_results:
        return [Zero.from_primal_value(o) for o in out]
    return Zero.from_primal_value(out)


def _sum_of_terms(rules, pass_ans: bool, primitive, primals, tangents, **params):
    """The rule built by :func:`defjvp`: one term per nonzero tangent, added up."""
    ans = primitive.bind(*primals, **params)
    out_shape = get_aval(ans).shape
    total = Zero.from_primal_value(ans)
    for rule, t in zip(rules, tangents):
        if rule is None or type(t) is Zero:
            continue
        term = rule(t, ans, *primals, **params) if pass_ans else rule(t, *primals, **params)
        if type(term) is not Zero:
            total = add_tangents(total, maybe_broadcast(term, out_shape))
    return ans, total


def defjvp(primitive: Primitive, *rules):
    """Define the JVP of ``primitive`` by one partial derivative per argument.

    ``rules[i](t, *primals, **params)`` is the contribution of tangent ``t``
    of argument ``i`` (``None``: that argument is not differentiable, like an
    index). Only the rules of nonzero tangents run; the results are added.
    """
    jvp_rules[primitive] = functools.partial(_sum_of_terms, rules, False, primitive)


def defjvp2(primitive: Primitive, *rules):
    """Like :func:`defjvp`, but each rule also receives the output: ``rule(t, ans, *primals)``.

    (``exp``'s derivative is its own value: ``lambda t, ans, x: t * ans``.)
    """
    jvp_rules[primitive] = functools.partial(_sum_of_terms, rules, True, primitive)


def deflinear(primitive: Primitive, argnums=None):
    """``primitive`` is linear in the arguments at ``argnums``: by default, the
    positions it declares linear (:attr:`~minijax.primitives.Primitive.linear_in`).

    Its JVP applies the primitive itself to the tangents of those arguments
    (Zero tangents become real zeros) and to the *primals* of the others
    (integer indices, say). All-Zero tangents give Zero outputs.
    :mod:`~minijax.interpreters.jvp_rules` gives this rule to every primitive
    created with ``linear_in`` that has no rule of its own.
    """
    if argnums is None and primitive.linear_in is None:
        raise ValueError(f"deflinear({primitive}): {primitive} is not declared linear; "
                         "create it with linear_in=(positions...) or pass argnums")

    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        linear = primitive.linear_argnums(len(primals)) if argnums is None else argnums
        if all(type(tangents[i]) is Zero for i in linear):
            return ans, _zero_tangents_of(ans, primitive.multiple_results)
        args = [instantiate_zeros(t) if i in linear else p
                for i, (p, t) in enumerate(zip(primals, tangents))]
        return ans, primitive.bind(*args, **params)
    jvp_rules[primitive] = rule


def defbilinear(primitive: Primitive):
    """``primitive(x, y)`` is linear in each argument: ``d(xy) = dx y + x dy``.

    (``mul`` and ``dot_general``, created with ``bilinear=True``.)
    """
    defjvp(primitive,
           lambda t, x, y, **params: primitive.bind(t, y, **params),
           lambda t, x, y, **params: primitive.bind(x, t, **params))


def defjvp_zero(primitive: Primitive):
    """``primitive`` is piecewise constant (``floor``, ``eq``...) or integer-valued."""
    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        return ans, _zero_tangents_of(ans, primitive.multiple_results)
    jvp_rules[primitive] = rule


# --- jvp ------------------------------------------------------------------------------------
def _check_callable(fun):
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")


def _treedef_str(treedef) -> str:
    text = str(treedef)  # the bootstrap trees of api_util print without the prefix
    return text if text.startswith("PyTreeDef") else f"PyTreeDef({text})"


def _tangent_dtype_of(t) -> np.dtype:
    return float0 if _is_float0(t) else dtypes.dtype(t, canonicalize=True)


def _check_primal_tangent(p, t):
    """JAX's checks that a tangent fits its primal: dtype first, then shape."""
    p_aval = _typeof(p)
    expected, got = primal_dtype_to_tangent_dtype(p_aval.dtype), _tangent_dtype_of(t)
    if expected != got:
        raise TypeError("primal and tangent arguments to jax.jvp do not match; "
                        "dtypes must be equal, or in case of int/bool primal dtype "
                        "the tangent dtype must be float0."
                        f"Got primal dtype {p_aval.dtype} and so expected tangent dtype "
                        f"{expected}, but got tangent dtype {got} instead.")
    t_shape = np.shape(t) if _is_float0(t) else get_aval(t).shape
    if p_aval.shape != t_shape:
        raise ValueError("jvp called with different primal and tangent shapes;"
                         f"Got primal shape {p_aval.shape} and tangent shape as {t_shape}")


def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Compute ``(fun(*primals), J_fun(primals) @ tangents)`` in one forward pass.

    ``primals`` and ``tangents`` are tuples (or lists) with the same pytree
    structure and shapes; the tangent of an integer or boolean primal must be
    a float0 array. Returns ``(primals_out, tangents_out)``, two pytrees of
    ``fun``'s output structure, or ``(primals_out, tangents_out, aux)`` with
    ``has_aux`` (``fun`` then returns ``(output, aux)``).

    >>> y, t = jvp(jnp.sin, (0.1,), (0.2,))  # doctest: +SKIP
    >>> print(y, t)  # doctest: +SKIP
    0.09983342 0.19900084
    """
    _check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; "
                        f"found {type(primals).__name__} and {type(tangents).__name__}.")
    return _jvp(fun, primals, tangents, has_aux)


def _jvp(fun, primals, tangents, has_aux):
    p_leaves, p_tree = tree_flatten(primals)
    t_leaves, t_tree = tree_flatten(tangents)
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {_treedef_str(p_tree)} "
                        f"whereas tangents have tree structure {_treedef_str(t_tree)}.")
    for p, t in zip(p_leaves, t_leaves):
        _check_primal_tangent(p, t)
    trace = JVPTrace(find_cur_trace())
    in_tracers = [maybe_jvp_tracer(trace, p, t) for p, t in zip(p_leaves, t_leaves)]
    with set_current_trace(trace):
        ans = fun(*tree_unflatten(p_tree, in_tracers))
    if has_aux:
        ans, aux = ans
        aux_leaves, aux_tree = tree_flatten(aux)
        aux = tree_unflatten(aux_tree, [_strip_tracer(trace, x) for x in aux_leaves])
    out_leaves, out_tree = tree_flatten(ans)
    pairs = [trace.to_primal_tangent_pair(x) for x in out_leaves]
    out_primals = tree_unflatten(out_tree, [p for p, _ in pairs])
    out_tangents = tree_unflatten(out_tree, [instantiate_zeros(t) for _, t in pairs])
    return (out_primals, out_tangents, aux) if has_aux else (out_primals, out_tangents)


def _strip_tracer(trace: JVPTrace, x):
    """Auxiliary outputs are not differentiated: keep only the primal of our tracers."""
    return x.primal if isinstance(x, JVPTracer) and x._trace is trace else x


# --- jacfwd ----------------------------------------------------------------------------------
def _ensure_index(x):
    """An int, or a tuple of ints (``argnums`` may be any sequence of them)."""
    try:
        return operator.index(x)
    except TypeError:
        return tuple(map(operator.index, x))


def _check_argnum(i: int, nargs: int) -> int:
    if not -nargs <= i < nargs:
        raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have "
                         "value greater than or equal to -len(args) and less than len(args), "
                         f"but got value {i} for len(args) == {nargs}.")
    return i % nargs


def _argnums_partial(fun, argnums, args, kwargs):
    """``(f, dyn_args)``: ``f(*dyn_args)`` calls ``fun`` with the other arguments fixed."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    nums = tuple(_check_argnum(i, len(args)) for i in nums)

    def f(*dyn_args):
        full = list(args)
        for i, x in zip(nums, dyn_args):
            full[i] = x
        return fun(*full, **kwargs)
    return f, tuple(args[i] for i in nums)


def _check_input_dtype_jacfwd(holomorphic: bool, x) -> None:
    dtype = _typeof(x).dtype
    if holomorphic:
        if not np.issubdtype(dtype, np.complexfloating):
            raise TypeError("jacfwd with holomorphic=True requires inputs with complex "
                            f"dtype, but got {dtype.name}.")
    elif not dtypes.issubdtype(dtype, np.floating):
        raise TypeError("jacfwd requires real-valued inputs (input dtype that is "
                        f"a sub-dtype of np.floating), but got {dtype.name}. "
                        "For holomorphic differentiation, pass holomorphic=True. "
                        "For differentiation of non-holomorphic functions involving "
                        "complex inputs or integer inputs, use jax.jvp directly.")


def _check_output_dtype_jacfwd(holomorphic: bool, y) -> None:
    dtype = _typeof(y).dtype
    if holomorphic and not np.issubdtype(dtype, np.complexfloating):
        raise TypeError("jacfwd with holomorphic=True requires outputs with complex dtype, "
                        f"but got {dtype.name}.")


def std_basis(pytree):
    """The standard basis of ``pytree``'s space, as a pytree of stacked arrays.

    With ``n`` numbers in all, leaf ``i`` gets an array of shape
    ``(n,) + shape_i``: row ``k`` is the part of the ``k``-th unit vector that
    falls into that leaf, in the leaf's own dtype. Built as JAX builds it (and
    traced, so a jaxpr shows it): ``jnp.eye(n)``, split by leaf along its
    columns, each piece reshaped and cast.
    """
    leaves = tree_flatten(pytree)[0]
    n = sum(int(np.size(x)) for x in leaves)
    eye = jnp.eye(n, dtype=dtypes.result_type(*leaves)) if leaves else jnp.eye(0)
    return unravel_array_into_pytree(pytree, 1, None, eye, basis=True)


def unravel_array_into_pytree(pytree, axis: int, example, arr, *, basis: bool = False):
    """Split ``arr`` along ``axis`` into pieces shaped like ``pytree``'s leaves.

    The piece of leaf ``l`` has shape ``arr.shape[:axis] + l.shape +
    arr.shape[axis+1:]`` and the dtype of ``example`` (of ``l`` itself when
    ``example`` is None). One ``split`` (JAX's, even for one piece, with
    NumPy integer sizes), then a ``reshape`` where the shape changes and a
    cast; a basis (``basis=True``) is always cast, as JAX's is.
    """
    leaves, tree = tree_flatten(pytree)
    shape = tuple(get_aval(arr).shape)
    axis = axis % len(shape)
    pieces = lax.split(arr, [np.int64(np.size(x)) for x in leaves], axis)
    parts = []
    for piece, leaf in zip(pieces, leaves):
        target = shape[:axis] + tuple(np.shape(leaf)) + shape[axis + 1:]
        if tuple(get_aval(piece).shape) != target:
            piece = lax.reshape(piece, target)
        parts.append(_cast_like(piece, leaf if example is None else example, force=basis))
    return tree_unflatten(tree, parts)


def _push_basis_loop(pushfwd: Callable, basis: list):
    """One ``jvp`` per basis vector, stacked along a new last axis.

    ``pushfwd(tangent_leaves) -> (y_leaves, t_leaves, aux)``. Chapter 04
    replaces this loop by a single ``vmap`` (see :func:`set_push_basis`).
    """
    n = basis[0].shape[0] if basis else 0
    if n == 0:
        y, t, aux = pushfwd([np.zeros(b.shape[1:], b.dtype) for b in basis])
        return y, [np.zeros(np.shape(ti) + (0,), _typeof(ti).dtype) for ti in t], aux
    columns = [pushfwd([b[k] for b in basis]) for k in range(n)]
    y, _, aux = columns[0]
    jac = [jnp.stack([col[1][i] for col in columns], axis=-1) for i in range(len(y))]
    return y, jac, aux


_push_basis: list[Callable] = [_push_basis_loop]


def set_push_basis(fn: Callable) -> None:
    """Install a faster ``fn(pushfwd, basis) -> (y, jac, aux)`` for :func:`jacfwd` (chapter 04)."""
    _push_basis[0] = fn


def _cast_like(x, example, force: bool = False):
    """``x`` in ``example``'s dtype and weak type (a real part when ``example`` is real);
    ``force``: a conversion equation even where nothing changes (JAX's basis)."""
    ex = _typeof(example)
    if np.issubdtype(get_aval(x).dtype, np.complexfloating) and \
            not np.issubdtype(ex.dtype, np.complexfloating):
        x = lax.real(x)
    if force and isinstance(x, Tracer):
        return lax.convert_element_type_p.bind(x, new_dtype=np.dtype(ex.dtype),
                                               weak_type=bool(ex.weak_type), sharding=None)
    return lax._convert_element_type(x, ex.dtype, ex.weak_type)


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Jacobian of ``fun`` computed column by column with forward-mode AD.

    ``jacfwd(f)(x)`` has shape ``f(x).shape + x.shape``. With pytrees, the
    result has ``fun``'s output structure, and each output leaf is replaced by
    a pytree of the inputs' structure (a tuple over ``argnums`` when it is a
    sequence). One :func:`jvp` is run per input number (per basis vector).
    """
    _check_callable(fun)
    argnums = _ensure_index(argnums)

    def jacfun(*args, **kwargs):
        f, dyn_args = _argnums_partial(fun, argnums, args, kwargs)
        in_leaves, in_tree = tree_flatten(dyn_args)
        for x in in_leaves:
            _check_input_dtype_jacfwd(holomorphic, x)

        out_tree = []

        def pushfwd(tangent_leaves):
            out = _jvp(f, dyn_args, tree_unflatten(in_tree, tangent_leaves), has_aux)
            y_leaves, y_tree = tree_flatten(out[0])
            t_leaves, _ = tree_flatten(out[1])
            t_leaves = [np.zeros(np.shape(t), _typeof(yi).dtype) if _is_float0(t) else t
                        for yi, t in zip(y_leaves, t_leaves)]  # integer outputs
            out_tree[:] = [y_tree]
            return y_leaves, t_leaves, out[2] if has_aux else None

        y, jac, aux = _push_basis[0](pushfwd, std_basis(in_leaves))
        for yi in y:
            _check_output_dtype_jacfwd(holomorphic, yi)
        example = dyn_args[0] if isinstance(argnums, int) else dyn_args
        jac_tree = tree_unflatten(out_tree[0],
                                  [unravel_array_into_pytree(example, -1, yi, ji)
                                   for yi, ji in zip(y, jac)])
        return (jac_tree, aux) if has_aux else jac_tree

    functools.update_wrapper(jacfun, fun)
    return jacfun


# The rules live in their own module, which fills ``jvp_rules`` when imported.
from minijax.interpreters import jvp_rules as _jvp_rules  # noqa: E402,F401
