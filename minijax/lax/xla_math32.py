"""Chapter 00 — XLA's float32 transcendentals, bit for bit.

``jax.lax.tanh(x)`` on a float32 CPU array is not the correctly rounded
``tanh``: XLA compiles it into a short straight-line approximation (a
rational function, a Cephes polynomial) that is within an ulp or two of the
true value, and *that* is what a JAX program prints. A program that must
print the same digits under ``import jax`` and ``import minijax as jax``
therefore has to run XLA's algorithms, step for step, rounding where XLA
rounds. This module writes them down once:

* the eager impl rules (:mod:`minijax.lax.elementwise`) call these
  functions on NumPy float32 arrays;
* the compiled CPU kernels (:mod:`minijax.backends.cpu.math_helpers`) turn
  the *same* functions into Numba helpers: they read each function's source,
  replace ``select(c, a, b)`` by ``a if c else b`` and ``flush(v)`` by its
  scalar form, and ``fma`` becomes the hardware's fused multiply-add.

So each function is written in the small subset of Python that means the same
thing on a NumPy array and on a Numba scalar: float32 arithmetic with every
constant wrapped in ``np.float32`` (a bare Python float would promote a Numba
float32 to float64), comparisons, ``abs``, ``np.floor``, ``np.copysign``,
the bit views ``np.float32(v).view(np.int32)``, and three building blocks:

``fma(a, b, c)``
    ``a * b + c`` rounded ONCE. XLA's LLVM code fuses a multiply feeding an
    add into one FMA instruction wherever its fast-math flags allow (every
    Horner step of a polynomial, the Cody-Waite reduction of ``exp``), and a
    fused step rounds differently from a multiply then an add. Which steps
    are fused is no guess: each choice below was checked against JAX 0.10.2
    on six million inputs. NumPy has no FMA, so :func:`fma` computes it
    exactly: the product of two float32 is exact in float64, the sum is
    rounded to float64 *to odd* (see :func:`fma`), and rounding that to
    float32 is then the correctly rounded ``a * b + c``.
``select(c, a, b)``
    ``a`` where ``c`` holds, else ``b``: XLA (and a SIMD lane) computes both
    sides and picks one, so no branch.
``flush(v)``
    ``v``, or a zero of its sign if ``v`` is subnormal. XLA's CPU code runs
    with the processor's flush-to-zero and denormals-are-zero modes on:
    a subnormal float32 (below 2**-126) entering an arithmetic operation
    counts as zero, and one coming out of it is replaced by zero. That is
    why ``jax.numpy.exp(-87.5)`` prints ``0.0`` (the true value, 1e-38, is
    subnormal) and ``jax.numpy.log(1e-40)`` prints ``-inf``.

The algorithms (see each function) follow XLA's CPU code generator:
``exp`` and ``log`` are the Cephes polynomials of XLA's
``polynomial_approximations``; ``tanh`` and ``erf`` are Eigen's rational
approximations (``ptanh_float``, ``generic_fast_erf_float``); ``log1p`` and
``expm1`` are XLA's elemental emitter's (a Cephes rational function for
small ``|x|``; ``tanh(x/2) (exp(x) + 1)``); ``logistic`` is XLA's expansion
``1 / (1 + exp(-x))``. Each reproduces JAX 0.10.2's float32 CPU results for
every one of six million test inputs (normal, log-uniform from 1e-43 to 1e43,
subnormal, ±0, ±inf, NaN, the thresholds) — and each is, by design, *not*
correctly rounded: off by a few ulps (up to 4 for ``tanh`` and ``erf``
in a sweep of every binade, 5 for ``exp`` next to its overflow threshold).

rsqrt is not here: XLA computes it from the processor's ``rsqrt``
estimate instruction refined by Newton steps, whose bits depend on the
chip; minijax keeps the correctly rounded ``1 / sqrt(x)``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fma", "select", "flush", "exp32", "log32", "log1p32", "expm1_32", "tanh32",
           "logistic32", "erf32", "expm1_half", "expm1_whole", "RECIPES", "on_float32", "SMALLEST_NORMAL"]

_F32 = np.float32
#: The smallest normal float32, 2**-126: below it a float32 is subnormal.
SMALLEST_NORMAL = 1.1754943508222875e-38


# --- the three building blocks, for NumPy arrays ----------------------------------------
def fma(a, b, c):
    """The float32 fused multiply-add ``a * b + c``, rounded once, exactly.

    ``a * b`` is exact in float64 (24 + 24 bits < 53), so ``s = a * b + c``
    in float64 is the exact result rounded once, to 53 bits; rounding ``s``
    to float32 then gives the correctly rounded result -- unless ``s`` fell
    exactly halfway between two float32s while the exact sum did not (a
    *double rounding*: the tie is then settled the wrong way). Such lanes are
    rare (about one sum in 2**29 for random operands); they are found from
    the low 29 bits of ``s`` (``1000...0``: a float32 tie) and redone with
    :func:`_fma_round_to_odd`.
    """
    s = np.asarray(np.multiply(a, b, dtype=np.float64))
    if s.shape == np.broadcast_shapes(s.shape, np.shape(c)):
        np.add(s, c, out=s, dtype=np.float64)
    else:
        s = np.add(s, c, dtype=np.float64)
    low_words = s.reshape(-1).view(np.uint32)[_LOW_WORD::2]  # the float64s' low 32 bits
    tie = (low_words & np.uint32(0x1FFFFFFF)) == np.uint32(0x10000000)
    if tie.any():
        a, b, c = (np.broadcast_to(np.asarray(v, np.float64), s.shape).reshape(-1)[tie]
                   for v in (a, b, c))
        s.reshape(-1)[tie] = _fma_round_to_odd(a * b, c)
    return s.astype(np.float32)


_LOW_WORD = 0 if np.little_endian else 1


def _fma_round_to_odd(p, c):
    """``p + c`` rounded to float64 *to odd*: Knuth's TwoSum gives the exact
    error ``e = (p + c) - s``; where ``e`` is not zero, ``s`` is truncated
    (one ulp towards zero if ``e`` points the other way) and its last bit set.
    A float64 with an odd last bit is never a float32 tie, so rounding it to
    float32 is correct (53 >= 24 + 2 bits)."""
    s = p + c
    bv = s - p
    e = (p - (s - bv)) + (c - bv)  # s + e == p + c exactly (NaN where s is inf)
    bits = np.asarray(s).view(np.int64)
    return ((bits - (e * s < 0)) | (abs(e) > 0)).view(np.float64)


def select(c, a, b):
    """``a`` where ``c``, else ``b`` (both sides computed: a SIMD select)."""
    return np.where(c, a, b)


def flush(v):
    """``v`` with subnormals replaced by a zero of the same sign (XLA's FTZ/DAZ)."""
    with np.errstate(invalid="ignore"):
        return np.where(abs(v) < _F32(SMALLEST_NORMAL), v * _F32(0.0), v)


# --- the recipes: each written for a NumPy array AND a Numba scalar -------------------
def exp32(x):
    """XLA's float32 exp (Cephes): ``exp(x) = 2**n * exp(a)``, ``n = round(x / log 2)``.

    The input is clamped to [-87.8, 88.8] (beyond, the result is 0 or inf),
    ``n = floor(x log2(e) + 0.5)`` (one FMA), and ``a = x - n log(2)`` in
    two FMA steps with log(2) split as 0.693359375 (9 bits: ``n * hi`` is
    exact) minus 2.12194440e-4. A degree-7 polynomial gives ``exp(a)``,
    and ``2**n`` is built from its bits ``(n + 127) << 23``; ``n`` is
    clamped to [-127, 127] (a NaN's ``n`` to -127), and ``n = -127`` builds
    0. A subnormal result is flushed to zero.
    """
    t = select(x < _F32(-87.8), _F32(-87.8), x)  # (a NaN stays NaN, and so the result)
    t = select(t > _F32(88.8), _F32(88.8), t)
    n = np.floor(fma(t, _F32(1.44269504088896341), _F32(0.5)))
    n = select(n > _F32(-127.0), n, _F32(-127.0))
    n = select(n < _F32(127.0), n, _F32(127.0))
    a = fma(_F32(-0.693359375), n, t)
    a = fma(_F32(2.12194440e-4), n, a)
    z = fma(a, _F32(1.9875691500e-4), _F32(1.3981999507e-3))
    z = fma(z, a, _F32(8.3334519073e-3))
    z = fma(z, a, _F32(4.1665795894e-2))
    z = fma(z, a, _F32(1.6666665459e-1))
    z = fma(z, a, _F32(5.0000001201e-1))
    z = fma(z, a * a, a)
    z = _F32(1.0) + z
    pow2 = np.int32((np.int32(n) + np.int32(127)) << np.int32(23)).view(np.float32)
    r = z * pow2
    return select(r < _F32(SMALLEST_NORMAL), _F32(0.0), r)  # flushed (r >= 0 or NaN)


def log32(x):
    """XLA's float32 log (Cephes, as in Eigen): ``x = 2**e * m``, ``m`` in [sqrt(1/2), sqrt(2)).

    The exponent ``e`` and mantissa ``m`` come from the bits (``m`` first
    in [0.5, 1); below sqrt(1/2) it is doubled and ``e`` lowered), then
    ``log(m) = u - u**2/2 + u**3 P(u)`` with ``u = m - 1`` and P of degree 8
    (three Horner chains joined by ``u**3``), and ``e log(2)`` is added in
    two parts (-2.12194440e-4 and 0.693359375). A subnormal input counts as
    0 (``-inf``); negative inputs and NaN give NaN.
    """
    x = flush(x)
    t = select(x > _F32(SMALLEST_NORMAL), x, _F32(SMALLEST_NORMAL))
    bits = np.float32(t).view(np.int32)
    e = _F32(1.0) + np.float32((bits >> np.int32(23)) - np.int32(127))
    m = np.int32((bits & np.int32(-2139095041)) | np.int32(0x3F000000)).view(np.float32)
    low = m < _F32(0.707106781186547524)
    u = (m - _F32(1.0)) + select(low, m, _F32(0.0))  # 2m - 1 where m is low
    e = e - select(low, _F32(1.0), _F32(0.0))
    u2 = u * u
    u3 = u2 * u
    y = fma(u, _F32(7.0376836292e-2), _F32(-1.1514610310e-1))
    y1 = fma(u, _F32(-1.2420140846e-1), _F32(1.4249322787e-1))
    y2 = fma(u, _F32(2.0000714765e-1), _F32(-2.4999993993e-1))
    y = fma(y, u, _F32(1.1676998740e-1))
    y1 = fma(y1, u, _F32(-1.6668057665e-1))
    y2 = fma(y2, u, _F32(3.3333331174e-1))
    y = fma(y, u3, y1)
    y = fma(y, u3, y2)
    y = fma(y, u3, _F32(-2.12194440e-4) * e)
    u = fma(_F32(-0.5), u2, u)
    u = u + y
    u = fma(_F32(0.693359375), e, u)
    r = select(x > _F32(0.0), u, _F32(np.nan))  # negative or NaN: NaN
    r = select(x == _F32(0.0), _F32(-np.inf), r)
    return select(x == _F32(np.inf), x, r)


def log1p32(x):
    """XLA's float32 log1p: :func:`log32` of ``1 + x`` unless ``|x| < sqrt(2) - 1``;
    there, Cephes' ``x - x**2/2 + x**3 N(x) / D(x)`` with N and D of degree 6.
    """
    large = log32(x + _F32(1.0))
    x = flush(x)
    x2 = x * x
    num = fma(_F32(4.5270000862445199635215e-5), x, _F32(4.9854102823193375972212e-1))
    num = fma(num, x, _F32(6.5787325942061044846969e0))
    num = fma(num, x, _F32(2.9911919328553073277375e1))
    num = fma(num, x, _F32(6.0949667980987787057556e1))
    num = fma(num, x, _F32(5.7112963590585538103336e1))
    num = fma(num, x, _F32(2.0039553499201281259648e1))
    den = fma(_F32(1.0), x, _F32(1.5062909083469192043167e1))
    den = fma(den, x, _F32(8.3047565967967209469434e1))
    den = fma(den, x, _F32(2.2176239823732856465394e2))
    den = fma(den, x, _F32(3.0909872225312059774938e2))
    den = fma(den, x, _F32(2.1642788614495947685003e2))
    den = fma(den, x, _F32(6.0118660497603843919306e1))
    s = (x * x2) * (num / den)
    s = x + fma(_F32(-0.5), x2, s)
    return select(abs(x) < _F32(0.41421356237309504880), s, large)


def expm1_half(x):
    """``x / 2`` as XLA's expm1 computes it (a subnormal half flushed to zero)."""
    h = x * _F32(0.5)
    return flush(h)


def expm1_32(x, tanh_of_half, exp_of_x):
    """XLA's float32 expm1, given ``tanh(x/2)`` and ``exp(x)`` (:func:`tanh32`
    of :func:`expm1_half`, :func:`exp32`: see :func:`expm1_whole`):
    ``exp(x) - 1`` for ``|x| > 0.5``, else ``tanh(x/2) (exp(x) + 1)`` (no
    cancellation); ``x`` itself where ``x/2`` flushes to zero.

    (Three pieces, not one function calling the others: a compiled helper that
    calls two helpers is too big for LLVM to inline, and a loop with a call in
    it stays scalar. The kernel calls the pieces itself.)
    """
    r = tanh_of_half * (exp_of_x + _F32(1.0))
    r = select(abs(x) > _F32(0.5), exp_of_x - _F32(1.0), r)
    h = expm1_half(x)
    return select(h == _F32(0.0), x, r)


def expm1_whole(x):
    """XLA's float32 expm1 from its three pieces (:func:`expm1_32`)."""
    return expm1_32(x, tanh32(expm1_half(x)), exp32(x))


def tanh32(x):
    """XLA's float32 tanh (Eigen's): ``x P(x**2) / Q(x**2)``, P of degree 6, Q of 3.

    ``x`` is clamped to ±7.99881172 (where the rational function reaches
    exactly ±1); below ``|x| < 0.0004`` the result is ``x`` itself, from
    ``|x| >= 20`` it is ±1.
    """
    c = _F32(7.99881172180175781)
    xc = select(x > -c, x, -c)
    xc = select(xc < c, xc, c)
    z = xc * xc
    p = fma(z, _F32(-2.76076847742355e-16), _F32(2.00018790482477e-13))
    p = fma(z, p, _F32(-8.60467152213735e-11))
    p = fma(z, p, _F32(5.12229709037114e-08))
    p = fma(z, p, _F32(1.48572235717979e-05))
    p = fma(z, p, _F32(6.37261928875436e-04))
    p = fma(z, p, _F32(4.89352455891786e-03))
    p = xc * p
    q = fma(z, _F32(1.19825839466702e-06), _F32(1.18534705686654e-04))
    q = fma(z, q, _F32(2.26843463243900e-03))
    q = fma(z, q, _F32(4.89352518554385e-03))
    r = p / q
    a = abs(x)
    r = select(a < _F32(0.0004), x, r)
    r = select(a >= _F32(20.0), np.copysign(_F32(1.0), x), r)
    return select(x == x, r, x)


def logistic32(x):
    """XLA's float32 logistic ``1 / (1 + exp(-x))`` (with :func:`exp32`); a
    subnormal result is flushed to zero (so logistic(-88) is 0, as in JAX)."""
    r = _F32(1.0) / (_F32(1.0) + exp32(-x))
    return select(r < _F32(SMALLEST_NORMAL), _F32(0.0), r)  # flushed (r >= 0 or NaN)


def erf32(x):
    """XLA's float32 erf (Eigen's): ``x P(x**2) / Q(x**2)``, P of degree 4, Q of 6;
    ±1 from ``|x| >= 3.8325069`` on. A subnormal input counts as zero."""
    x = flush(x)
    z = x * x
    p = fma(z, _F32(0.00022905065861350646), _F32(0.0034082910107109506))
    p = fma(p, z, _F32(0.050955695062380861))
    p = fma(p, z, _F32(0.18520832239976145))
    p = fma(p, z, _F32(1.128379143519084))
    p = x * p
    q = fma(z, _F32(-1.1791602954361697e-7), _F32(0.000023547966471313185))
    q = fma(q, z, _F32(0.0010179625278914885))
    q = fma(q, z, _F32(0.014070470171167667))
    q = fma(q, z, _F32(0.11098505178285362))
    q = fma(q, z, _F32(0.49746925110067538))
    q = fma(q, z, _F32(1.0))
    r = p / q
    return select(abs(x) >= _F32(3.832506856900711), np.copysign(_F32(1.0), x), r)


#: The recipes the CPU backend turns into Numba helpers (each becomes ``_<name>``).
RECIPES = (exp32, log32, log1p32, expm1_half, expm1_32, tanh32, logistic32, erf32)


# --- on NumPy float32 arrays (the eager impl rules) ------------------------------------
def on_float32(recipe):
    """``recipe`` as an impl rule: on a float32 array (or scalar), a float32 array."""
    def impl(x):
        x = np.asarray(x, np.float32)
        with np.errstate(all="ignore"):
            return np.asarray(recipe(x), np.float32)
    impl.__name__ = f"xla_{recipe.__name__}"
    return impl
