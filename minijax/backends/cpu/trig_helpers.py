"""Chapter 09 — helpers: fast float32 sin, cos and tan that vectorize.

Why: ``np.sin`` on a float32 scalar compiles to a call of the C library's
``sinf``. LLVM cannot turn a loop with a call into SIMD code (it has no vector
math library here), so a fused loop with one ``sin`` in it runs one element
at a time. As in :mod:`.math_helpers`, we write the functions as small helpers with
no calls and no branches — arithmetic, comparisons that become per-lane
*selects*, integer bit tricks — that LLVM inlines into the loop and vectorizes.

**Argument reduction.** ``sin`` and ``cos`` have short polynomials only on a
small interval, so we write ``x = q * pi/2 + r`` with ``|r| <= pi/4`` and use
the quadrant ``q mod 4``: ``sin(x)`` is ``sin r, cos r, -sin r, -cos r``.
The textbook way (Cody–Waite) computes ``q = round(x * 2/pi)`` and
``r = x - q * pi/2`` with pi/2 split in a few floats. That is fine for
moderate ``|x|``, but float32 goes up to 3.4e38: then ``q`` has 127 bits, and
``r`` needs the digits of pi far beyond what any float holds — the result is
garbage, silently. Every float32 is an exact number with a well defined sine,
so we reduce exactly, by **Payne–Hanek**:

* write ``|x| = m * 2**e`` with a 24-bit integer ``m``;
* ``x * 2/pi = m * 2**e * 2/pi``: the bits of 2/pi that land at ``2**2`` or
  above only add multiples of 4 (whole turns), those below ``2**-94`` next to
  nothing, so only a *window* of 96 bits of 2/pi, chosen by ``e``, counts;
* the window is 2/pi's bits (five 64-bit constants, computed here with
  Python's big integers) shifted left by ``e``: per lane, two selects pick the
  words and variable shifts (one instruction each on AVX2/AVX-512) align them;
* ``m`` times the window, modulo ``2**96``, is two ``uint64`` products that
  wrap: the top 2 bits are the quadrant, the other 94 the fraction of a
  quadrant, exact to ~2**-70 (a float32 comes within ~2**-29 of a multiple of
  pi/2: ``r`` keeps 40 good bits or more).

Below pi/4 there is nothing to reduce (``r = x``, exact for tiny ``x`` and
``-0``): both are computed and a select picks one. There is no Cody–Waite fast
path for moderate ``x``: with selects, every lane pays for both paths anyway.

**Polynomials**: ``sin r = r + r z S(z)`` and ``cos r = 1 - z/2 + z**2 C(z)``
in ``z = r*r``, with ``S`` and ``C`` of degree 4 fitted over the interval
(Estrin's scheme, FMAs), in float64, rounded once to float32. That is correctly
rounded but for a vanishing fraction of inputs: NumPy's float64 ``sin``
rounded to float32 (the interpreter's numbers), within 1 ulp everywhere.
``tan`` is ``sin r / cos r`` (or ``-cos r / sin r``) in float64.

Measured choices (fused ``sin`` on 60000 float32, one thread, min of 300):
a table of windows read with AVX-512 *gathers* took 0.21 ms, the shifts and
selects 0.17 ms, a Cody–Waite-only reduction (wrong for huge ``x``) 0.11 ms,
``np.sin`` (a ``sinf`` call per element) 0.32 ms. A float32 polynomial was
0.13 ms, but the vectors stay 8 lanes wide (the reduction is 64-bit
integers) and float32 rounding would cost exact results; we keep float64.
"""
from __future__ import annotations

import math

import numpy as np

from minijax.backends.cpu.helpers import register
from minijax.backends.cpu.math_helpers import estrin, helper_source

__all__ = ["TRIG_HELPERS", "two_over_pi_words"]


# --- the digits of 2/pi --------------------------------------------------------------
def _pi_fixed(bits: int) -> int:
    """floor(pi * 2**bits), give or take a unit (Machin: pi = 16 atan(1/5) - 4 atan(1/239))."""
    def atan_inv(k: int) -> int:  # atan(1/k) * 2**bits by its Taylor series
        total, power, n, sign = 0, (1 << bits) // k, 1, 1
        while power:
            total += sign * (power // n)
            power, n, sign = power // (k * k), n + 2, -sign
        return total
    return 16 * atan_inv(5) - 4 * atan_inv(239)


_E_MIN, _E_MAX = 126, 254  # biased float32 exponents of |x| in [0.5, 3.4e38]
_ZEROS = 26  # 2/pi's bits of weight 2**25 .. 2**0 (all 0): the window of E = 126 starts there


def two_over_pi_words(n: int = 5) -> list[int]:
    """The bits of 2/pi from 2**(_ZEROS - 1) down, as ``n`` 64-bit words: the bit
    of 2**-i is bit ``i + _ZEROS - 1`` from the top of the first word (bit 0).

    For |x| = m * 2**(E - 150) (``m`` a 24-bit integer) the *window* is the 96
    bits starting at bit ``E - 126``: W = floor(2/pi * 2**(E - 56)) mod 2**96.
    Then x * 2/pi = m * W * 2**-94 + (a multiple of 4) + (less than 2**-70):
    higher bits of 2/pi only add whole turns, lower ones next to nothing.
    """
    guard, total = 64, 64 * n
    fixed = (1 << (2 * total + guard)) // _pi_fixed(total + guard)  # floor(2**total / pi)
    bits = fixed >> (_ZEROS - 1)  # floor(2/pi * 2**(total - _ZEROS))
    return [(bits >> (64 * (n - 1 - j))) & (2 ** 64 - 1) for j in range(n)]


# --- the helpers --------------------------------------------------------------------
_U64 = "np.uint64"
_LOW32 = f"{_U64}(0xFFFFFFFF)"
_Z_MAX = (math.pi / 4) ** 2  # z = r * r for |r| <= pi/4


def _economized(k0: int, degree: int) -> list[float]:
    """``sum_k (-1)**k z**(k - k0) / (2k)!`` (k >= k0), or with (2k+1)! when ``k0 == 1``:
    the tail of the Taylor series of cos r (k0 = 2), or of sin r / r (k0 = 1), in z = r*r.

    The series converges fast, but a polynomial of the same degree fitted over the
    whole interval (at Chebyshev points: nearly the best one) is ~2**10 times closer
    than the truncated series: degree 4 is within 2**-46 of sin r, 2**-50 of cos r.
    """
    odd = k0 == 1
    def tail(z):
        return sum((-1) ** k * z ** (k - k0) / math.factorial(2 * k + odd) for k in range(k0, 20))
    nodes = (np.cos(np.linspace(0, np.pi, 50 * degree)) + 1) / 2 * _Z_MAX
    fit = np.polynomial.Chebyshev.fit(nodes, tail(nodes), degree)
    return [float(c) for c in fit.convert(kind=np.polynomial.Polynomial).coef]


_SIN_SERIES = _economized(1, 4)  # sin r = r + r z S(z)
_COS_SERIES = _economized(2, 4)  # cos r = 1 - z/2 + z**2 C(z)


_WORDS = two_over_pi_words()


def _pick(j: int) -> str:
    """Word ``w + j`` of 2/pi, for the per-lane ``w`` in {0, 1, 2}: two selects."""
    p = [f"{_U64}({word})" for word in _WORDS]
    return f"{p[j]} if w == {_U64}(0) else ({p[j + 1]} if w == {_U64}(1) else {p[j + 2]})"


_REDUCE = helper_source(
    "_rem_pio2_32(x)",
    "(r, q): |x| = q * pi/2 + r (mod 2 pi), |r| <= pi/4, for a finite float32 x (Payne–Hanek).",
    f"    bits = {_U64}(np.float32(x).view(np.uint32))",
    f"    m = (bits & {_U64}(0x7FFFFF)) | {_U64}(0x800000)  # |x| = m * 2**(E - 150)",
    f"    k = (bits >> {_U64}(23)) & {_U64}(0xFF)  # E, the biased exponent",
    f"    k = (k if k > {_U64}({_E_MIN}) else {_U64}({_E_MIN})) - {_U64}({_E_MIN})  # window start",
    f"    k = k if k < {_U64}({_E_MAX - _E_MIN}) else {_U64}({_E_MAX - _E_MIN})  # inf, NaN",
    f"    w, b = k >> {_U64}(6), k & {_U64}(63)  # the window starts b bits into word w",
    *(f"    a{j} = {_pick(j)}" for j in range(3)),  # words w, w + 1, w + 2
    f"    hi = (a0 << b) | ((a1 >> {_U64}(1)) >> ({_U64}(63) - b))  # window bits 0..63",
    f"    lo = ((a1 << b) | ((a2 >> {_U64}(1)) >> ({_U64}(63) - b))) >> {_U64}(32)  # bits 64..95",
    "    low = m * lo  # m * W mod 2**96 = (m * hi) * 2**32 + low, in uint64 pieces that wrap",
    f"    top = m * hi + (low >> {_U64}(32))  # its high 64 bits: 2 of quadrant, 62 of fraction",
    "    # Round to the nearest quadrant: + half a quadrant, and read the fraction",
    "    # as signed, in [-1/2, 1/2) (the uint64 arithmetic wraps modulo whole turns).",
    f"    q = (top + {_U64}(1 << 61)) >> {_U64}(62)",
    f"    frac = np.float64(np.int64(top << {_U64}(2)))"
    f" + np.float64(np.int64(low & {_LOW32})) * 2.0 ** -32",
    f"    r = frac * {math.pi / 2 * 2.0 ** -64!r}  # frac / 2**64 quadrants, in radians",
    "    small = abs(np.float64(x)) < 0.7853981633974483  # nothing to reduce (keeps -0, tiny x)",
    "    r = (-r if x < 0 else r) if not small else np.float64(x)",
    f"    q = (q if x >= 0 else {_U64}(4) - q) if not small else {_U64}(0)",
    f"    return r, q & {_U64}(3)",
)

_SIN_COS = helper_source(
    "_sin_cos_f64(rq)", "(sin r, cos r, q) for float64 |r| <= pi/4, by polynomials in z = r*r.",
    "    r, q = rq",
    "    z = r * r",
    *estrin(_SIN_SERIES, "z")[0],
    f"    s = r + r * z * {estrin(_SIN_SERIES, 'z')[1]}",
    "    s = s if r != 0.0 else r  # -0 + (-0 * 0 * -1/6 = +0) would be +0",
    f"    c = 1.0 - 0.5 * z + z2 * {estrin(_COS_SERIES, 'z')[1]}",
    "    return s, c, q",
)


def _quadrant_source(name: str, doc: str, result: str) -> str:
    """The float32 result from (s, c, q) = (sin r, cos r, the quadrant)."""
    return helper_source(
        f"{name}(x, scq)", doc,
        "    s, c, q = scq",
        "    odd, negate = (q & np.uint64(1)) == np.uint64(1), (q & np.uint64(2)) == np.uint64(2)",
        f"    y = np.float32({result})",
        "    return y if abs(x) < np.inf else np.float32(np.nan)",
    )


# Each function is three helpers, each small enough for LLVM to inline (one big
# function would stay a call, and its loop scalar); the rule writes
# ``_sin_end(x, _sin_cos_f64(_rem_pio2_32(x)))``.
TRIG_HELPERS = {
    "_rem_pio2_32": _REDUCE,
    "_sin_cos_f64": _SIN_COS,
    "_sin_end": _quadrant_source(
        "_sin_end", "float32 sin: sin r, cos r, -sin r, -cos r in quadrants 0..3.",
        "-(c if odd else s) if negate else (c if odd else s)"),
    "_cos_end": _quadrant_source(
        "_cos_end", "float32 cos: cos r, -sin r, -cos r, sin r in quadrants 0..3 (sin in q + 1).",
        "-(s if odd else c) if negate != odd else (s if odd else c)"),
    "_tan_end": _quadrant_source(
        "_tan_end", "float32 tan: sin r / cos r in even quadrants, -cos r / sin r in odd ones.",
        "-c / s if odd else s / c"),
}


for _name, _source in TRIG_HELPERS.items():
    register(_name, _source, options='fastmath={"contract"}')
