"""Chapter 09 — the CPU target's rule table: how each primitive becomes Numba code.

:data:`LOWERINGS` maps every primitive the CPU target lowers (the
``Primitive`` object, as every rule table of this project) to a :class:`Rule`.
Each rule states every dtype case of its primitive in one place: the real
case, the float32 fast path (a vectorizable helper), the complex case, the
integer case. Nothing replaces an entry later: to find the CPU lowering of
``sin``, search this file for ``sin_p``; ``minijax.primitives.rules_of(p)``
lists it beside the primitive's other rules.

A rule has one of these *forms*, which decide where the writer calls it:

- ``"scalar"``: ``fn(c, *xs) -> expression``. One element of an elementwise
  equation inside a fused loop nest (``c``, a :class:`ScalarContext`, knows the
  equation and requests helpers; ``xs`` are the operands' expressions):
  ``b_i = a_i * np.float32(2.0)``.
- ``"reduction"``: ``fn(c, acc, x) -> statement``: fold element ``x`` into
  the accumulator ``acc``, at the end of a loop nest (the producer fused in).
- ``"call"``: ``fn(w, eqn, *xs)``, for everything that is not computed element
  by element (a matrix product, a reshape, a gather, a loop): ``w`` is the
  kernel writer, ``xs`` the names of the operands, in memory. It returns the
  expression of the result, or writes its lines itself and returns ``None``.
- ``"inline"``: nested calls (``jit``, ``checkpoint``...) have no rule of their
  own: the planner replaces them by their bodies first.

``complex`` and ``bits`` say whether the rule is right for complex operands
and for values a kernel holds as raw bits: threefry key data (chapter 13's
keys, a uint32 array with a trailing axis of 2) and float16 arrays (uint16:
see :mod:`.syntax`); rules that only move elements are. The planner refuses
the others. A float16 *scalar* is a float32 variable, so any scalar rule
takes float16 operands (the writer rounds its result to float16).

Semantics follow XLA, as chapter 00's impl rules do: float32 stays float32
(:mod:`.syntax` writes every constant with its dtype), integer arithmetic
wraps (integer results are cast back: Numba computes in 64 bits), integer
division truncates, max/min propagate NaN, shifts by the bit width or more
give 0. Rules that need more than an expression request a helper
(:mod:`.helpers`, :mod:`.math_helpers`, :mod:`.trig_helpers`).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

import numpy as np

from minijax import lax
from minijax.backends.cpu import host_calls
from minijax.backends.cpu import math_helpers, trig_helpers  # noqa: F401  (register their helpers)
from minijax.backends.cpu.blas_threads import column_blocks
from minijax.backends.cpu.helpers import (gemm_helper, reduce_precision_helper, request,
                                          sort_helper)
from minijax.backends.cpu.loops import (PARALLEL_THRESHOLD, close_loops, copy_loops, index,
                                        open_loops, permuted_copy)
from minijax.backends.cpu.syntax import (cast, compute_dtype, data_shape, half_helpers,
                                         int_views, is_half, is_threefry_key, kind, literal,
                                         np_dtype)
from minijax.backends.plan import eqn_header
from minijax.checkpoint import name_p, remat_p
from minijax.control_flow.conditionals import cond_p
from minijax.control_flow.loops import scan_p, while_p
from minijax.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from minijax.interpreters.ad import add_any_p
from minijax.jaxpr import DropVar, Var
from minijax.jit import jit_p
from minijax.primitives import Primitive, RuleTable, register_rule_table

__all__ = ["Rule", "LOWERINGS", "register", "ScalarContext", "reduction_identity",
           "register_key_lowerings", "register_host_call_lowerings"]


@dataclass(frozen=True)
class Rule:
    """How the CPU target lowers one primitive (see the module docstring)."""
    fn: Callable
    form: str  # "scalar", "reduction", "call" or "inline"
    complex: bool = False  # right for complex operands
    bits: bool = False     # right for raw bits: threefry key data, float16 arrays


#: Primitive -> Rule: the CPU target's lowering of each primitive.
LOWERINGS: dict[Primitive, Rule] = register_rule_table("lowering[cpu]", RuleTable())


def register(prim: Primitive, fn: Callable, form: str, *, complex: bool = False,
             bits: bool = False) -> None:
    """Add ``prim``'s rule; a primitive has one CPU rule, never replaced."""
    if prim in LOWERINGS:
        raise ValueError(f"{prim} already has a CPU lowering")
    LOWERINGS[prim] = Rule(fn, form, complex, bits)


def lowering(*prims: Primitive, form: str = "call", complex: bool = False, bits: bool = False):
    """Decorator: ``fn`` is the rule of each of ``prims`` (see :func:`register`)."""
    def decorate(fn):
        for prim in prims:
            register(prim, fn, form, complex=complex, bits=bits)
        return fn
    return decorate


class ScalarContext:
    """What a scalar rule may ask: the equation, its dtypes, the loop index, helpers.

    ``out_dtype`` and ``in_dtype`` are the dtypes the kernel *computes* in: a
    float16 value is a float32 variable (see ``syntax``), and the writer
    rounds a float16 result; ``is_half`` says the equation involves float16.
    """

    def __init__(self, eqn, helpers: set, idx=(), read=None):
        self.eqn = eqn
        self.helpers = helpers
        self.idx = list(idx)   # the loop variables of the nest (``i0``, ``i1``...)
        self.read = read       # read(atom, idx) -> one element of a value in memory
        out = eqn.outvars[0].aval.dtype
        self.out_dtype = compute_dtype(out) if is_half(out) else out
        inp = eqn.invars[0].aval.dtype if eqn.invars else out
        self.in_dtype = compute_dtype(inp) if is_half(inp) else inp
        self.is_half = any(is_half(a.aval.dtype) for a in [*eqn.invars, *eqn.outvars])

    def helper(self, name: str) -> str:
        """Request helper ``name`` (and the helpers it calls); returns its name."""
        return request(self.helpers, name)

    def wrap(self, expr: str) -> str:
        """Cast back to the output dtype unless Numba already keeps it (floats)."""
        return expr if kind(self.out_dtype) == "f" else cast(self.out_dtype, expr)

    @property
    def is_complex(self) -> bool:
        return kind(self.in_dtype) == "c"


# =============================================================================
# Elementwise primitives: one expression per element
# =============================================================================
def _binop(op: str, *, compare: bool = False):
    """``x op y``; comparisons give bool, integer results are cast back (wrap)."""
    def rule(c, x, y):
        expr = f"{x} {op} {y}"
        return expr if compare else c.wrap(expr)
    return rule


def _helper_call(name: str):
    """``name(x)``: a float32 helper of :mod:`.math_helpers`."""
    return lambda c, x: f"{c.helper(name)}({x})"


def _math(np_fn: str, *, float32=None, complex: bool = False, cast_real: bool = False):
    """A function of one operand, every dtype case: complex operands use NumPy's
    complex function (``complex=True``), float32 outputs the ``float32`` rule
    (a vectorizable helper), other real dtypes ``np_fn`` (a libm call), cast
    to the output dtype when ``cast_real`` (``math.erf`` returns a float64)."""
    def rule(c, x):
        if complex and c.is_complex:
            return cast(c.out_dtype, f"{np_fn}({x})")
        if float32 is not None and c.out_dtype == np.float32:
            return float32(c, x)
        expr = f"{np_fn}({x})"
        return cast(c.out_dtype, expr) if cast_real else c.wrap(expr)
    return rule


def _trig32(end: str):
    """float32 sin/cos/tan: ``end(x, _sin_cos_f64(_rem_pio2_32(x)))`` (:mod:`.trig_helpers`)."""
    def rule(c, x):
        reduce, sin_cos, end_ = (c.helper(h) for h in ("_rem_pio2_32", "_sin_cos_f64", end))
        return f"{end_}({x}, {sin_cos}({reduce}({x})))"
    return rule


def _tanh32(c, x):
    return f"{c.helper('_tanh32')}({x})"  # XLA's algorithm (math_helpers)


def _expm1_32(c, x):
    """XLA's expm1 from its pieces (one helper calling the others would not be inlined)."""
    half, tanh, exp, end = (c.helper(h) for h in ("_expm1_half", "_tanh32", "_exp32", "_expm1_32"))
    return f"{end}({x}, {tanh}({half}({x})), {exp}({x}))"


def _erf32(c, x):
    return f"{c.helper('_erf32')}({x})"  # XLA's algorithm (math_helpers)


def _erf_inv(c, x):
    """XLA's float32 algorithm (``random.normal`` must give JAX's samples)."""
    if c.out_dtype != np.float32:
        raise NotImplementedError(f"erf_inv on {c.out_dtype}")
    w, poly, end = (c.helper(h) for h in ("_erf_inv_w", "_erf_inv_poly", "_erf_inv_end"))
    return f"{end}({x}, {poly}({w}({x})))"


def _logistic(c, x):
    if c.out_dtype == np.float32:
        return f"{c.helper('_logistic32')}({x})"
    one = literal(1, c.out_dtype)
    return c.wrap(f"{one} / ({one} + np.exp(-{x}))")


def _rsqrt(c, x):
    if c.out_dtype == np.float32:  # in float64, rounded once: as the eager impl
        return f"np.float32(1.0 / np.sqrt(np.float64({x})))"
    return c.wrap(f"{literal(1, c.out_dtype)} / np.sqrt({x})")


def _neg(c, x):
    return c.wrap(f"-{x}")


def _sign(c, x):
    if kind(c.out_dtype) == "f":  # keeps -0. and NaN
        return cast(c.out_dtype, f"{c.helper('_sign')}({x})")
    return cast(c.out_dtype, f"({x} > 0) - ({x} < 0)")


def _abs(c, x):
    return f"np.abs({x})" if kind(c.out_dtype) == "f" else cast(c.out_dtype, f"abs({x})")


def _div(c, x, y):
    k = kind(c.out_dtype)
    if c.is_complex:  # Smith's method, as NumPy: no ZeroDivisionError
        return cast(c.out_dtype, f"{c.helper('_cdiv')}({x}, {y})")
    if k == "f":
        return f"{x} / {y}"
    if k == "u":  # x / 0 is the maximum (-1 wrapped), as XLA
        return f"({cast(c.out_dtype, f'{x} // {y}')} if {y} != 0 else " \
               f"{literal(-1, c.out_dtype)})"
    return cast(c.out_dtype, f"{c.helper('_idiv')}({x}, {y})")


def _rem(c, x, y):
    k = kind(c.out_dtype)
    if k == "f":
        return f"np.fmod({x}, {y})"
    if k == "u":
        return f"({cast(c.out_dtype, f'{x} % {y}')} if {y} != 0 else {x})"
    return cast(c.out_dtype, f"{c.helper('_irem')}({x}, {y})")


def _minmax(take_max: bool):
    """XLA's max/min: NaN propagates; bools are or/and; integers wrap."""
    def rule(c, x, y):
        k = kind(c.out_dtype)
        if k == "b":
            return f"({x} | {y})" if take_max else f"({x} & {y})"
        if k == "f":
            return f"{c.helper('_fmax' if take_max else '_fmin')}({x}, {y})"
        return cast(c.out_dtype, f"{'max' if take_max else 'min'}({x}, {y})")
    return rule


_max, _min = _minmax(True), _minmax(False)


def _integer_pow(c, x):
    """Square-and-multiply, in XLA's order, so float results round the same way."""
    y = c.eqn.params["y"]
    if c.is_half:  # each float16 product would need its own rounding
        raise NotImplementedError("integer_pow on float16")
    if y == 0:
        return literal(1, c.out_dtype)
    acc, base, n = None, x, abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else f"{acc} * {base}"
        n >>= 1
        if n:
            base = f"({base} * {base})"
    if y < 0:
        return f"{literal(1, c.out_dtype)} / ({acc})"
    return c.wrap(acc)


def _select_n(c, which, *cases):
    if len(cases) == 1:
        return cases[0]
    if kind(c.eqn.invars[0].aval.dtype) == "b":  # (a select, not a jump: see helpers._select)
        return f"{c.helper('_select')}({which}, {cases[1]}, {cases[0]})"
    expr = cases[0]
    for k, case in enumerate(cases[1:], start=1):  # as the impl: the last case >= k wins
        expr = f"({case} if {which} >= {k} else {expr})"
    return expr


def _clamp(c, lo, x, hi):
    return _min(c, _max(c, x, lo), hi)


def _convert(c, x):
    """XLA's conversions: float -> int truncates and saturates (NaN -> 0)."""
    new, old = c.out_dtype, c.in_dtype
    if kind(old) == "c" and kind(new) != "c":
        raise NotImplementedError("complex -> real conversion")
    if new == np.bool_:
        return f"({x} != 0)"
    if kind(new) in "iu" and kind(old) == "f":
        info = np.iinfo(new)
        return cast(new, f"{c.helper('_float_to_int')}({x}, {float(info.min)!r}, "
                         f"{float(info.max)!r})")
    return x if new == old else cast(new, x)


def _round(c, x):
    if c.eqn.params["rounding_method"] == 1:  # TO_NEAREST_EVEN
        return f"np.rint({x})"
    return f"{c.helper('_round_away')}({x})"


def _not(c, x):
    return f"(not {x})" if c.out_dtype == np.bool_ else cast(c.out_dtype, f"~{x}")


def _shift(direction: str):
    """XLA's shifts: the count is read as unsigned; counts >= the bit width
    shift everything out (0, or copies of the sign for an arithmetic shift)."""
    def rule(c, x, y):
        dt = c.out_dtype
        bits, u, s = int_views(dt)
        count = cast(u, y)
        if direction == "arithmetic":
            clipped = cast(s, f"min({count}, {literal(bits - 1, u)})")
            return cast(dt, cast(s, f"{cast(s, x)} >> {clipped}"))
        op = "<<" if direction == "left" else ">>"
        shifted = cast(dt, cast(u, f"{cast(u, x)} {op} {count}"))
        return f"({shifted} if {count} < {literal(bits, u)} else {literal(0, dt)})"
    return rule


def _population_count(c, x):
    _, u, _ = int_views(c.out_dtype)
    return cast(c.out_dtype, f"{c.helper('_popcount')}({cast(u, x)}, {literal(1, u)})")


def _clz(c, x):
    bits, u, _ = int_views(c.out_dtype)
    return cast(c.out_dtype, f"{c.helper('_clz')}({cast(u, x)}, {bits}, {literal(1, u)})")


def _reduce_precision(c, x):
    """XLA's bit algorithm, a helper per (dtype, format), its constants computed in Python."""
    name = reduce_precision_helper(np.dtype(c.out_dtype), c.eqn.params["exponent_bits"],
                                   c.eqn.params["mantissa_bits"])
    return f"{c.helper(name)}({x})"


def _digamma(c, x):
    return cast(c.out_dtype, f"{c.helper('_digamma')}(np.float64({x}))")


def _conj(c, x):
    if not c.is_complex:  # a real number becomes complex
        return cast(c.out_dtype, x)
    return cast(c.out_dtype, f"np.conj({x})")


def _iota(c):
    """The loop index along ``dimension``, in the output dtype."""
    return cast(c.out_dtype, c.idx[c.eqn.params["dimension"]])


def _empty2(c):
    """A placeholder whose value does not matter: zero, as XLA lowers it."""
    return literal(0, c.out_dtype)


def _broadcast_in_dim(c, x_expr):
    """No copy: the operand is read at the loop index mapped back to its axes
    (``b[i1]`` for ``b`` broadcast along axis 0); size-1 axes read index 0."""
    x = c.eqn.invars[0]
    out_shape = c.eqn.outvars[0].aval.shape
    if not isinstance(x, Var) or not x.aval.shape or x.aval.shape == out_shape:
        return x_expr
    dims = c.eqn.params["broadcast_dimensions"]
    return c.read(x, ["0" if x.aval.shape[d] == 1 else c.idx[dims[d]] for d in range(len(dims))])


def _square(c, x):
    return c.wrap(f"{x} * {x}")


def _pow(c, x, y):
    return cast(c.out_dtype, f"{x} ** {cast(c.out_dtype, y)}")


def _nextafter(c, x, y):
    if c.is_half:  # the float16 neighbour, not the float32 one
        raise NotImplementedError("nextafter on float16")
    return f"np.nextafter({x}, {y})"


def _atan2(c, x, y):
    return f"np.arctan2({x}, {y})"


def _real(c, x):
    return f"{x}.real"


def _imag(c, x):
    return f"{x}.imag"


def _complex(c, x, y):
    return cast(c.out_dtype, f"complex({x}, {y})")


def _identity(c, x):
    return x


# Every elementwise primitive, one line each: its rule, and whether that rule is
# right for complex operands too. One expression per element (form "scalar").

# arithmetic
register(lax.add_p, _binop("+"), "scalar", complex=True)
register(add_any_p, _binop("+"), "scalar", complex=True)
register(lax.sub_p, _binop("-"), "scalar", complex=True)
register(lax.mul_p, _binop("*"), "scalar", complex=True)
register(lax.div_p, _div, "scalar", complex=True)
register(lax.rem_p, _rem, "scalar")
register(lax.neg_p, _neg, "scalar", complex=True)
register(lax.sign_p, _sign, "scalar")
register(lax.abs_p, _abs, "scalar", complex=True)
register(lax.square_p, _square, "scalar", complex=True)
register(lax.max_p, _max, "scalar")
register(lax.min_p, _min, "scalar")
register(lax.clamp_p, _clamp, "scalar")
register(lax.integer_pow_p, _integer_pow, "scalar")
register(lax.pow_p, _pow, "scalar")
register(lax.nextafter_p, _nextafter, "scalar")

# rounding
register(lax.floor_p, _math("np.floor"), "scalar")
register(lax.ceil_p, _math("np.ceil"), "scalar")
register(lax.round_p, _round, "scalar")
register(lax.is_finite_p, _math("np.isfinite"), "scalar")

# exponentials and logarithms
register(lax.exp_p, _math("np.exp", float32=_helper_call("_exp32"), complex=True),
         "scalar", complex=True)
register(lax.exp2_p, _math("np.exp2", float32=_helper_call("_exp2_32")), "scalar")
register(lax.expm1_p, _math("np.expm1", float32=_expm1_32), "scalar")
register(lax.log_p, _math("np.log", float32=_helper_call("_log32"), complex=True),
         "scalar", complex=True)
register(lax.log1p_p, _math("np.log1p", float32=_helper_call("_log1p32")), "scalar")
register(lax.logistic_p, _logistic, "scalar")
register(lax.sqrt_p, _math("np.sqrt", complex=True), "scalar", complex=True)
register(lax.rsqrt_p, _rsqrt, "scalar")
register(lax.cbrt_p, _math("np.cbrt"), "scalar")

# trigonometric and hyperbolic functions
register(lax.sin_p, _math("np.sin", float32=_trig32("_sin_end"), complex=True),
         "scalar", complex=True)
register(lax.cos_p, _math("np.cos", float32=_trig32("_cos_end"), complex=True),
         "scalar", complex=True)
register(lax.tan_p, _math("np.tan", float32=_trig32("_tan_end"), complex=True),
         "scalar", complex=True)
register(lax.asin_p, _math("np.arcsin"), "scalar")
register(lax.acos_p, _math("np.arccos"), "scalar")
register(lax.atan_p, _math("np.arctan"), "scalar")
register(lax.atan2_p, _atan2, "scalar")
register(lax.sinh_p, _math("np.sinh", float32=_helper_call("_sinh32"), complex=True),
         "scalar", complex=True)
register(lax.cosh_p, _math("np.cosh", float32=_helper_call("_cosh32"), complex=True),
         "scalar", complex=True)
register(lax.tanh_p, _math("np.tanh", float32=_tanh32, complex=True), "scalar", complex=True)
register(lax.asinh_p, _math("np.arcsinh", float32=_helper_call("_asinh32")), "scalar")
register(lax.acosh_p, _math("np.arccosh", float32=_helper_call("_acosh32")), "scalar")
register(lax.atanh_p, _math("np.arctanh", float32=_helper_call("_atanh32")), "scalar")

# special functions
register(lax.erf_p, _math("math.erf", float32=_erf32, cast_real=True), "scalar")
register(lax.erfc_p, _math("math.erfc", cast_real=True), "scalar")
register(lax.erf_inv_p, _erf_inv, "scalar")
register(lax.lgamma_p, _math("math.lgamma", cast_real=True), "scalar")
register(lax.digamma_p, _digamma, "scalar")

# complex numbers
register(lax.real_p, _real, "scalar", complex=True)
register(lax.imag_p, _imag, "scalar", complex=True)
register(lax.complex_p, _complex, "scalar", complex=True)
register(lax.conj_p, _conj, "scalar", complex=True)

# logic, comparisons and bits
register(lax.not_p, _not, "scalar")
register(lax.and_p, _binop("&"), "scalar")
register(lax.or_p, _binop("|"), "scalar")
register(lax.xor_p, _binop("^"), "scalar")
register(lax.eq_p, _binop("==", compare=True), "scalar", complex=True)
register(lax.ne_p, _binop("!=", compare=True), "scalar", complex=True)
register(lax.lt_p, _binop("<", compare=True), "scalar")
register(lax.le_p, _binop("<=", compare=True), "scalar")
register(lax.gt_p, _binop(">", compare=True), "scalar")
register(lax.ge_p, _binop(">=", compare=True), "scalar")
register(lax.shift_left_p, _shift("left"), "scalar")
register(lax.shift_right_logical_p, _shift("logical"), "scalar")
register(lax.shift_right_arithmetic_p, _shift("arithmetic"), "scalar")
register(lax.population_count_p, _population_count, "scalar")
register(lax.clz_p, _clz, "scalar")

# selection, conversion, identities
register(lax.select_n_p, _select_n, "scalar", complex=True)
register(lax.convert_element_type_p, _convert, "scalar", complex=True)
register(lax.reduce_precision_p, _reduce_precision, "scalar")
register(lax.copy_p, _identity, "scalar", complex=True)
register(lax.stop_gradient_p, _identity, "scalar", complex=True)

# index arithmetic
register(lax.iota_p, _iota, "scalar", complex=True)
register(lax.empty2_p, _empty2, "scalar", complex=True)
register(lax.broadcast_in_dim_p, _broadcast_in_dim, "scalar", complex=True)


# =============================================================================
# Reductions: fold one element into an accumulator
# =============================================================================
def reduction_identity(kind_: str, dtype):
    """The starting value of reduce_<kind_> in the accumulator's ``dtype``."""
    k = kind(dtype)
    if kind_ in ("max", "min"):
        if k == "f":
            return float("-inf") if kind_ == "max" else float("inf")
        if k == "b":
            return kind_ == "min"
        info = np.iinfo(dtype)
        return info.min if kind_ == "max" else info.max
    return {"sum": 0, "prod": 1, "and": -1 if k != "b" else True, "or": 0, "xor": 0}[kind_]


def _fold(kind_: str):
    """``fn(c, acc, x)``: the statement folding ``x`` into ``acc`` (the
    accumulator's dtype is ``c.out_dtype``: float64 for float sums)."""
    def fold(c, acc, x):
        if kind_ == "sum":
            return f"{acc} += {x}"
        if kind_ == "prod":
            return f"{acc} *= {x}"
        if kind_ in ("max", "min"):
            return f"{acc} = {_minmax(kind_ == 'max')(c, acc, x)}"
        op = {"and": "&", "or": "|", "xor": "^"}[kind_]
        new = f"{acc} {op} {x}"
        return f"{acc} = {new if kind(c.out_dtype) == 'b' else cast(c.out_dtype, new)}"
    return fold


def _arg_fold(kind_: str):
    """argmax/argmin: ``fn(c, best, x)`` is the test "x is better than best"
    (a new maximum, or the first NaN); the writer keeps the index."""
    return lambda c, best, x: f"{c.helper('_arg_better_' + kind_)}({x}, {best})"


register(lax.reduce_sum_p, _fold("sum"), "reduction", complex=True)
register(lax.reduce_prod_p, _fold("prod"), "reduction", complex=True)
register(lax.reduce_max_p, _fold("max"), "reduction")
register(lax.reduce_min_p, _fold("min"), "reduction")
register(lax.reduce_and_p, _fold("and"), "reduction")
register(lax.reduce_or_p, _fold("or"), "reduction")
register(lax.reduce_xor_p, _fold("xor"), "reduction")
register(lax.argmax_p, _arg_fold("max"), "reduction")
register(lax.argmin_p, _arg_fold("min"), "reduction")


# =============================================================================
# Matrix products: BLAS (float32) or loops (integers)
# =============================================================================
@lowering(lax.dot_general_p, complex=True)
def _dot_general(w, eqn, *operand_names) -> None:
    """``dot_general`` as (batched) matrix products of contiguous 3-D operands:
    one gemm call per batch element (float32), or plain loops (integers)."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    out = eqn.outvars[0]
    dtype = out.aval.dtype
    ls, rs = lhs.aval.shape, rhs.aval.shape
    lf = [d for d in range(len(ls)) if d not in lc and d not in lb]
    rf = [d for d in range(len(rs)) if d not in rc and d not in rb]
    size = lambda shape, dims: int(np.prod([shape[d] for d in dims], dtype=np.int64))  # noqa
    B, M, K, N = size(ls, lb), size(ls, lf), size(ls, lc), size(rs, rf)
    name = w.var(out)
    w.emit(f"# {w.text(eqn)}")
    if not lb and M * N * K > 0 and _matrix_dot(w, eqn, name):
        return
    operands = []
    for a, perm, shape3, suffix in ((lhs, [*lb, *lf, *lc], (B, M, K), "lhs"),
                                    (rhs, [*rb, *rc, *rf], (B, K, N), "rhs")):
        x = w.atom(a)
        if perm != sorted(perm) and a.aval.shape:
            x = _transposed(w, x, a.aval, perm, f"{name}_{suffix}t")
        code = w.reshape_code(x, a.aval, shape3)
        if a.aval.dtype != dtype:
            code = f"{code}.astype({np_dtype(dtype)})"
        w.emit(f"{name}_{suffix} = {code}")
        operands.append(f"{name}_{suffix}")
    out_shape = tuple(out.aval.shape)
    if np.dtype(dtype) == np.float32 and M * N * K > 0:  # each product: sgemm in blocks
        w.emit(f"{name}_3d = np.empty({(B, M, N)}, dtype={np_dtype(dtype)})")
        w.emit(f"for i0 in range({B}):")
        w.depth += 1
        _blocked_gemm(w, f"{operands[0]}[i0]", f"{operands[1]}[i0]", f"{name}_3d[i0]",
                      False, False, (M, N, K), name)
        w.depth -= 1
    else:
        w.emit(f"{name}_3d = np.zeros({(B, M, N)}, dtype={np_dtype(dtype)})")
        w.emit(f"{w.helper('_dot_loop')}({operands[0]}, {operands[1]}, {name}_3d)")
    w.emit(f"{name} = {name}_3d.reshape({out_shape})" if out_shape
              else f"{name} = {name}_3d[0, 0, 0]")

def _matrix_dot(w, eqn, name: str) -> bool:
    """A product of two float32 matrices as calls of a gemm helper on the
    operands as they are stored (:func:`.helpers.gemm_helper`: BLAS's gemm
    with a transpose flag for each, so ``x.T`` is never copied): one call, or
    one per block of columns for a big product (:func:`_blocked_gemm`).
    Returns False for the other cases (batches, vectors, other dtypes).

    The helpers compile once, in the shared helper module; ``np.dot``
    compiled Numba's BLAS wrapper again for each pair of operand layouts
    (0.1-0.5 s each in a fresh process)."""
    (lc, rc), _ = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    dtype = eqn.outvars[0].aval.dtype
    if not (len(lc) == 1 and lhs.aval.ndim == rhs.aval.ndim == 2
            and lhs.aval.dtype == rhs.aval.dtype == dtype and np.dtype(dtype) == np.float32):
        return False
    m, n = lhs.aval.shape[1 - lc[0]], rhs.aval.shape[1 - rc[0]]
    k = lhs.aval.shape[lc[0]]
    a, b = (f"np.ascontiguousarray({w.atom(x)})" for x in (lhs, rhs))
    w.emit(f"{name} = np.empty(({m}, {n}), dtype={np_dtype(dtype)})")
    w.emit(f"# {name} = {w.atom(lhs)}{'.T' * (lc[0] == 0)} @ {w.atom(rhs)}{'.T' * (rc[0] == 1)}")
    _blocked_gemm(w, a, b, name, lc[0] == 0, rc[0] == 1, (m, n, k), name)
    return True


def _blocked_gemm(w, a: str, b: str, out: str, trans_a: bool, trans_b: bool, mnk, name: str):
    """``out = op(a) @ op(b)`` (float32, ``out`` is m x n) as single-threaded sgemm
    calls on blocks of ``out``'s columns, spread over threads with ``prange``:
    the blocks depend on the shape alone (:func:`.blas_threads.column_blocks`),
    so the bits do not depend on how many threads the machine can spare."""
    m, n, k = mnk
    gemm = w.helper(gemm_helper(trans_a, trans_b, one_thread=True))
    blocks, width = column_blocks(m, n, k)
    if blocks == 1:
        w.emit(f"{gemm}({a}, {b}, {out})  # one block, on one BLAS thread")
        return
    w.parallel = True
    if any(x.startswith("np.") for x in (a, b)):  # once, not once per block
        w.emit(f"{name}_a, {name}_b = {a}, {b}")
        a, b = f"{name}_a", f"{name}_b"
    j = f"{name}_j"
    end = f"{j} + {width}" if blocks * width == n else f"min({j} + {width}, {n})"
    cols = f"{j}:{end}"
    w.emit(f"for {name}_c in prange({blocks}):  # {blocks} blocks of {width} columns, "
           "one BLAS thread each")
    w.emit(f"    {j} = {name}_c * {width}")
    b_cols = f"{b}[{cols}]" if trans_b else f"{b}[:, {cols}]"  # b.T's columns are b's rows
    w.emit(f"    {gemm}({a}, {b_cols}, {out}[:, {cols}])")

def _transposed(w, x: str, aval, perm, name: str) -> str:
    """A contiguous copy of ``x`` with its axes permuted, written as element
    loops: ``x.transpose(perm)`` would compile Numba's tuple formatting
    (seconds, the first time in a process) and still need a copy to reshape."""
    shape = tuple(aval.shape[d] for d in perm)
    permuted_copy(w, name, x, shape, np_dtype(aval.dtype), perm)
    return name


# =============================================================================
# Data movement: reshape, transpose, slices, pads, concatenation
# =============================================================================
@lowering(lax.reshape_p, complex=True, bits=True)
def _reshape(w, eqn, x):
    if eqn.params.get("dimensions") is not None:
        raise NotImplementedError("reshape with dimensions")
    return _reshape_code(w, x, eqn.invars[0].aval, eqn.outvars[0].aval.shape)


@lowering(lax.squeeze_p, complex=True, bits=True)
def _squeeze(w, eqn, x):
    return _reshape_code(w, x, eqn.invars[0].aval, eqn.outvars[0].aval.shape)


def _reshape_code(w, x, aval, new_shape) -> str:
    """A reshape; keys keep the trailing axis of their data (see :func:`_key_ok`)."""
    if is_threefry_key(aval.dtype):
        return f"np.ascontiguousarray({x}).reshape({tuple(new_shape) + (2,)})"
    return w.reshape_code(x, aval, new_shape)


@lowering(lax.transpose_p, complex=True, bits=True)
def _transpose(w, eqn, x):
    perm = tuple(eqn.params["permutation"])
    if perm == tuple(range(len(perm))):
        return x
    perm += (len(perm),) if is_threefry_key(eqn.invars[0].aval.dtype) else ()
    name = w.var(eqn.outvars[0])
    shape, dtype = data_shape(eqn.outvars[0].aval)
    permuted_copy(w, name, x, shape, dtype, perm, w.text(eqn))
    return None


@lowering(lax.slice_p, complex=True, bits=True)
def _slice(w, eqn, x):
    strides = eqn.params["strides"] or (1,) * len(eqn.params["start_indices"])
    parts = [f"{s}:{e}" + (f":{k}" if k != 1 else "")
             for s, e, k in zip(eqn.params["start_indices"], eqn.params["limit_indices"], strides)]
    return f"{x}[{', '.join(parts)}].copy()"


@lowering(lax.rev_p, complex=True, bits=True)
def _rev(w, eqn, x):
    dims = set(eqn.params["dimensions"])
    parts = ["::-1" if d in dims else ":" for d in range(len(eqn.outvars[0].aval.shape))]
    return f"{x}[{', '.join(parts)}].copy()"


@lowering(lax.bitcast_convert_type_p, bits=True)
def _bitcast(w, eqn, x):
    """A view of the same bits. A float16 array already is its bits (uint16) in a
    kernel; a float16 scalar is a float32 variable, converted from or to bits.
    Between widths (``Array.view``) the last axis splits into, or joins, the
    narrower elements: a contiguous view, reshaped to the output's shape."""
    old, new = eqn.invars[0].aval, eqn.outvars[0].aval
    if old.dtype.itemsize != new.dtype.itemsize:
        if not old.shape and is_half(old.dtype):
            raise NotImplementedError("bitcast_convert_type of a float16 scalar between widths")
        source = f"np.ascontiguousarray({x})" if old.shape else f"np.full((1,), {x})"
        return f"{source}.view({data_shape(new)[1]}).reshape({tuple(data_shape(new)[0])})"
    if old.dtype == new.dtype:
        return x
    if not old.shape:
        bits = f"{w.helper(half_helpers(old.dtype)[0])}({x})" if is_half(old.dtype) else x
        value = f"np.full((1,), {bits}).view({data_shape(new)[1]})[0]"
        return f"{w.helper(half_helpers(new.dtype)[1])}({value})" if is_half(new.dtype) else value
    return f"{x}.view({data_shape(new)[1]})"


@lowering(lax.concatenate_p, complex=True, bits=True)
def _concatenate(w, eqn, *xs):
    return f"np.concatenate(({''.join(x + ', ' for x in xs)}), axis={eqn.params['dimension']})"


@lowering(lax.pad_p, complex=True)
def _pad(w, eqn, x, padding_value):
    """``np.full`` of the padding value, then the operand's elements that survive
    (negative padding crops) written with a stride of ``interior + 1``."""
    out = eqn.outvars[0].aval
    name = w.var(eqn.outvars[0])
    w.emit(f"{name} = np.full({tuple(out.shape)}, {padding_value}, "
           f"dtype={np_dtype(out.dtype)})", w.text(eqn))
    first, counts, dst = [], [], []
    for (lo, _, interior), d, n in zip(eqn.params["padding_config"],
                                       eqn.invars[0].aval.shape, out.shape):
        step = interior + 1  # element j of x lands at lo + j * step; keep 0 <= that < n
        start = max(0, -(lo // step)) if lo < 0 else 0
        last = min(d, (n - 1 - lo) // step + 1) if n - 1 - lo >= 0 else 0
        if last <= start:
            return None  # nothing of x survives
        first.append(start)
        counts.append(last - start)
        dst.append((lo + start * step, step))
    copy_loops(w, f"{name}_i", counts,
               lambda i: f"{name}[{', '.join(f'{a} + {k} * {j}' for (a, k), j in zip(dst, i))}]",
               lambda i: f"{x}[{', '.join(f'{a} + {j}' for a, j in zip(first, i))}]")
    return None


def _cumulative(kind_: str):
    """``cumsum``... along ``axis``: loops over the other axes, a running value along it."""
    def lower(w, eqn, x):
        out = eqn.outvars[0]
        dtype, shape = out.aval.dtype, tuple(out.aval.shape)
        if kind_ == "logsumexp" and dtype.kind != "f":
            raise NotImplementedError(f"cumlogsumexp of {dtype}")
        axis, n = eqn.params["axis"], out.aval.shape[eqn.params["axis"]]
        name = w.var(out)
        w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(dtype)})", w.text(eqn))
        if n == 0 or 0 in shape:
            return None
        idx = open_loops(w, [1 if d == axis else n for d, n in enumerate(shape)], "i")
        at = lambda k: ", ".join(k if d == axis else i for d, i in enumerate(idx))  # noqa
        acc, k = f"{name}_acc", f"{name}_k"
        first, pos = (f"{n - 1}", f"{n - 1} - {k}") if eqn.params["reverse"] else ("0", k)
        w.emit(f"{acc} = {x}[{at(first)}]")
        w.emit(f"{name}[{at(first)}] = {acc}")
        w.emit(f"for {k} in range(1, {n}):")
        ctx = ScalarContext(eqn, w.helpers)
        combine = {"sum": _binop("+"), "prod": _binop("*"), "logsumexp": _logaddexp,
                   "max": _max, "min": _min}[kind_]
        w.emit(f"    {acc} = {combine(ctx, acc, f'{x}[{at(pos)}]')}")
        w.emit(f"    {name}[{at(pos)}] = {acc}")
        close_loops(w, idx)
        return None
    return lower


def _logaddexp(ctx, x, y):
    return f"{ctx.helper('_logaddexp')}({x}, {y}, {literal(np.log(2), ctx.out_dtype)})"


register(lax.cumsum_p, _cumulative("sum"), "call", complex=True)
register(lax.cumprod_p, _cumulative("prod"), "call", complex=True)
register(lax.cummax_p, _cumulative("max"), "call")
register(lax.cummin_p, _cumulative("min"), "call")
register(lax.cumlogsumexp_p, _cumulative("logsumexp"), "call")


def _clamped_starts(w, eqn, shape, sizes, starts) -> list[str]:
    """Start indices clamped into ``[0, dim - size]``, as XLA does."""
    name = w.var(eqn.outvars[0])
    names = []
    for d, (s, dim, size) in enumerate(zip(starts, shape, sizes)):
        w.emit(f"{name}_s{d} = min(max(np.int64({s}), 0), {dim - size})")
        names.append(f"{name}_s{d}")
    return names


def _window(starts, sizes) -> str:
    return ", ".join(f"{s}:{s} + {z}" for s, z in zip(starts, sizes))


@lowering(lax.dynamic_slice_p, complex=True, bits=True)
def _dynamic_slice(w, eqn, x, *starts):
    sizes = eqn.params["slice_sizes"]
    w.emit(f"# {w.text(eqn)}")
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    return f"{x}[{_window(s, sizes)}].copy()" if sizes else x


@lowering(lax.dynamic_update_slice_p, complex=True, bits=True)
def _dynamic_update_slice(w, eqn, x, update, *starts):
    sizes = eqn.invars[1].aval.shape
    name = w.var(eqn.outvars[0])
    w.emit(f"# {w.text(eqn)}")
    if not sizes:
        return update
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    w.emit(f"{name} = {x}.copy()")
    shape, _ = data_shape(eqn.invars[1].aval)
    copy_loops(w, f"{name}_i", shape,
               lambda i: f"{name}[{', '.join([f'{a} + {j}' for a, j in zip(s, i)] + i[len(s):])}]",
               lambda i: f"{update}[{', '.join(i)}]")
    return None


# =============================================================================
# gather, scatter, sort, top_k, split, stack, unstack, tile
# =============================================================================
def _mode_name(mode) -> str:
    """``GatherScatterMode.CLIP`` -> ``"CLIP"`` (the enum lives in chapter 00)."""
    return getattr(mode, "name", str(mode))


def _out(w, eqn, k: int = 0) -> str:
    """The kernel name of output ``k`` (a name of its own for an unread ``_``)."""
    if not isinstance(eqn.outvars[k], DropVar):
        return w.var(eqn.outvars[k])
    named = [v for v in eqn.outvars if not isinstance(v, DropVar)]  # DCE keeps one at least
    return f"{w.var(named[0])}_drop{k}"


def _key_word(w, name: str, aval) -> list[str]:
    """For a key array: open a loop over the 2 words of its key data (the caller
    closes it with the other loops) and return its variable; else nothing."""
    if not is_threefry_key(aval.dtype):
        return []
    w.emit(f"for {name}_kw in range(2):")
    w.depth += 1
    return [f"{name}_kw"]


def _empty(w, name: str, aval) -> None:
    shape, dtype = data_shape(aval)
    w.emit(f"{name} = np.empty({shape}, dtype={dtype})")


# =============================================================================
# gather
# =============================================================================
def _window_starts(w, name, operand_shape, sizes, idx, batch, index_map,
                   operand_batching, indices_batching, clamp: bool):
    """Emit the start of the window in every operand dimension, for batch index ``batch``.

    Returns (start expressions, the condition "the window is inside the
    operand" or None when it always is).
    """
    starts = ["0"] * len(operand_shape)
    checks = []
    for k, d in enumerate(index_map):
        raw = f"{name}_s{d}"
        w.emit(f"{raw} = np.int64({idx}[{index([*batch, str(k)])}])")
        upper = operand_shape[d] - sizes[d]
        checks.append(f"0 <= {raw} <= {upper}")
        if clamp:
            w.emit(f"{raw}c = min(max({raw}, 0), {max(upper, 0)})")
            raw += "c"
        starts[d] = raw
    for od, ib in zip(operand_batching, indices_batching):
        starts[od] = batch[ib]  # batching dims pair operand and indices: always in bounds
    return starts, (" and ".join(checks) if checks else None)


def _window_loops(w, name: str, sizes, window_dims) -> dict:
    """Open a loop over each window dimension longer than 1; returns the offset
    (a loop variable, or ``"0"``) of every window dimension."""
    offsets = {}
    for d in window_dims:
        if sizes[d] == 1:
            offsets[d] = "0"
        else:
            offsets[d] = f"{name}_w{d}"
            w.emit(f"for {offsets[d]} in range({sizes[d]}):")
            w.depth += 1
    return offsets


def _plus(start: str, offset: str) -> str:
    return offset if start == "0" else start if offset == "0" else f"{start} + {offset}"


def _operand_index(starts, offsets, word) -> str:
    """One element of the operand: the window start plus the offset in window dims
    (and the key ``word``, for keys)."""
    return index([_plus(s, offsets.get(d, "0")) for d, s in enumerate(starts)] + word)


@lowering(lax.gather_p, complex=True, bits=True)
def _gather(w, eqn, x, idx):
    """For each batch index: the window start (clamped), then a loop over the
    window copying elements (or the fill value, for a window out of bounds in
    ``"fill"`` mode) to the output, whose offset dims are the window dims."""
    dn, sizes = eqn.params["dimension_numbers"], tuple(eqn.params["slice_sizes"])
    mode = _mode_name(eqn.params["mode"])
    operand, indices = eqn.invars[0].aval, eqn.invars[1].aval
    out = eqn.outvars[0].aval
    if mode == "ONE_HOT" or operand.ndim == 0:
        raise NotImplementedError(f"gather with mode {mode} of a rank {operand.ndim} operand")
    fill = mode == "FILL_OR_DROP"
    if fill and (is_threefry_key(operand.dtype) or operand.dtype.kind == "c"
                 or is_half(operand.dtype)):
        raise NotImplementedError(f"gather of {operand.dtype} with mode FILL_OR_DROP")
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    scalar = out.ndim == 0 and not is_threefry_key(out.dtype)  # a one-element array first
    target = f"{name}_1d" if scalar else name
    _empty(w, target, out.update(shape=(1,)) if scalar else out)
    if 0 in out.shape:
        return None
    window_dims = [d for d in range(operand.ndim) if d not in dn.collapsed_slice_dims
                   and d not in dn.operand_batching_dims]
    batch_shape = indices.shape[:-1]
    batch = open_loops(w, batch_shape, f"{name}_b")
    starts, inside = _window_starts(w, name, operand.shape, sizes, idx, batch,
                                    dn.start_index_map, dn.operand_batching_dims,
                                    dn.start_indices_batching_dims, clamp=True)
    if fill and inside is not None:
        w.emit(f"{name}_ok = {inside}")
    depth = w.depth
    offsets = _window_loops(w, name, sizes, window_dims)
    word = _key_word(w, name, operand)
    # output dims: the offset dims are the window dims (in order), the others the batch
    window_iter, batch_iter = iter(window_dims), iter(batch)
    dst = [offsets[next(window_iter)] if d in dn.offset_dims else next(batch_iter)
           for d in range(out.ndim)]
    dst = ["0"] if scalar else dst + word
    value = f"{x}[{_operand_index(starts, offsets, word)}]"
    if fill and inside is not None:
        value = f"({value} if {name}_ok else {literal(eqn.params['fill_value'], operand.dtype)})"
    w.emit(f"{target}[{index(dst)}] = {value}")
    w.depth = depth
    close_loops(w, batch)
    if scalar:
        w.emit(f"{name} = {target}[0]")
    return None


# =============================================================================
# scatter, scatter-add, scatter-sub, scatter-mul, scatter-min, scatter-max
# =============================================================================
#: how one element of the updates ``u`` combines into the operand's element ``o``
_COMBINE = {
    "scatter": "{o} = {u}",
    "scatter-add": "{o} += {u}",
    "scatter-sub": "{o} -= {u}",
    "scatter-mul": "{o} *= {u}",
    "scatter-min": "{o} = np.minimum({o}, {u})",  # NaN propagates, as np.minimum.at
    "scatter-max": "{o} = np.maximum({o}, {u})",
}


@lowering(lax.scatter_p, lax.scatter_add_p, lax.scatter_sub_p, lax.scatter_mul_p, complex=True)
@lowering(lax.scatter_min_p, lax.scatter_max_p)
def _scatter(w, eqn, x, idx, updates):
    """Updates are applied one window at a time in the order of the indices, so
    with repeated indices the combining ops accumulate and plain ``scatter``
    keeps the last one (as the interpreter does; XLA leaves it unspecified)."""
    kind = eqn.primitive.name
    if eqn.params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter with a Python update function (scatter_apply)")
    dn = eqn.params["dimension_numbers"]
    operand, indices, upd = (a.aval for a in eqn.invars)
    if kind in ("scatter-min", "scatter-max") and operand.dtype.kind == "c":
        raise NotImplementedError(f"{kind} on complex numbers")
    if operand.ndim == 0:
        raise NotImplementedError("scatter into a rank 0 operand")
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name} = {x}.copy()")
    window_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                   and d not in dn.operand_batching_dims]
    sizes = [1] * operand.ndim
    for d, ud in zip(window_dims, dn.update_window_dims):
        sizes[d] = upd.shape[ud]
    if 0 in upd.shape:
        return None
    batch_shape = indices.shape[:-1]
    batch = open_loops(w, batch_shape, f"{name}_b")
    clip = _mode_name(eqn.params["mode"]) == "CLIP"
    starts, inside = _window_starts(w, name, operand.shape, sizes, idx, batch,
                                    dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                    dn.scatter_indices_batching_dims, clamp=clip)
    depth = w.depth
    if not clip and inside is not None:  # a window not wholly inside is dropped
        w.emit(f"if {inside}:")
        w.depth += 1
    offsets = _window_loops(w, name, sizes, window_dims)
    word = _key_word(w, name, operand)
    # updates dims: the update window dims are the window dims (in order), the others the batch
    window_iter, batch_iter = iter(window_dims), iter(batch)
    src = [offsets[next(window_iter)] if d in dn.update_window_dims else next(batch_iter)
           for d in range(upd.ndim)] + word
    u = f"{updates}[{index(src)}]" if src else updates  # rank 0 updates: a scalar
    o = f"{name}[{_operand_index(starts, offsets, word)}]"
    w.emit(_COMBINE[kind].format(o=o, u=u))
    w.depth = depth
    close_loops(w, batch)
    return None


# =============================================================================
# sort and top_k
# =============================================================================
def _row_of(idx, shape, axis) -> str:
    """The row (in C order over every dim but ``axis``) of the element at ``idx``."""
    row = "0"
    for i, n, d in zip(idx, shape, range(len(shape))):
        if d != axis:
            row = i if row == "0" else f"({row}) * {n} + {i}"
    return row


def _rows(w, name: str, x: str, aval, axis: int) -> tuple[str, int, tuple, tuple]:
    """Emit a copy of ``x`` with ``axis`` moved last, as a C-contiguous 2-D array
    of rows (a fresh writable array, so the helpers compile for one type).

    Returns (its name, rows, the transposed shape, the permutation).
    """
    shape, nd = tuple(aval.shape), len(aval.shape)
    perm = tuple(d for d in range(nd) if d != axis) + (axis,)
    tshape = tuple(shape[d] for d in perm)
    n, m = shape[axis], int(np.prod(tshape[:-1], dtype=np.int64))
    if axis == nd - 1:
        w.emit(f"{name} = {x}.copy().reshape(({m}, {n}))")
        return name, m, tshape, perm
    w.emit(f"{name} = np.empty(({m}, {n}), dtype={np_dtype(aval.dtype)})")
    idx = open_loops(w, shape, f"{name}_i")  # loops, not .transpose(): quick to compile
    w.emit(f"{name}[{_row_of(idx, shape, axis)}, {idx[axis]}] = {x}[{index(idx)}]")
    close_loops(w, idx)
    return name, m, tshape, perm


def _unrows(w, name: str, rows: str, tshape, perm, dtype) -> None:
    """Emit the inverse of :func:`_rows`: the rows back in the operand's layout."""
    axis, nd = perm[-1], len(perm)
    shape = [0] * nd
    for d, n in zip(perm, tshape):
        shape[d] = n
    if axis == nd - 1:
        w.emit(f"{name} = {rows}.reshape({tuple(shape)})")
        return
    w.emit(f"{name} = np.empty({tuple(shape)}, dtype={np_dtype(dtype)})")
    idx = open_loops(w, shape, f"{name}_i")
    w.emit(f"{name}[{index(idx)}] = {rows}[{_row_of(idx, shape, axis)}, {idx[axis]}]")
    close_loops(w, idx)


def _permute_row(w, dst: str, src: str, r: str, p: str, count) -> None:
    """Emit ``dst[r, t] = src[r, p[t]]`` for the first ``count`` positions."""
    w.emit(f"    for {dst}_t in range({count}):")
    w.emit(f"        {dst}[{r}, {dst}_t] = {src}[{r}, {p}[{dst}_t]]")


@lowering(lax.sort_p)
def _sort(w, eqn, *xs):
    """Per row: the stable permutation of the keys, then every operand through it."""
    num_keys, axis = eqn.params["num_keys"], eqn.params["dimension"]
    avals = [a.aval for a in eqn.invars]
    if any(a.dtype.kind == "c" for a in avals[:num_keys]):
        raise NotImplementedError("sort by complex keys")
    names = [_out(w, eqn, k) for k in range(len(xs))]
    w.emit(f"# {w.text(eqn)}")
    rows = []
    for k, (x, aval) in enumerate(zip(xs, avals)):
        r, m, tshape, perm = _rows(w, f"{names[0]}_in{k}", x, aval, axis)
        rows.append(r)
        w.emit(f"{names[k]}_rows = np.empty_like({r})")
    sort_fn = w.helper(sort_helper(num_keys))
    r, p = f"{names[0]}_r", f"{names[0]}_p"
    w.emit(f"for {r} in range({m}):")
    w.emit(f"    {p} = {sort_fn}({', '.join(f'{k}[{r}]' for k in rows[:num_keys])})")
    for k, src in enumerate(rows):
        _permute_row(w, f"{names[k]}_rows", src, r, p, tshape[-1])
    for k in range(len(xs)):
        _unrows(w, names[k], f"{names[k]}_rows", tshape, perm, avals[k].dtype)
    return None


@lowering(lax.top_k_p)
def _top_k(w, eqn, x):
    """IEEE total order, largest first, ties by position: a stable ascending
    sort of ``~key``, where ``key`` is an integer that orders as the values
    (a float's bits as a signed integer, all but the sign flipped if negative)."""
    k, axis = eqn.params["k"], eqn.params["axis"]
    aval, dt = eqn.invars[0].aval, eqn.invars[0].aval.dtype
    vals, idxs = _out(w, eqn, 0), _out(w, eqn, 1)
    w.emit(f"# {w.text(eqn)}")
    rows, m, tshape, perm = _rows(w, f"{vals}_in", x, aval, axis)
    n = tshape[-1]
    kdt = (np.dtype(f"int{8 * dt.itemsize}") if dt.kind == "f"
           else np.dtype(np.int8) if dt == np.bool_ else dt)
    w.emit(f"{vals}_key = np.empty(({m}, {n}), dtype={np_dtype(kdt)})")
    bits = f"{rows}.view({np_dtype(kdt)})" if dt.kind == "f" else rows
    w.emit(f"{vals}_bits = {bits}")
    w.emit(f"for {vals}_r in range({m}):")
    w.emit(f"    for {vals}_t in range({n}):")
    b = f"{vals}_b"
    w.emit(f"        {b} = {np_dtype(kdt)}({vals}_bits[{vals}_r, {vals}_t])")
    flip = f"({b} ^ {literal(np.iinfo(kdt).max, kdt)} if {b} < 0 else {b})" if dt.kind == "f" else b
    w.emit(f"        {vals}_key[{vals}_r, {vals}_t] = {np_dtype(kdt)}(~{flip})")
    out_t = tshape[:-1] + (k,)
    w.emit(f"{vals}_rows = np.empty(({m}, {k}), dtype={np_dtype(dt)})")
    w.emit(f"{idxs}_rows = np.empty(({m}, {k}), dtype=np.int32)")
    sort_fn = w.helper(sort_helper(1))
    r, p = f"{vals}_r", f"{vals}_p"
    w.emit(f"for {r} in range({m}):")
    w.emit(f"    {p} = {sort_fn}({vals}_key[{r}])")
    _permute_row(w, f"{vals}_rows", rows, r, p, k)
    w.emit(f"    for {idxs}_t in range({k}):")
    w.emit(f"        {idxs}_rows[{r}, {idxs}_t] = {p}[{idxs}_t]")
    _unrows(w, vals, f"{vals}_rows", out_t, perm, dt)
    _unrows(w, idxs, f"{idxs}_rows", out_t, perm, np.dtype(np.int32))
    return None


# =============================================================================
# split, stack, unstack, tile
# =============================================================================
def _at_axis(rank: int, axis: int, what: str) -> str:
    return index([what if d == axis else ":" for d in range(rank)])


@lowering(lax.split_p, complex=True, bits=True)
def _split(w, eqn, x):
    aval, axis = eqn.invars[0].aval, eqn.params["axis"]
    w.emit(f"# {w.text(eqn)}")
    start = 0
    for k, size in enumerate(eqn.params["sizes"]):
        if not isinstance(eqn.outvars[k], DropVar):
            part = _at_axis(aval.ndim, axis, f"{start}:{start + size}")
            w.emit(f"{_out(w, eqn, k)} = {x}[{part}].copy()")
        start += size
    return None


@lowering(lax.unstack_p, complex=True, bits=True)
def _unstack(w, eqn, x):
    aval, axis = eqn.invars[0].aval, eqn.params["axis"]
    w.emit(f"# {w.text(eqn)}")
    scalar = aval.ndim == 1 and not is_threefry_key(aval.dtype)
    for k in range(aval.shape[axis]):
        if not isinstance(eqn.outvars[k], DropVar):
            part = f"{x}[{_at_axis(aval.ndim, axis, str(k))}]"
            w.emit(f"{_out(w, eqn, k)} = {part if scalar else part + '.copy()'}")
    return None


@lowering(lax.stack_p, complex=True, bits=True)
def _stack(w, eqn, *xs):
    out, axis = eqn.outvars[0].aval, eqn.params["axis"]
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    _empty(w, name, out)
    shape, _ = data_shape(eqn.invars[0].aval)
    for k, x in enumerate(xs):
        if not shape:
            w.emit(f"{name}[{k}] = {x}")
            continue
        copy_loops(w, f"{name}_i", shape,
                   lambda i: f"{name}[{index(i[:axis] + [str(k)] + i[axis:])}]",
                   lambda i: f"{x}[{index(i)}]")
    return None


@lowering(lax.tile_p, complex=True, bits=True)
def _tile(w, eqn, x):
    """Output element ``i`` is ``x[i % shape]`` (``np.tile``'s layout)."""
    aval, out = eqn.invars[0].aval, eqn.outvars[0].aval
    shape = (1,) * (out.ndim - aval.ndim) + tuple(aval.shape)
    if out.ndim == 0:
        return x
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    _empty(w, name, out)
    if 0 in out.shape:
        return None
    src = x if tuple(shape) == tuple(aval.shape) else _reshape_code(w, x, aval, shape)
    w.emit(f"{name}_src = {src}")
    data, _ = data_shape(out)
    key = ["2"] if is_threefry_key(out.dtype) else []
    copy_loops(w, f"{name}_i", data, lambda i: f"{name}[{index(i)}]",
               lambda i: f"{name}_src[{index([f'{j} % {n}' for j, n in zip(i, [*shape, *key])])}]")
    return None


# =============================================================================
# threefry keys: the key data is uint32 with a trailing axis of 2
# =============================================================================


# =============================================================================
# Linear algebra: one matrix at a time (LAPACK through NumPy where it has it)
# =============================================================================
# stacks of matrices
# =============================================================================
def _linalg_names(w, eqn) -> list[str]:
    named = next(w.var(v) for v in eqn.outvars if not isinstance(v, DropVar))
    return [f"{named}_drop{k}" if isinstance(v, DropVar) else w.var(v)
            for k, v in enumerate(eqn.outvars)]


def _batch(shape) -> int:
    return int(np.prod(shape[:-2], dtype=np.int64))


def _matrix_stack(w, name: str, x: str, aval, keep: int = 2) -> str:
    """Emit ``x`` as a contiguous stack ``(batch, *last keep dims)``; returns its name."""
    shape = tuple(aval.shape)
    w.emit(f"{name} = np.ascontiguousarray({x}).reshape("
           f"{(int(np.prod(shape[:-keep], dtype=np.int64)),) + shape[-keep:]})")
    return name


def _alloc(w, names, avals, batch_rank: int) -> None:
    """Stacked outputs: ``<name>_3d`` of shape ``(batch, *per-matrix dims)``."""
    for name, aval in zip(names, avals):
        shape = tuple(aval.shape)
        stacked = (int(np.prod(shape[:batch_rank], dtype=np.int64)),) + shape[batch_rank:]
        w.emit(f"{name}_3d = np.empty({stacked}, dtype={np_dtype(aval.dtype)})")


def _matrix_unstack(w, names, avals) -> None:
    for name, aval in zip(names, avals):
        w.emit(f"{name} = {name}_3d.reshape({tuple(aval.shape)})")


def _per_matrix(w, eqn, body, *, inputs) -> None:
    """Emit: outputs allocated as stacks, a loop over the batch computing each
    matrix's results, outputs reshaped back.

    ``body(b, ins, outs)`` gives (lines, results): lines using ``<in>[b]``, and
    for each output the expression of its matrix, or None if the lines wrote
    ``<out>_3d[b]`` themselves.
    """
    names = _linalg_names(w, eqn)
    avals = [v.aval for v in eqn.outvars]
    batch_rank = eqn.invars[0].aval.ndim - 2
    w.emit(f"# {w.text(eqn)}")
    stacks = [_matrix_stack(w, f"{names[0]}_in{k}", x, a.aval) for k, (x, a) in
              enumerate(zip(inputs, eqn.invars))]
    _alloc(w, names, avals, batch_rank)
    b = f"{names[0]}_b"
    w.emit(f"for {b} in range({_batch(eqn.invars[0].aval.shape)}):")
    lines, results = body(b, stacks, names)
    for line in lines:
        w.emit("    " + line)
    for name, aval, result in zip(names, avals, results):
        if result is not None:
            copy = "_copy_matrix" if aval.ndim - batch_rank == 2 else "_copy_vector"
            w.emit(f"    {w.helper(copy)}({name}_3d[{b}], {result})")
    _matrix_unstack(w, names, avals)


# =============================================================================
# The lowerings
# =============================================================================
@lowering(lax.linalg.cholesky_p, complex=True)
def _cholesky(w, eqn, x):
    w.helpers.add("_cholesky_or_nan")
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [], [f"_cholesky_or_nan(np.ascontiguousarray({ins[0]}[{b}]))"]), inputs=[x])
    return None


def _lapack(w, eqn, x, call: str, results, outputs) -> None:
    """``n_a, n_b = call(matrix)`` for each matrix of the stack (NumPy's LAPACK
    wrappers, which Numba compiles); the equation's outputs are ``outputs``."""
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [f"{', '.join(f'{outs[0]}_{r}' for r in results)} = {call.format(f'{ins[0]}[{b}]')}"],
        [f"{outs[0]}_{r}" for r in outputs]), inputs=[x])


@lowering(lax.linalg.eigh_p, complex=True)
def _eigh(w, eqn, x):
    """Eigenvectors (columns) and ascending eigenvalues of the triangle ``lower`` reads."""
    if eqn.params.get("subset_by_index") is not None:
        raise NotImplementedError("eigh with subset_by_index")
    w.helpers.add("_hermitian")
    lower = bool(eqn.params["lower"])
    _lapack(w, eqn, x, f"np.linalg.eigh(_hermitian({{}}, {lower}))", ["w", "v"], ["v", "w"])
    return None


@lowering(lax.linalg.qr_p, complex=True)
def _qr(w, eqn, x):
    m, n = eqn.invars[0].aval.shape[-2:]
    if eqn.params["full_matrices"] and m > n:
        raise NotImplementedError("qr with full_matrices=True of a tall matrix")
    if eqn.params.get("pivoting"):
        raise NotImplementedError("qr with pivoting")
    _lapack(w, eqn, x, "np.linalg.qr(np.ascontiguousarray({}))", ["q", "r"], ["q", "r"])
    return None


@lowering(lax.linalg.svd_p, complex=True)
def _svd(w, eqn, x):
    if eqn.params.get("subset_by_index") is not None:
        raise NotImplementedError("svd with subset_by_index")
    call = f"np.linalg.svd(np.ascontiguousarray({{}}), full_matrices={bool(eqn.params['full_matrices'])})"
    outputs = ["s", "u", "vh"] if eqn.params["compute_uv"] else ["s"]
    _lapack(w, eqn, x, call, ["u", "s", "vh"], outputs)
    return None


@lowering(lax.linalg.lu_p, complex=True)
def _lu(w, eqn, x):
    w.helpers.add("_lu_in_place")
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [f"_copy_matrix({outs[0]}_3d[{b}], {ins[0]}[{b}])",
         f"_lu_in_place({outs[0]}_3d[{b}], {outs[1]}_3d[{b}], {outs[2]}_3d[{b}])"],
        [None, None, None]), inputs=[x])
    w.helpers.add("_copy_matrix")
    return None


@lowering(lax.linalg.lu_pivots_to_permutation_p)
def _lu_pivots_to_permutation(w, eqn, pivots):
    name = _linalg_names(w, eqn)[0]
    pshape, out = tuple(eqn.invars[0].aval.shape), eqn.outvars[0].aval
    batch = int(np.prod(pshape[:-1], dtype=np.int64))
    w.helpers.add("_pivots_to_permutation")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_piv = np.ascontiguousarray({pivots}).reshape(({batch}, {pshape[-1]}))")
    w.emit(f"{name}_2d = np.empty(({batch}, {out.shape[-1]}), dtype=np.int32)")
    w.emit(f"for {name}_b in range({batch}):")
    w.emit(f"    _pivots_to_permutation({name}_piv[{name}_b], {name}_2d[{name}_b])")
    w.emit(f"{name} = {name}_2d.reshape({tuple(out.shape)})")
    return None


@lowering(lax.linalg.triangular_solve_p, complex=True)
def _triangular_solve_rule(w, eqn, a, b_):
    """``op(a) @ x = b``, or ``x @ op(a) = b`` solved as ``op(a)^T @ x^T = b^T``."""
    p = eqn.params
    conjugate = bool(p["conjugate_a"]) and eqn.invars[0].aval.dtype.kind == "c"
    transpose, left = bool(p["transpose_a"]), bool(p["left_side"])
    lower = bool(p["lower"]) != transpose  # the triangle op(a) has
    if not left:
        transpose, lower = not transpose, not lower
    w.helpers.update({"_op_triangle", "_triangular_solve"})

    def body(b, ins, outs):
        t = (f"_op_triangle({ins[0]}[{b}], {bool(p['lower'])}, {transpose}, {conjugate}, "
             f"{bool(p['unit_diagonal'])})")
        rhs = f"{ins[1]}[{b}]" if left else f"np.ascontiguousarray({ins[1]}[{b}].T)"
        x = f"_triangular_solve({t}, {rhs}, {lower})"
        return [], [x if left else x + ".T"]
    _per_matrix(w, eqn, body, inputs=[a, b_])
    return None


# =============================================================================
# Control flow: native branches and loops, their bodies written inline
# =============================================================================
def _header(w, eqn) -> str:
    """The equation as a comment line, its nested jaxprs left out (they are written below)."""
    return "# " + eqn_header(eqn, w.plan.names)


@contextmanager
def _indented(w, levels: int = 1):
    """``with _indented(w):`` writes the lines of a block, one level deeper."""
    w.depth += levels
    try:
        yield
    finally:
        w.depth -= levels


@lowering(cond_p)
def _cond(w, eqn, index, *operands):
    """``if index <= 0: ... elif index == 1: ... else: ...``: the index is clamped
    into range, as XLA does (below 0 runs branch 0, above runs the last)."""
    branches = eqn.params["branches"]
    w.emit(_header(w, eqn))
    last = len(branches) - 1
    for k, branch in enumerate(branches):
        if k == 0 and last > 0:
            w.emit(f"if {index} <= 0:")
        elif k < last:
            w.emit(f"elif {index} == {k}:")
        elif last > 0:
            w.emit("else:")
        with _indented(w, 1 if last > 0 else 0):
            outs = w.inline(branch, list(operands))
            w.assign(eqn.outvars, outs, one_type=True)
    return None


@lowering(while_p)
def _while(w, eqn, *operands):
    """``while True:`` the condition, ``break`` when false, then the body.

    The carry lives in the body's input variables; the condition's inputs
    are bound to them at the top of each iteration. A predicate with a shape
    (``vmap`` of a loop whose condition depends on the example) runs while
    *any* holds, and examples whose predicate is false keep their carry.
    """
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond_consts, body_consts, init = operands[:nc], operands[nc:nc + nb], operands[nc + nb:]
    carry = body.jaxpr.invars[nb:]
    w.emit(_header(w, eqn))
    w.assign(cond.jaxpr.invars[:nc], cond_consts)
    w.assign(body.jaxpr.invars[:nb], body_consts)
    w.assign(carry, init, one_type=True)
    w.emit("while True:")
    with _indented(w):
        w.assign(cond.jaxpr.invars[nc:], [w.var(v) for v in carry])  # after its consts
        (pred,) = w.inline(cond)
        batched = bool(cond.jaxpr.out_avals[0].shape)
        w.emit(f"if not {pred}{'.any()' if batched else ''}:")
        w.emit("    break")
        outs = w.inline(body)
        if batched:
            outs = [_keep_finished(w, cond.jaxpr.outvars[0], c, v)
                    for c, v in zip(carry, body.jaxpr.outvars)]
        w.assign(carry, outs, one_type=True)
    w.assign(eqn.outvars, [w.var(v) for v in carry])
    return None


def _keep_finished(w, pred, old, new) -> str:
    """``where(pred, new, old)``, ``pred`` indexing the leading axes of the carry."""
    shape, dtype = data_shape(old.aval)  # (a key's data has one more axis, of 2 words)
    name = f"{w.var(old)}_kept"
    w.emit(f"{name} = np.empty({shape}, dtype={dtype})")
    idx = open_loops(w, shape, "i")
    at = ", ".join(idx)
    running = w.read(pred, idx[:len(pred.aval.shape)])
    choice = f"{w.read(new, idx)} if {running} else {w.var(old)}[{at}]"
    w.emit(f"{name}[{at}] = {choice}")
    close_loops(w, idx)
    return name


@lowering(scan_p)
def _scan(w, eqn, *operands):
    """``for it in range(length):`` (backwards if ``reverse``), slicing ``xs``
    and writing each iteration's ``ys`` into arrays allocated before the loop."""
    p = eqn.params
    body, length = p["jaxpr"], p["length"]
    n_consts, n_carry = p["num_consts"], p["num_carry"]
    consts, init, xs = (operands[:n_consts], operands[n_consts:n_consts + n_carry],
                        operands[n_consts + n_carry:])
    invars = body.jaxpr.invars
    carry, x_vars = invars[n_consts:n_consts + n_carry], invars[n_consts + n_carry:]
    carry_out, ys = eqn.outvars[:n_carry], eqn.outvars[n_carry:]
    w.emit(_header(w, eqn))
    w.assign(invars[:n_consts], consts)
    w.assign(carry, init, one_type=True)
    for y in ys:
        if w.var(y) != "_":
            shape, dtype = data_shape(y.aval)  # (keys: their key data)
            w.emit(f"{w.var(y)} = np.empty({shape}, dtype={dtype})")
    it = w.fresh("it")
    steps = f"range({length - 1}, -1, -1)" if p["reverse"] else f"range({length})"
    w.emit(f"for {it} in {steps}:")
    with _indented(w):
        w.assign(x_vars, [f"{x}[{it}]" for x in xs])
        outs = w.inline(body)
        for y, out in zip(ys, outs[n_carry:]):  # before the carry: a y may be the old carry
            if w.var(y) != "_":
                w.emit(f"{w.var(y)}[{it}] = {out}")
        w.assign(carry, outs[:n_carry], one_type=True)
    w.assign(carry_out, [w.var(v) for v in carry])
    return None


# =============================================================================
# Chapter 13's threefry keys (registered by minijax.prng: see register_key_lowerings)
# =============================================================================
def _threefry2x32(w, eqn, *words):
    """A loop over the broadcast shape calling the unrolled hash once per element."""
    out1, out2 = (w.var(v) for v in eqn.outvars)
    shape = tuple(eqn.outvars[0].aval.shape)
    w.emit(f"# {w.text(eqn)}")
    hash_fn = w.helper("_threefry2x32")
    if not shape:
        w.emit(f"{out1}, {out2} = {hash_fn}({', '.join(words)})")
        return None
    for out in (out1, out2):
        w.emit(f"{out} = np.empty({shape}, dtype=np.uint32)")
    idx = open_loops(w, shape, "i")
    reads = []
    for a in eqn.invars:  # NumPy broadcasting: trailing dimensions line up
        rank = len(a.aval.shape) if isinstance(a, Var) else 0
        reads.append(w.read(a, idx[len(shape) - rank:], shape[len(shape) - rank:]))
    at = ", ".join(idx)
    w.emit(f"{out1}[{at}], {out2}[{at}] = {hash_fn}({', '.join(reads)})")
    close_loops(w, idx)
    return None


def _random_bits(w, eqn, keys):
    """Threefry random bits: element ``j`` of each key's block hashes the counter
    ``j`` (as high and low words); the two words are xor-ed (joined for 64 bits)."""
    out = eqn.outvars[0]
    key_shape, shape = tuple(eqn.invars[0].aval.shape), tuple(eqn.params["shape"])
    n_keys, n = int(np.prod(key_shape, dtype=np.int64)), int(np.prod(shape, dtype=np.int64))
    name, dtype, width = w.var(out), out.aval.dtype, eqn.params["bit_width"]
    hash_fn = w.helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_keys = {keys}.reshape(({n_keys}, 2))")
    w.emit(f"{name}_2d = np.empty(({n_keys}, {n}), dtype={np_dtype(dtype)})")
    w.emit(f"for {name}_k in range({n_keys}):")
    w.emit(f"    for {name}_j in range({n}):")
    w.emit(f"        {name}_b1, {name}_b2 = {hash_fn}({name}_keys[{name}_k, 0], "
           f"{name}_keys[{name}_k, 1], np.uint32(np.uint64({name}_j) >> np.uint64(32)), "
           f"np.uint32({name}_j & 0xFFFFFFFF))")
    bits = (f"(np.uint64({name}_b1) << np.uint64(32)) | np.uint64({name}_b2)" if width == 64
            else cast(dtype, f"{name}_b1 ^ {name}_b2"))
    w.emit(f"        {name}_2d[{name}_k, {name}_j] = {bits}")
    out_shape = key_shape + shape
    return f"{name}_2d.reshape({out_shape})" if out_shape else f"{name}_2d[0, 0]"


def _random_seed(w, eqn, seeds):
    """A seed's key data is (0, its low 32 bits): x64 is off, seeds have 32 bits."""
    shape = tuple(eqn.invars[0].aval.shape)
    n = int(np.prod(shape, dtype=np.int64))
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    flat = f"{seeds}.ravel()" if shape else f"np.full(1, {seeds})"
    w.emit(f"{name}_seeds = {flat}")
    w.emit(f"{name} = np.zeros(({n}, 2), dtype=np.uint32)")
    w.emit(f"for {name}_k in range({n}):")
    w.emit(f"    {name}[{name}_k, 1] = np.uint32(np.int64({name}_seeds[{name}_k]) & 0xFFFFFFFF)")
    w.emit(f"{name} = {name}.reshape({shape + (2,)})")
    return None


def _random_split(w, eqn, keys):
    """Key ``j`` of each key's block: the hash of the counter ``j`` (both words)."""
    key_shape, shape = tuple(eqn.invars[0].aval.shape), tuple(eqn.params["shape"])
    n_keys, n = int(np.prod(key_shape, dtype=np.int64)), int(np.prod(shape, dtype=np.int64))
    name = _out(w, eqn)
    hash_fn = w.helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_keys = np.ascontiguousarray({keys}).reshape(({n_keys}, 2))")
    w.emit(f"{name} = np.empty(({n_keys}, {n}, 2), dtype=np.uint32)")
    w.emit(f"for {name}_k in range({n_keys}):")
    w.emit(f"    for {name}_j in range({n}):")
    w.emit(f"        {name}[{name}_k, {name}_j, 0], {name}[{name}_k, {name}_j, 1] = {hash_fn}("
           f"{name}_keys[{name}_k, 0], {name}_keys[{name}_k, 1], "
           f"np.uint32(np.uint64({name}_j) >> np.uint64(32)), np.uint32({name}_j & 0xFFFFFFFF))")
    w.emit(f"{name} = {name}.reshape({key_shape + shape + (2,)})")
    return None


def _random_fold_in(w, eqn, keys, msgs):
    """The hash of the counter ``(0, msg)``; keys and messages broadcast (NumPy rules)."""
    out = tuple(eqn.outvars[0].aval.shape)
    kshape, mshape = tuple(eqn.invars[0].aval.shape), tuple(eqn.invars[1].aval.shape)
    name = _out(w, eqn)
    hash_fn = w.helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name} = np.empty({out + (2,)}, dtype=np.uint32)")
    idx = open_loops(w, out, f"{name}_i")

    def at(shape):  # trailing dims line up; size-1 dims broadcast
        own = idx[len(out) - len(shape):]
        return ["0" if n == 1 else i for n, i in zip(shape, own)]
    key = f"{keys}[{index(at(kshape) + [':'])}]" if kshape else keys
    msg = f"{msgs}[{index(at(mshape))}]" if mshape else msgs
    w.emit(f"{name}_key = {key}")
    words = [f"{name}[{index([*idx, str(j)])}]" for j in (0, 1)]
    w.emit(f"{words[0]}, {words[1]} = "
           f"{hash_fn}({name}_key[0], {name}_key[1], np.uint32(0), np.uint32({msg}))")
    close_loops(w, idx)
    return None


# =============================================================================
# Nested calls: inlined by the planner
# =============================================================================
def _inlined(*_):
    """Nested calls have no rule: the planner inlines their bodies
    (:func:`minijax.backends.plan.passes.inline_calls`)."""
    raise AssertionError("a nested call reached the writer: it should have been inlined")


register(jit_p, _inlined, "inline")
register(remat_p, _inlined, "inline")
register(name_p, _inlined, "inline")
register(custom_jvp_call_p, _inlined, "inline")
register(custom_vjp_call_p, _inlined, "inline")


def register_key_lowerings(*, random_seed, random_split, random_fold_in, random_bits,
                           random_wrap, random_unwrap, threefry2x32) -> None:
    """Chapter 13 calls this with its primitives (made after this chapter, so
    this module cannot name them): their rules are the ones above."""
    register(random_seed, _random_seed, "call", bits=True)
    register(random_split, _random_split, "call", bits=True)
    register(random_fold_in, _random_fold_in, "call", bits=True)
    register(random_bits, _random_bits, "call", bits=True)
    register(random_wrap, _key_data, "call", bits=True)
    register(random_unwrap, _key_data, "call", bits=True)
    register(threefry2x32, _threefry2x32, "call")


def _key_data(w, eqn, x):
    """``random_wrap`` and ``random_unwrap``: typed keys *are* their key data here."""
    return x


# =============================================================================
# Chapter 12's callbacks (registered by chapter 12: see register_host_call_lowerings)
# =============================================================================
def _host_callback(w, eqn, *xs):
    """``debug_callback``, ``pure_callback``, ``io_callback``: one call back into
    Python (:mod:`.host_calls`), which runs the primitive's impl rule on the
    kernel's values and fills the outputs the kernel allocated.

    Each call returns the kernel's *compiler token* (chapter 12): the calls
    are written, and run, in program order, also inside loops and branches.
    """
    avals = [a.aval for a in [*eqn.invars, *eqn.outvars]]
    if any(is_half(a.dtype) or is_threefry_key(a.dtype) for a in avals):
        raise NotImplementedError(f"{eqn.primitive.name} of float16 or key values")
    key = host_calls.register_call(eqn)
    name = w.fresh("host")
    w.emit(f"# {eqn.primitive.name}: host call {key}")
    w.emit(f"{name}_argv = np.empty({max(len(avals), 1)}, dtype=np.int64)")
    buffers = []
    for k, (a, x) in enumerate(zip(eqn.invars, xs)):
        buf = f"{name}_in{k}"
        if a.aval.shape:
            w.emit(f"{buf} = np.ascontiguousarray({x})")
        else:  # a scalar: through a one-element buffer
            w.emit(f"{buf} = np.empty(1, dtype={np_dtype(a.aval.dtype)})")
            w.emit(f"{buf}[0] = {x}")
        buffers.append(buf)
    for k, v in enumerate(eqn.outvars):
        buf = f"{name}_out{k}"
        w.emit(f"{buf} = np.empty({tuple(v.aval.shape) or (1,)}, dtype={np_dtype(v.aval.dtype)})")
        buffers.append(buf)
    for k, buf in enumerate(buffers):
        w.emit(f"{name}_argv[{k}] = {buf}.ctypes.data")
    w.emit(f"token = {w.helper('_host_call')}({key}, {name}_argv)  # compiler token: program order")
    for k, v in enumerate(eqn.outvars):
        if not isinstance(v, DropVar):
            w.emit(f"{w.var(v)} = {name}_out{k}" + ("" if v.aval.shape else "[0]"))
    return None


def register_host_call_lowerings(*prims) -> None:
    """Chapter 12 calls this with its callback primitives (made after this chapter)."""
    for prim in prims:
        register(prim, _host_callback, "call")

# =============================================================================
# fft: NumPy's pocketfft, called back on the host
# =============================================================================
@lowering(lax.fft_p, complex=True)
def _fft(w, eqn, x):
    """``fft`` is a *host call* (:mod:`.host_calls`): the kernel hands its buffers to
    ``fft``'s own impl rule, NumPy's pocketfft, and goes on with the result.

    Numba has no FFT, and writing one (mixed radix for any length, Bluestein for
    large primes, in float32 and float64, over 1-3 axes) would be a chapter of its
    own, slower and less accurate than pocketfft. Of the two ways back into NumPy,
    the host call is the one this backend already trusts: a ``with objmode()``
    block compiles a second function per call site and failed inside our loops
    (see :mod:`.host_calls`), whereas the trampoline is one C call (a few
    microseconds against the transform's own cost), works inside native loops,
    keeps the kernel cacheable on disk, and runs exactly the interpreter's code.
    """
    return _host_callback(w, eqn, x)

# =============================================================================
# Primitives lowered as the jaxpr of a Python function (registered by later chapters)
# =============================================================================
def _expanded(*_):
    raise AssertionError("expanded by the planner (passes.register_lower_fun) before lowering")


def register_lower_fun_lowering(prim) -> None:
    """A later chapter's primitive whose lowering is the jaxpr of a Python function
    (:func:`minijax.backends.plan.passes.register_lower_fun`, JAX's ``mlir.lower_fun``,
    chapter 13's ``random_gamma``): the planner inlines that jaxpr, so this entry
    only records, in the table, that the primitive is lowered ("expand")."""
    register(prim, _expanded, "expand")


register_lower_fun_lowering(lax.optimization_barrier_p)  # the identity (see plan.passes)

# =============================================================================
# eig (not symmetric): LAPACK's geev through SciPy, called back on the host
# =============================================================================
# Numba's ``np.linalg.eig`` cannot return complex results for a real matrix
# (whose eigenvalues may come in conjugate pairs), so, as ``fft``, the kernel
# hands its buffers to ``eig``'s own impl rule.
register(lax.linalg.eig_p, _host_callback, "call", complex=True)
