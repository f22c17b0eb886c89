"""Chapter 00 — ``jnp.linalg``: norms, solvers and decompositions.

Norms are reductions: ``norm(x)`` is ``sqrt(sum(x * x))``, the 1-norm of a
matrix is the largest column sum of ``|x|``, and so on. The norms that need a
singular value decomposition (matrix ``ord=2``, ``-2`` and ``'nuc'``) are not
part of minijax.

Everything else is built, as in JAX, from the primitives of
:mod:`minijax.lax.linalg`: ``solve`` is one ``lu`` and two triangular solves,
``det`` the product of the diagonal of ``U`` times the sign of the
permutation, ``inv(a)`` is ``solve(a, I)``, ``pinv`` and ``lstsq`` come from
the ``svd``. Their derivatives need no rules of their own: they follow from
the JVP rules of the primitives.
"""
from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np

from minijax import dtypes
from minijax import lax
from minijax.lax import linalg as lax_linalg
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.numpy import (creation, indexing, reductions, shapes, tensor_contractions,
                           ufuncs)
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, jnp_jit, promote_dtypes_inexact

__all__ = ["norm", "cond", "vector_norm", "matrix_norm", "inv", "solve", "det", "slogdet", "cholesky",
           "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv", "matrix_power", "matrix_rank",
           "lstsq", "multi_dot", "outer", "cross", "trace", "diagonal", "matmul",
           "matrix_transpose", "vecdot", "tensordot", "tensorinv", "tensorsolve", "SlogdetResult",
           "QRResult", "SVDResult", "EighResult", "eig", "eigvals", "EigResult"]


def _sum_of_squares(x, axis, keepdims):
    return reductions.sum(ufuncs.real(ufuncs.multiply(x, ufuncs.conj(x))), axis=axis,
                          keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ``ord``-norm of ``x`` seen as vectors along ``axis`` (all axes if None).

    ``ord`` may be 2 (default), 1, 0 (number of nonzeros), ``inf``, ``-inf``
    or any other number ``p`` (``sum(|x|**p) ** (1/p)``).
    """
    check_arraylike("jnp.linalg.vector_norm", x)
    x = asarray(x)
    if ord is None or ord == 2:
        return ufuncs.sqrt(_sum_of_squares(x, axis, keepdims))
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{ord[:-3]}jax.numpy.inf' instead."
        raise ValueError(msg)
    if ord == np.inf:
        return reductions.amax(ufuncs.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.amin(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        dtype = dtypes.finfo(ufuncs._dtype(x)).dtype if ufuncs._is(x, np.inexact) else np.float32
        return reductions.sum(ufuncs.not_equal(x, 0), axis=axis, keepdims=keepdims,
                              dtype=dtype)
    if ord == 1:
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    abs_x = ufuncs.abs(x)
    p = ufuncs._strong_const(abs_x, ord)
    total = reductions.sum(lax.pow(abs_x, p), axis=axis, keepdims=keepdims)
    return lax.pow(total, np.asarray(1, p.dtype) / p)


def _matrix_norm(x, ord, row_axis, col_axis, keepdims):
    """Norm of the matrices spanned by ``row_axis`` and ``col_axis``."""
    if ord is None or ord in ("f", "fro"):
        return ufuncs.sqrt(_sum_of_squares(x, (row_axis, col_axis), keepdims))
    if ord in (1, -1):   # largest / smallest column sum
        inner, outer = row_axis, col_axis
    elif ord in (np.inf, -np.inf):  # largest / smallest row sum
        inner, outer = col_axis, row_axis
    elif ord in ("nuc", 2, -2):  # from the singular values
        matrices = shapes.moveaxis(x, (row_axis, col_axis), (-2, -1))
        values = lax_linalg.svd(matrices, full_matrices=False, compute_uv=False)
        reduce = {"nuc": reductions.sum, 2: reductions.amax, -2: reductions.amin}[ord]
        out = reduce(values, axis=-1)
        if keepdims:
            for axis in sorted((row_axis, col_axis)):
                out = lax.expand_dims(out, (axis,))
        return out
    else:
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    if not keepdims and outer > inner:
        outer -= 1
    sums = reductions.sum(ufuncs.abs(x), axis=inner, keepdims=keepdims)
    if ord > 0:
        return reductions.amax(sums, axis=outer, keepdims=keepdims, initial=0)
    return reductions.amin(sums, axis=outer, keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm (``numpy.linalg.norm``).

    With ``axis=None`` a 1-d input gets a vector norm and a 2-d input a matrix
    norm; ``ord=None`` is the 2-norm / Frobenius norm of any input. An int
    ``axis`` asks for vector norms, a pair of axes for matrix norms.
    """
    check_arraylike("jnp.linalg.norm", x)
    x, = promote_dtypes_inexact(asarray(x))
    ndim = len(get_aval(x).shape)
    if axis is None:
        if ord is None:
            return ufuncs.sqrt(_sum_of_squares(x, None, keepdims))
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, ndim) for a in axis)
    else:
        axis = (canonicalize_axis(axis, ndim),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis[0], axis[1], keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                     "compute a vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Norm of the matrices in the last two axes of ``x``."""
    check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


# =============================================================================
# Solvers and decompositions (built from ``lax.linalg``)
# =============================================================================
class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


def _inexact(name: str, *xs):
    """``xs`` as arrays promoted to a float (or complex) dtype: float32 by default."""
    check_arraylike(name, *xs)
    return promote_dtypes_inexact(*(asarray(x) for x in xs))


def _shape(x) -> tuple:
    return get_aval(x).shape


def _check_square(name: str, a):
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {shape}.")


def _H(x):
    """Conjugate transpose of the last two axes."""
    return ufuncs.conj(shapes.matrix_transpose(x))


def _lu_solve(lu, permutation, b):
    """``x`` with ``a @ x = b`` for the matrices ``b``, given ``a``'s LU factorization."""
    x = indexing.take_along_axis(b, permutation[..., None], axis=-2)  # rows of P @ b
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)


def solve(a, b):
    """The solution ``x`` of ``a @ x = b`` (``b`` of shape ``(..., n)`` or ``(..., n, k)``)."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    _check_square("jnp.linalg.solve", a)
    vector = len(_shape(b)) == 1
    if vector:
        b = b[:, None]
    batch = np.broadcast_shapes(_shape(a)[:-2], _shape(b)[:-2])
    a = shapes.broadcast_to(a, batch + _shape(a)[-2:])
    b = shapes.broadcast_to(b, batch + _shape(b)[-2:])
    lu, _, permutation = lax_linalg.lu(a)
    x = _lu_solve(lu, permutation, b)
    return x[..., 0] if vector else x


def inv(a):
    """The inverse of each square matrix: ``solve(a, I)``."""
    a, = _inexact("jnp.linalg.inv", a)
    _check_square("jnp.linalg.inv", a)
    n = _shape(a)[-1]
    eye = shapes.broadcast_to(creation.eye(n, dtype=get_aval(a).dtype), _shape(a))
    return solve(a, eye)


def _lu_det_parts(a):
    """The diagonal of ``U`` and the parity (0 or 1) of the row permutation of ``lu(a)``."""
    lu, pivots, _ = lax_linalg.lu(a)
    diag = shapes.diagonal(lu, axis1=-2, axis2=-1)
    swaps = ufuncs.not_equal(pivots, creation.arange(_shape(pivots)[-1], dtype=np.int32))
    parity = reductions.count_nonzero(swaps, axis=-1) % 2
    return diag, parity


@jnp_jit("det")
def det(a):
    """The determinant, as JAX computes it: the cofactor formula for 2x2 and 3x3
    matrices (exact for small integers), ``sign * exp(log|det|)`` of :func:`slogdet`
    (the LU factor's diagonal) for larger ones."""
    a, = _inexact("jnp.linalg.det", a)
    _check_square("jnp.linalg.det", a)
    n = _shape(a)[-1]
    if n == 2:  # small matrices: the explicit formula, as JAX (exact for small integers)
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if n == 3:  # the rule of Sarrus
        return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
                + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
                + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
                - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
                - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
                - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])
    # larger ones: JAX's route, sign * exp(log|det|) from the LU factor's diagonal
    # (it can differ from the plain product in the last digit: -96.999985 for -97)
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(get_aval(sign).dtype)


def slogdet(a, *, method=None):
    """``(sign, logabsdet)`` of the determinant, without over- or underflow."""
    a, = _inexact("jnp.linalg.slogdet", a)
    _check_square("jnp.linalg.slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`).")
    dtype = get_aval(a).dtype
    diag, parity = _lu_det_parts(a)
    is_zero = reductions.any(ufuncs.equal(diag, 0), axis=-1)
    if np.issubdtype(dtype, np.complexfloating):
        sign = reductions.prod(diag / ufuncs.abs(diag).astype(dtype), axis=-1)
    else:
        sign = asarray(1, dtype)
        parity = parity + reductions.count_nonzero(ufuncs.less(diag, 0), axis=-1)
    sign = ufuncs.where(is_zero, asarray(0, dtype), sign * (1 - 2 * (parity % 2)).astype(dtype))
    logdet = reductions.sum(ufuncs.log(ufuncs.abs(diag)), axis=-1)
    logdet = ufuncs.where(is_zero, asarray(-np.inf, logdet.dtype), logdet)
    return SlogdetResult(sign, ufuncs.real(logdet))


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The Cholesky factor ``L`` (``a = L @ L^H``), or ``L^H`` if ``upper``."""
    a, = _inexact("jnp.linalg.cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def qr(a, mode: str = "reduced"):
    """``QRResult(Q, R)``; ``mode`` is ``'reduced'``, ``'complete'``, ``'r'`` or ``'raw'``."""
    a, = _inexact("jnp.linalg.qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """``SVDResult(U, S, Vh)`` with ``a = U @ diag(S) @ Vh`` (``S`` alone if not ``compute_uv``).

    (``hermitian`` is accepted and ignored: the general SVD is always used.)
    """
    a, = _inexact("jnp.linalg.svd", a)
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         subset_by_index=subset_by_index)
    return SVDResult(*out) if compute_uv else out


def cond(x, p=None):
    """The condition number of ``x``: the ratio of its largest and smallest singular
    values (``p`` None, 2 or -2), else ``norm(x, p) * norm(inv(x), p)``."""
    x, = _inexact("jnp.linalg.cond", x)
    if len(_shape(x)) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                         f"{len(_shape(x))}D")
    if p is None or p in (2, -2):
        values = lax_linalg.svd(x, full_matrices=False, compute_uv=False)
        big, small = values[..., 0], values[..., -1]
        return small / big if p == -2 else big / small
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def svdvals(x, /):
    """The singular values of ``x``, descending."""
    return svd(x, compute_uv=False)


def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """``EighResult(eigenvalues, eigenvectors)`` of a Hermitian matrix, ascending."""
    a, = _inexact("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a):
    """``EigResult(eigenvalues, eigenvectors)`` of a square, not necessarily
    symmetric matrix: complex, not sorted; column ``i`` of the eigenvectors
    goes with eigenvalue ``i``. (Run on the host: LAPACK's ``geev``.)"""
    a, = _inexact("jnp.linalg.eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jnp_jit("eigvals")
def eigvals(a):
    """The (complex, unsorted) eigenvalues of a square matrix."""
    a, = _inexact("jnp.linalg.eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
    """The (ascending) eigenvalues of a Hermitian matrix."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse ``V @ diag(1/s) @ U^H`` (small ``s`` dropped)."""
    a, = _inexact("jnp.linalg.pinv", a)
    rtol = rcond if rtol is None else rtol
    m, n = _shape(a)[-2:]
    if m == 0 or n == 0:
        return creation.empty(_shape(a)[:-2] + (n, m), get_aval(a).dtype)
    u, s, vh = lax_linalg.svd(ufuncs.conj(a), full_matrices=False)
    if rtol is None:
        rtol = max(m, n) * dtypes.finfo(get_aval(s).dtype).eps
    cutoff = asarray(rtol, get_aval(s).dtype)[..., None] * reductions.amax(s, axis=-1,
                                                                           keepdims=True)
    s_inv = ufuncs.where(ufuncs.greater(s, cutoff), 1 / s, 0).astype(get_aval(a).dtype)
    return tensor_contractions.matmul(shapes.matrix_transpose(vh) * s_inv[..., None, :],
                                      shapes.matrix_transpose(u))


def matrix_power(a, n: int):
    """``a`` multiplied by itself ``n`` times (``inv(a)`` for negative ``n``), by squaring."""
    check_arraylike("jnp.linalg.matrix_power", a)
    a = asarray(a)
    shape = _shape(a)
    if len(shape) < 2:
        raise TypeError(f"{len(shape)}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if shape[-2] != shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return shapes.broadcast_to(creation.eye(shape[-1], dtype=get_aval(a).dtype), shape)
    if n < 0:
        a, n = inv(a), -n
    result, square = None, a
    while True:
        n, bit = divmod(n, 2)
        if bit:
            result = square if result is None else tensor_contractions.matmul(result, square)
        if n == 0:
            return result
        square = tensor_contractions.matmul(square, square)


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values above ``rtol`` (default: ``max(s) * max(m, n) * eps``)."""
    M, = _inexact("jnp.linalg.matrix_rank", M)
    if tol is not None:
        rtol = tol
    if len(_shape(M)) < 2:
        return reductions.any(ufuncs.not_equal(M, 0)).astype(np.int32)
    s = svd(M, full_matrices=False, compute_uv=False)
    if rtol is None:
        dtype = get_aval(s).dtype
        rtol = reductions.amax(s, axis=-1) * np.asarray(max(_shape(M)[-2:]) *
                                                        dtypes.finfo(dtype).eps, dtype)
    rtol = shapes.expand_dims(asarray(rtol), len(_shape(asarray(rtol))))
    return reductions.sum(ufuncs.greater(s, rtol), axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """``(x, resid, rank, s)``: the least-squares solution of ``a @ x = b`` through the SVD."""
    a, b = _inexact("jnp.linalg.lstsq", a, b)
    if _shape(a)[0] != _shape(b)[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = len(_shape(b)) == 1
    if vector:
        b = b[:, None]
    if len(_shape(a)) != 2 or len(_shape(b)) != 2:
        raise TypeError(f"{len(_shape(a))}-dimensional array given. Array must be "
                        "two-dimensional")
    m, n = _shape(a)
    dtype = get_aval(a).dtype
    eps = dtypes.finfo(dtype).eps
    rcond = eps * max(m, n) if rcond is None else ufuncs.where(
        ufuncs.less(rcond, 0), asarray(eps, dtypes.finfo(dtype).dtype), rcond)
    u, s, vt = lax_linalg.svd(a, full_matrices=False)
    mask = ufuncs.logical_and(ufuncs.greater(s, 0),
                              ufuncs.greater_equal(s, asarray(rcond, get_aval(s).dtype) * s[0]))
    rank = reductions.sum(mask).astype(np.int32)
    s_inv = ufuncs.where(mask, 1 / ufuncs.where(mask, s, 1), 0).astype(dtype)[:, None]
    x = tensor_contractions.matmul(_H(vt), s_inv * tensor_contractions.matmul(_H(u), b))
    resid = norm(b - tensor_contractions.matmul(a, x), axis=0) ** 2
    return (x[:, 0] if vector else x), resid, rank, s


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (a first 1-d array is a row, a last a column),
    in the cheapest order: it is one :func:`~minijax.numpy.einsum`, whose path search
    picks where the parentheses go."""
    check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrs = [asarray(x) for x in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)="
                         f"{len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2)
            and all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for"
                         " the first and last array which may be 1 or 2 dimensional."
                         f" Got array shapes {[a.shape for a in arrs]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first dimension"
                         f" of following array. Got array shapes {[a.shape for a in arrs]}")
    axes = [(i, i + 1) for i in range(len(arrs))]  # matrix i is indexed by labels i, i+1
    if arrs[0].ndim == 1:
        axes[0] = axes[0][1:]
    if arrs[-1].ndim == 1:
        axes[-1] = axes[-1][:1]
    args = [x for pair in zip(arrs, axes) for x in pair]
    return tensor_contractions.einsum(*args, optimize="auto", precision=precision)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays."""
    check_arraylike("jnp.linalg.outer", x1, x2)
    if len(_shape(asarray(x1))) != 1 or len(_shape(asarray(x2))) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={len(_shape(asarray(x1)))} and "
                         f"x2.ndim={len(_shape(asarray(x2)))}")
    return tensor_contractions.outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis``."""
    check_arraylike("jnp.linalg.cross", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if _shape(x1)[axis] != 3 or _shape(x2)[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they have x1.shape[axis]={_shape(x1)[axis]} and "
                         f"x2.shape[axis]={_shape(x2)[axis]}")
    a = [shapes.moveaxis(x1, axis, -1)[..., i] for i in range(3)]
    b = [shapes.moveaxis(x2, axis, -1)[..., i] for i in range(3)]
    c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return shapes.moveaxis(shapes.stack(c, axis=-1), -1, axis)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The sums of the diagonals of the matrices in the last two axes."""
    return tensor_contractions.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset: int = 0):
    """The diagonals of the matrices in the last two axes."""
    return shapes.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``x1 @ x2`` (the array-API spelling)."""
    return tensor_contractions.matmul(x1, x2, precision=precision,
                                      preferred_element_type=preferred_element_type)


def matrix_transpose(x, /):
    """Swap the last two axes."""
    return shapes.matrix_transpose(x)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """``sum(conj(x1) * x2, axis)``: dot products of the vectors along ``axis``."""
    check_arraylike("jnp.linalg.vecdot", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    x1 = shapes.moveaxis(x1, axis, -1)[..., None, :]
    x2 = shapes.moveaxis(x2, axis, -1)[..., :, None]
    out = tensor_contractions.matmul(ufuncs.conj(x1), x2, precision=precision,
                                     preferred_element_type=preferred_element_type)
    return out[..., 0, 0]


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """The array-API spelling of :func:`jax.numpy.tensordot` (``axes`` is keyword-only)."""
    return tensor_contractions.tensordot(x1, x2, axes=axes, precision=precision,
                                         preferred_element_type=preferred_element_type)


def tensorinv(a, ind: int = 2):
    """The inverse of ``a`` seen as a linear map from its last axes to its first ``ind``."""
    a, = _inexact("jnp.linalg.tensorinv", a)
    shape = _shape(a)
    rows, cols = shape[:ind], shape[ind:]
    flat = shapes.reshape(a, (int(np.prod(rows)), int(np.prod(cols))))
    return shapes.reshape(inv(flat), cols + rows)


def tensorsolve(a, b, axes=None):
    """The ``x`` with ``tensordot(a, x, x.ndim) == b``."""
    a, b = _inexact("jnp.linalg.tensorsolve", a, b)
    if axes is not None:
        a = shapes.moveaxis(a, axes, tuple(range(len(_shape(a)) - len(axes), len(_shape(a)))))
    out_shape = _shape(a)[len(_shape(b)):]
    flat = shapes.reshape(a, (int(np.prod(_shape(b))), int(np.prod(out_shape))))
    return shapes.reshape(solve(flat, shapes.ravel(b)), out_shape)
