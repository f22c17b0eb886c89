"""Chapter 00 — ``jnp.poly`` and ``jnp.polyfit``: polynomials from roots and from data.

``poly(roots)`` multiplies out ``(x - r_0)(x - r_1)...``: each factor shifts
the coefficients one place and subtracts ``r`` times them. Given a square
matrix it returns the characteristic polynomial ``det(x I - A)``, from the
matrix's (complex) eigenvalues, as JAX does. ``roots(p)`` goes the other way:
the eigenvalues of ``p``'s companion matrix.

``polyfit(x, y, deg)`` is least squares on the Vandermonde matrix, with each
column scaled to unit norm first (its condition number drops a lot), as
NumPy and JAX do; ``full=True`` adds what ``lstsq`` knows (residuals, rank,
singular values, ``rcond``), ``cov=True`` the covariance of the coefficients.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.numpy import creation as _c, reductions as _r, shapes as _s, ufuncs as _u
from minijax.numpy import linalg as _linalg
from minijax.numpy import sorting as _so
from minijax.numpy.misc import vander
from minijax.numpy.tensor_contractions import dot, outer
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["poly", "polyfit", "roots"]


def _complex_of(dtype) -> np.dtype:
    return np.dtype(dtypes.complex64 if np.dtype(dtype).itemsize <= 4 else dtypes.complex128)


def poly(seq_of_zeros):
    """The coefficients (highest power first) of the monic polynomial with the given
    roots, or the characteristic polynomial of a square matrix."""
    check_arraylike("poly", seq_of_zeros)
    (roots,) = promote_dtypes_inexact(_c.asarray(seq_of_zeros))
    roots = _s.atleast_1d(roots)
    shape = roots.shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        roots = _linalg.eigvals(roots)  # a matrix: the roots of its characteristic polynomial
    if roots.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    coeffs = _c.ones((1,), roots.dtype)
    if roots.shape[0] == 0:
        return _c.ones((), roots.dtype)
    for k in range(roots.shape[0]):  # times (x - r_k): shift, and subtract r_k times
        zero = _c.zeros((1,), roots.dtype)
        coeffs = (_s.concatenate([coeffs, zero])
                  - roots[k] * _s.concatenate([zero, coeffs]))
    return coeffs


def _companion_roots(p):
    """The eigenvalues of ``p``'s companion matrix: ones below the diagonal, and
    ``-p[1:] / p[0]`` as the first row (its characteristic polynomial is ``p``)."""
    if p.shape[0] < 2:
        return _c.zeros((0,), _complex_of(p.dtype))
    a = _s.diag(_c.ones((p.shape[0] - 2,), p.dtype), -1)
    a = a.at[0, :].set(-p[1:] / p[0])
    return _linalg.eigvals(a)


def roots(p, *, strip_zeros: bool = True):
    """The (complex) roots of the polynomial with coefficients ``p``, highest first.

    Leading zeros lower the degree. With ``strip_zeros`` (needs concrete
    values) they are dropped first; without, they are rolled to the end
    (zero roots, sorted last) and that many roots are reported as NaN.
    """
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(_c.asarray(p))
    p = _s.atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.shape[0] < 2:
        return _c.zeros((0,), _complex_of(p.dtype))
    is_zero = p == 0
    leading = _u.where(_r.all(is_zero), p.shape[0], _r.argmin(is_zero))
    if strip_zeros:
        n = int(leading.tolist())  # a tracer raises ConcretizationTypeError here
        return _companion_roots(p[n:])
    p = _u.where(p.shape[0] == leading, 1.0, p)  # all zero: avoid LAPACK on NaNs
    found = _companion_roots(_s.roll(p, -leading))
    found = found[_so.argsort(found == 0, stable=True)]  # the zero roots last
    keep = _c.arange(found.shape[0]) < found.shape[0] - leading
    return _u.where(keep, found, complex(np.nan, np.nan))


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (coefficients highest first);
    ``y`` may hold one data set per column."""
    check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
    x, y = _c.asarray(x), _c.asarray(y)
    deg = int(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:  # np.finfo: integer x raises "not inexact", as in JAX
        rcond = x.shape[0] * float(np.finfo(x.dtype).eps)
    rcond = float(rcond)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_dtypes_inexact(_c.asarray(w))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = _u.sqrt(_r.sum(lhs * lhs, axis=0))  # unit-norm columns: a better conditioned solve
    lhs = lhs / scale[None, :]
    c, resids, rank, s = _linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, _c.asarray(rcond)
    if not cov:
        return c
    vbase = _linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if isinstance(cov, str) and cov == "unscaled":
        fac = _c.array(1.0)
    else:
        if x.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (x.shape[0] - order)
    if y.ndim == 1:
        return c, vbase * _s.atleast_1d(fac)[None]
    return c, vbase[:, :, None] * _s.atleast_1d(fac)[None, None, :]
