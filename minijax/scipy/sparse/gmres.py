"""Chapter 08 — ``jax.scipy.sparse.linalg.gmres``: restarted GMRES.

GMRES looks for ``x`` in ``x0`` plus the Krylov space spanned by ``r, A r,
A^2 r, ...`` (``r`` the preconditioned residual) that minimizes the residual.
Arnoldi's process builds an orthonormal basis ``V`` of that space and the
small Hessenberg matrix ``H`` with ``A V_k = V_{k+1} H``; the best ``x`` then
solves the ``(k+1) x k`` least-squares problem ``min |beta e_1 - H y|``.
After ``restart`` basis vectors the method restarts from the new ``x``.

The least squares are solved as JAX does, by ``solve_method``:
``"batched"`` builds the whole basis and solves the normal equations once;
``"incremental"`` keeps a QR factorization of ``H`` up to date with Givens
rotations, which also gives the residual at every step (and stops early).
Pytree right-hand sides are flattened into one vector. As for ``cg``, there
is no ``custom_linear_solve``, so no implicit derivatives.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.control_flow.loops import fori_loop, while_loop
from minijax.scipy import linalg as jsp_linalg
from minijax.scipy.sparse.linalg import _as_matvec, _identity
from minijax.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten

__all__ = ["gmres"]


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _normalize(v, threshold=None):
    """``(v / |v|, |v|)``, and ``(0, 0)`` for a norm not above ``threshold``."""
    norm = jnp.linalg.norm(v)
    threshold = 0.0 if threshold is None else threshold
    safe = jnp.where(norm > threshold, norm, 1.0)
    unit = jnp.where(norm > threshold, v / safe.astype(v.dtype), jnp.zeros_like(v))
    return unit, jnp.where(norm > threshold, norm, 0.0)


def _arnoldi_step(k, matvec, V, H):
    """Extend the basis by ``A v_k`` orthogonalized against ``V`` (classical
    Gram-Schmidt, twice: once is not enough in floating point); row ``k`` of
    ``H`` (stored transposed) gets the projections and the new norm."""
    v = matvec(V[:, k])
    _, norm_before = _normalize(v)
    h = jnp.zeros(V.shape[1], V.dtype)
    for _ in range(2):
        projection = _dot(jnp.conj(V.T), v)
        v = v - _dot(V, projection)
        h = h + projection
    eps = np.finfo(np.dtype(V.dtype).type(0).real.dtype).eps
    unit, norm = _normalize(v, threshold=eps * norm_before)
    V = V.at[:, k + 1].set(unit)
    H = H.at[k, :].set(h.at[k + 1].set(norm.astype(V.dtype)))
    return V, H, norm == 0.0


def _givens(a, b):
    """``(c, s)`` with the rotation ``[[conj c, -conj s], [s, c]]`` zeroing ``b``."""
    b_zero, a_small = jnp.abs(b) == 0, jnp.abs(a) < jnp.abs(b)
    t = -jnp.where(a_small, a, b) / jnp.where(a_small, b, a)
    r = lax.rsqrt(1 + jnp.abs(t) ** 2).astype(t.dtype)
    c = jnp.where(b_zero, 1, jnp.where(a_small, r * t, r))
    s = jnp.where(b_zero, 0, jnp.where(a_small, r, r * t))
    return c, s


def _rotate(v, i, c, s):
    x, y = v[i], v[i + 1]
    return v.at[i].set(jnp.conj(c) * x - jnp.conj(s) * y).at[i + 1].set(s * x + c * y)


def _cycle_batched(matvec, b, x0, unit_residual, residual_norm, ptol, restart, precond):
    n = b.shape[0]
    V = jnp.zeros((n, restart + 1), b.dtype).at[:, 0].set(unit_residual)
    H = jnp.eye(restart, restart + 1, dtype=b.dtype)

    def going(state):
        _, _, breakdown, k = state
        return (k < restart) & ~breakdown

    def step(state):
        V, H, _, k = state
        V, H, breakdown = _arnoldi_step(k, matvec, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(going, step, (V, H, False, 0))
    beta = jnp.zeros(restart + 1, b.dtype).at[0].set(residual_norm.astype(b.dtype))
    Ht = H.T  # (restart + 1) x restart: least squares by the normal equations
    y = jsp_linalg.solve(_dot(jnp.conj(Ht.T), Ht), _dot(jnp.conj(Ht.T), beta), assume_a="pos")
    x = x0 + _dot(V[:, :-1], y)
    return (x, *_normalize(precond(b - matvec(x))))


def _cycle_incremental(matvec, b, x0, unit_residual, residual_norm, ptol, restart, precond):
    n = b.shape[0]
    V = jnp.zeros((n, restart + 1), b.dtype).at[:, 0].set(unit_residual)
    R = jnp.eye(restart, restart + 1, dtype=b.dtype)
    rotations = jnp.zeros((restart, 2), b.dtype)
    beta = jnp.zeros(restart + 1, b.dtype).at[0].set(residual_norm.astype(b.dtype))

    def going(state):
        k, error, *_ = state
        return (k < restart) & (error > ptol)

    def step(state):
        k, _, V, R, beta, rotations = state
        V, H, _ = _arnoldi_step(k, matvec, V, R)
        row = fori_loop(0, k, lambda i, row: _rotate(row, i, rotations[i, 0], rotations[i, 1]),
                        H[k, :])
        c, s = _givens(row[k], row[k + 1])
        rotations = rotations.at[k].set(jnp.stack([c, s]))
        R = R.at[k, :].set(_rotate(row, k, c, s))
        beta = _rotate(beta, k, c, s)
        return k + 1, jnp.abs(beta[k + 1]), V, R, beta, rotations

    _, _, V, R, beta, _ = while_loop(going, step, (0, residual_norm, V, R, beta, rotations))
    y = jsp_linalg.solve_triangular(R[:, :-1].T, beta[:-1])
    x = x0 + _dot(V[:, :-1], y)
    return (x, *_normalize(precond(b - matvec(x))))


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve ``A x = b`` by restarted GMRES. Returns ``(x, info)``, ``info`` -1 if
    ``x`` came out NaN, else 0."""
    b_leaves, tree = tree_flatten(tree_map(jnp.asarray, b))
    x0 = tree_map(jnp.zeros_like, b) if x0 is None else x0
    if tree_structure(x0) != tree:
        raise ValueError(f"x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree}")
    shapes = [leaf.shape for leaf in b_leaves]
    sizes = [leaf.size for leaf in b_leaves]
    dtype = jnp.result_type(*b_leaves)

    def flat(tree_value):
        leaves = tree_flatten(tree_value)[0]
        return jnp.concatenate([jnp.ravel(jnp.asarray(v)).astype(dtype) for v in leaves])

    def unflat(vector):
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(vector[start:start + size].reshape(shape))
            start += size
        return tree_unflatten(tree, parts)

    op, precond = _as_matvec(A), _identity if M is None else _as_matvec(M)

    def matvec(v):
        return flat(op(unflat(v)))

    def pre(v):
        return flat(precond(unflat(v)))

    if solve_method == "incremental":
        cycle = _cycle_incremental
    elif solve_method == "batched":
        cycle = _cycle_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either "
                         "'incremental' or 'batched'")
    bv, xv = flat(b), flat(x0)
    size = bv.shape[0]
    maxiter = 10 * size if maxiter is None else maxiter
    restart = min(restart, size)
    b_norm = jnp.linalg.norm(bv)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = jnp.linalg.norm(pre(bv)) * jnp.minimum(1.0, atol / b_norm)
    unit, norm = _normalize(pre(bv - matvec(xv)))

    def going(state):
        _, k, _, norm = state
        return (k < maxiter) & (norm > atol)

    def restart_cycle(state):
        x, k, unit, norm = state
        x, unit, norm = cycle(matvec, bv, x, unit, norm, ptol, restart, pre)
        return x, k + 1, unit, norm

    x, _, _, _ = while_loop(going, restart_cycle, (xv, 0, unit, norm))
    info = jnp.where(jnp.isnan(jnp.linalg.norm(x)), -1, 0)
    return unflat(x), info
