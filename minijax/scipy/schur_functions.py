"""Chapter 00 — the Schur and Hessenberg forms, and what is built on them.

``schur(a)`` writes ``a = Z T Z^H`` with ``Z`` unitary and ``T`` upper
triangular (``output="complex"``) or, for a real ``a``, real with 2x2 blocks
on the diagonal (``output="real"``). A triangular ``T`` makes matrix functions
easy, because ``f(a) = Z f(T) Z^H`` and ``f(T)`` is triangular too:

* ``sqrtm``: ``R = sqrt(T)`` solves ``R R = T``, entry by entry;
* ``funm``: Parlett's recurrence: ``F = f(T)`` commutes with ``T``;
* ``solve_sylvester``: ``A X + X B = C`` becomes a triangular system
  (Bartels–Stewart).

Both recurrences give entry ``(i, j)`` from entries nearer the diagonal, so
they run one superdiagonal at a time, each a whole-matrix expression: at step
``d`` the entries ``d`` or more above the diagonal are still zero, so a
matrix product sums exactly the terms strictly between ``i`` and ``j``.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.numpy.util import promote_dtypes_inexact

__all__ = ["schur", "rsf2csf", "hessenberg", "sqrtm", "funm", "solve_sylvester"]


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected a square matrix, got shape {a.shape}")


def _complex_dtype(dtype):
    return np.result_type(dtype, np.complex64)


def schur(a, output: str = "real"):
    """``(T, Z)`` with ``a = Z @ T @ Z^H``: ``T`` upper triangular for
    ``output="complex"``, quasi-triangular (real 2x2 blocks for complex
    eigenvalue pairs) for ``output="real"`` and a real ``a``."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got "
                         f"output={output}.")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    if output == "complex":
        a = a.astype(_complex_dtype(a.dtype))
    return lax.linalg.schur(a)


def _on_diagonal(n: int, d: int):
    """The mask of the ``d``-th superdiagonal of an ``n x n`` matrix."""
    return jnp.asarray(np.eye(n, k=d, dtype=bool))


def _diagonal_pairs(v, d: int):
    """``(v[i], v[i + d])`` laid out as matrices: entry ``(i, j)`` holds ``v[i]`` and
    ``v[j]``; only the ``d``-th superdiagonal is read."""
    return v[..., :, None], v[..., None, :]


def _sqrtm_triu(t):
    """The upper triangular ``R`` with ``R @ R = t`` (principal square roots on the
    diagonal): ``R[i, j] = (t[i, j] - sum_{i<k<j} R[i, k] R[k, j]) / (R[i, i] + R[j, j])``."""
    n = t.shape[-1]
    diag = jnp.sqrt(jnp.diagonal(t, axis1=-2, axis2=-1))
    r = diag[..., :, None] * jnp.eye(n, dtype=t.dtype)
    ri, rj = _diagonal_pairs(diag, 0)
    for d in range(1, n):
        between = t - r @ r  # on diagonal d: t minus the terms strictly between i and j
        r = jnp.where(_on_diagonal(n, d), between / (ri + rj), r)
    return r


def sqrtm(A, blocksize: int = 1):
    """The principal square root of ``A`` (complex, from the complex Schur form)."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    A, = promote_dtypes_inexact(jnp.asarray(A))
    _square("sqrtm", A)
    t, z = schur(A, output="complex")
    return jnp.matmul(jnp.matmul(z, _sqrtm_triu(t), precision=lax.Precision.HIGHEST),
                      jnp.conj(jnp.swapaxes(z, -1, -2)), precision=lax.Precision.HIGHEST)


def funm(A, func, disp: bool = True):
    """``func`` applied to the matrix ``A`` (``func`` acts elementwise on arrays):
    ``Z F Z^H`` with ``F = func(T)`` from Parlett's recurrence.

    ``F`` commutes with ``T``; entry ``(i, j)`` of ``F T = T F`` gives
    ``F[i, j] (T[j, j] - T[i, i]) = (T F - F T)[i, j]`` once ``F[i, j]`` is
    still zero (the other terms only involve entries nearer the diagonal).
    Repeated eigenvalues make it divide by zero, as in JAX and SciPy.
    """
    A, = promote_dtypes_inexact(jnp.asarray(A))
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(A, output="complex")
    n = t.shape[-1]
    diag_t = jnp.diagonal(t)
    f = jnp.diag(jnp.asarray(func(diag_t)).astype(t.dtype))
    ti, tj = _diagonal_pairs(diag_t, 0)
    for d in range(1, n):
        f = jnp.where(_on_diagonal(n, d), (t @ f - f @ t) / (tj - ti), f)
    out = z @ f @ jnp.conj(z.T)
    return out if disp else (out, None)


def _rotation(t, m: int):
    """The complex Givens rotation that zeroes ``t[m, m-1]``: ``mu`` is an
    eigenvalue of the 2x2 block at ``m-1`` (the one with positive imaginary part
    for a real block, LAPACK's first) less ``t[m, m]``."""
    a, b, c, e = t[m - 1, m - 1], t[m - 1, m], t[m, m - 1], t[m, m]
    half_trace, half_gap = (a + e) / 2, (a - e) / 2
    eigenvalue = half_trace + jnp.sqrt(half_gap * half_gap + b * c)
    mu = eigenvalue - e
    r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(c) ** 2).astype(t.dtype)
    cos, sin = mu / r, c / r
    return jnp.stack([jnp.stack([cos.conj(), sin]), jnp.stack([-sin, cos])])


def _rsf2csf_2d(t, z):
    t, z = (x.astype(np.result_type(t.dtype, z.dtype, np.complex64)) for x in (t, z))
    n = t.shape[0]
    eps = dtypes.finfo(t.dtype).eps
    rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]
    for m in range(n - 1, 0, -1):
        g = _rotation(t, m)
        gh = jnp.conj(g.T)
        # rows m-1, m of t from column m-1 on: g @ rows; then columns m-1, m of
        # t up to row m: columns @ g^H; the same columns of z: z @ g^H
        new_rows = jnp.where(jnp.asarray(cols >= m - 1), g @ t[m - 1:m + 1], t[m - 1:m + 1])
        rotated = t.at[m - 1:m + 1].set(new_rows)
        new_cols = jnp.where(jnp.asarray(rows < m + 1), rotated[:, m - 1:m + 1] @ gh,
                             rotated[:, m - 1:m + 1])
        rotated = rotated.at[:, m - 1:m + 1].set(new_cols)
        rotated_z = z.at[:, m - 1:m + 1].set(z[:, m - 1:m + 1] @ gh)
        needed = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        t = jnp.where(needed, rotated, t)
        z = jnp.where(needed, rotated_z, z)
        t = t.at[m, m - 1].set(0.0)
    return t, z


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form from the real one: each 2x2 block of ``T`` is made
    triangular by a complex Givens rotation, applied to ``Z`` as well."""
    T, Z = jnp.asarray(T), jnp.asarray(Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    if T.shape[-1] == 1:
        dtype = np.result_type(T.dtype, Z.dtype, np.complex64)
        return T.astype(dtype), Z.astype(dtype)
    batch = np.broadcast_shapes(T.shape[:-2], Z.shape[:-2])
    T, Z = jnp.broadcast_to(T, batch + T.shape[-2:]), jnp.broadcast_to(Z, batch + Z.shape[-2:])
    pairs = [_rsf2csf_2d(T[idx], Z[idx]) for idx in np.ndindex(*batch)]
    if not batch:
        return pairs[0]
    return tuple(jnp.stack([p[i] for p in pairs]).reshape(batch + T.shape[-2:])
                 for i in range(2))


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """The upper Hessenberg form ``H`` (zeros below the first subdiagonal) with
    ``a = Q H Q^H``; ``(H, Q)`` with ``calc_q``."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    _square("hessenberg", a)
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lax.linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    # the reflectors act on rows 1..n-1: Q is 1 (+) householder_product(...)
    q = lax.linalg.householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    q = jnp.block([[jnp.ones(batch + (1, 1), a.dtype), jnp.zeros(batch + (1, n - 1), a.dtype)],
                   [jnp.zeros(batch + (n - 1, 1), a.dtype), q]])
    return h, q


def _solve_sylvester_2d(A, B, C, tol):
    """Bartels–Stewart: with ``A = U R U^H`` and ``B^H = V S V^H`` (complex Schur),
    ``A X + X B = C`` is ``R Y + Y S^H = F`` for ``Y = U^H X V``, ``F = U^H C V``;
    ``S^H`` is lower triangular, so column ``j`` of ``Y`` solves the triangular
    ``(R + conj(S[j, j])) y_j = f_j - sum_{k > j} conj(S[j, k]) y_k``, last column first."""
    r, u = schur(A, output="complex")
    s, v = schur(jnp.conj(B.T), output="complex")
    f = jnp.conj(u.T) @ C.astype(r.dtype) @ v
    m, n = C.shape
    eye = jnp.eye(m, dtype=r.dtype)
    columns = [None] * n
    for j in range(n - 1, -1, -1):
        rhs = f[:, j]
        for k in range(j + 1, n):
            rhs = rhs - jnp.conj(s[j, k]) * columns[k]
        columns[j] = lax.linalg.triangular_solve(
            r + jnp.conj(s[j, j]) * eye, rhs[:, None], left_side=True, lower=False)[:, 0]
    x = u @ jnp.stack(columns, axis=1) @ jnp.conj(v.T)
    if not jnp.iscomplexobj(C):
        x = x.real
    # eigenvalues of A and -B that meet: no unique solution, NaNs (as JAX)
    eig_sums = jnp.diagonal(r)[:, None] + jnp.conj(jnp.diagonal(s))[None, :]
    singular = jnp.any(jnp.abs(eig_sums) < tol)
    return jnp.where(singular, jnp.full_like(x, np.nan), x)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """``X`` with ``A X + X B = C`` (NaNs when ``A`` and ``-B`` share an eigenvalue
    within ``tol``)."""
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                         f"B: {B.shape}\nC: {C.shape}")
    if method != "schur":
        raise NotImplementedError(f"solve_sylvester with method={method!r}: minijax has "
                                  "only the 'schur' method (it lacks jnp.linalg.eig)")
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2])
    A, B, C = (jnp.broadcast_to(x, batch + x.shape[-2:]) for x in (A, B, C))
    outs = [_solve_sylvester_2d(A[i], B[i], C[i], tol) for i in np.ndindex(*batch)]
    return outs[0] if not batch else jnp.stack(outs).reshape(batch + (m, n))
