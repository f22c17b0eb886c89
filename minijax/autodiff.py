"""Chapter 07 — reverse-mode AD: ``vjp``, ``grad``, ``value_and_grad``, ``jacrev``, ``hessian``.

Everything here is one pipeline::

    vjp(f, x) = linearize(f, x)          # jvp + partial evaluation: f(x) and a linear jaxpr
              + backward_pass(...)       # run that jaxpr backwards: ct -> J^T ct

``grad(f)(x)`` is ``vjp(f, x)`` pulled back from the cotangent ``1.0`` (``f``
must return a scalar). ``jacrev`` pulls back every basis vector of the output
at once, with ``vmap``; ``hessian`` is ``jacfwd(jacrev(f))``.

The public functions take and return pytrees and check their inputs as JAX
0.10 does, with its messages.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes, lax, tree_util
from minijax.core import Tracer, get_aval
from minijax.interpreters.ad import (Zero, _argnums_partial, _check_callable,
                                     _ensure_index, _typeof, float0, jacfwd,
                                     primal_dtype_to_tangent_dtype, std_basis,
                                     unravel_array_into_pytree, zeros_like_aval)
from minijax.interpreters.batching import vmap
from minijax.interpreters.linearize import flatten_fun, linearize, linearize_flat
from minijax.interpreters.partial_eval import fun_sourceinfo
from minijax.interpreters.transpose import UndefinedPrimal, backward_pass, linear_transpose

__all__ = ["vjp", "grad", "value_and_grad", "jacrev", "jacobian", "hessian", "linearize",
           "linear_transpose"]


# =============================================================================
# vjp
# =============================================================================
def _check_arg(x) -> None:
    if not isinstance(x, Tracer):
        try:
            get_aval(x)
        except TypeError:
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") \
                from None


_VJP_TOO_MANY_ARGS = """
The function returned by `jax.vjp` applied to {} was called with {} arguments,
but functions returned by `jax.vjp` must be called with a single argument
corresponding to the single value returned by the function being differentiated
(even if that returned value is a tuple or other container).

For example, if we have:

  def f(x):
    return (x, x)
  _, f_vjp = jax.vjp(f, 1.0)

the function `f` returns a single tuple as output, and so we call `f_vjp` with a
single tuple as its argument:

  x_bar, = f_vjp((2.0, 2.0))

If we instead call `f_vjp(2.0, 2.0)`, with the values 'splatted out' as
arguments rather than in a tuple, this error can arise.
"""


def _ct_tree_error(src_info: str, out_tree, ct_tree):
    lines = "\n".join(
        f"  * out{tree_util.keystr(path)} was a {thing1} in the original output, but a "
        f"{thing2} here, so {explanation}."
        for path, thing1, thing2, explanation
        in tree_util.equality_errors_pytreedef(out_tree, ct_tree))
    return ValueError(
        "unexpected tree structure.\n\nThe argument to a VJP function returned by `jax.vjp` "
        "must match the pytree\nstructure of the differentiated function "
        f"{src_info}.\n\nBut the tree structures differ:\n{lines}")


def _ct_dtype(x) -> np.dtype:
    return x.dtype if getattr(x, "dtype", None) == float0 else _typeof(x).dtype


def _dtype_name(dtype) -> str:
    return "float0" if dtype == float0 else np.dtype(dtype).name


def _check_ct(ct, primal_aval) -> None:
    """The cotangent must have the output's shape and tangent dtype (any dtype for float0)."""
    expected = primal_dtype_to_tangent_dtype(primal_aval.dtype)
    shape, dtype = np.shape(ct), _ct_dtype(ct)
    if shape == primal_aval.shape and (dtype == expected or expected == float0):
        return
    show = lambda d, s: f"{_dtype_name(d)}[{','.join(map(str, s))}]"
    raise ValueError(
        "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
        f"got {show(dtype, shape)}, but expected {show(expected, primal_aval.shape)} "
        "because the corresponding output of the differentiated function had JAX type "
        f"{show(primal_aval.dtype, primal_aval.shape)}")


def _zero_cotangent(aval):
    """The cotangent of an input nothing flowed back to: zeros (float0 for integers)."""
    return zeros_like_aval(aval)


def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
    """``(fun(*primals), f_vjp)``: the value and the pull-back ``ct -> ct @ J``.

    ``f_vjp`` takes one cotangent shaped like ``fun``'s output (a pytree) and
    returns a tuple with one cotangent per primal argument. With ``has_aux``,
    ``fun`` returns ``(output, aux)`` and the result is ``(out, f_vjp, aux)``.

    >>> y, f_vjp = vjp(jnp.sin, 0.5)  # doctest: +SKIP
    >>> f_vjp(1.0)  # doctest: +SKIP
    (Array(0.87758255, dtype=float32, weak_type=True),)
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    _check_callable(fun)
    leaves, in_tree = tree_util.tree_flatten(primals)
    for x in leaves:
        _check_arg(x)
    flat_fun, out_tree_box = flatten_fun(fun, in_tree, has_aux)
    out_primals, lin, aux = linearize_flat(flat_fun, leaves)
    out_tree = out_tree_box[0]
    # The residuals, as JAX orders them: the primal inputs that are residuals
    # first (in input order; None for the others), then the computed ones.
    input_index = {id(x): i for i, x in enumerate(leaves)}
    inputs_used = {input_index[id(c)] for c in lin.consts if id(c) in input_index}
    args_res = [x if i in inputs_used else None for i, x in enumerate(leaves)]
    computed = [c for c in lin.consts if id(c) not in input_index]
    order = [(True, input_index[id(c)]) if id(c) in input_index else (False, None)
             for c in lin.consts]
    pullback = functools.partial(_pullback, lin.replace_consts(None), tuple(order),
                                 fun_sourceinfo(fun), [_typeof(p) for p in out_primals])
    f_vjp = VJP(pullback, in_tree, out_tree, args_res, computed)
    primals_out = tree_util.tree_unflatten(out_tree, out_primals)
    return (primals_out, f_vjp, aux) if has_aux else (primals_out, f_vjp)


class VJP:
    """The pull-back that :func:`vjp` returns: a function, and a pytree.

    Calling it, ``f_vjp(ct)``, runs the linear jaxpr backwards. As a pytree its
    leaves are the *residuals* (the values saved by the forward pass that the
    backward pass reads): first the primal inputs it reads (``args_res``, in
    input order, ``None`` where an input is not needed), then the values the
    forward pass computed (``residuals``). Everything else (the jaxpr, the
    input and output structures) is static. So a pull-back can be passed into
    ``jit`` or ``vmap`` as an argument, returned from one, or walked with
    ``tree_map``, like JAX's (which also calls it ``VJP``).
    """
    __slots__ = ("fun", "in_tree", "out_tree", "args_res", "residuals", "__weakref__")

    def __init__(self, fun: Callable, in_tree, out_tree, args_res: list, residuals: list):
        self.fun, self.in_tree, self.out_tree = fun, in_tree, out_tree
        self.args_res, self.residuals = args_res, residuals

    @property
    def jaxpr(self):
        """The linear jaxpr (tangents in, tangents out) that is run backwards."""
        return self.fun.args[0].jaxpr

    def __call__(self, out_ct, *extra_args):
        return self.fun(self.in_tree, self.out_tree, self.args_res, self.residuals, out_ct,
                        *extra_args)

    def __repr__(self):
        return f"VJP(in_tree={self.in_tree}, out_tree={self.out_tree}, " \
            f"args_res={self.args_res}, residuals={self.residuals})"


tree_util.register_pytree_node(
    VJP, lambda v: ((v.args_res, v.residuals), (v.fun, v.in_tree, v.out_tree)),
    lambda static, children: VJP(*static, *children))


def _pullback(lin, order, src_info: str, out_avals, in_tree, out_tree, args_res, computed,
              ct, *extra):
    """``ct -> J^T ct``: the backward pass of the linear jaxpr, on these residuals.

    ``order`` says, for each constant of the linear jaxpr, where it is:
    ``(True, i)`` for the primal input ``i``, ``(False, None)`` for the next
    computed residual.
    """
    if extra:
        name = src_info.split(" ")[0]
        raise TypeError(_VJP_TOO_MANY_ARGS.format(name, len(extra) + 1))
    cts, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda x: type(x) is Zero)
    if ct_tree != out_tree:
        raise _ct_tree_error(src_info, out_tree, ct_tree)
    for c, aval in zip(cts, out_avals):
        if type(c) is not Zero:
            _check_ct(c, aval)
    cts = [c for c, nz in zip(cts, lin.out_nonzero) if nz]
    undefined = [UndefinedPrimal(a) for a, nz in zip(lin.in_avals, lin.in_nonzero) if nz]
    computed = iter(computed)
    residuals = [args_res[i] if is_input else next(computed) for is_input, i in order]
    in_cts = iter(backward_pass(lin.jaxpr, residuals, undefined, cts))
    flat = [next(in_cts) if nz else Zero(a) for a, nz in zip(lin.in_avals, lin.in_nonzero)]
    flat = [_zero_cotangent(c.aval) if type(c) is Zero else c for c in flat]
    return tree_util.tree_unflatten(in_tree, flat)


# =============================================================================
# grad and value_and_grad
# =============================================================================
def _check_scalar(x) -> None:
    msg = "Gradient only defined for scalar-output functions. Output {}.".format
    try:
        aval = get_aval(x)
    except TypeError:
        raise TypeError(msg(f"was {x}")) from None
    if aval.shape != ():
        raise TypeError(msg(f"had shape: {aval.shape}"))


def _check_input_dtype_revderiv(name: str, holomorphic: bool, allow_int: bool, x) -> None:
    _check_arg(x)
    dtype = _typeof(x).dtype
    if holomorphic and not np.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                        f"but got {dtype.name}.")
    if np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.bool_):
        if not allow_int:
            raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype "
                            f"that is a sub-dtype of np.inexact), but got {dtype.name}. "
                            "If you want to use Boolean- or integer-valued inputs, use vjp "
                            "or set allow_int to True.")
    elif not dtypes.issubdtype(dtype, np.inexact):
        raise TypeError(f"{name} requires numerical-valued inputs (input dtype that is a "
                        f"sub-dtype of np.bool_ or np.number), but got {dtype.name}.")


def _check_output_dtype_revderiv(name: str, holomorphic: bool, x) -> None:
    dtype = _typeof(x).dtype
    if holomorphic:
        if not np.issubdtype(dtype, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex "
                            f"dtype, but got {dtype.name}.")
    elif np.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                        f"sub-dtype of np.floating), but got {dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex outputs, use jax.vjp "
                        "directly.")
    elif not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                        f"sub-dtype of np.floating), but got {dtype.name}. For "
                        "differentiation of functions with integer outputs, use jax.vjp "
                        "directly.")


def _one_vjp(x):
    """The cotangent seed ``1`` of a scalar output, in its dtype (and weak type)."""
    return lax.full_like(x, 1, shape=())


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes=()) -> Callable:
    """A function returning ``(fun(*args), grad(fun)(*args))`` from one forward pass.

    With ``has_aux``: ``((value, aux), gradient)``.
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")
    _check_callable(fun)
    argnums = _ensure_index(argnums)

    def value_and_grad_f(*args, **kwargs):
        max_argnum = argnums if isinstance(argnums, int) else max(argnums)
        if max_argnum >= len(args):
            raise TypeError(f"differentiating with respect to {argnums=} requires at least "
                            f"{max_argnum + 1} positional arguments to be passed by the "
                            f"caller, but got only {len(args)} positional arguments.")
        f, dyn_args = _argnums_partial(fun, argnums, args, kwargs)
        for leaf in tree_util.tree_leaves(dyn_args):
            _check_input_dtype_revderiv("grad", holomorphic, allow_int, leaf)
        ans, f_vjp, *aux = vjp(f, *dyn_args, has_aux=has_aux)
        _check_scalar(ans)
        _check_output_dtype_revderiv("grad", holomorphic, ans)
        g = f_vjp(_one_vjp(ans))
        g = g[0] if isinstance(argnums, int) else g
        return ((ans, *aux) if has_aux else ans), g

    functools.update_wrapper(value_and_grad_f, fun)
    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """The gradient of the scalar function ``fun`` with respect to argument(s) ``argnums``.

    ``grad(f)(x)`` has ``x``'s shape (and pytree structure); with a tuple of
    ``argnums``, a tuple of gradients. Computed by :func:`vjp` with the
    cotangent ``1.0``: one forward pass, one backward pass, whatever the
    number of inputs. With ``has_aux``, ``fun`` returns ``(value, aux)`` and
    the result is ``(gradient, aux)``.

    >>> grad(jnp.tanh)(0.2)  # doctest: +SKIP
    Array(0.961043, dtype=float32, weak_type=True)
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")
    value_and_grad_f = value_and_grad(fun, argnums, has_aux=has_aux,
                                      holomorphic=holomorphic, allow_int=allow_int)

    def grad_f(*args, **kwargs):
        ans, g = value_and_grad_f(*args, **kwargs)
        return (g, ans[1]) if has_aux else g

    functools.update_wrapper(grad_f, fun)
    return grad_f


# =============================================================================
# jacrev and hessian
# =============================================================================
def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """The Jacobian of ``fun`` computed row by row with reverse-mode AD.

    One :func:`vjp` gives the linearization; ``vmap`` pulls back every basis
    vector of the output through it at once. ``jacrev(f)(x)`` has shape
    ``f(x).shape + x.shape`` (pytrees: the output's structure outside, the
    inputs' inside, as :func:`~minijax.interpreters.ad.jacfwd`).
    """
    _check_callable(fun)

    def jacfun(*args, **kwargs):
        f, dyn_args = _argnums_partial(fun, argnums, args, kwargs)
        for leaf in tree_util.tree_leaves(dyn_args):
            _check_input_dtype_revderiv("jacrev", holomorphic, allow_int, leaf)
        y, pullback, *aux = vjp(f, *dyn_args, has_aux=has_aux)
        for leaf in tree_util.tree_leaves(y):
            _check_output_dtype_revderiv("jacrev", holomorphic, leaf)
        jac = vmap(pullback)(std_basis(y))
        jac = jac[0] if isinstance(argnums, int) else jac
        example_args = dyn_args[0] if isinstance(argnums, int) else dyn_args
        jac_tree = tree_util.tree_map(functools.partial(unravel_array_into_pytree, y, 0),
                                      example_args, jac)
        jac_tree = tree_util.tree_transpose(tree_util.tree_structure(example_args),
                                            tree_util.tree_structure(y), jac_tree)
        return (jac_tree, *aux) if has_aux else jac_tree

    functools.update_wrapper(jacfun, fun)
    return jacfun


jacobian = jacrev


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """The Hessian of ``fun``: ``jacfwd(jacrev(fun))`` (forward over reverse)."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic),
                  argnums, has_aux=has_aux, holomorphic=holomorphic)
