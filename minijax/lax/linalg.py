"""Chapter 00 — ``lax.linalg``: the dense matrix factorizations as primitives.

Every solver of ``jnp.linalg`` is built from six primitives, each acting on
the last two axes of its operands and batched over any leading axes:

* ``cholesky(a)``: the lower triangular ``L`` with ``a = L @ L^H``;
* ``triangular_solve(a, b)``: ``x`` with ``op(a) @ x = b`` (or ``x @ op(a) = b``)
  for a triangular ``a``;
* ``lu(a)``: ``P @ a = L @ U`` by Gaussian elimination with partial pivoting;
* ``qr(a)``: ``a = Q @ R`` with orthonormal ``Q`` and upper triangular ``R``;
* ``eigh(a)``: eigenvectors and (ascending) eigenvalues of a Hermitian ``a``;
* ``svd(a)``: ``a = U @ diag(s) @ V^H``.

The impls call SciPy's LAPACK wrappers one matrix at a time: JAX's CPU kernels
call the very same LAPACK routines (``potrf``, ``geqrf``, ``syevd``, ``gesdd``,
``geev``) from SciPy's library, so the results agree to the last bit, which
NumPy's own (differently built) LAPACK does not promise. ``triangular_solve`` and
``lu`` call the BLAS/LAPACK routines XLA's CPU backend calls (``?trsm``, ``?getrf``);
``lu`` is also written out below (for the dtypes LAPACK lacks), to show what
``?getrf`` does. As in JAX, a
failed factorization (``cholesky`` of a matrix that is not positive definite)
gives NaNs rather than an exception.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from minijax import dtypes
from minijax import lax  # (this module is imported last by ``minijax.lax``)
from minijax.abstract_arrays import ShapedArray, get_aval
from minijax.lax.base import standard_primitive
from minijax.lax.shapes import multiple_results_primitive

__all__ = ["cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr",
           "eigh", "svd", "cholesky_p", "triangular_solve_p", "lu_p", "qr_p", "eigh_p",
           "svd_p", "lu_pivots_to_permutation_p", "schur", "schur_p", "hessenberg",
           "hessenberg_p", "householder_product", "householder_product_p", "eig", "eig_p"]


# --- shared checks ------------------------------------------------------------------------
def _check_matrix(name: str, aval: ShapedArray, square: bool = False):
    """``aval`` must be a (stack of) floating/complex matrices, square if asked."""
    if aval.ndim < 2:
        raise ValueError(f"Argument to {name} must have shape [..., m, n], got "
                         f"{aval.shape}.")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got "
                         f"{aval.shape}.")
    if not dtypes.issubdtype(aval.dtype, np.inexact):
        raise TypeError(f"{name} requires a floating point or complex operand, got "
                        f"{aval.dtype}.")


def _real_dtype(dtype) -> np.dtype:
    return dtypes.finfo(dtype).dtype


def _per_matrix(fn, *arrays):
    """Apply ``fn`` to each matrix (last two axes) of ``arrays``; stack the results."""
    batch = arrays[0].shape[:-2]
    outs = [fn(*(a[idx] for a in arrays)) for idx in np.ndindex(*batch)]
    if not outs:  # an empty batch: ask ``fn`` for the shape of one result
        one = fn(*(np.zeros(a.shape[-2:], a.dtype) for a in arrays))
        return np.zeros(batch + one.shape, one.dtype)
    return np.stack(outs).reshape(batch + outs[0].shape)


def _per_matrix_many(fn, x, count):
    """``fn(matrix)`` gives ``count`` results; each stacked over ``x``'s batch axes."""
    batch = x.shape[:-2]
    results = [fn(x[idx]) for idx in np.ndindex(*batch)]
    return [np.stack([r[k] for r in results]).reshape(batch + np.shape(results[0][k]))
            for k in range(count)]


def _scipy_or_numpy(scipy_fn, numpy_fn, x, count):
    """``count`` result stacks of ``scipy_fn`` on each matrix of ``x`` (SciPy's LAPACK,
    as XLA's CPU kernels); ``numpy_fn`` on the whole stack where SciPy refuses
    (empty matrices or batches) or LAPACK fails (it then raises as NumPy does)."""
    if x.size == 0:
        return numpy_fn(x)
    try:
        return _per_matrix_many(scipy_fn, x, count)
    except (ValueError, np.linalg.LinAlgError):
        return numpy_fn(x)


# --- cholesky -------------------------------------------------------------------------------
def _cholesky_one(a):
    try:
        return scipy.linalg.cholesky(a, lower=True, check_finite=False)  # LAPACK's potrf
    except np.linalg.LinAlgError:  # not positive definite: NaNs, as XLA
        return np.full(a.shape, np.nan, a.dtype)


def _cholesky_shape(x):
    _check_matrix("cholesky", x, square=True)
    return x.shape


cholesky_p = standard_primitive(
    "cholesky", _cholesky_shape, lambda x: x.dtype,
    lambda x: _per_matrix(_cholesky_one, np.asarray(x)).astype(x.dtype))


def _symmetrize(x):
    """``(x + x^H) / 2``: the Hermitian part of ``x`` (what the factorizations read)."""
    return lax.div(lax.add(x, _H(x)), lax.full((), 2, get_aval(x).dtype))


def _H(x):
    """The conjugate transpose of the last two axes."""
    x_t = _T(x)
    return lax.conj(x_t) if np.issubdtype(get_aval(x).dtype, np.complexfloating) else x_t


def _T(x):
    nd = get_aval(x).ndim
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _tril(x, lower: bool = True):
    """The lower (upper) triangle of each matrix of ``x``, zeros elsewhere."""
    aval = get_aval(x)
    # (row + k >= col keeps the k-th diagonal and below; JAX's jaxpr shows the ``add`` even for k=0)
    rows = lax.add(lax.broadcasted_iota(np.int32, aval.shape, aval.ndim - 2), np.int32(0))
    cols = lax.broadcasted_iota(np.int32, aval.shape, aval.ndim - 1)
    keep = lax.ge(rows, cols) if lower else lax.le(rows, cols)
    return lax.select(keep, x, lax.full(aval.shape, 0, aval.dtype))


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor ``L`` of each matrix (``x = L @ L^H``); NaNs if not PD."""
    if symmetrize_input:
        x = _symmetrize(x)
    return _tril(cholesky_p.bind(x))


# --- triangular_solve -----------------------------------------------------------------------
def _triangular_solve_shape(a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    _check_matrix("triangular_solve", a, square=True)
    if b.ndim < 2:
        raise ValueError(f"triangular_solve requires b.ndim >= 2, got {b.shape}.")
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve requires a and b of the same dtype, got "
                        f"{a.dtype} and {b.dtype}.")
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError("triangular_solve requires both arguments to have the same number "
                         f"of dimensions and equal batch dimensions, got {a.shape} and "
                         f"{b.shape}.")
    common = b.shape[-2] if left_side else b.shape[-1]
    if common != a.shape[-1]:
        side = "left" if left_side else "right"
        raise TypeError(f"triangular_solve requires the {side} side of b to match a, got "
                        f"{a.shape} and {b.shape}.")
    return b.shape


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a,
                           unit_diagonal):
    a, b = np.asarray(a), np.asarray(b)
    if conjugate_a and not transpose_a:  # SciPy only conjugates along with transposing
        a, lower, trans = np.conj(a), lower, 0
    else:
        trans = (2 if conjugate_a else 1) if transpose_a else 0
    if not left_side:  # x @ op(a) = b  <=>  op(a)^T @ x^T = b^T
        b = np.swapaxes(b, -1, -2)
        trans = {0: 1, 1: 0, 2: "conj"}[trans]
        if trans == "conj":  # x @ a^H = b  <=>  conj(a) @ x^T = b^T
            a, trans = np.conj(a), 0

    if b.dtype in _BLAS_TYPES and a.dtype == b.dtype:
        solve = _trsm_solver(b.dtype, trans, lower, unit_diagonal)
    else:  # (float16 and the like: LAPACK's ?trtrs through SciPy, in a wider type)
        def solve(a1, b1):
            return scipy.linalg.solve_triangular(a1, b1, trans=trans, lower=lower,
                                                 unit_diagonal=unit_diagonal,
                                                 check_finite=False)
    with np.errstate(all="ignore"):
        x = _per_matrix(solve, a, b).astype(b.dtype)
    return x if left_side else np.swapaxes(x, -1, -2)


#: The dtypes BLAS and LAPACK have routines for (``s``, ``d``, ``c``, ``z``).
_BLAS_TYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _trsm_solver(dtype, trans, lower, unit_diagonal):
    """A solve of one matrix by BLAS ``?trsm``, the routine XLA's CPU backend calls.

    ``scipy.linalg.solve_triangular`` goes through LAPACK ``?trtrs`` instead,
    which divides by each diagonal entry where ``?trsm`` (as OpenBLAS writes
    it) multiplies by its reciprocal: the two differ in the last digit of a
    float32, and JAX prints the ``?trsm`` one.
    """
    trsm = scipy.linalg.get_blas_funcs("trsm", dtype=dtype)
    trans_a = {0: 0, 1: 1, 2: 2}[trans]

    def solve(a1, b1):
        return trsm(1.0, a1, b1, side=0, lower=int(lower), trans_a=trans_a,
                    diag=int(unit_diagonal))
    return solve


triangular_solve_p = standard_primitive(
    "triangular_solve", _triangular_solve_shape, lambda a, b, **_: b.dtype,
    _triangular_solve_impl, linear_in=(1,))


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``.

    ``op`` transposes and/or conjugates ``a``; only its ``lower`` (or upper)
    triangle is read, and its diagonal is taken as ones if ``unit_diagonal``.
    """
    return triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                   transpose_a=transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)


# --- lu -------------------------------------------------------------------------------------
def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    return [x.update(weak_type=False),
            ShapedArray((*batch, min(m, n)), np.dtype(np.int32)),
            ShapedArray((*batch, m), np.dtype(np.int32))]


def _swap_rows(x, j, p):
    """Swap row ``j`` with row ``p`` (one per matrix of the batch) in each matrix of ``x``."""
    m = x.shape[-2] if x.ndim == p.ndim + 2 else x.shape[-1]
    rows = np.broadcast_to(np.arange(m), p.shape + (m,)).copy()
    np.put_along_axis(rows, p[..., None], j, axis=-1)
    rows[..., j] = p
    if x.ndim == p.ndim + 1:  # a vector per matrix (the permutation)
        return np.take_along_axis(x, rows, axis=-1)
    return np.take_along_axis(x, rows[..., None], axis=-2)


def _lu_impl(x):
    """Gaussian elimination with partial pivoting, on all matrices of the batch at once.

    Column ``j``: pick the largest ``|entry|`` on or below the diagonal as pivot,
    swap its row up, store the multipliers below the diagonal (that is ``L``)
    and subtract from the rows below (what is left on and above is ``U``).
    """
    if np.asarray(x).dtype in _BLAS_TYPES:
        return _lu_by_getrf(np.asarray(x))
    a = np.array(x, copy=True)
    *batch, m, n = a.shape
    k = min(m, n)
    pivots = np.zeros((*batch, k), np.int32)
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), (*batch, m)).copy()
    for j in range(k):
        p = (j + np.argmax(np.abs(a[..., j:, j]), axis=-1)).astype(np.int32)
        pivots[..., j] = p
        a, perm = _swap_rows(a, j, p), _swap_rows(perm, j, p)
        pivot = a[..., j, j][..., None]
        safe = np.where(pivot == 0, np.ones((), a.dtype), pivot)  # LAPACK skips a zero pivot
        a[..., j + 1:, j] = np.where(pivot == 0, a[..., j + 1:, j], a[..., j + 1:, j] / safe)
        a[..., j + 1:, j + 1:] -= a[..., j + 1:, j, None] * a[..., j, None, j + 1:]
    return [a, pivots, perm]


def _lu_by_getrf(x):
    """The same factorization by LAPACK ``?getrf``, one matrix at a time, as XLA on
    CPU: it scales the column below a pivot by the pivot's reciprocal (the loop
    above divides), so this is the one whose last digits match JAX's."""
    getrf = scipy.linalg.get_lapack_funcs("getrf", dtype=x.dtype)
    *batch, m, n = x.shape
    k = min(m, n)
    lu_ = np.empty_like(x)
    pivots = np.zeros((*batch, k), np.int32)
    for idx in np.ndindex(*batch):
        if m == 0 or n == 0:
            continue
        lu_[idx], piv, _ = getrf(x[idx])
        pivots[idx] = piv[:k]
    if m == 0 or n == 0:
        lu_ = x.copy()
    return [lu_, pivots, _pivots_to_permutation_impl(pivots, permutation_size=m)]


lu_p = multiple_results_primitive("lu", _lu_abstract_eval, _lu_impl)


def lu(x):
    """``(lu, pivots, permutation)`` with ``x[permutation] = L @ U``.

    ``lu`` packs unit lower triangular ``L`` (below the diagonal) and ``U``
    (on and above it); ``pivots[i]`` is the row swapped with row ``i`` at step
    ``i`` (LAPACK's convention); ``permutation`` is the net row order.
    """
    return lu_p.bind(x)  # a list, as in JAX


def _pivots_to_permutation_impl(pivots, *, permutation_size):
    pivots = np.asarray(pivots)
    perm = np.broadcast_to(np.arange(permutation_size, dtype=np.int32),
                           pivots.shape[:-1] + (permutation_size,)).copy()
    for j in range(pivots.shape[-1]):
        perm = _swap_rows(perm, j, pivots[..., j])
    return perm


def _pivots_to_permutation_shape(pivots, *, permutation_size):
    if pivots.ndim < 1 or pivots.dtype != np.int32:
        raise ValueError(f"lu_pivots_to_permutation requires int32 pivots of shape [..., k], "
                         f"got {pivots.dtype}{list(pivots.shape)}")
    if pivots.shape[-1] > permutation_size:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the "
                         f"trailing dimension of the pivots. Got pivots size "
                         f"{pivots.shape[-1]}")
    return pivots.shape[:-1] + (permutation_size,)


lu_pivots_to_permutation_p = standard_primitive(
    "lu_pivots_to_permutation", _pivots_to_permutation_shape, lambda p, **_: np.dtype(np.int32),
    _pivots_to_permutation_impl, weak_type_rule=lambda *a, **k: False)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The row order produced by applying the swaps ``pivots`` (from ``lu``) in order."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=permutation_size)


# --- qr -------------------------------------------------------------------------------------
def _qr_abstract_eval(x, *, full_matrices, pivoting, use_magma):
    _check_matrix("qr", x)
    if pivoting:
        raise NotImplementedError("qr with pivoting=True is not part of minijax.")
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    x = x.update(weak_type=False)
    return [x.update(shape=(*batch, m, k)), x.update(shape=(*batch, k, n))]


def _qr_impl(x, *, full_matrices, pivoting, use_magma):
    x = np.asarray(x)
    q, r = _scipy_or_numpy(
        lambda a: scipy.linalg.qr(a, mode="full" if full_matrices else "economic",
                                  check_finite=False),
        lambda a: np.linalg.qr(a, mode="complete" if full_matrices else "reduced"), x, 2)
    return [q.astype(x.dtype), r.astype(x.dtype)]


qr_p = multiple_results_primitive("qr", _qr_abstract_eval, _qr_impl)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """``(q, r)`` with ``x = q @ r``: ``q`` orthonormal columns, ``r`` upper triangular."""
    q, r = qr_p.bind(x, full_matrices=full_matrices, pivoting=pivoting, use_magma=use_magma)
    return q, r


# --- eigh -----------------------------------------------------------------------------------
def _eigh_abstract_eval(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", x, square=True)
    if subset_by_index is not None:
        raise NotImplementedError("eigh with subset_by_index is not part of minijax.")
    x = x.update(weak_type=False)
    return [x, x.update(shape=x.shape[:-1], dtype=_real_dtype(x.dtype))]


def _eigh_impl(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    x = np.asarray(x)
    w, v = _scipy_or_numpy(  # ascending eigenvalues, by LAPACK's syevd/heevd
        lambda a: scipy.linalg.eigh(a, lower=lower, driver="evd", check_finite=False),
        lambda a: np.linalg.eigh(a, UPLO="L" if lower else "U"), x, 2)
    return [v.astype(x.dtype), w.astype(_real_dtype(x.dtype))]


eigh_p = multiple_results_primitive("eigh", _eigh_abstract_eval, _eigh_impl)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None):
    """``(v, w)``: eigenvectors (columns of ``v``) and ascending eigenvalues ``w``.

    Only the ``lower`` (or upper) triangle of ``x`` is read, after
    ``symmetrize_input`` replaces ``x`` by its Hermitian part.
    """
    if symmetrize_input:
        x = _symmetrize(x)
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                       subset_by_index=subset_by_index, algorithm=None)
    return v, w


# --- eig (not symmetric) --------------------------------------------------------------------
def _complex_dtype(dtype) -> np.dtype:
    return np.dtype(np.complex64 if np.dtype(dtype).itemsize <= 4 else np.complex128)


def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
    _check_matrix("eig", x, square=True)
    c = x.update(dtype=_complex_dtype(x.dtype), weak_type=False)
    outs = [c.update(shape=x.shape[:-1])]
    return outs + [c] * (int(compute_left_eigenvectors) + int(compute_right_eigenvectors))


def _eig_one(a, left: bool, right: bool):
    """LAPACK's ``geev`` on one matrix, in the matrix's own precision (as XLA on CPU)."""
    cdt = _complex_dtype(a.dtype)
    if not np.all(np.isfinite(a)):  # geev refuses: NaNs, as XLA
        nan = np.full(a.shape, np.nan + 1j * np.nan, cdt)
        return [nan[0]] + [nan] * (int(left) + int(right))
    out = scipy.linalg.eig(a, left=left, right=right)
    out = out if isinstance(out, tuple) else (out,)  # (w,) or (w, vl) / (w, vr) / (w, vl, vr)
    return [np.asarray(o).astype(cdt) for o in out]


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    x = np.asarray(x)
    left, right = bool(compute_left_eigenvectors), bool(compute_right_eigenvectors)
    count = 1 + int(left) + int(right)
    if x.size == 0:
        cdt = _complex_dtype(x.dtype)
        return [np.zeros(x.shape[:-1], cdt)] + [np.zeros(x.shape, cdt)] * (count - 1)
    return _per_matrix_many(lambda a: _eig_one(a, left, right), x, count)


eig_p = multiple_results_primitive("eig", _eig_abstract_eval, _eig_impl)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
    """Eigenvalues ``w`` of a square (not necessarily symmetric) ``x``, then its left
    eigenvectors ``vl`` (``vl^H x = w vl^H``) and right ones ``vr`` (``x vr = vr w``)
    when asked: a list ``[w, vl, vr]`` (or fewer), all complex.

    Each eigenvector has unit norm and its largest component real (LAPACK's
    ``geev`` choice). Derivatives are of the eigenvalues only, unless
    ``enable_eigvec_derivs`` (the eigenvectors' then assume distinct eigenvalues).
    """
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors),
                      enable_eigvec_derivs=bool(enable_eigvec_derivs),
                      implementation=implementation)


# --- svd ------------------------------------------------------------------------------------
def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", x)
    if subset_by_index is not None:
        raise NotImplementedError("svd with subset_by_index is not part of minijax.")
    *batch, m, n = x.shape
    k = min(m, n)
    x = x.update(weak_type=False)
    s = x.update(shape=(*batch, k), dtype=_real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    ku, kv = (m, n) if full_matrices else (k, k)
    return [s, x.update(shape=(*batch, m, ku)), x.update(shape=(*batch, kv, n))]


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    x = np.asarray(x)
    if not compute_uv:  # LAPACK's gesdd
        s, = _scipy_or_numpy(lambda a: [scipy.linalg.svd(a, compute_uv=False, check_finite=False)],
                             lambda a: [np.linalg.svd(a, compute_uv=False)], x, 1)
        return [s.astype(_real_dtype(x.dtype))]
    u, s, vh = _scipy_or_numpy(
        lambda a: scipy.linalg.svd(a, full_matrices=full_matrices, check_finite=False),
        lambda a: np.linalg.svd(a, full_matrices=full_matrices), x, 3)
    return [s.astype(_real_dtype(x.dtype)), u.astype(x.dtype), vh.astype(x.dtype)]


svd_p = multiple_results_primitive("svd", _svd_abstract_eval, _svd_impl)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (just ``s`` if not ``compute_uv``).

    The singular values ``s`` are real, nonnegative and descending.
    """
    out = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                     subset_by_index=subset_by_index, algorithm=algorithm)
    if not compute_uv:
        return out[0]
    s, u, vh = out
    return u, s, vh


# --- schur, hessenberg, householder_product (jax.scipy.linalg's extra factorizations) -----
# Like JAX, these have no differentiation rule, and the CPU target leaves them to
# the interpreter; the impls call the LAPACK routines XLA's CPU backend calls
# (``?gees``, ``?gehrd``, ``?orgqr``/``?ungqr``), one matrix at a time.
def _schur_abstract_eval(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_matrix("schur", x, square=True)
    if not np.issubdtype(x.dtype, np.inexact):
        raise TypeError(f"schur does not accept dtype {x.dtype}; it needs a floating or "
                        "complex matrix")
    out = x.update(weak_type=False)
    return [out, out] if compute_schur_vectors else [out]


def _schur_impl(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    x = np.asarray(x)
    # ``output="real"`` keeps a real matrix real: 2x2 blocks on T's diagonal hold
    # each complex-conjugate pair of eigenvalues (LAPACK's standardized form)
    pairs = _per_matrix(lambda a: np.stack(scipy.linalg.schur(a, output="real")), x)
    t, z = pairs[..., 0, :, :].astype(x.dtype), pairs[..., 1, :, :].astype(x.dtype)
    return [t, z] if compute_schur_vectors else [t]


schur_p = multiple_results_primitive("schur", _schur_abstract_eval, _schur_impl)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """``(T, Q)`` with ``x = Q @ T @ Q^H``, ``Q`` unitary and ``T`` upper
    triangular (quasi-triangular, with 2x2 blocks, for a real ``x``)."""
    out = schur_p.bind(x, compute_schur_vectors=compute_schur_vectors,
                       sort_eig_vals=sort_eig_vals, select_callable=select_callable)
    return tuple(out) if compute_schur_vectors else out[0]


def _hessenberg_abstract_eval(x):
    _check_matrix("hessenberg", x, square=True)
    n = x.shape[-1]
    return [x.update(weak_type=False),
            ShapedArray(x.shape[:-2] + (max(n - 1, 0),), x.dtype)]


def _hessenberg_one(a):
    """LAPACK ``?gehrd``: ``a`` with the Hessenberg matrix on and above the first
    subdiagonal and the Householder vectors below it, and their ``taus``."""
    gehrd = scipy.linalg.get_lapack_funcs("gehrd", dtype=a.dtype)
    n = a.shape[-1]
    if n == 0:
        return a.copy(), np.zeros((0,), a.dtype)
    packed, tau, _ = gehrd(a, lo=0, hi=n - 1)
    return packed, tau[:n - 1]


def _hessenberg_impl(x):
    x = np.asarray(x)
    batch, n = x.shape[:-2], x.shape[-1]
    packed = np.empty_like(x)
    taus = np.zeros(batch + (max(n - 1, 0),), x.dtype)
    for idx in np.ndindex(*batch):
        packed[idx], taus[idx] = _hessenberg_one(x[idx])
    return [packed, taus]


hessenberg_p = multiple_results_primitive("hessenberg", _hessenberg_abstract_eval,
                                          _hessenberg_impl)


def hessenberg(a):
    """``(a, taus)``: the upper Hessenberg form on and above ``a``'s first
    subdiagonal, Householder reflectors below it, their scalar factors in ``taus``."""
    return tuple(hessenberg_p.bind(a))


def _householder_product_shape(a, taus):
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(f"The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.shape[-1] > min(m, n):
        raise ValueError("The second argument to householder_product must not have more "
                         "rows than the minimum of the first argument's rows and columns.")
    return a.shape


def _householder_product_impl(a, taus):
    """LAPACK ``?orgqr`` (``?ungqr``): ``H_0 H_1 ... H_{k-1}`` times the first ``n``
    columns of the identity, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` below the
    diagonal of column ``i`` of ``a`` (a 1 on the diagonal)."""
    a, taus = np.asarray(a), np.asarray(taus)
    name = "ungqr" if np.issubdtype(a.dtype, np.complexfloating) else "orgqr"
    orgqr = scipy.linalg.get_lapack_funcs(name, dtype=a.dtype)
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        m, n = a.shape[-2:]
        if m == 0 or n == 0:
            continue
        k = taus.shape[-1]
        tau = np.zeros(n, a.dtype)
        tau[:k] = taus[idx]  # reflectors past k are the identity (tau 0)
        out[idx], _, _ = orgqr(a[idx], tau)
    return out


householder_product_p = standard_primitive(
    "householder_product", _householder_product_shape, lambda a, taus: a.dtype,
    _householder_product_impl)


def householder_product(a, taus):
    """The unitary product of the Householder reflectors stored below ``a``'s
    diagonal (with scalar factors ``taus``): the ``Q`` of ``?geqrf``/``?gehrd``."""
    return householder_product_p.bind(a, taus)
