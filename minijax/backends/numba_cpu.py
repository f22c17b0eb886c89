"""Chapter 09 — lowering jaxprs to Numba: one fused, compiled kernel per jaxpr.

The pipeline, stage for stage against JAX's::

    JAX:      jaxpr -> StableHLO            -> XLA              -> executable
    minijax:  jaxpr -> Python kernel source -> Numba / LLVM     -> machine code
                       (Lowered.as_text())     (Compiled.as_text() is the LLVM IR)

1. :func:`minijax.backends.fusion.make_plan` groups the equations into fused
   loop nests, BLAS calls and per-primitive calls.
2. :class:`_KernelWriter` writes ONE Python module with ONE
   ``@njit(nogil=True)`` entry function: loops over static shapes, a local
   per jaxpr variable (named as the printed jaxpr names it), each line
   commented with the equation it comes from.
3. The module is written to the compile cache directory under a name made of
   the hash of its source and imported; Numba compiles it with
   ``cache=True``, so a second process loads the machine code from disk
   instead of compiling again.

Semantics follow XLA, as chapter 00's impl rules do: float32 stays float32
(every literal is written ``np.float32(...)``, since Numba would promote a
bare ``2.0`` to float64), integer arithmetic wraps (results are cast back to
their dtype: Numba computes integers in 64 bits), integer division
truncates, max/min propagate NaN. Transcendental functions use float32 libm
calls on float32 data (the interpreter computes them in float64, so results
may differ in the last bit).

Threefry keys passed in as arguments are handed to the kernel as their key
data, so ``random.bits`` / ``uniform`` / ``normal`` compile to one loop.
What the plan cannot lower (control flow, gathers, key splitting... see
:data:`CALL_LOWERINGS` and :data:`SCALAR_RULES` for what it can) falls back,
for that whole jaxpr, to chapter 06's interpreter.
"""
from __future__ import annotations

import hashlib
import importlib.util
import keyword
import logging
import os
import re
import sys
import tempfile
import threading

import numpy as np

from minijax.array import Array
from minijax.backends import fusion
from minijax.backends.interpreter import (InterpreterExecutable, InterpreterLowering,
                                          as_output_array)
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.buffers import Buffer
from minijax.config import optional_string_state
from minijax.dispatch import to_numpy
from minijax.jaxpr import Literal, Var

__all__ = ["NumbaCPUBackend", "NumbaLowering", "NumbaExecutable", "generate_source",
           "cache_dir", "SCALAR_RULES", "CALL_LOWERINGS", "clear_cache"]

logger = logging.getLogger(__name__)

cache_dir_option = optional_string_state(
    "minijax_cache_dir", None,
    "Directory of the on-disk compile cache of the Numba backends (generated kernel "
    "modules and Numba's cached machine code). Default: ~/.cache/minijax "
    "(or $XDG_CACHE_HOME/minijax).")


def cache_dir() -> str:
    """The compile cache directory: ``minijax_cache_dir`` or the user's cache dir."""
    configured = cache_dir_option.value
    if configured:
        return os.path.abspath(os.path.expanduser(configured))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "minijax")


# =============================================================================
# Scalar code: one Python expression per elementwise equation
# =============================================================================
def np_dtype(dtype) -> str:
    """``np.float32``, ``np.int32``, ``np.bool_``: the constructor of a dtype."""
    dtype = np.dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


def cast(dtype, expr: str) -> str:
    return f"{np_dtype(dtype)}({expr})"


def literal(val, dtype) -> str:
    """A scalar constant of ``dtype``, written so Numba types it as ``dtype``."""
    dtype = np.dtype(dtype)
    val = np.asarray(val).astype(dtype).item()
    if dtype == np.bool_:
        return repr(bool(val))
    if np.issubdtype(dtype, np.floating):
        text = {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}.get(repr(val), repr(val))
        return cast(dtype, text)
    return cast(dtype, repr(int(val)))


def _kind(dtype) -> str:
    """'f' float, 'i' signed, 'u' unsigned, 'b' bool."""
    return np.dtype(dtype).kind


#: Small jitted functions a kernel may call; only the ones used are written
#: into its module. Each is generic: Numba compiles one copy per dtype.
HELPERS = {
    "_fmax": '''
def _fmax(x, y):
    """XLA's max: NaN propagates; max(-0., 0.) is 0."""
    if x > y:
        return x
    if y > x:
        return y
    if x == y and x != 0:
        return x
    return x + y  # NaN if either is NaN; -0. only if both are -0.
''',
    "_fmin": '''
def _fmin(x, y):
    """XLA's min: NaN propagates; min(-0., 0.) is -0."""
    if x < y:
        return x
    if y < x:
        return y
    if x == y and x != 0:
        return x
    return -((-x) + (-y))
''',
    "_idiv": '''
def _idiv(x, y):
    """XLA's signed integer division: truncates; x / 0 is -1; INT_MIN / -1 wraps."""
    if y == 0:
        return -1
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q
''',
    "_irem": '''
def _irem(x, y):
    """XLA's signed remainder: the dividend's sign (C's fmod); x % 0 is x."""
    if y == 0:
        return x
    r = abs(x) % abs(y)
    return -r if x < 0 else r
''',
    "_sign": '''
def _sign(x):
    """-1, 0 or 1; keeps -0. and NaN."""
    if x > 0:
        return x - x + 1
    if x < 0:
        return x - x - 1
    return x
''',
    "_round_away": '''
def _round_away(x):
    """Round halves away from zero (XLA's default rounding)."""
    t = np.trunc(x)
    return t + np.sign(x) if abs(x - t) >= 0.5 else t
''',
    "_float_to_int": '''
def _float_to_int(x, lo, hi):
    """XLA's float -> int: truncate toward zero, saturate at [lo, hi], NaN -> 0."""
    t = np.trunc(np.float64(x))
    if t != t:
        return 0.0
    if t < lo:
        return lo
    if t >= hi + 1.0:
        return hi
    return t
''',
    "_arg_better_max": '''
def _arg_better_max(x, best):
    """argmax: a new maximum, or the first NaN."""
    return x > best or (x != x and best == best)
''',
    "_arg_better_min": '''
def _arg_better_min(x, best):
    """argmin: a new minimum, or the first NaN."""
    return x < best or (x != x and best == best)
''',
    "_dot_loop": '''
def _dot_loop(lhs, rhs, out):
    """out[b] = lhs[b] @ rhs[b] with plain loops (integer dtypes: no BLAS)."""
    for b in range(out.shape[0]):
        for m in range(out.shape[1]):
            for n in range(out.shape[2]):
                acc = out[b, m, n] * 0
                for k in range(lhs.shape[2]):
                    acc += lhs[b, m, k] * rhs[b, k, n]
                out[b, m, n] = acc
''',
}

def _horner_lines(coeffs, w: str, p: str) -> list[str]:
    """Horner's rule in float32, each step a multiply-add rounded once (an FMA)."""
    c32 = [repr(float(np.float32(c))) for c in coeffs]
    lines = [f"    {p} = np.float32({c32[0]})"]
    lines += [f"    {p} = np.float32(np.float64({p}) * np.float64({w}) + {c})" for c in c32[1:]]
    return lines


def _erf_inv_helper() -> str:
    from minijax.lax.elementwise import _ERF_INV_LARGE, _ERF_INV_SMALL
    return "\n".join([
        "",
        "def _erf_inv32(x):",
        '    """float32 erf_inv: two polynomials in w = -log(1 - x*x) (as the interpreter)."""',
        "    if abs(x) > 1:",
        "        return np.float32(np.nan)",
        "    if abs(x) == 1:",
        "        return np.float32(np.inf) if x > 0 else np.float32(-np.inf)",
        "    w = np.float32(-np.log1p(np.float64(-x * x)))",
        "    ws = np.float32(w - np.float32(2.5))",
        *_horner_lines(_ERF_INV_SMALL, "ws", "small"),
        "    wl = np.float32(np.sqrt(w) - np.float32(3))",
        *_horner_lines(_ERF_INV_LARGE, "wl", "large"),
        "    return np.float32((small if w < np.float32(5) else large) * x)",
        ""])


def _threefry_helper() -> str:
    """Threefry-2x32, its 20 rounds unrolled, every word kept in uint32.

    The same constants as chapter 13's ``threefry2x32_numpy`` (which a
    chapter 09 module may not import): the rotations and Threefish's parity.
    """
    _ROTATIONS, _KEY_PARITY = ((13, 15, 26, 6), (17, 29, 16, 24)), 0x1BD11BDA
    u = "np.uint32"
    lines = ["", "def _threefry2x32(k1, k2, x1, x2):",
             '    """One Threefry-2x32 hash of the counter (x1, x2) under the key (k1, k2)."""',
             f"    k3 = {u}(k1 ^ k2 ^ {u}({int(_KEY_PARITY)}))",
             f"    x1 = {u}(x1 + k1)", f"    x2 = {u}(x2 + k2)"]
    ks = ("k1", "k2", "k3")
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            lines += [f"    x1 = {u}(x1 + x2)",
                      f"    x2 = {u}({u}(x2 << {u}({r})) | {u}(x2 >> {u}({32 - r})))",
                      "    x2 = x2 ^ x1"]
        lines += [f"    x1 = {u}(x1 + {ks[(group + 1) % 3]})",
                  f"    x2 = {u}(x2 + {ks[(group + 2) % 3]} + {u}({group + 1}))"]
    lines += ["    return x1, x2", ""]
    return "\n".join(lines)


HELPERS.update({
    "_popcount": '''
def _popcount(u, one):
    """The number of 1 bits of the unsigned ``u`` (``one`` is 1 in its dtype)."""
    n = 0
    while u:
        u = u & (u - one)
        n += 1
    return n
''',
    "_erf_inv32": _erf_inv_helper(),
    "_threefry2x32": _threefry_helper(),
})


_NP_UNARY = {
    "exp": "np.exp", "exp2": "np.exp2", "log": "np.log", "log1p": "np.log1p",
    "expm1": "np.expm1", "sqrt": "np.sqrt", "cbrt": "np.cbrt", "sin": "np.sin",
    "cos": "np.cos", "tan": "np.tan", "asin": "np.arcsin", "acos": "np.arccos",
    "atan": "np.arctan", "sinh": "np.sinh", "cosh": "np.cosh", "tanh": "np.tanh",
    "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh",
    "floor": "np.floor", "ceil": "np.ceil", "is_finite": "np.isfinite",
}
_MATH_UNARY = {"erf": "math.erf", "erfc": "math.erfc", "lgamma": "math.lgamma"}
_BINOPS = {"add": "+", "add_any": "+", "sub": "-", "mul": "*", "and": "&", "or": "|",
           "xor": "^", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">",
           "ge": ">="}
_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


class _Ctx:
    """What a scalar rule may ask: the equation, and helpers to request."""

    def __init__(self, eqn, helpers: set):
        self.eqn = eqn
        self.helpers = helpers
        self.out_dtype = eqn.outvars[0].aval.dtype
        self.in_dtype = eqn.invars[0].aval.dtype if eqn.invars else self.out_dtype

    def helper(self, name: str) -> str:
        self.helpers.add(name)
        return name

    def wrap(self, expr: str) -> str:
        """Cast back to the output dtype unless Numba already keeps it (floats)."""
        return expr if _kind(self.out_dtype) == "f" else cast(self.out_dtype, expr)


def _binop(op: str):
    def rule(c, x, y):
        expr = f"{x} {op} {y}"
        if c.eqn.primitive.name in _COMPARISONS:
            return expr
        return expr if _kind(c.out_dtype) == "f" else cast(c.out_dtype, expr)
    return rule


def _div(c, x, y):
    kind = _kind(c.out_dtype)
    if kind == "f":
        return f"{x} / {y}"
    if kind == "u":
        return f"({cast(c.out_dtype, f'{x} // {y}')} if {y} != 0 else " \
               f"{literal(-1, c.out_dtype)})"
    return cast(c.out_dtype, f"{c.helper('_idiv')}({x}, {y})")


def _rem(c, x, y):
    kind = _kind(c.out_dtype)
    if kind == "f":
        return f"np.fmod({x}, {y})"
    if kind == "u":
        return f"({cast(c.out_dtype, f'{x} % {y}')} if {y} != 0 else {x})"
    return cast(c.out_dtype, f"{c.helper('_irem')}({x}, {y})")


def _minmax(take_max: bool):
    def rule(c, x, y):
        kind = _kind(c.out_dtype)
        if kind == "b":
            return f"({x} | {y})" if take_max else f"({x} & {y})"
        if kind == "f":
            return f"{c.helper('_fmax' if take_max else '_fmin')}({x}, {y})"
        return cast(c.out_dtype, f"{'max' if take_max else 'min'}({x}, {y})")
    return rule


def _integer_pow(c, x):
    """Square-and-multiply, in XLA's order, so float results round the same way."""
    y = c.eqn.params["y"]
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
    if _kind(c.eqn.invars[0].aval.dtype) == "b":
        return f"({cases[1]} if {which} else {cases[0]})"
    expr = cases[0]
    for k, case in enumerate(cases[1:], start=1):  # as the impl: the last case >= k wins
        expr = f"({case} if {which} >= {k} else {expr})"
    return expr


def _clamp(c, lo, x, hi):
    return _minmax(False)(c, _minmax(True)(c, x, lo), hi)


def _convert(c, x):
    new, old = c.out_dtype, c.in_dtype
    if new == np.bool_:
        return f"({x} != 0)"
    if _kind(new) in "iu" and _kind(old) == "f":
        info = np.iinfo(new)
        return cast(new, f"{c.helper('_float_to_int')}({x}, {float(info.min)!r}, "
                         f"{float(info.max)!r})")
    return x if new == old else cast(new, x)


def _round(c, x):
    if c.eqn.params["rounding_method"] == 1:  # TO_NEAREST_EVEN
        return f"np.rint({x})"
    return f"{c.helper('_round_away')}({x})"


def _unary(template: str, wrap: bool = False):
    def rule(c, x):
        expr = template.format(x=x, one=literal(1, c.out_dtype))
        return cast(c.out_dtype, expr) if wrap else c.wrap(expr)
    return rule


#: primitive name -> rule(ctx, *operand expressions) -> expression of the result.
SCALAR_RULES = {name: _binop(op) for name, op in _BINOPS.items()}
SCALAR_RULES.update({name: _unary(f"{fn}({{x}})") for name, fn in _NP_UNARY.items()})
SCALAR_RULES.update({name: _unary(f"{fn}({{x}})", wrap=True) for name, fn in _MATH_UNARY.items()})
SCALAR_RULES.update({
    "neg": _unary("-{x}"),
    "sign": lambda c, x: (cast(c.out_dtype, f"{c.helper('_sign')}({x})") if _kind(c.out_dtype) == "f"
                          else cast(c.out_dtype, f"({x} > 0) - ({x} < 0)")),
    "abs": lambda c, x: f"np.abs({x})" if _kind(c.out_dtype) == "f" else cast(c.out_dtype, f"abs({x})"),
    "square": lambda c, x: c.wrap(f"{x} * {x}"),
    "div": _div, "rem": _rem, "max": _minmax(True), "min": _minmax(False),
    "integer_pow": _integer_pow,
    "pow": lambda c, x, y: cast(c.out_dtype, f"{x} ** {cast(c.out_dtype, y)}"),
    "atan2": lambda c, x, y: f"np.arctan2({x}, {y})",
    "round": _round,
    "logistic": _unary("{one} / ({one} + np.exp(-{x}))"),
    "rsqrt": _unary("{one} / np.sqrt({x})"),
    "not": lambda c, x: f"(not {x})" if c.out_dtype == np.bool_ else cast(c.out_dtype, f"~{x}"),
    "select_n": _select_n, "clamp": _clamp, "convert_element_type": _convert,
    "copy": lambda c, x: x, "stop_gradient": lambda c, x: x,
})


# --- bits: shifts with XLA's counts, population count ------------------------------
def _int_views(dtype):
    """The unsigned and signed integer dtypes as wide as ``dtype``."""
    bits = 8 * np.dtype(dtype).itemsize
    return bits, np.dtype(f"uint{bits}"), np.dtype(f"int{bits}")


def _shift(direction: str):
    """XLA's shifts: the count is read as unsigned; counts >= the bit width
    shift everything out (0, or copies of the sign for an arithmetic shift)."""
    def rule(c, x, y):
        dt = c.out_dtype
        bits, u, s = _int_views(dt)
        count = cast(u, y)
        if direction == "arithmetic":
            clipped = cast(s, f"min({count}, {literal(bits - 1, u)})")
            return cast(dt, cast(s, f"{cast(s, x)} >> {clipped}"))
        op = "<<" if direction == "left" else ">>"
        shifted = cast(dt, cast(u, f"{cast(u, x)} {op} {count}"))
        return f"({shifted} if {count} < {literal(bits, u)} else {literal(0, dt)})"
    return rule


def _population_count(c, x):
    _, u, _ = _int_views(c.out_dtype)
    return cast(c.out_dtype, f"{c.helper('_popcount')}({cast(u, x)}, {literal(1, u)})")


# --- erf_inv: the float32 polynomial of the interpreter, FMAs in float64 -----------
def _erf_inv(c, x):
    if c.out_dtype != np.float32:
        raise NotImplementedError("erf_inv on float64")
    return f"{c.helper('_erf_inv32')}({x})"


SCALAR_RULES.update({
    "shift_left": _shift("left"), "shift_right_logical": _shift("logical"),
    "shift_right_arithmetic": _shift("arithmetic"),
    "population_count": _population_count, "erf_inv": _erf_inv,
})


# =============================================================================
# Per-primitive lowerings of the non-fused "calls": code lines from names
# =============================================================================
def _reshape(w, eqn, x):
    if eqn.params.get("dimensions") is not None:
        raise NotImplementedError("reshape with dimensions")
    return w.reshape_code(x, eqn.invars[0].aval, eqn.outvars[0].aval.shape)


def _transpose(w, eqn, x):
    perm = tuple(eqn.params["permutation"])
    if perm == tuple(range(len(perm))):
        return x
    return f"np.ascontiguousarray({x}.transpose({perm}))"


def _slice(w, eqn, x):
    strides = eqn.params["strides"] or (1,) * len(eqn.params["start_indices"])
    parts = [f"{s}:{e}" + (f":{k}" if k != 1 else "")
             for s, e, k in zip(eqn.params["start_indices"], eqn.params["limit_indices"], strides)]
    return f"{x}[{', '.join(parts)}].copy()"


def _rev(w, eqn, x):
    dims = set(eqn.params["dimensions"])
    parts = ["::-1" if d in dims else ":" for d in range(len(eqn.outvars[0].aval.shape))]
    return f"{x}[{', '.join(parts)}].copy()"


#: primitive name -> lowering(writer, eqn, *operand names) -> expression of the result.
CALL_LOWERINGS = {
    "reshape": _reshape,
    "squeeze": lambda w, eqn, x: w.reshape_code(x, eqn.invars[0].aval, eqn.outvars[0].aval.shape),
    "transpose": _transpose,
    "slice": _slice,
    "rev": _rev,
}

def _bitcast(w, eqn, x):
    old, new = eqn.invars[0].aval, eqn.outvars[0].aval
    if old.dtype.itemsize != new.dtype.itemsize:
        raise NotImplementedError("bitcast_convert_type between widths")
    if old.dtype == new.dtype:
        return x
    if not old.shape:
        return f"np.full((1,), {x}).view({np_dtype(new.dtype)})[0]"
    return f"{x}.view({np_dtype(new.dtype)})"


def _concatenate(w, eqn, *xs):
    return f"np.concatenate(({''.join(x + ', ' for x in xs)}), axis={eqn.params['dimension']})"


def _pad(w, eqn, x, padding_value):
    """``np.full`` of the padding value, then the operand's elements that survive
    (negative padding crops) written with a stride of ``interior + 1``."""
    out = eqn.outvars[0].aval
    name = w.var(eqn.outvars[0])
    w.emit(f"{name} = np.full({tuple(out.shape)}, {padding_value}, "
           f"dtype={np_dtype(out.dtype)})", w.text(eqn))
    src, dst = [], []
    for (lo, _, interior), d, n in zip(eqn.params["padding_config"],
                                       eqn.invars[0].aval.shape, out.shape):
        step = interior + 1  # element j of x lands at lo + j * step; keep 0 <= that < n
        first = max(0, -(lo // step)) if lo < 0 else 0
        last = min(d, (n - 1 - lo) // step + 1) if n - 1 - lo >= 0 else 0
        if last <= first:
            return None  # nothing of x survives
        src.append(f"{first}:{last}")
        dst.append(f"{lo + first * step}:{lo + (last - 1) * step + 1}:{step}")
    w.emit(f"{name}[{', '.join(dst)}] = {x}[{', '.join(src)}]")
    return None


def _cumulative(kind: str):
    """``cumsum``... along ``axis``: loops over the other axes, a running value along it."""
    def lower(w, eqn, x):
        out = eqn.outvars[0]
        dtype, shape = out.aval.dtype, tuple(out.aval.shape)
        axis, n = eqn.params["axis"], out.aval.shape[eqn.params["axis"]]
        name = w.var(out)
        w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(dtype)})", w.text(eqn))
        if n == 0 or 0 in shape:
            return None
        idx = [f"i{d}" for d in range(len(shape))]
        for d in range(len(shape)):
            if d != axis:
                w.emit(f"for i{d} in range({shape[d]}):")
                w.depth += 1
        at = lambda k: ", ".join(k if d == axis else i for d, i in enumerate(idx))  # noqa
        acc, k = f"{name}_acc", f"{name}_k"
        first, pos = (f"{n - 1}", f"{n - 1} - {k}") if eqn.params["reverse"] else ("0", k)
        w.emit(f"{acc} = {x}[{at(first)}]")
        w.emit(f"{name}[{at(first)}] = {acc}")
        w.emit(f"for {k} in range(1, {n}):")
        ctx = _Ctx(eqn, w.helpers)
        combine = {"sum": _binop("+"), "prod": _binop("*"),
                   "max": _minmax(True), "min": _minmax(False)}[kind]
        w.emit(f"    {acc} = {combine(ctx, acc, f'{x}[{at(pos)}]')}")
        w.emit(f"    {name}[{at(pos)}] = {acc}")
        w.depth -= len(shape) - 1
        return None
    return lower


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


def _dynamic_slice(w, eqn, x, *starts):
    sizes = eqn.params["slice_sizes"]
    w.emit(f"# {w.text(eqn)}")
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    return f"{x}[{_window(s, sizes)}].copy()" if sizes else x


def _dynamic_update_slice(w, eqn, x, update, *starts):
    sizes = eqn.invars[1].aval.shape
    name = w.var(eqn.outvars[0])
    w.emit(f"# {w.text(eqn)}")
    if not sizes:
        return update
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    w.emit(f"{name} = {x}.copy()")
    w.emit(f"{name}[{_window(s, sizes)}] = {update}")
    return None


def _threefry2x32(w, eqn, *words):
    """A loop over the broadcast shape calling the unrolled hash once per element."""
    out1, out2 = (w.var(v) for v in eqn.outvars)
    shape = tuple(eqn.outvars[0].aval.shape)
    idx = [f"i{d}" for d in range(len(shape))]
    w.emit(f"# {w.text(eqn)}")
    hash_fn = w._helper("_threefry2x32")
    if not shape:
        w.emit(f"{out1}, {out2} = {hash_fn}({', '.join(words)})")
        return None
    for out in (out1, out2):
        w.emit(f"{out} = np.empty({shape}, dtype=np.uint32)")
    for d, n in enumerate(shape):
        w.emit(f"for i{d} in range({n}):")
        w.depth += 1
    reads = []
    for a in eqn.invars:  # NumPy broadcasting: trailing dimensions line up
        rank = len(a.aval.shape) if isinstance(a, Var) else 0
        reads.append(w.read(a, idx[len(shape) - rank:], shape[len(shape) - rank:]))
    at = ", ".join(idx)
    w.emit(f"{out1}[{at}], {out2}[{at}] = {hash_fn}({', '.join(reads)})")
    w.depth -= len(shape)
    return None


def _random_bits(w, eqn, keys):
    """Threefry random bits: element ``j`` of each key's block hashes the counter
    ``j`` (as high and low words); the two words are xor-ed (joined for 64 bits)."""
    out = eqn.outvars[0]
    key_shape, shape = tuple(eqn.invars[0].aval.shape), tuple(eqn.params["shape"])
    n_keys, n = int(np.prod(key_shape, dtype=np.int64)), int(np.prod(shape, dtype=np.int64))
    name, dtype, width = w.var(out), out.aval.dtype, eqn.params["bit_width"]
    hash_fn = w._helper("_threefry2x32")
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


CALL_LOWERINGS.update({
    "random_bits": _random_bits,
    "bitcast_convert_type": _bitcast, "concatenate": _concatenate, "pad": _pad,
    "cumsum": _cumulative("sum"), "cumprod": _cumulative("prod"),
    "cummax": _cumulative("max"), "cummin": _cumulative("min"),
    "dynamic_slice": _dynamic_slice, "dynamic_update_slice": _dynamic_update_slice,
    "threefry2x32": _threefry2x32,
})


_SUPPORTED_KINDS = "biuf"  # bool, signed, unsigned, float (no complex, no float16)


def _dtype_ok(dtype) -> bool:
    return dtype.kind in _SUPPORTED_KINDS and not (dtype.kind == "f" and dtype.itemsize < 4)


def _is_threefry_key(dtype) -> bool:
    """A typed PRNG key of chapter 13's threefry (stored as two uint32 words)."""
    return (getattr(dtype, "extended", False)
            and np.dtype(dtype).names == ("threefry2x32",))


def _key_ok(dtype, eqns) -> bool:
    """Threefry keys, when they only come in as arguments and go to ``random_bits``:
    the kernel gets their key data, a uint32 array with a trailing axis of 2."""
    return _is_threefry_key(dtype) and all(
        e.primitive.name == "random_bits" and e.outvars[0].aval.dtype != dtype for e in eqns)


def make_plan(closed_jaxpr) -> fusion.KernelPlan:
    """The fusion plan for what this backend can lower."""
    return fusion.make_plan(closed_jaxpr, elementwise=frozenset(SCALAR_RULES) |
                            {"broadcast_in_dim", "iota"}, calls=frozenset(CALL_LOWERINGS),
                            dtype_ok=_dtype_ok, extended_ok=_key_ok)


# =============================================================================
# Writing the kernel module
# =============================================================================
_RESERVED = set(keyword.kwlist) | {"np", "math", "njit", "range", "abs", "max", "min",
                                   "int", "float", "bool", "len", "print"}


class _KernelWriter:
    """Writes the entry function of one plan, line by line."""

    def __init__(self, plan: fusion.KernelPlan, fn_name: str):
        self.plan = plan
        self.fn_name = fn_name
        self.lines: list[str] = []
        self.helpers: set[str] = set()
        self.depth = 1

    # --- small utilities ------------------------------------------------------------
    def emit(self, code: str, comment: str | None = None) -> None:
        line = "    " * self.depth + code
        self.lines.append(f"{line}  # {comment}" if comment else line)

    def var(self, v) -> str:
        name = self.plan.names.var_names[v]
        return name + "_" if name in _RESERVED else name

    def atom(self, a) -> str:
        """A materialized value: an array name, a scalar name, or a literal."""
        return literal(a.val, a.aval.dtype) if isinstance(a, Literal) else self.var(a)

    def read(self, a, idx, loop_shape=None) -> str:
        """Element ``idx`` of a materialized value (a scalar is its own element).

        In a loop over ``loop_shape``, an operand with size-1 dimensions where
        the loop has more is broadcast (lax allows that for equal ranks).
        """
        if isinstance(a, Literal) or not a.aval.shape:
            return self.atom(a)
        if loop_shape is not None and tuple(a.aval.shape) != tuple(loop_shape):
            idx = ["0" if n == 1 else i for n, i in zip(a.aval.shape, idx)]
        return f"{self.var(a)}[{', '.join(idx)}]"

    def text(self, eqn) -> str:
        return fusion.eqn_text(eqn, self.plan.names)

    def reshape_code(self, x: str, aval, new_shape) -> str:
        if not aval.shape:
            return f"np.full({tuple(new_shape)}, {x})"
        if not new_shape:
            return f"{x}.ravel()[0]"
        return f"np.ascontiguousarray({x}).reshape({tuple(new_shape)})"

    # --- the function ---------------------------------------------------------------
    def write(self) -> str:
        jaxpr = self.plan.closed_jaxpr.jaxpr
        params = ", ".join(self.var(v) for v in [*jaxpr.constvars, *jaxpr.invars])
        for step in self.plan.steps:
            if isinstance(step, fusion.LoopNest):
                self.loop_nest(step)
            elif isinstance(step, fusion.Dot):
                self.dot(step.eqn)
            else:
                self.call(step.eqn)
        outs = [self.var(v) for v in kernel_outputs(jaxpr)]
        self.emit(f"return ({''.join(o + ', ' for o in outs)})")
        header = f"def {self.fn_name}({params}):"
        return "\n".join([header, *self.lines])

    def call(self, eqn) -> None:
        args = [self.atom(a) for a in eqn.invars]
        expr = CALL_LOWERINGS[eqn.primitive.name](self, eqn, *args)
        if expr is not None:  # None: the lowering wrote its lines itself
            self.emit(f"{self.var(eqn.outvars[0])} = {expr}", self.text(eqn))

    def dot(self, eqn) -> None:
        """``dot_general`` as (batched) matrix products of contiguous 3-D operands."""
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        lhs, rhs = eqn.invars
        out = eqn.outvars[0]
        dtype = out.aval.dtype
        ls, rs = lhs.aval.shape, rhs.aval.shape
        lf = [d for d in range(len(ls)) if d not in lc and d not in lb]
        rf = [d for d in range(len(rs)) if d not in rc and d not in rb]
        size = lambda shape, dims: int(np.prod([shape[d] for d in dims], dtype=np.int64))  # noqa
        B, M, K, N = size(ls, lb), size(ls, lf), size(ls, lc), size(rs, rf)
        name = self.var(out)
        self.emit(f"# {self.text(eqn)}")
        operands = []
        for a, perm, shape3, suffix in ((lhs, [*lb, *lf, *lc], (B, M, K), "lhs"),
                                        (rhs, [*rb, *rc, *rf], (B, K, N), "rhs")):
            x = self.atom(a)
            if perm != sorted(perm) and a.aval.shape:
                x = f"{x}.transpose({tuple(perm)})"
            code = self.reshape_code(x, a.aval, shape3)
            if a.aval.dtype != dtype:
                code = f"{code}.astype({np_dtype(dtype)})"
            self.emit(f"{name}_{suffix} = {code}")
            operands.append(f"{name}_{suffix}")
        out_shape = tuple(out.aval.shape)
        if _kind(dtype) == "f" and B == 1 and M * N * K > 0:
            self.emit(f"{name} = np.dot({operands[0]}[0], {operands[1]}[0])"
                      f"{'.reshape(' + str(out_shape) + ')' if out_shape else '[0, 0]'}")
            return
        if _kind(dtype) == "f" and M * N * K > 0:
            self.emit(f"{name}_3d = np.empty({(B, M, N)}, dtype={np_dtype(dtype)})")
            self.emit(f"for i0 in range({B}):")
            self.emit(f"    {name}_3d[i0] = np.dot({operands[0]}[i0], {operands[1]}[i0])")
        else:
            self.emit(f"{name}_3d = np.zeros({(B, M, N)}, dtype={np_dtype(dtype)})")
            self.emit(f"{self._helper('_dot_loop')}({operands[0]}, {operands[1]}, {name}_3d)")
        self.emit(f"{name} = {name}_3d.reshape({out_shape})" if out_shape
                  else f"{name} = {name}_3d[0, 0, 0]")

    def _helper(self, name: str) -> str:
        self.helpers.add(name)
        return name

    # --- fused loop nests -----------------------------------------------------------
    def loop_nest(self, step: fusion.LoopNest) -> None:
        shape, rank = tuple(step.shape), len(step.shape)
        idx = [f"i{d}" for d in range(rank)]
        what = f"fused loop nest over {list(shape)}: {len(step.eqns)} equation(s)"
        if step.reduction is not None:
            what += f" into {step.reduction.primitive.name}"
        self.emit(f"# --- {what}")
        for v in step.stores:
            if rank:
                self.emit(f"{self.var(v)} = np.empty({shape}, dtype={np_dtype(v.aval.dtype)})")
        reduce = _Reduction(self, step.reduction, idx) if step.reduction is not None else None
        if reduce:
            reduce.init()
        for d in range(rank):
            self.emit(f"for i{d} in range({shape[d]}):")
            self.depth += 1
        local: dict = {}  # value -> its scalar name in the loop body

        def operand(a):
            return local[a] if isinstance(a, Var) and a in local else self.read(a, idx, shape)

        for eqn in step.eqns:
            out = eqn.outvars[0]
            name = f"{self.var(out)}_i" if rank else self.var(out)
            self.emit(f"{name} = {self.scalar(eqn, operand, idx)}", self.text(eqn))
            local[out] = name
        for v in step.stores:
            if rank:
                self.emit(f"{self.var(v)}[{', '.join(idx)}] = {local[v]}")
        if reduce:
            reduce.update(operand(step.reduction.invars[0]))
        self.depth -= rank
        if reduce:
            reduce.finish()

    def scalar(self, eqn, operand, idx) -> str:
        """The expression of one element of ``eqn``'s output, at loop index ``idx``."""
        name = eqn.primitive.name
        out = eqn.outvars[0].aval
        if name == "iota":
            return cast(out.dtype, idx[eqn.params["dimension"]])
        if name == "broadcast_in_dim":
            x = eqn.invars[0]
            if isinstance(x, Literal) or not x.aval.shape or x.aval.shape == out.shape:
                return operand(x)
            dims = eqn.params["broadcast_dimensions"]
            x_idx = ["0" if x.aval.shape[d] == 1 else idx[dims[d]] for d in range(len(dims))]
            return self.read(x, x_idx)
        ctx = _Ctx(eqn, self.helpers)
        return SCALAR_RULES[name](ctx, *[operand(a) for a in eqn.invars])


class _Reduction:
    """The accumulator of a reduction fused at the end of a loop nest."""

    def __init__(self, w: _KernelWriter, eqn, idx):
        self.w, self.eqn, self.idx = w, eqn, idx
        self.kind = eqn.primitive.name.replace("reduce_", "")
        self.x = eqn.invars[0]
        self.out = eqn.outvars[0]
        axes = set(eqn.params["axes"])
        self.kept = [i for d, i in enumerate(idx) if d not in axes]
        self.axis = idx[eqn.params["axes"][0]] if self.kind.startswith("arg") else None
        self.name = w.var(self.out)
        dtype = self.out.aval.dtype
        wide = {"f": np.float64, "i": np.int64, "u": np.uint64}
        self.acc_dtype = (np.dtype(wide.get(_kind(dtype), dtype)) if self.kind in ("sum", "prod")
                          else dtype)

    def ref(self, name: str) -> str:
        return f"{name}[{', '.join(self.kept)}]" if self.kept else name

    def identity(self):
        dtype, kind = self.acc_dtype, _kind(self.acc_dtype)
        if self.kind in ("max", "min"):
            if kind == "f":
                return float("-inf") if self.kind == "max" else float("inf")
            if kind == "b":
                return self.kind == "min"
            info = np.iinfo(dtype)
            return info.min if self.kind == "max" else info.max
        return {"sum": 0, "prod": 1, "and": -1 if kind != "b" else True, "or": 0, "xor": 0}[self.kind]

    def init(self) -> None:
        w, shape = self.w, tuple(self.out.aval.shape)
        w.emit(f"# {w.text(self.eqn)}")
        if self.axis is not None:  # argmax / argmin: the best value and its index
            xdt = self.x.aval.dtype
            w.emit(f"{self.name}_best = " + (f"np.empty({shape}, dtype={np_dtype(xdt)})"
                                               if shape else literal(0, xdt)))
            idt = self.out.aval.dtype
            w.emit(f"{self.name} = " + (f"np.zeros({shape}, dtype={np_dtype(idt)})"
                                          if shape else literal(0, idt)))
            return
        init = literal(self.identity(), self.acc_dtype)
        w.emit(f"{self.name}_acc = " + (f"np.full({shape}, {init}, dtype={np_dtype(self.acc_dtype)})"
                                          if shape else init))

    def update(self, x: str) -> None:
        w, acc = self.w, self.ref(f"{self.name}_acc")
        if self.axis is not None:
            best = self.ref(f"{self.name}_best")
            better = w._helper("_arg_better_" + self.kind[3:])
            w.emit(f"if {self.axis} == 0 or {better}({x}, {best}):")
            w.emit(f"    {best} = {x}")
            w.emit(f"    {self.ref(self.name)} = {cast(self.out.aval.dtype, self.axis)}")
            return
        kind, dk = self.kind, _kind(self.acc_dtype)
        if kind in ("sum", "prod"):
            w.emit(f"{acc} {'+' if kind == 'sum' else '*'}= {x}")
            return
        if kind in ("max", "min"):
            ctx = _Ctx(self.eqn, w.helpers)
            ctx.out_dtype = self.acc_dtype
            new = _minmax(kind == "max")(ctx, acc, x)
        else:
            op = {"and": "&", "or": "|", "xor": "^"}[kind]
            new = f"{acc} {op} {x}" if dk == "b" else cast(self.acc_dtype, f"{acc} {op} {x}")
        w.emit(f"{acc} = {new}")

    def finish(self) -> None:
        if self.axis is not None:
            return
        w, dtype = self.w, self.out.aval.dtype
        acc = f"{self.name}_acc"
        if self.acc_dtype == dtype:
            w.emit(f"{self.name} = {acc}")
        elif self.out.aval.shape:
            w.emit(f"{self.name} = {acc}.astype({np_dtype(dtype)})")
        else:
            w.emit(f"{self.name} = {cast(dtype, acc)}")


def kernel_outputs(jaxpr) -> list:
    """The jaxpr outputs the kernel computes (not inputs, constants or literals), once each."""
    given = set(jaxpr.constvars) | set(jaxpr.invars)
    outs: list = []
    for v in jaxpr.outvars:
        if isinstance(v, Var) and v not in given and v not in outs:
            outs.append(v)
    return outs


_DECORATOR = '@njit(nogil=True, cache=True, error_model="numpy")'


def _entry_name(name: str) -> str:
    return "jit_" + (re.sub(r"\W+", "_", name).strip("_") or "fun")


def generate_source(plan: fusion.KernelPlan, name: str) -> str:
    """The kernel module for ``plan``: imports, the helpers it uses, the entry function."""
    fn_name = _entry_name(name)
    writer = _KernelWriter(plan, fn_name)
    body = writer.write()
    jaxpr_text = "\n".join("    " + line for line in str(plan.closed_jaxpr).splitlines())
    plan_text = "\n".join("    " + line for line in str(plan).splitlines())
    parts = [
        f'"""Kernel for jit({name}), generated by minijax.backends.numba_cpu.\n\n'
        f"The jaxpr:\n\n{jaxpr_text}\n\nThe plan:\n\n{plan_text}\n\"\"\"",
        "import math\n\nimport numpy as np\nfrom numba import njit",
    ]
    parts += [f"{_DECORATOR}{HELPERS[h].rstrip()}" for h in sorted(writer.helpers)]
    parts.append(f"{_DECORATOR}\n{body}")
    return "\n\n\n".join(parts) + "\n"


# =============================================================================
# Compiling: the on-disk module cache and Numba
# =============================================================================
_modules: dict[str, object] = {}   # module name -> imported kernel module (in memory)
_lock = threading.Lock()
_fallback_dir: list[str] = []


def clear_cache() -> None:
    """Forget the kernels loaded in this process (the disk cache stays)."""
    _modules.clear()


def _module_name(source: str) -> str:
    import numba
    key = f"{source}\n{numba.__version__}\n{sys.version}".encode()
    return "minijax_kernel_" + hashlib.sha256(key).hexdigest()[:24]


def _writable_cache_dir() -> str:
    path = cache_dir()
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    if not _fallback_dir:  # an unwritable cache dir costs speed, not correctness
        _fallback_dir.append(tempfile.mkdtemp(prefix="minijax-cache-"))
    return _fallback_dir[0]


def _write_atomically(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _purge_numba_cache(directory: str, mod_name: str) -> None:
    pycache = os.path.join(directory, "__pycache__")
    if os.path.isdir(pycache):
        for f in os.listdir(pycache):
            if f.startswith(mod_name):
                try:
                    os.remove(os.path.join(pycache, f))
                except OSError:
                    pass


def load_module(source: str):
    """Import the kernel module for ``source``: from memory, from disk, or written now.

    The file is named by the hash of its source, so a file with the right
    name and the wrong contents is corrupt: it is rewritten.
    """
    mod_name = _module_name(source)
    with _lock:
        module = _modules.get(mod_name)
        if module is not None:
            return module
        directory = _writable_cache_dir()
        path = os.path.join(directory, mod_name + ".py")
        try:
            with open(path) as f:
                intact = f.read() == source
        except (OSError, UnicodeDecodeError):
            intact = False
        if not intact:
            _purge_numba_cache(directory, mod_name)
            _write_atomically(path, source)
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module  # Numba's cache finds the module by name
        spec.loader.exec_module(module)
        _modules[mod_name] = module
        return module


def _numba_type(aval):
    from numba import from_dtype, types
    if _is_threefry_key(aval.dtype):  # the key data: uint32, one more axis
        return types.Array(types.uint32, len(aval.shape) + 1, "C", readonly=True)
    dtype = from_dtype(aval.dtype)
    if not aval.shape:
        return dtype
    return types.Array(dtype, len(aval.shape), "C", readonly=True)


def compile_kernel(source: str, fn_name: str, in_avals):
    """Load the module and compile its entry function for ``in_avals``.

    Returns ``(dispatcher, signature, cache_hit)``. A corrupt Numba cache
    entry is deleted and the kernel compiled again.
    """
    signature = tuple(_numba_type(a) for a in in_avals)
    for attempt in range(2):
        module = load_module(source)
        dispatcher = getattr(module, fn_name)
        try:
            dispatcher.compile(signature)
            break
        except Exception:
            if attempt:
                raise
            logger.warning("minijax: recompiling %s after a failure to load it from the "
                           "cache", module.__name__, exc_info=True)
            _purge_numba_cache(os.path.dirname(module.__file__), module.__name__)
            _modules.pop(module.__name__, None)
            sys.modules.pop(module.__name__, None)
    hit = sum(dispatcher.stats.cache_hits.values()) > 0
    return dispatcher, signature, hit


# =============================================================================
# The backend
# =============================================================================
class NumbaLowering(Lowering):
    """The generated kernel module: ``as_text()`` is its Python source."""

    def __init__(self, backend, closed_jaxpr, name: str, plan, source: str):
        super().__init__(backend, closed_jaxpr, name)
        self.plan = plan
        self.source = source
        self.fn_name = _entry_name(name)

    def as_text(self) -> str:
        return self.source

    def cost_analysis(self) -> dict[str, float]:
        return self.plan.cost_analysis()


class FallbackLowering(InterpreterLowering):
    """A jaxpr this backend cannot lower: it runs on the interpreter."""

    def __init__(self, backend, closed_jaxpr, name: str, reason: str):
        super().__init__(backend, closed_jaxpr, name)
        self.reason = reason

    def as_text(self) -> str:
        return (f"# not lowered to Numba ({self.reason}); run by the interpreter:\n"
                + super().as_text())


def _prepare(x, aval):
    """An argument as the kernel takes it: a read-only C array, or a NumPy scalar."""
    value = to_numpy(x)
    if _is_threefry_key(aval.dtype):  # the kernel takes the key data
        value = np.ascontiguousarray(value["threefry2x32"])
        value.flags.writeable = False
        return value
    if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
    if not aval.shape:
        return value[()]
    value = np.ascontiguousarray(value)
    if value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


class NumbaExecutable(Executable):
    """The compiled kernel, and how to call it on minijax values."""

    def __init__(self, lowering: NumbaLowering):
        super().__init__(lowering)
        closed = lowering.plan.closed_jaxpr
        jaxpr = closed.jaxpr
        self.kernel, self.signature, self.cache_hit = compile_kernel(
            lowering.source, lowering.fn_name, [v.aval for v in [*jaxpr.constvars, *jaxpr.invars]])
        self._consts = [_prepare(c, v.aval) for c, v in zip(closed.consts, jaxpr.constvars)]
        self._const_avals = [v.aval for v in jaxpr.constvars]
        computed = kernel_outputs(jaxpr)
        # where each output comes from: ("kernel", k), ("arg", i), ("const", i), ("lit", val)
        self._sources = []
        for v in jaxpr.outvars:
            if isinstance(v, Literal):
                self._sources.append(("lit", v.val))
            elif v in computed:
                self._sources.append(("kernel", computed.index(v)))
            elif v in jaxpr.invars:
                self._sources.append(("arg", jaxpr.invars.index(v)))
            else:
                self._sources.append(("const", jaxpr.constvars.index(v)))

    def __call__(self, *flat_args) -> list:
        args = [_prepare(x, a) for x, a in zip(flat_args, self.in_avals)]
        results = self.kernel(*self._consts, *args)
        outs = []
        for (kind, k), aval in zip(self._sources, self.out_avals):
            if kind == "kernel":
                value = results[k]
                if not isinstance(value, np.ndarray):
                    value = np.asarray(value, dtype=aval.dtype)
                outs.append(Array(aval, Buffer(value)))
            elif kind == "arg":
                outs.append(as_output_array(flat_args[k], aval))
            elif kind == "const":
                outs.append(as_output_array(self.lowering.plan.closed_jaxpr.consts[k], aval))
            else:
                outs.append(as_output_array(k, aval))
        return outs

    def as_text(self) -> str:
        """The LLVM IR of the entry function (Numba's ``inspect_llvm``)."""
        try:
            ir = self.kernel.inspect_llvm(self.signature)
        except Exception:  # loaded from the disk cache: compile a copy to show
            import numba
            fresh = numba.njit(nogil=True, error_model="numpy")(self.kernel.py_func)
            fresh.compile(self.signature)
            ir = fresh.inspect_llvm(self.signature)
        return _entry_ir(ir, self.lowering.fn_name)

    def cost_analysis(self) -> dict[str, float]:
        return self.lowering.plan.cost_analysis()


def _entry_ir(ir: str, fn_name: str) -> str:
    """The ``define`` of the entry function (not the Python wrappers) out of a module."""
    blocks, current = [], None
    for line in ir.splitlines():
        if line.startswith("define "):
            current = [line] if fn_name in line and "cpython" not in line \
                and "cfunc" not in line else None
        elif current is not None:
            current.append(line)
            if line.startswith("}"):
                blocks.append("\n".join(current))
                current = None
    return "\n\n".join(blocks) if blocks else ir


class NumbaCPUBackend(Backend):
    """Fused kernels compiled by Numba; the interpreter for what it cannot lower."""
    name = "cpu"
    platform = "cpu"
    ir_name = "numba kernel source"
    compiler_name = "numba"

    def lower(self, closed_jaxpr, *, name: str, **options):
        plan = make_plan(closed_jaxpr)
        if not plan.supported:
            logger.debug("jit(%s) runs on the interpreter: %s", name, plan.unsupported)
            return FallbackLowering(self, closed_jaxpr, name,
                                    "unsupported: " + ", ".join(plan.unsupported))
        try:
            source = generate_source(plan, name)
        except NotImplementedError as e:
            return FallbackLowering(self, closed_jaxpr, name, f"unsupported: {e}")
        return NumbaLowering(self, closed_jaxpr, name, plan, source)

    def compile(self, lowering, **options):
        if isinstance(lowering, InterpreterLowering):
            return InterpreterExecutable(lowering)
        try:
            return NumbaExecutable(lowering)
        except Exception as e:  # a bug in code generation must not break the program
            import numba
            if not isinstance(e, numba.core.errors.NumbaError):
                raise
            logger.warning("minijax: Numba could not compile jit(%s); running it on the "
                           "interpreter instead:\n%s", lowering.name, e)
            return InterpreterExecutable(lowering)


#: Below the interpreter's 0 for now: ``jit(f, backend="cpu")`` opts in. Every jit
#: test of chapters 06-08 and 13 passes with this backend as the default except
#: three that pin the interpreter (its program text, its log line, its name);
#: once they say ``backend="interpreter"``, set this to 1 to make Numba the default.
PRIORITY = -1


def _register() -> None:
    from minijax.jit import register_cache
    register_cache(clear_cache)
    register_backend("cpu", NumbaCPUBackend(), priority=PRIORITY)


_register()
