"""Chapter 07 — ``jax.test_util.check_grads``: derivatives against finite differences.

How do we know a derivative is right? We compare it with what a finite
difference says. For a direction ``t`` (random, so one check covers every
input at once)::

    jvp:  J t            ≈ (f(x + eps t) - f(x - eps t)) / (2 eps)
    vjp:  <t, J^T c>     ≈ <J t, c>        for a random cotangent c

The second line checks reverse mode without ever building ``J``: the inner
product of the pulled-back cotangent with ``t`` must equal the inner product
of the pushed-forward tangent with ``c``. Higher orders are checked by
applying the same test to the derivative functions themselves (``jvp`` of
``f`` is a function too).

The tolerances are JAX's, per dtype (for float32: ``2e-3``), scaled by the
number of elements; the random directions come from ``np.random.RandomState(0)``,
so a check is repeatable.
"""
from __future__ import annotations

import functools
import operator
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax.autodiff import vjp
from minijax.interpreters.ad import jvp
from minijax.tree_util import tree_map, tree_reduce

__all__ = ["check_grads", "check_jvp", "check_vjp"]

#: The finite-difference step when none is given.
EPS = 1e-4

#: Default tolerances of a derivative check, per dtype.
default_gradient_tolerance = {
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}

#: Tolerances of other dtypes (exact for integers and booleans).
_default_tolerance = {
    np.dtype(dtypes.float0): 0, np.dtype(np.bool_): 0,
    **{np.dtype(t): 0 for t in (np.int8, np.int16, np.int32, np.int64,
                                np.uint8, np.uint16, np.uint32, np.uint64)},
    np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-15,
    np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}


# --- small arithmetic on pytrees of NumPy values --------------------------------------------
def _dtype(x) -> np.dtype:
    """A leaf's dtype; a Python scalar's is NumPy's (float64: the arithmetic here is
    NumPy's, and the result goes back to a Python scalar)."""
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.asarray(x).dtype


def _is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _keep_type(op):
    """``op`` on leaves, with the first leaf's dtype (and a Python scalar for scalars)."""
    def leaf(*xs):
        out = np.array(op(*xs), dtype=_dtype(xs[0]))
        return out.item() if all(map(_is_python_scalar, xs)) else out
    return functools.partial(tree_map, leaf)


_add, _sub, _conj = _keep_type(operator.add), _keep_type(operator.sub), _keep_type(np.conj)


def _scale(tree, a):
    def leaf(x):
        dtype = _dtype(x)
        out = np.multiply(x, np.array(a, dtype), dtype=dtype)
        return out.item() if _is_python_scalar(x) else out
    return tree_map(leaf, tree)


def _sub_inf_safe(tree_a, tree_b):
    """``a - b``, with ``inf - inf = 0`` (an infinite output that does not move)."""
    def leaf(a, b):
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(a, b), np.array(0, _dtype(a)),
                            np.subtract(a, b, dtype=_dtype(a)))
    return tree_map(leaf, tree_a, tree_b)


def _random_like(rng: np.random.RandomState, x):
    shape, dtype = np.shape(x), _dtype(x)
    out = np.asarray(rng.randn(*shape), dtype)
    if np.issubdtype(dtype, np.complexfloating):
        out = out + dtype.type(1j) * np.asarray(rng.randn(*shape), dtype)
    return out.item() if _is_python_scalar(x) else out


def _contract(x, y):
    return np.real(np.dot(np.conj(x).reshape(-1), np.reshape(y, -1)))


def _inner(xs, ys):
    """``<xs, ys>``: the real inner product of two pytrees of arrays."""
    return tree_reduce(np.add, tree_map(_contract, xs, ys))


def numerical_jvp(f: Callable, primals, tangents, eps: float = EPS):
    """``J t`` by central differences: ``(f(x + eps t) - f(x - eps t)) / (2 eps)``."""
    step = _scale(tangents, eps)
    ahead, behind = f(*_add(primals, step)), f(*_sub(primals, step))
    return _scale(_sub_inf_safe(ahead, behind), 0.5 / eps)


# --- comparing ---------------------------------------------------------------------------
def _merge(tol, default: dict):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    return {**default, **{np.dtype(k): v for k, v in tol.items()}}


def _tolerance(dtype, tol) -> float:
    if not isinstance(tol, dict):
        return tol
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _default_tolerance.get(dtype, 0))


def _assert_close(a, b, atol, rtol, err_msg):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} and {b.shape} differ"
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    atol = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol)) * a.size
    rtol = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol)) * b.size
    kw = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(a, b, err_msg=err_msg, **kw)


def _check_close(xs, ys, atol, rtol, err_msg):
    tree_map(functools.partial(_assert_close, atol=atol, rtol=rtol, err_msg=err_msg), xs, ys)


def _check_same_dtypes(xs, ys):
    def same(x, y):
        assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y)), \
            f"dtypes differ: {_dtype(x)} and {_dtype(y)}"
    tree_map(same, xs, ys)


def _msg(err_msg: str, what: str) -> str:
    return f"{err_msg} {what}" if err_msg else what


# --- the checks --------------------------------------------------------------------------
def check_jvp(f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None,
              eps: float = EPS, err_msg: str = "") -> None:
    """Check ``f_jvp(args, tangents) -> (f(*args), J t)`` in one random direction."""
    atol = _merge(atol, default_gradient_tolerance)
    rtol = _merge(rtol, default_gradient_tolerance)
    tangent = tree_map(functools.partial(_random_like, np.random.RandomState(0)), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_same_dtypes(v_out, t_out)
    v_expected = f(*args)
    _check_same_dtypes(v_out, v_expected)
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    _check_close(v_out, v_expected, atol, rtol, _msg(err_msg, "primal"))
    _check_close(t_out, t_expected, atol, rtol, _msg(err_msg, "tangent"))


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None,
              eps: float = EPS, err_msg: str = "") -> None:
    """Check ``f_vjp(*args) -> (f(*args), pull_back)``: ``<t, J^T c> = <J t, c>``."""
    atol = _merge(atol, default_gradient_tolerance)
    rtol = _merge(rtol, default_gradient_tolerance)
    random_like = functools.partial(_random_like, np.random.RandomState(0))
    v_out, pull_back = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, _msg(err_msg, "primal"))
    tangent = tree_map(random_like, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(random_like, v_out)
    cotangent_out = _conj(pull_back(_conj(cotangent)))
    _check_close(_inner(tangent, cotangent_out), _inner(tangent_out, cotangent), atol, rtol,
                 _msg(err_msg, "cotangent projection"))


def check_grads(f: Callable, args: Sequence, order: int, modes=("fwd", "rev"),
                atol=None, rtol=None, eps: float | None = None) -> None:
    """Check ``f``'s derivatives up to ``order`` against finite differences (``jax.test_util``).

    ``modes`` says which to check: ``"fwd"`` (``jvp``), ``"rev"`` (``vjp``) or
    both. ``atol``/``rtol`` are numbers or dicts dtype -> tolerance; ``eps``
    is the finite-difference step. Raises ``AssertionError`` on a mismatch,
    naming what failed (``"JVP of VJP tangent"``...).
    """
    args = tuple(args)
    eps = eps or EPS

    def check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_jvp(f, functools.partial(jvp, f), args, atol, rtol, eps, msg)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, functools.partial(vjp, f), args, atol, rtol, eps, msg)
            if order > 1:
                def pulled_back(*args):
                    out, pull_back = vjp(f, *args)
                    return pull_back(out)
                check(pulled_back, args, order - 1, msg)

    check(f, args, order)
