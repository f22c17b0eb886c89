"""Chapter 00 — ``jnp.linalg``: vector and matrix norms.

Norms are reductions: ``norm(x)`` is ``sqrt(sum(x * x))``, the 1-norm of a
matrix is the largest column sum of ``|x|``, and so on. The norms that need a
singular value decomposition (matrix ``ord=2``, ``-2`` and ``'nuc'``) and the
solvers (``det``, ``inv``, ``solve``) are not part of minijax yet.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.numpy import reductions, ufuncs
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["norm", "vector_norm", "matrix_norm"]


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
        dtype = np.finfo(ufuncs._dtype(x)).dtype if ufuncs._is(x, np.inexact) else np.float32
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
    elif ord in ("nuc", 2, -2):
        raise NotImplementedError(f"jnp.linalg.norm with ord={ord!r} needs a singular value "
                                  "decomposition, which minijax does not provide.")
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
