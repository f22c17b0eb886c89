"""Chapter 09 — helpers: fast float32 transcendentals that vectorize.

A fused loop ``out[i] = exp(x[i])`` is only fast if LLVM can turn it into
SIMD code working on 8 or 16 floats at once. ``np.exp`` on a float32 scalar
compiles to a call of the C library's ``expf``: LLVM cannot vectorize a call
(this llvmlite has no vector math library), so the whole loop stays scalar.
XLA avoids that by writing its math functions as straight-line polynomial
code; we do the same.

Every function here is a small helper (see :mod:`.helpers`) with
no calls and no branches, only arithmetic, comparisons (which LLVM turns
into *selects*: ``a if c else b`` computes both sides and picks one per
lane) and bit tricks on the IEEE-754 layout (``np.float64(u).view(np.int64)``
reads the bits of a float; Numba supports ``.view`` on NumPy scalars).
LLVM inlines the helpers into the loop and vectorizes it — if they are
small: LLVM leaves a large function as a call, and a loop with a call stays
scalar. That is why ``erf_inv`` is three helpers, not one.

**Which numbers: JAX's, not the correctly rounded ones.** minijax promises
that a program prints the same digits under ``import jax``. XLA's float32
exp, log, log1p, expm1, tanh, logistic, erf and erf_inv are approximations a
few ulps off the true values (tanh's result is not the correctly rounded one
for ~70% of inputs, erf's for ~55%), so a correctly rounded helper would print
a different last digit just as often. These eight therefore run *XLA's own
algorithms*, step for step: the recipes of :mod:`minijax.lax.xla_math32`
(Cephes polynomials for exp and log, Eigen's rational functions for tanh and
erf, ...), written once in Python that means the same on a NumPy array (the
eager impl rules run them as they are) and on a Numba scalar.
:func:`recipe_helper` turns each recipe into a helper: ``select(c, a, b)``
becomes ``a if c else b``, ``flush(v)`` the flush of a subnormal to zero
(XLA's CPU code runs with flush-to-zero on), ``fma(a, b, c)`` the hardware's
fused multiply-add (:func:`fma32`, LLVM's ``llvm.fma``) — exactly where
XLA's LLVM code fuses, and nowhere else: these helpers are compiled without
fast-math contraction. The result: JAX 0.10.2's bits for every one of six
million test inputs, compiled and eager, at the speed of the hardware
(``exp`` ~0.4 ns per element on one core, as fast as the correctly rounded
float32 version it replaces).

The other float32 functions here (exp2, sinh, cosh, the inverse hyperbolics)
still follow the first recipe, correctly rounded:

1. **Reduce the argument** to a small interval where a short polynomial is
   accurate: ``exp(x) = 2**n * exp(r)`` with ``|r| <= log(2)/2``;
   ``log(x) = k*log(2) + log(m)`` with ``m`` in ``[sqrt(1/2), sqrt(2))``.
2. **Evaluate a polynomial** (a truncated Taylor series, by Estrin's scheme).
3. **Patch the special values** (NaN, ±inf, ±0, overflow) with selects.

They compute in float64 (a SIMD lane of doubles is only half as wide, but 53
bits leave room for the reduction and the polynomial errors): the float64
result is within ~1e-14 of the true value, so rounding it to float32 gives the
correctly rounded result except in a vanishing fraction of cases — NumPy's
float64 functions rounded to float32, within 1 ulp everywhere.

``erf_inv`` is Giles' polynomials in ``w = -log1p(-x*x)`` (XLA's float32
algorithm, with XLA's log1p), each Horner step an FMA emulated exactly in
float64: ``random.normal`` is built on it, and gives JAX's samples bit for bit.

rsqrt is not here: XLA computes it from the processor's ``rsqrt`` estimate
refined by Newton steps, chip-dependent bits we do not reproduce (the rule
is ``1 / sqrt(x)``, which is JAX's bits for ~70-80% of inputs).

The CPU rules (:mod:`.rules`) call these for float32 outputs; other dtypes
use NumPy's functions (``np.exp`` and friends). sin, cos and tan are in
:mod:`.trig_helpers` (their argument reduction is a story of its own). Not
here yet: erfc.
"""
from __future__ import annotations

import ast
import inspect
import math
import textwrap

import numpy as np

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from minijax.backends.cpu.helpers import register
from minijax.lax import xla_math32
from minijax.lax.elementwise import _ERF_INV_LARGE, _ERF_INV_SMALL

__all__ = ["MATH_HELPERS", "CALLS", "estrin", "helper_source", "fma32", "recipe_helper"]


def _f64(c: float) -> str:
    return repr(float(c))


def _f32(c: float) -> str:
    return f"np.float32({float(np.float32(c))!r})"


def estrin(coeffs, z: str) -> tuple[list[str], str]:
    """``c0 + c1*z + c2*z**2 + ...`` by Estrin's scheme: pair the terms,
    ``(c0 + c1*z) + (c2 + c3*z)*z**2``, then pair the pairs with ``z**4``...

    Horner's rule is one long chain of dependent multiply-adds; Estrin's
    tree has the same number of operations but a chain only log2(n) deep,
    so the CPU overlaps them (float64 leaves room for the different rounding).
    Returns the lines that compute the powers of ``z`` and the expression.
    """
    terms = [f"({_f64(a)} + {_f64(b)} * {z})" for a, b in zip(coeffs[::2], coeffs[1::2])]
    if len(coeffs) % 2:
        terms.append(_f64(coeffs[-1]))
    lines, power, n = [], z, 1
    while len(terms) > 1:
        n *= 2
        lines.append(f"    {z}{n} = {power} * {power}")
        power = f"{z}{n}"
        pairs = [f"({a} + {b} * {power})" for a, b in zip(terms[::2], terms[1::2])]
        terms = pairs + ([terms[-1]] if len(terms) % 2 else [])
    return lines, terms[0]


def helper_source(name: str, doc: str, *body: str) -> str:
    """The source of one helper (the kernel writer adds the ``@njit`` line)."""
    return "\n".join(["", f"def {name}:", f'    """{doc}"""', *body, ""])


# --- float64 kernels: argument reduction + polynomial, finite inputs only -------------
_LN2_HI = 6.93147180369123816490e-01  # log(2) with its low 32 bits zero: n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # log(2) - _LN2_HI
_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD  # the bits of the float64 sqrt(1/2)

#: Taylor coefficients: 2/(2k+1) for log's atanh series, 1/k! for exp(r) - 1.
_ATANH_SERIES = [2.0 / (2 * k + 1) for k in range(10)]
#: Degree 10 leaves r**11/11! < 3e-13 for |r| <= log(2)/2: far below a float32 ulp.
_EXPM1_SERIES = [1.0 / math.factorial(k) for k in range(1, 11)]

#: ``x * log2(e) + 1.5 * 2**52`` rounds x * log2(e) to the nearest integer n and
#: leaves n in the low bits of the float64 (the "magic number" trick: no float-to-int
#: conversion, which vectorizes badly); ``(bits + 1023) << 52`` then keeps only the
#: low 12 bits: the float64 2**n, for -1022 <= n <= 1023.
_MAGIC = 6755399441055744.0  # 1.5 * 2**52
_REDUCE_BY_LN2 = [
    f"    k = x * 1.4426950408889634 + {_MAGIC!r}",
    f"    n = k - {_MAGIC!r}  # round(x / log(2)), exactly",
    f"    r = (x - n * {_LN2_HI!r}) - n * {_LN2_LO!r}  # |r| <= log(2)/2",
]
_TWO_TO_THE_N = [
    "    scale = np.int64((np.float64(k).view(np.int64) + np.int64(1023)) << np.int64(52))"
    ".view(np.float64)",
]

_KERNELS = {
    "_log_f64": helper_source(
        "_log_f64(u)",
        "log(u) for a finite float64 u > 0, to ~1e-16: u = 2**k * m, m in [sqrt(1/2), sqrt(2)).",
        "    bits = np.float64(u).view(np.int64)",
        f"    k = (bits - np.int64({_SQRT_HALF_BITS})) >> np.int64(52)  # so that m >= sqrt(.5)",
        "    m = np.int64(bits - (k << np.int64(52))).view(np.float64)",
        "    s = (m - 1.0) / (m + 1.0)  # log(m) = 2 atanh(s), |s| <= 0.172",
        "    z = s * s",
        *estrin(_ATANH_SERIES, "z")[0],
        f"    return np.float64(k) * {_LN2_HI!r} + (s * {estrin(_ATANH_SERIES, 'z')[1]} "
        f"+ np.float64(k) * {_LN2_LO!r})",
    ),
    "_log1p_f64": helper_source(
        "_log1p_f64(y)",
        "log(1 + y) for a finite float64 y > -1: log(u), u = 1 + y, corrected for u's rounding.",
        "    u = 1.0 + y",
        "    d = y - (u - 1.0)  # what rounding 1 + y lost (u - 1 is exact for u < 2)",
        "    # log(u + d) ~ log(u) + d / u; d is below 1e-16 and u within 2x of 1, so d / u ~ d",
        "    return _log_f64(u) + (d if u < 2.0 else 0.0)",
    ),
    "_expm1_f64": helper_source(
        "_expm1_f64(x)",
        "exp(x) - 1 for float64 |x| < 700, to ~1e-15: x = n log(2) + r, |r| <= log(2)/2.",
        *_REDUCE_BY_LN2,
        *estrin(_EXPM1_SERIES, "r")[0],
        f"    p = r * {estrin(_EXPM1_SERIES, 'r')[1]}  # exp(r) - 1",
        *_TWO_TO_THE_N,
        "    return scale * p + (scale - 1.0)  # 2**n (1 + p) - 1",
    ),
    "_exp_f64": helper_source(
        "_exp_f64(x)",
        "exp(x) for float64 |x| < 700, to ~1e-15.",
        *_REDUCE_BY_LN2,
        *estrin(_EXPM1_SERIES, "r")[0],
        f"    p = r * {estrin(_EXPM1_SERIES, 'r')[1]}  # exp(r) - 1",
        *_TWO_TO_THE_N,
        "    return scale + scale * p",
    ),
}

# --- float32 functions: clamp, call a kernel, round once, patch special values ------
_TINY = 2.0 ** -25  # below this, log1p(x), expm1(x), tanh(x) round to x itself (keeps ±0)

_FLOAT32 = {
    "_exp2_32": helper_source(
        "_exp2_32(x)", "float32 2**x = exp(x log(2)) (the float64 product is off by < 1e-14).",
        "    t = np.float64(x)",
        "    t = t if t > -151.0 else -151.0",
        "    t = t if t < 129.0 else 129.0",
        "    y = np.float32(_exp_f64(t * 0.6931471805599453))",
        "    return y if x == x else x",
    ),
    "_sinh32": helper_source(
        "_sinh32(x)", "float32 sinh: (e - 1/e) / 2 = (m + m / (m + 1)) / 2 with m = expm1(|x|).",
        "    a = abs(np.float64(x))",
        "    a = a if a < 100.0 else 100.0  # sinh(100) overflows float32; also sends NaN to 100",
        "    m = _expm1_f64(a)",
        "    y = np.float32(0.5 * (m + m / (m + 1.0)))",
        "    y = -y if x < 0 else y",
        f"    return y if abs(x) >= {_TINY!r} else x",
    ),
    "_cosh32": helper_source(
        "_cosh32(x)", "float32 cosh: (e + 1/e) / 2 with e = exp(|x|).",
        "    a = abs(np.float64(x))",
        "    e = _exp_f64(a if a < 100.0 else 100.0)",
        "    y = np.float32(0.5 * (e + 1.0 / e))",
        "    return y if x == x else x",
    ),
    "_atanh32": helper_source(
        "_atanh32(x)", "float32 atanh: log((1 + a) / (1 - a)) / 2 = log1p(2a / (1 - a)) / 2.",
        "    a = abs(np.float64(x))",
        "    ok = a < 1.0",
        "    y = np.float32(0.5 * _log1p_f64(2.0 * a / (1.0 - a) if ok else 0.0))",
        "    y = y if ok else (np.float32(np.inf) if a == 1.0 else np.float32(np.nan))",
        "    y = -y if x < 0 else y",
        f"    return y if abs(x) >= {_TINY!r} else x",
    ),
    "_asinh32": helper_source(
        "_asinh32(x)", "float32 asinh: log(a + sqrt(a*a + 1)) = log1p(a + a*a / (1 + sqrt(a*a+1)))",
        "    a = abs(np.float64(x))",
        "    b = a if a < 1e300 else 1.0  # inf: patched below",
        "    y = np.float32(_log1p_f64(b + b * b / (1.0 + np.sqrt(b * b + 1.0))))",
        "    y = y if a < 1e300 else np.float32(np.inf)",
        "    y = -y if x < 0 else y",
        f"    return y if abs(x) >= {_TINY!r} else x",
    ),
    "_acosh32": helper_source(
        "_acosh32(x)", "float32 acosh: log(x + sqrt(x*x - 1)) = log1p(t + sqrt(t*(t+2))), t = x-1",
        "    t = np.float64(x) - 1.0  # exact",
        "    ok = t >= 0.0 and t < 1e300",
        "    u = t if ok else 0.0",
        "    y = np.float32(_log1p_f64(u + np.sqrt(u * (u + 2.0))))",
        "    y = y if ok else (np.float32(np.inf) if t > 0.0 else np.float32(np.nan))",
        "    return y if x == x else x",
    ),
}


# --- XLA's float32 algorithms: chapter 00's recipes, compiled ------------------------
@intrinsic
def fma32(typingctx, a, b, c):
    """``a * b + c`` on float32, rounded once: LLVM's ``llvm.fma.f32``, one FMA
    instruction (and vectorizable, 8 or 16 lanes at once). The recipes of
    :mod:`minijax.lax.xla_math32` call ``fma`` exactly where XLA's code is fused."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        f32 = ir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f32], ir.FunctionType(f32, [f32] * 3))
        return builder.call(fn, args)
    return sig, codegen


_RECIPE_NAMES = {recipe.__name__ for recipe in xla_math32.RECIPES}


class _ScalarRecipe(ast.NodeTransformer):
    """Rewrites a recipe (NumPy-array code) into a Numba helper's scalar code:
    ``select(c, a, b)`` -> ``a if c else b``; ``flush(v)`` -> ``v if abs(v) >=
    2**-126 else v * 0``; ``fma`` -> :func:`fma32`; ``_F32`` -> ``np.float32``;
    a call of another recipe -> its helper (recorded in ``calls``)."""

    def __init__(self):
        self.calls: list[str] = []

    def visit_Name(self, node):
        if node.id == "_F32":
            return ast.copy_location(ast.parse("np.float32", mode="eval").body, node)
        if node.id == "SMALLEST_NORMAL":
            return ast.copy_location(ast.Constant(xla_math32.SMALLEST_NORMAL), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == "select":
            test, body, orelse = node.args
            return ast.copy_location(ast.IfExp(test=test, body=body, orelse=orelse), node)
        if name == "flush":
            (v,) = node.args
            assert isinstance(v, ast.Name), "flush() takes a variable"
            code = (f"{v.id} if abs({v.id}) >= np.float32({xla_math32.SMALLEST_NORMAL!r}) "
                    f"else {v.id} * np.float32(0.0)")
            return ast.copy_location(ast.parse(code, mode="eval").body, node)
        if name == "fma":
            node.func = ast.Name("fma32", ast.Load())
        elif name in _RECIPE_NAMES:
            node.func = ast.Name(f"_{name}", ast.Load())
            self.calls.append(f"_{name}")
        return node


def recipe_helper(recipe) -> tuple[str, str, list[str]]:
    """The Numba helper made from one recipe of :mod:`minijax.lax.xla_math32`:
    its name (``_`` + the recipe's), its source, and the helpers it calls."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(recipe)))
    rewrite = _ScalarRecipe()
    tree = ast.fix_missing_locations(rewrite.visit(tree))
    tree.body[0].name = f"_{recipe.__name__}"
    return f"_{recipe.__name__}", "\n" + ast.unparse(tree) + "\n", sorted(set(rewrite.calls))


_FMA_PRELUDE = "from minijax.backends.cpu.math_helpers import fma32"
# Registered without fast-math contraction: the recipes say where a multiply and an
# add fuse (fma), and LLVM must not fuse any other pair, or the bits would differ.
for _recipe in xla_math32.RECIPES:
    _name, _source, _calls = recipe_helper(_recipe)
    register(_name, _source, prelude=_FMA_PRELUDE, calls=_calls)


# --- erf_inv: XLA's float32 algorithm (Giles 2010) ---------------------------------
# Two polynomials in w = -log1p(-x*x) (chapter 00's, which the interpreter uses too):
# one for w < 5 (|x| < ~0.9966), one for the tails.


def _erf_inv_lines() -> list[str]:
    """Horner's rule on per-lane coefficients: ``small`` where w < 5, else ``large``
    (one polynomial evaluated, as XLA does, instead of two and a select)."""
    lines = [f"    p = {_f32(_ERF_INV_LARGE[0])} if big else {_f32(_ERF_INV_SMALL[0])}"]
    for cl, cs in zip(_ERF_INV_LARGE[1:], _ERF_INV_SMALL[1:]):
        c = f"({_f64(np.float32(cl))} if big else {_f64(np.float32(cs))})"
        lines.append(f"    p = np.float32(np.float64(p) * t + {c})  # a fused multiply-add")
    return lines


# erf_inv is written as three helpers, each small enough for LLVM to inline
# (one big function would stay a call, and a loop with a call cannot vectorize):
# the rule writes ``_erf_inv_end(x, _erf_inv_poly(_erf_inv_w(x)))``.
_FLOAT32["_erf_inv_w"] = helper_source(
    "_erf_inv_w(x)", "w = -log1p(-x*x) in float32 (x*x rounded to float32, as XLA); 0 if |x| >= 1.",
    "    y = -(x * x)",
    "    return -_log1p32(y if y > np.float32(-1.0) else np.float32(0.0))  # XLA's log1p",
)
_FLOAT32["_erf_inv_poly"] = helper_source(
    "_erf_inv_poly(w)", "Giles' polynomial for erf_inv(x) / x (the small one if w < 5).",
    "    big = w >= np.float32(5.0)",
    "    s = np.sqrt(w)  # computed for every lane: a select, not a branch",
    "    t = np.float64((s - np.float32(3.0)) if big else (w - np.float32(2.5)))",
    *_erf_inv_lines(),
    "    return p",
)
_FLOAT32["_erf_inv_end"] = helper_source(
    "_erf_inv_end(x, p)", "erf_inv(x) = p * x for |x| < 1; ±inf at ±1, NaN beyond and for NaN.",
    "    a = abs(x)",
    f"    xf = x if a >= np.float32({xla_math32.SMALLEST_NORMAL!r}) else x * np.float32(0.0)"
    "  # XLA flushes a subnormal x",
    "    r = p * xf if a < np.float32(1.0) else x * np.float32(np.inf)",
    "    return r if a <= np.float32(1.0) else np.float32(np.nan)",
)


#: The helpers each helper calls (the kernel module must include them too).
CALLS = {
    "_log1p_f64": ["_log_f64"], "_erf_inv_w": ["_log1p32"], "_exp2_32": ["_exp_f64"],
    "_sinh32": ["_expm1_f64"], "_cosh32": ["_exp_f64"], "_atanh32": ["_log1p_f64"],
    "_asinh32": ["_log1p_f64"], "_acosh32": ["_log1p_f64"],
}

MATH_HELPERS = {**_KERNELS, **_FLOAT32}
# Let LLVM fuse a * b + c into one FMA: half the instructions of the polynomials,
# and at least as accurate (erf_inv's emulated float32 FMAs are exact products
# plus one rounding either way, so its results do not change).
for _name, _source in MATH_HELPERS.items():
    register(_name, _source, options='fastmath={"contract"}', calls=CALLS.get(_name, ()))
