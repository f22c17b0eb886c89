"""Chapter 00 — the structured matrices of ``jax.scipy.linalg``.

Each of these builds a matrix whose entries follow a rule from a few
numbers: ``toeplitz`` is constant along its diagonals, ``hankel`` along its
anti-diagonals, ``circulant`` is a Toeplitz matrix whose diagonals wrap
around, ``companion`` has the characteristic polynomial ``a``, and so on.
They are written with index arithmetic and a gather (``v[..., index_matrix]``),
which keeps every entry an exact copy of an input entry and batches over any
leading axes (JAX uses ``jnp.vectorize``, a chapter-04 tool, for the same).
"""
from __future__ import annotations

import math
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact

__all__ = ["toeplitz", "hankel", "circulant", "leslie", "companion", "fiedler",
           "fiedler_companion", "convolution_matrix", "hilbert", "invhilbert", "pascal",
           "invpascal", "helmert", "hadamard", "dft"]


def _diagonal_index(nrows: int, ncols: int, offset: int, sign: int):
    """``offset + sign * (j - i)`` for each entry ``(i, j)``: the position, in a
    vector laid out along the diagonals, that entry ``(i, j)`` copies."""
    i = np.arange(nrows)[:, None]
    j = np.arange(ncols)[None, :]
    return offset + sign * (j - i)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``r[0]`` is
    ignored); without ``r``, ``conj(c)``, which makes it Hermitian."""
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


def _broadcast_batch(c, r):
    """``c`` and ``r`` with their leading (batch) axes broadcast together."""
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    return (jnp.broadcast_to(c, batch + c.shape[-1:]),
            jnp.broadcast_to(r, batch + r.shape[-1:]), batch)


def _toeplitz(c, r):
    c, r, batch = _broadcast_batch(c, r)
    m, n = c.shape[-1], r.shape[-1]
    dtype = jnp.result_type(c, r)
    if m == 0 or n == 0:
        return jnp.zeros(batch + (m, n), dtype)
    # v = c reversed then r[1:]: entry (i, j) is v[m - 1 + (j - i)]
    v = jnp.concatenate((c[..., ::-1].astype(dtype), r[..., 1:].astype(dtype)), axis=-1)
    return v[..., _diagonal_index(m, n, m - 1, 1)]


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (``r[0]`` is
    ignored); without ``r``, zeros below the anti-diagonal."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    return _hankel(c, r)


def _hankel(c, r):
    c, r, batch = _broadcast_batch(c, r)
    m, n = c.shape[-1], r.shape[-1]
    dtype = jnp.result_type(c, r)
    if m == 0 or n == 0:
        return jnp.zeros(batch + (m, n), dtype)
    # v = c then r[1:]: entry (i, j) is v[i + j]
    v = jnp.concatenate((c.astype(dtype), r[..., 1:].astype(dtype)), axis=-1)
    return v[..., np.arange(m)[:, None] + np.arange(n)[None, :]]


def circulant(c):
    """The circulant matrix of first column ``c``: entry ``(i, j)`` is ``c[(i - j) % n]``."""
    check_arraylike("circulant", c)
    c = jnp.atleast_1d(jnp.asarray(c))
    n = c.shape[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def leslie(f, s):
    """The Leslie matrix of an age-structured population: fecundities ``f`` on the
    first row, survival rates ``s`` on the first subdiagonal."""
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; "
                         f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(f"Incorrect lengths for f and s. The length of s along the last "
                         f"axis must be one less than the length of f; got f shape {f.shape} "
                         f"and s shape {s.shape}.")
    f, s, batch = _broadcast_batch(*promote_dtypes(f, s))
    n = f.shape[-1]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    # row 0 copies f; entry (j + 1, j) copies s[j]; the rest is zero
    on_subdiagonal = jnp.asarray(i == j + 1)
    below = jnp.where(on_subdiagonal, s[..., np.minimum(j, n - 2)], jnp.zeros((), f.dtype))
    return jnp.where(jnp.asarray(i == 0), f[..., None, :], below)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest
    first): its eigenvalues are the polynomial's roots."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; "
                         f"got shape {a.shape}.")
    first_row = -a[..., 1:] / a[..., :1]
    m = a.shape[-1] - 1
    ones_below = jnp.eye(m, m, k=-1, dtype=first_row.dtype)
    return jnp.where(jnp.asarray(np.arange(m)[:, None] == 0), first_row[..., None, :],
                     ones_below)


def fiedler(a):
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``."""
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of the polynomial ``a`` (highest
    coefficient first): the same eigenvalues as :func:`companion`, in a band."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(f"fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    n = a.shape[-1] - 1
    if n == 0:
        return jnp.zeros(a.shape[:-1] + (0, 0), a.dtype)
    a = a / a[..., :1]
    if n == 1:
        return -a[..., 1:, None]
    # Fiedler's layout: -a[1] and a 1 in the first column; on even rows i the
    # superdiagonal holds -a[i+2] and the second superdiagonal a 1, the
    # subdiagonal -a[i+1] (from row 2 on); odd rows (from 3 on) a 1 two left.
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    even = i % 2 == 0
    one, zero = jnp.ones((), a.dtype), jnp.zeros((), a.dtype)
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even,
                  (j == i + 2) & even, (j == i - 1) & even & (i >= 2),
                  (j == i - 2) & ~even & (i >= 3)]
    choices = [-a[..., 1, None, None], one, -a[..., np.minimum(i + 2, n) + 0 * j], one,
               -a[..., np.minimum(i + 1, n) + 0 * j], one]
    return jnp.select([jnp.asarray(c) for c in conditions], choices, default=zero)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix ``A`` with ``A @ v == jnp.convolve(a, v, mode)`` for every ``v`` of
    length ``n``: a Toeplitz matrix of shifted copies of ``a``."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    column = jnp.pad(a, pad)                    # a, then zeros: the full first column
    row = jnp.pad(jnp.flip(a, axis=-1), pad)     # a reversed: read backwards for the row
    length = m + n - 1
    if mode == "same":       # keep the middle max(m, n) rows
        trim = min(n, m) - 1
        start, stop = trim // 2, trim - trim // 2
    elif mode == "valid":    # keep the rows where a and v overlap fully
        start = stop = min(n, m) - 1
    else:
        start = stop = 0
    first_column = column[..., start:length - stop]
    first_row = row[..., length - n - start:length - start]
    return toeplitz(first_column, first_row)


def hilbert(n: int):
    """The Hilbert matrix ``1 / (i + j + 1)``, a classic ill-conditioned matrix."""
    a = lax.broadcasted_iota(dtypes.canonicalize_dtype(float), (n, 1), 0)
    return 1 / (a + a.T + 1)


def _comb(N, k):
    """``N choose k`` as floats, through ``gammaln`` (as ``jax.scipy.special.comb``);
    0 where ``k < 0`` or ``k > N``."""
    ok = (N >= 0) & (k >= 0) & (k <= N)
    N, k = jnp.where(ok, N, 0.0), jnp.where(ok, k, 0.0)
    out = lax.exp(lax.lgamma(N + 1) - lax.lgamma(k + 1) - lax.lgamma(N + 1 - k))
    return jnp.where(ok, out, 0.0)


def invhilbert(n: int):
    """The inverse of :func:`hilbert` ``(n)`` from its closed form (integers,
    computed in floats: exact only while they fit the float type)."""
    a = jnp.arange(n, dtype=dtypes.canonicalize_dtype(float))
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * _comb(n + i, n - j - 1) * _comb(n + j, n - i - 1)
            * _comb(s, i) ** 2)


def _binom(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


_KINDS = ["symmetric", "lower", "upper"]


def pascal(n: int, kind: str | None = None):
    """The Pascal matrix: binomial coefficients ``binom(i, j)`` (``"lower"``), its
    transpose (``"upper"``) or the product of the two (``"symmetric"``)."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"Expected kind to be on of: {_KINDS}; got {kind}")
    a = jnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    return lower.T if kind == "upper" else jnp.dot(lower, lower.T)


def invpascal(n: int, kind: str | None = None):
    """The inverse of :func:`pascal`: ``(-1)^(i-j) binom(i, j)`` for ``"lower"``."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"Expected kind to be one of: {_KINDS}; got {kind}")
    a = jnp.arange(n, dtype=dtypes.canonicalize_dtype(float))
    i, j = a[:, None], a[None, :]
    lower_inv = ((-1.0) ** (i - j)) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    return lower_inv.T if kind == "upper" else jnp.dot(lower_inv.T, lower_inv)


def helmert(n: int, full: bool = False):
    """The Helmert matrix: orthonormal rows orthogonal to the all-ones vector
    (which, normalized, is the first row when ``full``)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = np.arange(n - 1)[:, None]
    j = np.arange(n)[None, :]
    k = jnp.asarray(i + 1).astype(dtypes.canonicalize_dtype(float))
    denom = jnp.sqrt(k * (k + 1))
    h = jnp.where(jnp.asarray(j <= i), 1.0 / denom,
                  jnp.where(jnp.asarray(j == i + 1), -k / denom, jnp.zeros_like(denom)))
    if full:
        first = jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype)
        h = jnp.concatenate([first, h], axis=0)
    return h


def hadamard(n: int, dtype=int):
    """The ``n x n`` Hadamard matrix (``n`` a power of 2) by Sylvester's doubling
    ``H -> [[H, H], [H, -H]]``."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = jnp.block([[h, h], [h, -h]])
    return h


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The discrete Fourier transform matrix ``exp(-2 pi i j k / n)`` (divided by
    ``sqrt(n)`` or ``n`` for ``scale="sqrtn"`` or ``"n"``)."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(complex)
    elif not np.issubdtype(np.dtype(dtype), np.complexfloating):
        raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / jnp.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas
