"""Chapter 08 — ``jax.scipy.sparse.linalg``: ``cg`` and ``bicgstab``, iterative solvers
of ``A x = b`` that only need the product ``A v``.

``A`` is a matrix or any function computing ``A @ v``; ``b`` and ``x`` may be
pytrees (all vector operations below are leaf-wise, and dot products sum over
leaves). Conjugate gradients (for symmetric/Hermitian positive definite
``A``) keeps the residual ``r = b - A x`` and a search direction ``p``
conjugate to the previous ones; BiCGSTAB (for general ``A``) combines a
bi-conjugate gradient step with a one-dimensional residual minimization.
Both stop when ``|r| <= max(tol |b|, atol)`` or after ``maxiter`` steps, and
return ``(x, None)`` as JAX does. Each is one ``while_loop`` (this chapter's).

Left out: JAX wraps the loop in ``lax.custom_linear_solve`` so that
derivatives are found by solving the transposed system; minijax has no
``custom_linear_solve`` yet, so differentiating through these solvers goes
through the ``while_loop`` (forward mode works; reverse mode raises, as for
any ``while_loop``). ``gmres`` lives in its own module.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.control_flow.loops import while_loop
from minijax.tree_util import tree_leaves, tree_map, tree_structure

__all__ = ["cg", "bicgstab", "gmres"]


def _vdot_real(x, y):
    """``Re(x^H y)``: the real inner product (what residual norms need)."""
    out = jnp.vdot(x.real, y.real, precision=lax.Precision.HIGHEST)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + jnp.vdot(x.imag, y.imag, precision=lax.Precision.HIGHEST)
    return out


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(partial(jnp.vdot, precision=lax.Precision.HIGHEST), x, y)))


def _scale(scalar, tree):
    return tree_map(lambda leaf: scalar * leaf, tree)


_add = partial(tree_map, operator.add)
_sub = partial(tree_map, operator.sub)


def _identity(x):
    return x


def _as_matvec(a):
    """A function ``v -> A @ v`` from a function, a square matrix, or any object with
    ``@``."""
    if callable(a):
        return a
    if hasattr(a, "ndim") and hasattr(a, "shape"):
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{a.shape}")
        a = jnp.asarray(a)
        return lambda v: jnp.dot(a, v, precision=lax.Precision.HIGHEST)
    raise TypeError(f"linear operator must be either a function or ndarray: {a}")


def _cg_loop(A, b, x0, *, maxiter, tol, atol, M):
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = jnp.result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)  # r . M r

    def going(state):
        _, r, gamma, _, k = state
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def step(state):
        x, r, gamma, p, k = state
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)  # the exact line minimum
        x, r = _add(x, _scale(alpha, p)), _sub(r, _scale(alpha, Ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _scale(gamma_next / gamma, p))  # conjugate to the previous directions
        return x, r, gamma_next, p, k + 1

    return while_loop(going, step, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_loop(A, b, x0, *, maxiter, tol, atol, M):
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))
    r0 = _sub(b, A(x0))
    one = jnp.ones((), jnp.result_type(*tree_leaves(b)))

    def going(state):
        x, r, *_, k = state
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def step(state):
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_next = _vdot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _add(r, _scale(beta, _sub(p, _scale(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _vdot_tree(rhat, q)
        s = _sub(r, _scale(alpha, q))
        done_early = _vdot_real_tree(s, s) < atol2  # the half step already converged
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        x = tree_map(partial(jnp.where, done_early), _add(x, _scale(alpha, phat)),
                     _add(x, _add(_scale(alpha, phat), _scale(omega, shat))))
        r = tree_map(partial(jnp.where, done_early), s, _sub(s, _scale(omega, t)))
        # a breakdown (a zero denominator next time) stops the loop: k < 0
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    return while_loop(going, step, init)[0]


def _isolve(loop, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    b = tree_map(jnp.asarray, b)
    x0 = tree_map(jnp.zeros_like, b) if x0 is None else tree_map(jnp.asarray, x0)
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in tree_leaves(b))  # SciPy's default
    A = _as_matvec(A)
    M = _identity if M is None else _as_matvec(M)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    shapes = [np.shape(leaf) for leaf in tree_leaves(b)]
    if [np.shape(leaf) for leaf in tree_leaves(x0)] != shapes:
        raise ValueError(f"arrays in x0 and b must have matching shapes: "
                         f"{[np.shape(leaf) for leaf in tree_leaves(x0)]} vs {shapes}")
    return loop(A, b, x0, maxiter=maxiter, tol=tol, atol=atol, M=M), None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` for a Hermitian positive definite ``A`` by conjugate
    gradients (``M``: a preconditioner, approximating ``A^-1``). Returns ``(x, None)``."""
    return _isolve(_cg_loop, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` for a general ``A`` by BiCGSTAB. Returns ``(x, None)``."""
    return _isolve(_bicgstab_loop, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


from minijax.scipy.sparse.gmres import gmres  # noqa: E402,F401  (it uses the helpers above)
