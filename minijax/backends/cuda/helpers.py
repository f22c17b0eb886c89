"""Chapter 10 — CUDA device helpers: the small functions kernels call.

A CUDA kernel cannot call the CPU target's ``@njit`` helpers, so each helper a
CUDA rule requests is written into the kernel module as a *device function*
(``@cuda.jit(device=True, inline="always")``). ``inline="always"`` matters:
a device function that is not inlined needs a GPU driver to compile, so
without it CI (which has no GPU) could not check the PTX.

Where the CPU helper's source is valid CUDA (only arithmetic, comparisons and
``np.int64(...)``-style casts), it is taken as it is from
:data:`minijax.backends.cpu.helpers.HELPERS`: one definition of XLA's ``max``
for both targets. Helpers that call NumPy functions on scalars (``np.trunc``,
``np.sign``: they do not compile for CUDA) are written here with ``math``.
"""
from __future__ import annotations

from minijax.backends.cpu.helpers import HELPERS as CPU_HELPERS
from minijax.backends.cpu.math_helpers import _erf_inv_lines

__all__ = ["CUDA_HELPERS", "DEVICE_DECORATOR", "request", "helper_source"]

DEVICE_DECORATOR = '@cuda.jit(device=True, inline="always")'

#: CPU helpers whose source is valid CUDA as it is.
_SHARED = ("_idiv", "_irem", "_sign", "_arg_better_max", "_arg_better_min",
           "_threefry2x32", "_erf_inv_end", "_cdiv")

#: name -> source: the helpers written for CUDA.
CUDA_HELPERS: dict[str, str] = {name: CPU_HELPERS[name].source for name in _SHARED}

# XLA's max and min: the CPU's are Numba intrinsics emitting LLVM
# selects (branch-free, for the CPU's branch predictor); on the GPU, where a warp
# runs both sides of a branch anyway, plain Python comparisons compile everywhere
# and take any number type (scatter-min/max on integers too).
CUDA_HELPERS["_fmax"] = '''
def _fmax(x, y):
    """XLA's max: NaN propagates; max(-0., 0.) is 0."""
    if x > y:
        return x
    if y > x:
        return y
    if x == y and x != 0:
        return x
    return x + y  # NaN if either is NaN; -0. only if both are -0.
'''

CUDA_HELPERS["_fmin"] = '''
def _fmin(x, y):
    """XLA's min: NaN propagates; min(-0., 0.) is -0."""
    if x < y:
        return x
    if y < x:
        return y
    if x == y and x != 0:
        return x
    return -((-x) + (-y))
'''

CUDA_HELPERS["_trunc"] = '''
def _trunc(x):
    """Round toward zero, in x's float type (``math.trunc`` would give an integer)."""
    return math.floor(x) if x >= 0 else math.ceil(x)
'''

CUDA_HELPERS["_round_away"] = '''
def _round_away(x):
    """Round halves away from zero (XLA's default rounding)."""
    t = _trunc(x)
    if abs(x - t) >= 0.5:
        return t + 1 if x > 0 else t - 1
    return t
'''

CUDA_HELPERS["_rint"] = '''
def _rint(x):
    """Round halves to even (XLA's ROUND_TO_NEAREST_EVEN)."""
    r = math.floor(x + 0.5)
    if r - x == 0.5 and math.fmod(r, 2.0) != 0:
        r -= 1
    return r
'''

CUDA_HELPERS["_float_to_int"] = '''
def _float_to_int(x, lo, hi):
    """XLA's float -> int: truncate toward zero, saturate at [lo, hi], NaN -> 0."""
    if x != x:
        return 0.0
    t = _trunc(np.float64(x))
    if t < lo:
        return lo
    if t >= hi + 1.0:
        return hi
    return t
'''

# XLA's float32 erf_inv (random.normal's samples): the CPU's three helpers, with
# math.log1p / math.sqrt for its NumPy calls and the CPU's own polynomial lines.
CUDA_HELPERS["_erf_inv_w"] = '''
def _erf_inv_w(x):
    """w = -log1p(-x*x) in float32 (x*x rounded to float32, as XLA); 0 if |x| >= 1."""
    y = -np.float64(x * x)
    return np.float32(-math.log1p(y if y > -1.0 else 0.0))
'''

CUDA_HELPERS["_erf_inv_poly"] = "\n".join([
    "", "def _erf_inv_poly(w):",
    '    """Giles\' polynomial for erf_inv(x) / x (the small one if w < 5)."""',
    "    big = w >= np.float32(5.0)",
    "    s = np.float32(math.sqrt(w))",
    "    t = np.float64((s - np.float32(3.0)) if big else (w - np.float32(2.5)))",
    *_erf_inv_lines(), "    return p", ""])

CUDA_HELPERS["_logaddexp"] = (CPU_HELPERS["_logaddexp"].source
                               .replace("np.log1p(np.exp(", "math.log1p(math.exp("))

CUDA_HELPERS["_total_greater"] = '''
def _total_greater(a, b):
    """a > b in IEEE totalOrder (-NaN < -inf < ... < -0 < 0 < ... < inf < NaN),
    told apart by sign (``math.copysign``), as a kernel cannot read a float's bits."""
    a_nan, b_nan = a != a, b != b
    if a_nan or b_nan:
        if a_nan and b_nan:
            return math.copysign(1.0, a) > math.copysign(1.0, b)
        if a_nan:
            return math.copysign(1.0, a) > 0
        return math.copysign(1.0, b) < 0
    if a == b:  # only 0 and -0 differ here
        return math.copysign(1.0, a) > math.copysign(1.0, b)
    return a > b
'''

CUDA_HELPERS["_nextafter"] = '''
def _nextafter(x, y, mantissa_bits, min_exponent, max_exponent):
    """The next float of x's type after x toward y, from its exponent
    (``math.frexp``: a kernel cannot read a float's bits): one unit in the last
    place away from zero, half of one toward zero from a power of two."""
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    ax = abs(np.float64(x))
    if ax == 0.0:
        return math.copysign(math.ldexp(1.0, min_exponent - mantissa_bits), y)
    if ax == math.inf:  # toward any finite y: the largest finite float
        largest = math.ldexp(2.0 - math.ldexp(1.0, -mantissa_bits), max_exponent - 1)
        return math.copysign(largest, x)
    m, e = math.frexp(ax)  # ax = m * 2**e, 0.5 <= m < 1
    tiny = min_exponent - mantissa_bits  # the exponent of the smallest subnormal
    if (y > x) == (x > 0):  # away from zero
        mag = ax + math.ldexp(1.0, max(e - mantissa_bits - 1, tiny))
    else:
        below = e - mantissa_bits - 2 if m == 0.5 else e - mantissa_bits - 1
        mag = ax - math.ldexp(1.0, max(below, tiny))
    return math.copysign(mag, x)
'''

CUDA_HELPERS["_digamma"] = (CPU_HELPERS["_digamma"].source
                             .replace("x == np.floor(x)", "math.fmod(x, 1.0) == 0")
                             .replace("np.pi", "math.pi").replace("np.tan(", "math.tan(")
                             .replace("np.log(", "math.log(").replace("np.nan", "math.nan"))

#: helper -> the helpers it calls (they must come first in the module).
_CALLS = {"_round_away": ("_trunc",), "_float_to_int": ("_trunc",)}


def request(helpers: list, name: str, what: str) -> str:
    """Add helper ``name`` (after its callees) to a module's ``helpers``; its name.

    ``what`` names the equation, for the error when CUDA has no such helper."""
    if name not in CUDA_HELPERS:
        raise NotImplementedError(f"{what}: the CUDA target has no device helper {name}")
    for callee in _CALLS.get(name, ()):
        request(helpers, callee, what)
    if name not in helpers:
        helpers.append(name)
    return name


def helper_source(name: str) -> str:
    """Helper ``name`` as written into a kernel module: decorator and code."""
    return f"{DEVICE_DECORATOR}{CUDA_HELPERS[name].rstrip()}"
