"""Chapter 00 — ``minijax.scipy.linalg``: SciPy's linear algebra, as ``jax.scipy.linalg``.

Built from the ``lax.linalg`` primitives (``cholesky``, ``triangular_solve``,
``lu``, ``qr``, ``eigh``, ``svd``) and ``jax.numpy``, so every backend that
lowers those runs these, and ``grad`` goes through them. The conventions are
SciPy's where they differ from ``jax.numpy.linalg``: ``cholesky`` returns the
*upper* factor unless ``lower=True``, ``lu`` returns ``(p, l, u)`` with
``a = p @ l @ u``.
"""
from __future__ import annotations

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy import linalg as jnp_linalg
from minijax.numpy.linalg import _H  # the conjugate transpose
from minijax.numpy.util import promote_dtypes_inexact
from minijax.scipy.special_matrices import (  # noqa: F401  (re-exported)
    circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard,
    hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal, toeplitz)
from minijax.scipy.schur_functions import (  # noqa: F401  (re-exported)
    funm, hessenberg, rsf2csf, schur, solve_sylvester, sqrtm)
from minijax.scipy.tridiagonal import eigh_tridiagonal  # noqa: F401  (re-exported)

__all__ = ["cholesky", "cho_factor", "cho_solve", "solve_triangular", "lu", "lu_factor",
           "lu_solve", "qr", "svd", "eigh", "det", "inv", "solve", "block_diag", "expm",
           "circulant", "companion", "convolution_matrix", "dft", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "invhilbert",
           "invpascal", "leslie", "pascal", "toeplitz", "funm", "hessenberg", "rsf2csf",
           "schur", "solve_sylvester", "sqrtm", "eigh_tridiagonal", "polar", "qr_multiply",
           "expm_frechet"]


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of ``a``: upper (``a = u^H u``) unless ``lower``."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    factor = lax.linalg.cholesky(a)
    return factor if lower else _H(factor)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)`` for :func:`cho_solve`; ``c`` is :func:`cholesky`'s factor."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``a x = b`` given ``cho_factor(a)``: two triangular solves."""
    c, lower = c_and_lower
    c, b = promote_dtypes_inexact(jnp.asarray(c), jnp.asarray(b))
    if lower:  # L L^H x = b
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans="C", lower=True)
    y = solve_triangular(c, b, trans="C", lower=False)  # U^H U x = b
    return solve_triangular(c, y, lower=False)


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """Solve ``op(a) x = b`` for triangular ``a``; ``trans`` is ``0``/``"N"`` (``a``),
    ``1``/``"T"`` (``a^T``) or ``2``/``"C"`` (``a^H``). ``b`` is a vector or a matrix."""
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans!r}")
    trans = _TRANS[trans]
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    vector = b.ndim == a.ndim - 1
    rhs = b[..., None] if vector else b
    x = lax.linalg.triangular_solve(a, rhs, left_side=True, lower=lower,
                                    transpose_a=trans > 0, conjugate_a=trans == 2,
                                    unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: ``l`` below the diagonal (unit diagonal implied), ``u`` on and
    above, and the row swaps ``piv`` (row ``i`` was swapped with ``piv[i]``)."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, pivots, _ = lax.linalg.lu(a)
    return lu_, pivots


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (``(p @ l, u)`` with ``permute_l``)."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, _, perm = lax.linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lower = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=a.dtype)
    upper = jnp.triu(lu_)[..., :k, :]
    # a[perm] = l @ u, so a = p @ l @ u with p[perm[i], i] = 1
    p = jnp.swapaxes(jnp.eye(m, dtype=a.dtype)[perm], -1, -2)
    if permute_l:
        return p @ lower, upper
    return p, lower, upper


def lu_solve(lu_and_piv, b, trans=0, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``op(a) x = b`` given ``lu_factor(a)`` (``trans`` as :func:`solve_triangular`)."""
    lu_, pivots = lu_and_piv
    trans = _TRANS[trans]
    lu_, b = promote_dtypes_inexact(jnp.asarray(lu_), jnp.asarray(b))
    m = lu_.shape[-1]
    perm = lax.linalg.lu_pivots_to_permutation(pivots, m)
    if trans == 0:  # a = p l u: l u x = b[perm]
        y = solve_triangular(lu_, jnp.take(b, perm, axis=0), lower=True, unit_diagonal=True)
        return solve_triangular(lu_, y, lower=False)
    # a^T = u^T l^T p^T: u^T y = b, l^T z = y, x[perm] = z
    y = solve_triangular(lu_, b, trans=trans, lower=False)
    z = solve_triangular(lu_, y, trans=trans, lower=True, unit_diagonal=True)
    return jnp.take(z, jnp.argsort(perm), axis=0)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """``(q, r)`` (``mode="full"`` or ``"economic"``), or ``(r,)`` (``mode="r"``)."""
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if pivoting:
        raise NotImplementedError("qr with pivoting=True is not part of minijax.")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    q, r = lax.linalg.qr(a, full_matrices=mode != "economic")  # mode "r": the full r
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """``(u, s, vh)`` with ``a = u @ diag(s) @ vh`` (``s`` alone without ``compute_uv``)."""
    return jnp_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian ``a`` (its ``lower``
    triangle, or the upper one)."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    w, v = jnp_linalg.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant: :func:`minijax.numpy.linalg.det` (JAX's is the same function)."""
    return jnp_linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    return jnp_linalg.inv(a)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """``a x = b``; ``assume_a="pos"`` solves through the Cholesky factor."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"Expected assume_a to be one of 'gen', 'sym', 'her', 'pos'; "
                         f"got {assume_a!r}")
    if assume_a == "pos":
        return cho_solve(cho_factor(a, lower=lower), b)
    return jnp_linalg.solve(a, b)


def block_diag(*arrs):
    """The matrices ``arrs`` (scalars and vectors count as one row) on a diagonal."""
    if not arrs:
        return jnp.zeros((1, 0))
    blocks = [jnp.atleast_2d(jnp.asarray(x)) for x in arrs]
    dtype = jnp.result_type(*blocks)
    cols = sum(x.shape[1] for x in blocks)
    rows, start = [], 0
    for x in blocks:
        pad = ((0, 0), (start, cols - start - x.shape[1]))
        rows.append(jnp.pad(x.astype(dtype), pad))
        start += x.shape[1]
    return jnp.concatenate(rows, axis=0)


#: Higham's Padé [13/13] coefficients and the 1-norm up to which it needs no scaling.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential by scaling and squaring: ``A / 2^s`` has a 1-norm
    below ``theta_13``, the Padé [13/13] approximant ``(V - U)^-1 (V + U)``
    gives its exponential, and ``s`` squarings undo the scaling (Higham 2005)."""
    A, = promote_dtypes_inexact(jnp.asarray(A))
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"expected A to be a square matrix, got shape {A.shape}")
    norm = jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1)
    s = jnp.clip(jnp.ceil(jnp.log2(jnp.maximum(norm, 1e-30) / _THETA13)), 0, max_squarings)
    scaled = A / (2.0 ** s)[..., None, None]
    b = _PADE13
    eye = jnp.eye(A.shape[-1], dtype=A.dtype)
    A2 = scaled @ scaled
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = scaled @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2)
                  + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 \
        + b[0] * eye
    R = jnp_linalg.solve(V - U, V + U)
    for i in range(max_squarings):  # R^(2^s): squared while i < s (a select, no loop)
        R = jnp.where((i < s)[..., None, None], R @ R, R)
    return R


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
    """``expm(A)`` and its Fréchet derivative in the direction ``E`` (the ``jvp`` of
    ``expm``), read off one larger exponential (Mathias 1996):
    ``expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]]``.
    (JAX differentiates its ``expm`` instead: equal up to rounding.)"""
    A, E = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(E))
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={A.shape} "
                         f"E.shape={E.shape}")
    n = A.shape[-1]
    block = jnp.concatenate([jnp.concatenate([A, E], axis=-1),
                             jnp.concatenate([jnp.zeros_like(A), A], axis=-1)], axis=-2)
    big = expm(block)
    expm_A, frechet = big[..., :n, :n], big[..., :n, n:]
    return (expm_A, frechet) if compute_expm else frechet


def polar(a, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None):
    """``(u, p)`` with ``a = u @ p`` (``side="right"``) or ``a = p @ u`` (``"left"``):
    ``u`` unitary, ``p`` Hermitian positive semi-definite. From the SVD
    ``a = W S V^H``: ``u = W V^H``, ``p = V S V^H`` (or ``W S W^H``). JAX's
    default ``method="qdwh"`` (a Halley iteration) gives the same factors up
    to rounding; minijax computes both methods by the SVD."""
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    m, n = a.shape[-2:]
    if method == "qdwh" and ((side == "right" and m < n) or (side == "left" and m >= n
                                                             and m != n)):
        raise NotImplementedError(f"method='qdwh' only supports mxn matrices where m < n "
                                  f"where side='right' and m >= n side='left', got "
                                  f"{a.shape} with side={side!r}")
    a, = promote_dtypes_inexact(a)
    w, s, vh = lax.linalg.svd(a, full_matrices=False)
    s = s.astype(w.dtype)
    unitary = w @ vh
    if side == "right":
        posdef = (_H(vh) * s[..., None, :]) @ vh
    else:
        posdef = (w * s[..., None, :]) @ _H(w)
    return unitary, posdef


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """``(c @ Q, R)`` (``mode="right"``) or ``(Q @ c, R)`` (``"left"``) for the QR
    factorization ``a = Q R`` (``Q`` conjugated with ``conjugate``), without
    handing ``Q`` back."""
    if pivoting:
        raise NotImplementedError("qr_multiply with pivoting=True is not part of minijax.")
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} "
                         f"rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} "
                         f"columns (expected {m}).")
    q, r = lax.linalg.qr(a, full_matrices=False)  # q: m x k, r: k x n
    if conjugate:
        q = jnp.conj(q)
    out = q @ c if mode == "left" else c @ q
    if onedim:
        out = out.ravel()
    return out, jnp.triu(r)
