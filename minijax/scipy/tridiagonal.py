"""Chapter 00 — ``eigh_tridiagonal``: eigenvalues of a symmetric tridiagonal matrix.

The eigenvalues are found by bisection on Sturm counts, all at once, as JAX
does. For a shift ``x``, the pivots ``q_0 = a_0 - x``,
``q_i = a_i - b_{i-1}^2 / q_{i-1} - x`` of the LDL^T factorization of
``T - x I`` are negative exactly as often as ``T`` has eigenvalues below
``x`` (Sylvester's law of inertia). The ``k``-th eigenvalue is then the point
where that count passes ``k``: every eigenvalue keeps an interval
``[lower, upper]``, halved at each step toward the side where the count says
it lies, starting from the Gershgorin bounds, until all are narrower than
``eps * |T|`` (at most ``mantissa bits + 1`` halvings).
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.numpy import linalg as jnp_linalg

__all__ = ["eigh_tridiagonal"]

_SUPPORTED = (np.float32, np.float64, np.complex64, np.complex128)


def _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each shift in ``x`` (the negative pivots)."""
    q = alpha[0] - x
    count = jnp.where(q < 0, 1, 0).astype(np.int32)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)  # a zero pivot: nudge it
    for i in range(1, alpha.shape[0]):
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        q = jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q)
    return count


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol: float | None = None, key=None):
    """The eigenvalues (ascending) of the Hermitian tridiagonal matrix with diagonal
    ``d`` and off-diagonal ``e``, by bisection; with ``eigvals_only=False`` also
    the eigenvectors (minijax takes them from ``eigh`` of the dense matrix, where
    JAX runs inverse iteration from random vectors: the same up to sign)."""
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError(f"diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in _SUPPORTED:
        raise TypeError(f"Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and "
                        f"{beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
    if jnp.iscomplexobj(alpha):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    # Gershgorin: every eigenvalue lies within a row's off-diagonal sum of its diagonal
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    est_max, est_min = jnp.amax(alpha + row_sums), jnp.amin(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(est_min), jnp.abs(est_max))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))  # the smallest pivot allowed
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    if select == "a":
        targets = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1  # the Gershgorin interval, a little wider
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = targets.shape
    lower = jnp.broadcast_to(est_min - slack - 2 * fudge * pivmin, shape)
    upper = jnp.broadcast_to(est_max + slack + fudge * pivmin, shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)
    for _ in range(finfo.nmant + 1):
        # (JAX stops its while_loop here; a halving past that point is skipped)
        going = abs_tol < jnp.amax(upper - lower)
        counts = _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        new_lower = jnp.where(counts <= targets, mid, lower)
        new_upper = jnp.where(counts > targets, mid, upper)
        lower = jnp.where(going, new_lower, lower)
        upper = jnp.where(going, new_upper, upper)
        mid = jnp.where(going, 0.5 * (lower + upper), mid)
    if eigvals_only:
        return mid
    dense = jnp.diag(jnp.asarray(d)) + jnp.diag(beta, -1) + jnp.diag(jnp.conj(beta), 1)
    _, vectors = jnp_linalg.eigh(dense)
    if select == "i":
        vectors = vectors[:, select_range[0]:select_range[1] + 1]
    return mid, vectors
