"""Chapter 09 — the remaining scalar rules: bits, floats, digamma, complex numbers.

These join :data:`~minijax.backends.numba_scalar.SCALAR_RULES`, so they fuse
into loop nests like any arithmetic:

- ``clz`` (count leading zeros) and ``nextafter``;
- ``reduce_precision``: XLA's algorithm on the bit pattern (round the
  mantissa to nearest even, then send exponents the smaller format cannot
  hold to infinity or zero); a helper is generated per format, with its
  constants computed here, in Python;
- ``digamma``: recurrence up to 6, then the asymptotic series, in float64;
- ``real``, ``imag``, ``complex``, ``conj``; and complex ``div``, ``neg``,
  ``exp``, ``sin``... (Numba computes with complex numbers natively; the real
  rules of chapter 09 stay for real operands).

float16 has no rule anywhere in this backend: a jaxpr with a float16 value
runs on the interpreter.
"""
from __future__ import annotations

import numpy as np

from minijax.backends.numba_scalar import HELPERS, SCALAR_RULES, _int_views, cast, literal

__all__: list[str] = []


# --- clz, nextafter ------------------------------------------------------------------------
HELPERS["_clz"] = '''
def _clz(u, nbits, one):
    """The number of leading zero bits of the unsigned ``u`` (``one`` is 1 in its dtype)."""
    n = nbits
    while u:
        u = u >> one
        n -= 1
    return n
'''


def _clz(c, x):
    bits, u, _ = _int_views(c.out_dtype)
    return cast(c.out_dtype, f"{c.helper('_clz')}({cast(u, x)}, {bits}, {literal(1, u)})")


# --- reduce_precision: XLA's bit algorithm, one helper per (dtype, format) ---------------
def _reduce_precision_helper(dtype: np.dtype, exponent_bits: int, mantissa_bits: int) -> str:
    """The source of a helper rounding one ``dtype`` value to the smaller format."""
    info = np.finfo(dtype)
    src_mant, src_exp, nbits = info.nmant, info.nexp, 8 * dtype.itemsize
    name = f"_reduce_precision_{dtype.name}_e{exponent_bits}_m{mantissa_bits}"
    u64 = lambda v: f"np.uint64({v & (2 ** 64 - 1)})"  # noqa: E731
    lines = ["", f"def {name}(x):",
             f'    """Round to {exponent_bits} exponent and {mantissa_bits} mantissa bits."""',
             "    if x != x:",
             "        return x",
             f"    a = np.empty(1, dtype=np.{dtype.name})",
             "    a[0] = x",
             f"    word = a.view(np.uint{nbits})",
             "    bits = np.uint64(word[0])"]
    if mantissa_bits < src_mant:  # round to nearest even on the dropped bits
        drop = src_mant - mantissa_bits
        lines += [f"    last_kept = (bits >> {u64(drop)}) & {u64(1)}",
                  f"    bits = (bits + last_kept + {u64((1 << (drop - 1)) - 1)}) & "
                  f"{u64(~((1 << drop) - 1))}"]
    if exponent_bits < src_exp:  # out of the smaller range: +-inf or +-0
        exp_mask = ((1 << src_exp) - 1) << src_mant
        bias, reduced = (1 << (src_exp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        lines += [f"    sign = bits & {u64(1 << (nbits - 1))}",
                  f"    exponent = bits & {u64(exp_mask)}",
                  f"    if exponent > {u64((bias + reduced) << src_mant)}:",
                  f"        bits = sign | {u64(exp_mask)}",
                  f"    elif exponent <= {u64((bias - reduced) << src_mant)}:",
                  "        bits = sign"]
    lines += [f"    word[0] = np.uint{nbits}(bits & {u64((1 << nbits) - 1)})",
              "    return a[0]", ""]
    HELPERS.setdefault(name, "\n".join(lines))
    return name


def _reduce_precision(c, x):
    dtype = np.dtype(c.out_dtype)
    name = _reduce_precision_helper(dtype, c.eqn.params["exponent_bits"],
                                    c.eqn.params["mantissa_bits"])
    return f"{c.helper(name)}({x})"


# --- digamma --------------------------------------------------------------------------------
HELPERS["_digamma"] = '''
def _digamma(x):
    """psi(x) in float64: NaN at the poles, reflection below 0, recurrence up to 6,
    then the asymptotic series log(x) - 1/(2x) - sum B_2k / (2k x^2k)."""
    if x <= 0 and x == np.floor(x):
        return np.nan
    result = 0.0
    if x < 0:  # psi(x) = psi(1 - x) - pi / tan(pi x)
        result = -np.pi / np.tan(np.pi * x)
        x = 1.0 - x
    while x < 6:  # psi(x) = psi(x + 1) - 1 / x
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (-1 / 12 + f * (1 / 120 + f * (-1 / 252 + f * (1 / 240 + f * (
        -1 / 132 + f * (691 / 32760 + f * (-1 / 12)))))))
    return result + np.log(x) - 0.5 / x + series
'''


def _digamma(c, x):
    return cast(c.out_dtype, f"{c.helper('_digamma')}(np.float64({x}))")


# --- complex numbers ------------------------------------------------------------------------
def _conj(c, x):
    if np.dtype(c.in_dtype).kind != "c":  # a real number becomes complex
        return cast(c.out_dtype, x)
    return cast(c.out_dtype, f"np.conj({x})")


HELPERS["_cdiv"] = '''
def _cdiv(x, y):
    """Complex x / y as NumPy (Smith's method); dividing by 0 gives inf/nan, not an error."""
    a, b, c, d = np.float64(x.real), np.float64(x.imag), np.float64(y.real), np.float64(y.imag)
    if abs(c) >= abs(d):
        if c == 0 and d == 0:
            return complex(a / abs(c), b / abs(c))
        rat = d / c
        scl = 1.0 / (c + d * rat)
        return complex((a + b * rat) * scl, (b - a * rat) * scl)
    rat = c / d
    scl = 1.0 / (d + c * rat)
    return complex((a * rat + b) * scl, (b * rat - a) * scl)
'''


def _complex_aware(name: str, template: str):
    """The rule for ``name``: ``template`` (NumPy's complex function, in Numba) for
    complex operands, the real rule registered so far for the others."""
    real_rule = SCALAR_RULES[name]

    def rule(c, *xs):
        if np.dtype(c.in_dtype).kind == "c":
            if name == "div":
                c.helper("_cdiv")
            return cast(c.out_dtype, template.format(*xs))
        return real_rule(c, *xs)
    return rule


_COMPLEX_TEMPLATES = {
    "div": "_cdiv({}, {})", "neg": "-{}", "exp": "np.exp({})", "log": "np.log({})",
    "sqrt": "np.sqrt({})", "sin": "np.sin({})", "cos": "np.cos({})", "tan": "np.tan({})",
    "sinh": "np.sinh({})", "cosh": "np.cosh({})", "tanh": "np.tanh({})",
}
SCALAR_RULES.update({name: _complex_aware(name, t) for name, t in _COMPLEX_TEMPLATES.items()})
SCALAR_RULES.update({
    "clz": _clz,
    "nextafter": lambda c, x, y: f"np.nextafter({x}, {y})",
    "reduce_precision": _reduce_precision,
    "digamma": _digamma,
    "real": lambda c, x: f"{x}.real",
    "imag": lambda c, x: f"{x}.imag",
    "complex": lambda c, x, y: cast(c.out_dtype, f"complex({x}, {y})"),
    "conj": _conj,
})
