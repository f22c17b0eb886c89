"""Chapter 09 — scalar code: one Python expression per elementwise equation.

Inside a fused loop nest every elementwise equation becomes one line that
computes ONE element: ``b_i = a_i * np.float32(2.0)``. A *scalar rule* maps a
primitive and the expressions of its operands to the expression of its
result; :data:`SCALAR_RULES` holds them all, so the semantics of every
primitive on the CPU backend are in this one file.

Semantics follow XLA, as chapter 00's impl rules do: float32 stays float32
(every literal is written ``np.float32(...)``, since Numba would promote a
bare ``2.0`` to float64), integer arithmetic wraps (results are cast back to
their dtype: Numba computes integers in 64 bits), integer division
truncates, max/min propagate NaN, shifts by the bit width or more give 0.

Rules that need more than an expression request a *helper*: a small jitted
function from :data:`HELPERS` (``_fmax``, ``_idiv``, ``_threefry2x32``...)
that the kernel module then includes.

The transcendental rules here (``np.exp``, ``np.tanh``...) call the C
library, one element at a time; :mod:`minijax.backends.numba_math` replaces
them for float32 (and adds ``erf_inv``) with branch-free polynomial helpers
that LLVM can vectorize.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SCALAR_RULES", "HELPERS", "HELPER_NJIT_OPTIONS", "HELPER_PRELUDES", "np_dtype",
           "cast", "literal", "gemm_helper"]


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
        return cast(dtype, _float_text(val))
    if np.issubdtype(dtype, np.complexfloating):
        return cast(dtype, f"complex({_float_text(val.real)}, {_float_text(val.imag)})")
    return cast(dtype, repr(int(val)))


def _float_text(val: float) -> str:
    return {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}.get(repr(val), repr(val))


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
    q = abs(np.int64(x)) // abs(np.int64(y))  # in 64 bits: abs(INT_MIN) overflows 32
    return q if (x < 0) == (y < 0) else -q
''',
    "_irem": '''
def _irem(x, y):
    """XLA's signed remainder: the dividend's sign (C's fmod); x % 0 is x."""
    if y == 0:
        return x
    r = abs(np.int64(x)) % abs(np.int64(y))  # in 64 bits: abs(INT_MIN) overflows 32
    return -r if x < 0 else r
''',
    "_sign": '''
def _sign(x):
    """-1, 0 or 1 (cast to x's dtype by the rule); keeps -0. and NaN."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
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


#: Extra ``@njit`` keywords for a helper, by name (the kernel writer adds them to
#: its decorator). The math helpers of ``numba_math`` ask for
#: ``fastmath={"contract"}``: LLVM may then fuse ``a * b + c`` into one FMA
#: instruction (the flag stays on the instructions when the helper is inlined
#: into the loop), and nothing else of fast-math (NaN and inf still behave).
HELPER_NJIT_OPTIONS: dict[str, str] = {}

#: Module-level code a helper needs, by name, written just above it (an
#: external C function's declaration, say).
HELPER_PRELUDES: dict[str, str] = {}

_GEMM_PRELUDE = '''
from numba.core import types as _types

#: BLAS's gemm through Numba's own C helper, which finds SciPy's BLAS at run time
#: (by name: a kernel calling it can be cached on disk). Its pointers are void*.
_xxgemm = _types.ExternalFunction("numba_xxgemm", _types.intc(
    _types.char, _types.char, _types.char, _types.intp, _types.intp, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp, _types.voidptr, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp))
'''


def gemm_helper(trans_a: bool, trans_b: bool) -> str:
    """The name of the float32 helper ``out = op(a) @ op(b)`` (BLAS's sgemm),
    ``op(x)`` being ``x.T`` where ``trans_x``: ``_sgemm_tn`` is ``a.T @ b``.

    One helper per pair of flags, with only arrays for arguments: Numba
    specializes a called function on the *values* of literal arguments, so
    flags and sizes passed as constants would compile it once per product.
    (float32 only: minijax has no x64 mode, so matrices are never float64.)
    """
    return f"_sgemm_{'nt'[trans_a]}{'nt'[trans_b]}"


def _gemm_source(trans_a: bool, trans_b: bool) -> str:
    op_a, op_b = "a.T" if trans_a else "a", "b.T" if trans_b else "b"
    return f'''
def {gemm_helper(trans_a, trans_b)}(a, b, out):
    """out = {op_a} @ {op_b} by one BLAS call (float32, all C-contiguous).

    BLAS is column-major, and a C-order matrix read column-major is its
    transpose: this asks for out.T = {op_b}.T @ {op_a}.T, the operands swapped,
    each with its transpose flag; nothing is copied.
    """
    m, n = out.shape
    k = a.shape[{0 if trans_a else 1}]
    alpha_beta = np.empty(2, np.float32)
    alpha_beta[0] = 1
    alpha_beta[1] = 0
    status = _xxgemm({ord("s")}, {ord("T" if trans_b else "N")}, {ord("T" if trans_a else "N")}, n, m, k,
                     alpha_beta[0:].ctypes, b.ctypes, b.shape[1], a.ctypes, a.shape[1],
                     alpha_beta[1:].ctypes, out.ctypes, n)
    if status < 0:
        raise RuntimeError("no BLAS for matrix products: minijax needs SciPy installed")
'''


for _ta in (False, True):
    for _tb in (False, True):
        HELPERS[gemm_helper(_ta, _tb)] = _gemm_source(_ta, _tb)
        HELPER_PRELUDES[gemm_helper(_ta, _tb)] = _GEMM_PRELUDE


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


SCALAR_RULES.update({
    "shift_left": _shift("left"), "shift_right_logical": _shift("logical"),
    "shift_right_arithmetic": _shift("arithmetic"),
    "population_count": _population_count,
})
