"""Chapter 09 — helpers: the small jitted functions kernels call.

A rule that needs more than one expression (XLA's ``max`` with its NaN and
signed-zero cases, integer division that truncates, a BLAS call, a float32
``exp`` that vectorizes) *requests a helper* by name; the writer then imports
it into the kernel module. Every helper registered at import time is written
into ONE shared module (:func:`helper_library_source`), compiled once per
machine (Numba's disk cache) and imported by every kernel: ``_exp32`` alone
costs 0.17 s to compile, so compiling it once per kernel would be slow.

A :class:`Helper` is its Python source (the writer adds the ``@njit`` line),
extra ``@njit`` keywords, module-level code it needs (a *prelude*: an external
C function's declaration), and the helpers it calls. The float32 math helpers
(exp, log, erf, erf_inv; sin, cos, tan) are in :mod:`.math_helpers` and
:mod:`.trig_helpers`; the rest are here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minijax.backends.cpu import blas_threads, small_gemm

__all__ = ["Helper", "HELPERS", "register", "request", "with_callees", "gemm_helper",
           "reduce_precision_helper", "sort_helper", "helper_library_source",
           "use_helper_library", "shared_helpers", "decorated", "with_preludes", "DECORATOR"]


@dataclass(frozen=True)
class Helper:
    """One helper: ``source`` defines ``name``; ``options`` are extra ``@njit``
    keywords; ``prelude`` is module-level code it needs; ``calls`` the helpers
    it calls (the kernel module needs them too)."""
    name: str
    source: str
    options: str | None = None
    prelude: str | None = None
    calls: tuple = ()


#: name -> Helper: every helper a kernel may request.
HELPERS: dict[str, Helper] = {}


def register(name: str, source: str, *, options: str | None = None,
             prelude: str | None = None, calls=()) -> str:
    """Add helper ``name`` (a second registration with the same source is a no-op)."""
    HELPERS.setdefault(name, Helper(name, source, options, prelude, tuple(calls)))
    return name


def request(helpers: set, name: str) -> str:
    """Add helper ``name`` and the helpers it calls to a kernel's ``helpers``; its name."""
    helpers.update(with_callees([name]))
    return name


def with_callees(names) -> list[str]:
    """``names`` and, first, every helper they call (transitively), each once."""
    order: list[str] = []

    def visit(name):
        if name in order:
            return
        for callee in HELPERS[name].calls:
            visit(callee)
        order.append(name)
    for name in names:
        visit(name)
    return order


# =============================================================================
# XLA's max and min as selects, not jumps
# =============================================================================
def _select_minmax(take_max: bool):
    """XLA's ``max`` (``min``) of two floats as LLVM ``select`` instructions.

    Written with ``if``s, it was jumps: after a convolution about half the
    values are negative, the processor guesses a ReLU's jump wrong half the
    time (about 15 cycles each), and a loop with jumps is not vectorized
    either: the CNN's ReLU over 100x8x8x16 floats took 216 us, 47 with
    selects. The cases, in order (the same results as the ``if``s, bit for bit):

    - ``x > y``: ``x`` (``x < y`` for min);
    - ``y > x``: ``y``;
    - equal and not zero: ``x``;
    - else ``x + y`` (``-((-x) + (-y))`` for min): a NaN if either is one
      (the processor's quiet NaN, as before), and for two zeros ``+0.`` unless
      both are ``-0.`` (for min: ``-0.`` unless both are ``+0.``).
    """
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    def typer(typingctx, x, y):
        if not (isinstance(x, types.Float) and isinstance(y, types.Float)):
            return None
        t = x if x.bitwidth >= y.bitwidth else y
        return t(x, y), t

    def codegen(context, builder, sig, args):
        t = sig.return_type
        x, y = (context.cast(builder, a, ty, t) for a, ty in zip(args, sig.args))
        first = builder.fcmp_ordered(">" if take_max else "<", x, y)
        second = builder.fcmp_ordered("<" if take_max else ">", x, y)
        same = builder.and_(builder.fcmp_ordered("==", x, y),
                            builder.fcmp_ordered("!=", x, ir.Constant(x.type, 0.0)))
        if take_max:
            other = builder.fadd(x, y)
        else:
            other = builder.fneg(builder.fadd(builder.fneg(x), builder.fneg(y)))
        out = builder.select(same, x, other)
        out = builder.select(second, y, out)
        return builder.select(first, x, out)

    @intrinsic
    def select_minmax(typingctx, x, y):
        found = typer(typingctx, x, y)
        if found is None:
            return None
        return found[0], codegen
    select_minmax.__name__ = "select_max" if take_max else "select_min"
    return select_minmax


#: ``select_max(x, y)``: XLA's max of two floats, branch-free (:func:`_select_minmax`).
select_max = _select_minmax(True)
#: ``select_min(x, y)``: XLA's min of two floats, branch-free.
select_min = _select_minmax(False)


def _select_value():
    """``select_value(c, x, y)``: ``x`` where the bool ``c`` holds, else ``y``, as one
    LLVM ``select`` (both values computed first).

    Python's ``x if c else y`` compiles to a jump, and ``select_n`` with a mask
    of random bits (the gradient of a ReLU) guessed wrong every other element:
    280 us for 100x8x8x16 floats against 25 with a mask that is all true."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def select_value(typingctx, c, x, y):
        if not isinstance(c, types.Boolean):
            return None
        t = x if x == y else typingctx.unify_types(x, y)
        if t is None or isinstance(t, types.Optional):
            return None

        def codegen(context, builder, sig, args):
            cond, a, b = args
            a = context.cast(builder, a, sig.args[1], t)
            b = context.cast(builder, b, sig.args[2], t)
            return builder.select(cond, a, b)
        return t(c, x, y), codegen
    return select_value


#: ``select_value(c, x, y)``: ``x if c else y`` without a jump (:func:`_select_value`).
select_value = _select_value()


# =============================================================================
# Scalar helpers: XLA's semantics where Python's differ
# =============================================================================
#: Small jitted functions a kernel may call; only the ones used are written
#: into its module. Each is generic: Numba compiles one copy per dtype.
_SCALAR_HELPERS = {
    "_fmax": '''
def _fmax(x, y):
    """XLA's max: NaN propagates; max(-0., 0.) is 0 (see :func:`select_max`)."""
    return select_max(x, y)
''',
    "_fmin": '''
def _fmin(x, y):
    """XLA's min: NaN propagates; min(-0., 0.) is -0. (see :func:`select_max`)."""
    return select_min(x, y)
''',
    "_select": '''
def _select(c, x, y):
    """``x if c else y``, both computed first, without a jump (see :func:`select_value`)."""
    return select_value(c, x, y)
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

_SELECT_PRELUDE = "from minijax.backends.cpu.helpers import select_max, select_min, select_value"
for _name, _source in _SCALAR_HELPERS.items():
    register(_name, _source,
             prelude=_SELECT_PRELUDE if _name in ("_fmax", "_fmin", "_select") else None)


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
register("_threefry2x32", _threefry_helper())
register("_popcount", '''
def _popcount(u, one):
    """The number of 1 bits of the unsigned ``u`` (``one`` is 1 in its dtype)."""
    n = 0
    while u:
        u = u & (u - one)
        n += 1
    return n
''')
register("_clz", '''
def _clz(u, nbits, one):
    """The number of leading zero bits of the unsigned ``u`` (``one`` is 1 in its dtype)."""
    n = nbits
    while u:
        u = u >> one
        n -= 1
    return n
''')
register("_digamma", '''
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
''')
register("_cdiv", '''
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
''')
register("_logaddexp", '''
def _logaddexp(x, y, ln2):
    """log(exp(x) + exp(y)) without overflow, as NumPy's ``logaddexp``."""
    if x == y:  # also two infinities of the same sign
        return x + ln2
    d = x - y
    if d > 0:
        return x + np.log1p(np.exp(-d))
    if d <= 0:
        return y + np.log1p(np.exp(d))
    return d  # NaN
''')


# --- reduce_precision: XLA's bit algorithm, one helper per (dtype, format) ---------------
def reduce_precision_helper(dtype: np.dtype, exponent_bits: int, mantissa_bits: int) -> str:
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
    return register(name, "\n".join(lines))




# =============================================================================
# float16: computed in float32, stored as its 16 bits (see syntax.py)
# =============================================================================
register("_f2h", '''
def _f2h(x):
    """float32 -> the bits of the nearest float16 (ties to even), as NumPy's astype."""
    f = np.uint32(np.float32(x).view(np.uint32))
    sign = np.uint16((f >> np.uint32(16)) & np.uint32(0x8000))
    f_exp = f & np.uint32(0x7F800000)
    f_sig = f & np.uint32(0x007FFFFF)
    if f_exp >= np.uint32(0x47800000):  # overflow to inf, or inf / NaN
        if f_exp == np.uint32(0x7F800000) and f_sig != np.uint32(0):
            h = np.uint32(0x7C00) + (f_sig >> np.uint32(13))
            return np.uint16(sign | np.uint16(h if h != np.uint32(0x7C00) else h + np.uint32(1)))
        return np.uint16(sign | np.uint16(0x7C00))
    if f_exp <= np.uint32(0x38000000):  # a float16 subnormal, or zero
        if f_exp < np.uint32(0x33000000):
            return sign
        e = f_exp >> np.uint32(23)
        s = np.uint32(0x00800000) + f_sig
        s = s >> (np.uint32(113) - e)
        if (s & np.uint32(0x3FFF)) != np.uint32(0x1000) or (f & np.uint32(0x7FF)) != np.uint32(0):
            s = s + np.uint32(0x1000)
        return np.uint16(sign + np.uint16(s >> np.uint32(13)))
    h_exp = (f_exp - np.uint32(0x38000000)) >> np.uint32(13)
    if (f_sig & np.uint32(0x3FFF)) != np.uint32(0x1000):
        f_sig = f_sig + np.uint32(0x1000)
    return np.uint16(sign + np.uint16(h_exp + (f_sig >> np.uint32(13))))
''')
register("_h2f", '''
def _h2f(h):
    """The float32 of the float16 whose bits are ``h`` (exact)."""
    h = np.uint32(h)
    sign = (h & np.uint32(0x8000)) << np.uint32(16)
    e = h & np.uint32(0x7C00)
    m = h & np.uint32(0x03FF)
    if e == np.uint32(0):  # zero or subnormal: m * 2**-24, exact in float32
        v = np.float32(m) * np.float32(5.960464477539063e-08)
        return -v if sign else v
    if e == np.uint32(0x7C00):  # inf or NaN
        return np.uint32(sign | np.uint32(0x7F800000) | (m << np.uint32(13))).view(np.float32)
    return np.uint32(sign | ((e + np.uint32(0x1C000)) << np.uint32(13)) | (m << np.uint32(13))).view(np.float32)
''')
register("_round_f16", '''
def _round_f16(x):
    """x rounded to the nearest float16, as a float32: one float16 operation's result."""
    return _h2f(_f2h(x))
''', calls=("_f2h", "_h2f"))


# =============================================================================
# bfloat16: the same, with float32's top 16 bits as storage (see syntax.py)
# =============================================================================
register("_f2bf", '''
def _f2bf(x):
    """float32 -> the bits of the nearest bfloat16 (ties to even), as ml_dtypes' astype.

    bfloat16 is float32 without its low 16 bits: add just under half of the
    dropped part (plus one when the kept part is odd: ties go to even) and
    shift. A NaN becomes the quiet NaN of its sign, as in XLA and ml_dtypes.
    """
    f = np.uint32(np.float32(x).view(np.uint32))
    is_nan = (f & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    if is_nan:
        return np.uint16(((f >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7FC0))
    f = f + np.uint32(0x7FFF) + ((f >> np.uint32(16)) & np.uint32(1))
    return np.uint16(f >> np.uint32(16))
''')
register("_bf2f", '''
def _bf2f(b):
    """The float32 of the bfloat16 whose bits are ``b`` (exact: the bits, shifted up)."""
    return np.uint32(np.uint32(b) << np.uint32(16)).view(np.float32)
''')
register("_round_bf16", '''
def _round_bf16(x):
    """x rounded to the nearest bfloat16, as a float32: one bfloat16 operation's result."""
    return _bf2f(_f2bf(x))
''', calls=("_f2bf", "_bf2f"))


# =============================================================================
# Calls back into Python (chapter 12's callbacks: see host_calls.py)
# =============================================================================
_HOST_PRELUDE = '''
from numba.core import types as _types

#: The trampoline of minijax.backends.cpu.host_calls, found by name when the kernel is
#: loaded (so the kernel can be cached on disk): it takes the GIL and runs a callback.
_minijax_host_call = _types.ExternalFunction("minijax_host_call", _types.int32(_types.int64, _types.voidptr))
'''
register("_host_call", '''
def _host_call(key, argv):
    """Run host call ``key`` on the buffers whose addresses are in ``argv`` (inputs, then
    outputs). Returns the compiler token that orders the kernel's effects."""
    if _minijax_host_call(key, argv.ctypes) != 0:
        raise RuntimeError("a host callback raised an exception (re-raised by the executable)")
    return np.int32(0)
''', prelude=_HOST_PRELUDE)


# =============================================================================
# Matrix products: BLAS's sgemm
# =============================================================================
_GEMM_PRELUDE = f'''
from numba.core import types as _types

#: BLAS's gemm call, answered by our own float32 product (:mod:`.small_gemm`), which
#: passes what it does not handle on to Numba's C helper ``numba_xxgemm`` (SciPy's
#: BLAS); by name, so a kernel calling it can be cached on disk. Pointers are void*.
_xxgemm = _types.ExternalFunction("{small_gemm.SYMBOL}", _types.intc(
    _types.char, _types.char, _types.char, _types.intp, _types.intp, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp, _types.voidptr, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp))
#: OpenBLAS's thread-local thread count (:mod:`.blas_threads`), by name.
_blas_threads_local = _types.ExternalFunction("{blas_threads.SYMBOL}", _types.intc(_types.intc))
'''


def gemm_helper(trans_a: bool, trans_b: bool, *, accumulate: bool = False,
                one_thread: bool = False) -> str:
    """The name of the float32 helper ``out = op(a) @ op(b)`` (BLAS's sgemm),
    ``op(x)`` being ``x.T`` where ``trans_x``: ``_sgemm_tn`` is ``a.T @ b``.

    - ``accumulate``: ``out += op(a) @ op(b)`` instead (BLAS's ``beta = 1``),
      for a product computed in pieces (``_sgemm_tn_acc``);
    - ``one_thread``: BLAS runs the call on the calling thread alone
      (``_sgemm_nt_1t``): a kernel's threaded loop calls it from every
      thread, and each call must not wake OpenBLAS's own pool of threads as
      well (:mod:`.blas_threads`). The count it sets is the whole process's,
      so it is not restored here (a thread restoring it while another starts
      its product would hand that one the pool): the backend restores it once
      the kernel has returned (``thread_budget.after_one_thread_products``).

    The operands and ``out`` need contiguous rows only: the rows may be
    further apart (a block of columns of a bigger matrix, a slice of rows),
    BLAS's "leading dimension" is the row stride.

    One helper per combination of flags, with only arrays for arguments: Numba
    specializes a called function on the *values* of literal arguments, so
    flags and sizes passed as constants would compile it once per product.
    (float32 only: minijax has no x64 mode, so matrices are never float64.)
    """
    return (f"_sgemm_{'nt'[trans_a]}{'nt'[trans_b]}"
            f"{'_acc' if accumulate else ''}{'_1t' if one_thread else ''}")


def _gemm_source(trans_a: bool, trans_b: bool, accumulate: bool, one_thread: bool) -> str:
    op_a, op_b = "a.T" if trans_a else "a", "b.T" if trans_b else "b"
    assign = "+=" if accumulate else "="
    before, after = ("", "")
    if one_thread:  # OpenBLAS's count (process-wide): the backend restores it after the kernel
        before = "\n    _blas_threads_local(1)  # this thread alone"
    return f'''
def {gemm_helper(trans_a, trans_b, accumulate=accumulate, one_thread=one_thread)}(a, b, out):
    """out {assign} {op_a} @ {op_b}: one BLAS call{" on this thread alone" if one_thread else ""}.

    float32 matrices whose rows are contiguous (the rows may be apart).

    BLAS is column-major, and a C-order matrix read column-major is its
    transpose: this asks for out.T = {"b" if trans_b else "b.T"} @ {"a" if trans_a else "a.T"}, the operands swapped,
    each with its transpose flag; nothing is copied.
    """
    m, n = out.shape
    k = a.shape[{0 if trans_a else 1}]
    alpha_beta = np.empty(2, np.float32)
    alpha_beta[0] = 1
    alpha_beta[1] = {1 if accumulate else 0}{before}
    status = _xxgemm({ord("s")}, {ord("T" if trans_b else "N")}, {ord("T" if trans_a else "N")}, n, m, k,
                     alpha_beta[0:].ctypes, b.ctypes, _leading(b), a.ctypes, _leading(a),
                     alpha_beta[1:].ctypes, out.ctypes, _leading(out)){after}
    if status < 0:
        raise RuntimeError("no BLAS for matrix products: minijax needs SciPy installed")
'''


register("_leading", '''
def _leading(x):
    """BLAS's leading dimension of a float32 matrix with contiguous rows: its row
    stride in elements (at least its row length, 1 for an empty matrix)."""
    return max(x.strides[0] // 4, x.shape[1], 1)
''')

for _ta in (False, True):
    for _tb in (False, True):
        for _acc in (False, True):
            for _one in (False, True):
                register(gemm_helper(_ta, _tb, accumulate=_acc, one_thread=_one),
                         _gemm_source(_ta, _tb, _acc, _one), prelude=_GEMM_PRELUDE,
                         calls=("_leading",))


# =============================================================================
# Linear algebra: one matrix at a time (LAPACK through NumPy where it has it)
# =============================================================================
_LINALG_HELPERS = {
    "_copy_matrix": '''
def _copy_matrix(dst, src):
    """dst[:, :] = src with two loops (quicker for Numba to compile than the slice)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]
''',
    "_copy_vector": '''
def _copy_vector(dst, src):
    """dst[:] = src with one loop."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
''',
    "_cholesky_or_nan": '''
def _cholesky_or_nan(a):
    """The lower Cholesky factor; NaNs (as XLA) if ``a`` is not positive definite."""
    try:
        return np.linalg.cholesky(a)
    except Exception:
        return np.full(a.shape, np.nan, a.dtype)
''',
    "_hermitian": '''
def _hermitian(a, lower):
    """The Hermitian matrix that the ``lower`` (or upper) triangle of ``a`` describes."""
    n = a.shape[0]
    h = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            if i == j or (i > j) == lower:
                h[i, j] = a[i, j]
            else:
                h[i, j] = np.conj(a[j, i])
    return h
''',
    "_lu_in_place": '''
def _lu_in_place(a, pivots, perm):
    """Gaussian elimination with partial pivoting on ``a`` (m, n), in place.

    Column j: the first largest |entry| on or below the diagonal (NaN wins, as
    argmax) is the pivot; its row is swapped up; the multipliers go below the
    diagonal and the rows below are updated. A zero pivot is skipped (LAPACK).
    """
    m, n = a.shape
    for i in range(m):
        perm[i] = i
    for j in range(min(m, n)):
        p, best = j, abs(a[j, j])
        for i in range(j + 1, m):
            v = abs(a[i, j])
            if v > best or (v != v and best == best):
                p, best = i, v
        pivots[j] = p
        if p != j:
            for k in range(n):
                a[j, k], a[p, k] = a[p, k], a[j, k]
            perm[j], perm[p] = perm[p], perm[j]
        pivot = a[j, j]
        if pivot != 0:
            for i in range(j + 1, m):
                a[i, j] = a[i, j] / pivot
        for i in range(j + 1, m):
            for k in range(j + 1, n):
                a[i, k] = a[i, k] - a[i, j] * a[j, k]
''',
    "_pivots_to_permutation": '''
def _pivots_to_permutation(pivots, perm):
    """Apply the row swaps ``pivots`` (from ``lu``), in order, to 0, 1, 2..."""
    for i in range(perm.shape[0]):
        perm[i] = i
    for j in range(pivots.shape[0]):
        p = pivots[j]
        if 0 <= p < perm.shape[0]:
            perm[j], perm[p] = perm[p], perm[j]
''',
    "_op_triangle": '''
def _op_triangle(a, lower, transpose, conjugate, unit):
    """op(a) for the ``lower`` (or upper) triangle of ``a``, zeros elsewhere; its
    diagonal is ones if ``unit``; op transposes and/or conjugates."""
    n = a.shape[0]
    t = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            if i != j and (i > j) != lower:
                continue
            v = a[i, j] * 0 + 1 if (i == j and unit) else a[i, j]
            if conjugate:
                v = np.conj(v)
            if transpose:
                t[j, i] = v
            else:
                t[i, j] = v
    return t
''',
    "_triangular_solve": '''
def _triangular_solve(t, b, lower):
    """x with t @ x = b, t triangular: forward (lower) or back substitution."""
    n, k = b.shape
    x = np.empty_like(b)
    for c in range(k):
        for step in range(n):
            i = step if lower else n - 1 - step
            s = b[i, c]
            lo, hi = (0, i) if lower else (i + 1, n)
            for j in range(lo, hi):
                s -= t[i, j] * x[j, c]
            x[i, c] = s / t[i, i]
    return x
''',
}
for _name, _source in _LINALG_HELPERS.items():
    register(_name, _source)


# =============================================================================
# Sorting: a stable merge sort per row, one helper per number of keys
# =============================================================================
def _before(x: str, y: str) -> str:
    """``x`` sorts strictly before ``y`` in XLA's order: NaNs last, -0.0 == 0.0."""
    return f"({x} < {y} or ({y} != {y} and {x} == {x}))"


def _tied(x: str, y: str) -> str:
    """Neither sorts before the other (two NaNs are tied)."""
    return f"({x} == {y} or ({x} != {x} and {y} != {y}))"


def sort_helper(num_keys: int) -> str:
    """``_sort_perm_<n>``: the stable sorting permutation of one row of n keys,
    compared lexicographically (key 0 first).

    A bottom-up merge sort (runs of width 1, 2, 4...) that moves the keys
    along with their positions, so that comparisons read memory in order.
    """
    name = f"_sort_perm_{num_keys}"
    if name in HELPERS:
        return name
    ks = range(num_keys)
    less = _before(f"a{num_keys - 1}[j]", f"a{num_keys - 1}[i]")
    for j in reversed(range(num_keys - 1)):  # key j decides unless tied
        x, y = f"a{j}[j]", f"a{j}[i]"
        less = f"({_before(x, y)} or ({_tied(x, y)} and {less}))"
    lines = ["", f"def {name}({', '.join(f'k{j}' for j in ks)}):",
             f'    """The stable sorting permutation of {num_keys} key row(s): a merge sort."""',
             "    n = k0.shape[0]",
             "    p, q = np.arange(n), np.empty(n, dtype=np.int64)"]
    lines += [f"    a{j}, b{j} = k{j}.copy(), np.empty_like(k{j})" for j in ks]
    lines += ["    width = 1",
              "    while width < n:",
              "        for lo in range(0, n, 2 * width):",
              "            mid, hi = min(lo + width, n), min(lo + 2 * width, n)",
              "            i, j = lo, mid",
              "            for t in range(lo, hi):",
              "                # the right run goes first only if strictly less: stable",
              f"                if j < hi and (i >= mid or {less}):",
              "                    s = j",
              "                    j += 1",
              "                else:",
              "                    s = i",
              "                    i += 1",
              "                q[t] = p[s]"]
    lines += [f"                b{j}[t] = a{j}[s]" for j in ks]
    lines += ["        p, q = q, p"]
    lines += [f"        a{j}, b{j} = b{j}, a{j}" for j in ks]
    lines += ["        width *= 2", "    return p", ""]
    return register(name, "\n".join(lines))



# =============================================================================
# The shared helper module
# =============================================================================
#: The decorator of every kernel entry function and helper.
DECORATOR = '@njit(nogil=True, cache=True, error_model="numpy")'

#: A helper is called only from compiled code, so it needs neither of the two
#: wrappers Numba builds by default for a call from Python (the CPython one) and
#: through a C pointer (the cfunc one): without them a helper compiles in 0.02-0.03 s
#: instead of 0.06-0.12 s, and the workload 4 kernel pulls in a dozen helpers.
_HELPER_DECORATOR = (f"{DECORATOR[:-1]},\n      "
                     "no_cpython_wrapper=True, no_cfunc_wrapper=True)")


def _helper_decorator(name: str) -> str:
    """The ``@njit`` line of helper ``name``, with its extra options if it has any."""
    extra = HELPERS[name].options
    return _HELPER_DECORATOR if extra is None else f"{_HELPER_DECORATOR[:-1]}, {extra})"


#: The shared helper module (set by :func:`use_helper_library`): its module name
#: and the decorated source of each helper in it.
_library: dict = {"module": None, "helpers": {}}

_HELPER_IMPORTS = "import math\n\nimport numpy as np\nfrom numba import njit"


def decorated(name: str) -> str:
    """Helper ``name`` as written into a module: its decorator and code."""
    return f"{_helper_decorator(name)}{HELPERS[name].source.rstrip()}"


def with_preludes(names) -> list[str]:
    """The module-level code the helpers ``names`` need (each once), then the helpers."""
    preludes = dict.fromkeys(HELPERS[h].prelude.strip() for h in names if HELPERS[h].prelude)
    return [*preludes, *(decorated(h) for h in names)]


def helper_library_source() -> str:
    """One module holding every helper registered so far, for all kernels to import.

    Each kernel module used to carry a copy of the helpers it calls, and so
    compiled them again: ``_exp32`` alone costs 0.17 s, the log helpers 0.4 s.
    Imported from one module, a helper is compiled once per process for each
    argument type, and once per machine (``cache=True``: Numba keeps its
    machine code beside the module, in the cache directory).
    """
    body = "\n\n\n".join(with_preludes(sorted(HELPERS)))
    return ('"""Helpers of the kernels generated by minijax.backends.cpu."""\n'
            f"{_HELPER_IMPORTS}\n\n\n{body}\n")


def use_helper_library(module_name: str) -> None:
    """From now on kernels import the helpers registered so far from
    ``module_name`` (the module :func:`helper_library_source` wrote) instead of
    defining them. A helper registered later, or registered again with other
    code (a sort helper written for one plan), is still written into the
    kernel module itself."""
    _library["module"] = module_name
    _library["helpers"] = {h: decorated(h) for h in HELPERS}




def shared_helpers(names) -> tuple[str | None, list[str]]:
    """The shared module's name and those of ``names`` a kernel imports from it
    (a helper registered after the module was written is not in it)."""
    return _library["module"], sorted(h for h in names
                                      if _library["helpers"].get(h) == decorated(h))
