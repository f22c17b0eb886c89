"""Chapter 09 (issue 21): the kernel source translated to LLVM IR gives Numba's bits.

Each test lowers a small program with ``jit(f).lower(*args)``, translates the
kernel source (``llvm_translate.translate_kernel``), compiles the IR with
llvmlite and runs it, and requires the same bits as the Numba kernel compiled
from the same source, on the same inputs: random values and edge values (0,
-0, inf, nan, subnormals, integer extremes). NaN where Numba has NaN, but a
NaN's sign and payload may differ: LLVM does not keep them (it may swap the
operands of a commutative operation, and x86 returns the first operand's NaN;
Numba's own kernels give +NaN or -NaN for the same input depending on whether
the element fell in a vectorized iteration or in the loop's remainder).
"""
import operator

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.backends.cpu import backend as numba_backend
from minijax.backends.cpu import compile as compiler
from minijax.backends.cpu.llvm_compile import load_kernel
from minijax.backends.cpu.llvm_translate import (ArgSpec, NotTranslatable, arg_specs,
                                                 translate_kernel)
from minijax.backends.cpu.llvm_translate_types import (arith_result, compare_type, shift_result,
                                                       unify)


# =============================================================================
# Running both: llvm_compile.load_kernel and Numba's kernel
# =============================================================================
def run_translated(kernel, inputs, specs):
    """Compile ``kernel`` (a TranslatedKernel) with ``llvm_compile`` and call it on
    ``inputs`` (as the Numba entry takes them); returns the outputs tuple."""
    return load_kernel(kernel, specs)(*inputs)


def run_numba(lowering, inputs):
    kernel, _, _ = compiler.compile_kernel(lowering.source, lowering.fn_name,
                                           compiler.kernel_signature(lowering.plan))
    results = kernel(*inputs)
    return results if isinstance(results, tuple) else (results,)


def kernel_inputs(lowering, args):
    """The entry's arguments: the constants, then ``args``, as the Numba entry takes them."""
    closed = lowering.plan.closed_jaxpr
    consts = [numba_backend._prepare(c, v.aval) for c, v in zip(closed.consts, closed.jaxpr.constvars)]
    return consts + [numba_backend._prepare(x, v.aval)
                     for x, v in zip(args, closed.jaxpr.invars)]


def bits(x):
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x.view(np.uint8)
    return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind in "fiu" else x


def assert_same_bits(got, expected):
    """Identical bits, NaNs in the same places (any sign and payload: see the docstring)."""
    assert got.shape == expected.shape and got.dtype == expected.dtype, \
        (got.shape, expected.shape, got.dtype, expected.dtype)
    if got.dtype.kind == "f":
        nan_got, nan_expected = np.isnan(got), np.isnan(expected)
        np.testing.assert_array_equal(nan_got, nan_expected)
        got, expected = np.where(nan_got, 0, got), np.where(nan_expected, 0, expected)
    np.testing.assert_array_equal(bits(got), bits(expected))


def check_same_bits(f, *args):
    """Lower ``f``, translate its kernel, and compare both compilers' results bit for bit."""
    lowering = minijax.jit(f).lower(*args)._lowering
    assert hasattr(lowering, "source"), "the program did not lower to a kernel"
    specs = arg_specs(lowering.plan)
    kernel = translate_kernel(lowering.source, lowering.fn_name, specs)
    inputs = kernel_inputs(lowering, args)
    expected = run_numba(lowering, inputs)
    got = run_translated(kernel, inputs, specs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        # (Numba returns a scalar result as a Python scalar: its value in the output's dtype)
        e = e if isinstance(e, np.ndarray) else np.asarray(e, dtype=g.dtype)
        assert_same_bits(g, e)
    return kernel


# =============================================================================
# Inputs with edge values
# =============================================================================
_rng = np.random.default_rng(0)


def floats(shape, dtype=np.float32):
    x = (_rng.standard_normal(shape) * 3).astype(dtype)
    info = np.finfo(dtype)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.tiny / 4, -info.tiny / 2,
                      info.max, -info.max, 1.0, -1.0, 0.5, 2.5, -2.5], dtype=dtype)
    flat = x.reshape(-1)
    flat[:min(len(edges), flat.size)] = edges[:flat.size]
    return x


def ints(shape, dtype=np.int32):
    info = np.iinfo(dtype)
    x = _rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
    edges = np.array([0, 1, info.max, info.min, info.max - 1, 7, 3] + ([-1, -7] if info.min else []),
                     dtype=dtype)
    flat = x.reshape(-1)
    flat[:min(len(edges), flat.size)] = edges[:flat.size]
    return x


def bools(shape):
    return _rng.random(shape) < 0.5


INT_DTYPES = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]


# =============================================================================
# Typing rules, against Numba's typing context
# =============================================================================
_NUMBA_SCALARS = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                  "uint64", "float32", "float64"]


def _numba_typing():
    from numba.core.registry import cpu_target
    ctx = cpu_target.typing_context
    ctx.refresh()
    return ctx


@pytest.mark.parametrize("op, symbol", [(operator.add, "+"), (operator.truediv, "/"),
                                        (operator.floordiv, "//"), (operator.mod, "%"),
                                        (operator.mul, "*"), (operator.and_, "&")])
def test_arithmetic_types_are_numbas(op, symbol):
    from numba import from_dtype
    ctx = _numba_typing()
    for a in _NUMBA_SCALARS:
        for b in _NUMBA_SCALARS:
            da, db = np.dtype(a), np.dtype(b)
            if symbol == "&" and (da.kind == "f" or db.kind == "f"):
                continue
            sig = ctx.resolve_function_type(op, (from_dtype(da), from_dtype(db)), {})
            assert np.dtype(str(sig.return_type).replace("bool", "bool_")) == \
                arith_result(symbol, da, db), (a, b)


def test_comparison_shift_and_unify_types_are_numbas():
    from numba import from_dtype
    ctx = _numba_typing()
    for a in _NUMBA_SCALARS:
        for b in _NUMBA_SCALARS:
            da, db = np.dtype(a), np.dtype(b)
            ta, tb = from_dtype(da), from_dtype(db)
            sig = ctx.resolve_function_type(operator.lt, (ta, tb), {})
            assert np.dtype(str(sig.args[0]).replace("bool", "bool_")) == compare_type(da, db)
            assert np.dtype(str(ctx.unify_types(ta, tb)).replace("bool", "bool_")) == unify(da, db)
            if da.kind != "f" and db.kind != "f":
                sig = ctx.resolve_function_type(operator.lshift, (ta, tb), {})
                assert np.dtype(str(sig.return_type)) == shift_result(da)


# =============================================================================
# Kernels: both compilers, the same bits
# =============================================================================
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_elementwise(dtype):
    x, y = floats((5, 7), dtype), floats((5, 7), dtype)[::-1].copy()
    check_same_bits(lambda a, b: (a + b, a * b - a, a / b, -a, jnp.abs(a)), x, y)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_arithmetic(dtype):
    x, y = ints((6, 5), dtype), ints((6, 5), dtype)[::-1].copy()
    check_same_bits(lambda a, b: (a + b, a * b, a - b, a & b, a | b, a ^ b), x, y)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_division_and_remainder(dtype):
    x, y = ints((6, 5), dtype), ints((6, 5), dtype)[::-1].copy()   # zeros included
    check_same_bits(lambda a, b: (lax.div(a, b), lax.rem(a, b)), x, y)


def test_float_remainder():
    x, y = floats((6, 5)), floats((6, 5))[::-1].copy()
    check_same_bits(lambda a, b: (lax.rem(a, b), jnp.floor_divide(a, b), jnp.mod(a, b)), x, y)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32])
def test_shifts(dtype):
    x = ints((4, 6), dtype)
    s = (np.arange(24).reshape(4, 6) % (8 * np.dtype(dtype).itemsize + 2)).astype(dtype)
    check_same_bits(lambda a, b: (lax.shift_left(a, b), lax.shift_right_logical(a, b),
                                  lax.shift_right_arithmetic(a, b)), x, s)


def test_comparisons_and_select():
    x, y = floats((5, 6)), floats((5, 6))[::-1].copy()
    check_same_bits(lambda a, b: (a < b, a <= b, a == b, a != b,
                                  jnp.where(a > b, a, b), jnp.clip(a, -1.0, 2.0)), x, y)


def test_bool_logic():
    x, y = bools((4, 5)), bools((4, 5))
    check_same_bits(lambda a, b: (a & b, a | ~b, jnp.logical_xor(a, b)), x, y)


@pytest.mark.parametrize("src, dst", [(np.float32, np.int32), (np.float32, np.uint8),
                                      (np.int32, np.float32), (np.uint32, np.float32),
                                      (np.float32, np.float64), (np.float64, np.float32),
                                      (np.int32, np.int8), (np.int8, np.uint32),
                                      (np.float32, np.bool_), (np.bool_, np.float32),
                                      (np.int64, np.float32)])
def test_casts(src, dst):
    x = floats((4, 6), src) if np.dtype(src).kind == "f" else (
        bools((4, 6)) if src == np.bool_ else ints((4, 6), src))
    check_same_bits(lambda a: lax.convert_element_type(a, dst), x)


def test_float16_bits_in_and_out():
    x = floats((3, 4), np.float16)
    check_same_bits(lambda a: (a * a + 1, a.astype(jnp.float32)), x)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reductions(dtype):
    x = floats((6, 7)) if dtype == np.float32 else ints((6, 7))
    check_same_bits(lambda a: (jnp.sum(a, axis=1), jnp.max(a, axis=0), jnp.min(a),
                               jnp.argmax(a, axis=1)), x)


def test_long_reduction_with_lanes():
    x = floats((3, 1000))
    check_same_bits(lambda a: (jnp.sum(a, axis=1), jnp.sum(a * a)), x)


def test_broadcast_iota_transpose_slice_concatenate():
    x, y = floats((4, 6)), floats((6,))
    check_same_bits(lambda a, b: (a + b, a.T, a[1:3, ::2], jnp.concatenate([a, a * 2], axis=0),
                                  lax.iota(jnp.int32, 7), jnp.cumsum(a, axis=1)), x, y)


def test_scalar_inputs_and_outputs():
    check_same_bits(lambda a, b: (a * b, jnp.sin(a)), np.float32(1.5), np.float32(-2.0))


def test_matrix_products():
    a, b = floats((5, 7)), floats((7, 3))
    a[0, 0] = b[0, 0] = 1.0   # (finite: BLAS may order its sums its own way, but it is BLAS both ways)
    a, b = np.nan_to_num(a, posinf=1, neginf=-1), np.nan_to_num(b, posinf=1, neginf=-1)
    check_same_bits(lambda x, y: (x @ y, x.T @ x, jnp.dot(y.T, x.T)), a, b)


def test_uncovered_construct_is_named():
    source = '''
import numpy as np
from numba import njit, prange

@njit
def jit_f(a):
    out = np.empty((4,), dtype=np.float32)
    for i in prange(4):
        for j in range(1):
            out[i] = a[i]
    return (out, )
'''
    spec = [ArgSpec(np.dtype(np.float32), (4,))]
    with pytest.raises(NotTranslatable, match="prange loop inside a prange loop"):
        translate_kernel(source.replace("range(1)", "prange(1)"), "jit_f", spec)
    with pytest.raises(NotTranslatable, match="call to _own_helper"):
        translate_kernel(source.replace("out[i] = a[i]", "out[i] = _own_helper(a[i])"), "jit_f", spec)
    with pytest.raises(NotTranslatable, match="while ... else"):
        translate_kernel(source.replace("for j in range(1):", "while False:\n            pass\n"
                                        "        else:"), "jit_f", spec)
    kernel = translate_kernel(source.replace("for j in range(1):", "while True:")
                              .replace("out[i] = a[i]", "break"), "jit_f", spec)
    assert kernel.outputs == [ArgSpec(np.dtype(np.float32), (4,))]


def test_parallel_loops():
    from minijax.backends.cpu.loops import ELEMENTWISE_PARALLEL_THRESHOLD
    x = floats((ELEMENTWISE_PARALLEL_THRESHOLD // 256 + 44, 256))   # past the writer's threshold: prange
    lowering = minijax.jit(lambda a: jnp.tanh(a) * 2 + 1).lower(x)._lowering
    assert "prange(" in lowering.source
    check_same_bits(lambda a: (jnp.tanh(a) * 2 + 1, jnp.sum(a, axis=1)), x)


@pytest.mark.parametrize("fn", [jnp.exp, jnp.log, jnp.tanh, jnp.sin, jnp.cos, jnp.log1p,
                                jnp.expm1, lax.logistic, lax.erf, jnp.sqrt, lax.rsqrt],
                         ids=lambda f: getattr(f, "__name__", "f"))
def test_transcendentals_through_the_helper_library(fn):
    check_same_bits(fn, floats((7, 9)))


def test_bfloat16():
    import ml_dtypes
    x = floats((4, 5)).astype(ml_dtypes.bfloat16)
    check_same_bits(lambda a: (a * a - 1, jnp.exp(a)), x)


def test_bool_and_integer_reductions():
    b, i = bools((5, 6)), ints((5, 6), np.int8)
    check_same_bits(lambda p, q: (jnp.any(p, axis=1), jnp.all(p, axis=0), jnp.sum(q, axis=1),
                                  jnp.max(q, axis=1), jnp.argmin(q, axis=0)), b, i)


@pytest.mark.slow   # (Numba's compile of the threefry kernels: about 9 s)
def test_random_bits_inline_threefry():
    key = minijax.random.key(3)
    check_same_bits(lambda k: (minijax.random.uniform(k, (5, 7)), minijax.random.normal(k, (9,)),
                               minijax.random.bits(k, (4,))), key)


def test_scan_with_an_array_carry():
    x = floats((6, 4))
    x = np.nan_to_num(x, posinf=3, neginf=-3)

    def f(xs):
        def body(c, row):
            c = c * 0.5 + row
            return c, jnp.sum(c)
        return lax.scan(body, jnp.zeros(4, jnp.float32), xs)
    check_same_bits(f, x)


def test_while_loop_and_dynamic_slice():
    x = floats((8, 5))

    def f(a, i):
        def cond(s):
            return s[0] < 5

        def body(s):
            return s[0] + 1, s[1] * 2.0 + 1.0
        n, v = lax.while_loop(cond, body, (jnp.int32(0), a[0]))
        return v, lax.dynamic_slice(a, (i, 1), (2, 3)), n
    check_same_bits(f, x, np.int32(3))
    check_same_bits(f, x, np.int32(-4))   # a start out of range: clamped


def test_convolution():
    x = floats((2, 8, 8, 3))
    w = floats((3, 3, 3, 4)) * 0.1
    x, w = np.nan_to_num(x, posinf=1, neginf=-1), np.nan_to_num(w, posinf=1, neginf=-1)
    check_same_bits(lambda a, k: lax.conv_general_dilated(
        a, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), x, w)


def test_mlp_training_step():
    """Chapter 14's step: value_and_grad of a tanh MLP's softmax cross-entropy, SGD."""
    rng = np.random.default_rng(5)
    sizes = (20, 32, 10)
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
               np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((16, sizes[0])).astype(np.float32)
    labels = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], 16)]

    def loss_fn(params, x, labels):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        logp = minijax.nn.log_softmax(h @ w + b, axis=-1)
        return -jnp.mean(jnp.sum(logp * labels, axis=-1))

    def step(w1, b1, w2, b2, x, labels):
        params = [(w1, b1), (w2, b2)]
        loss, grads = minijax.value_and_grad(loss_fn)(params, x, labels)
        return loss, [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads)]
    kernel = check_same_bits(step, *params[0], *params[1], x, labels)
    from minijax.backends.cpu.small_gemm import SYMBOL
    assert SYMBOL in kernel.ir   # the products: our own (chapter 09's small_gemm)


def test_sort_and_its_own_helper_inlined():
    """The sort helper is made for the kernel and written into its module: inlined."""
    x = floats((3, 9))
    x[1, :4] = [np.nan, 0.0, -0.0, np.nan]
    lowering = minijax.jit(lambda a: jnp.sort(a)).lower(x)._lowering
    assert "\ndef _sort_perm_1(" in lowering.source
    check_same_bits(lambda a: (jnp.sort(a), jnp.argsort(a, axis=0), lax.sort((a[0], a[1]), num_keys=2)), x)


# =============================================================================
# Hand-written kernels: the corners of Numba's scalar semantics
# =============================================================================
_HANDWRITTEN = '''
import math

import numpy as np
from numba import njit


@njit(nogil=True, cache=True, error_model="numpy")
def jit_corners(a, b, x, y):
    out_i = np.empty((12, 6), dtype=np.int64)
    out_u = np.empty((6, 6), dtype=np.uint64)
    out_f = np.empty((12, 6), dtype=np.float64)
    out_b = np.empty((8, 6), dtype=np.bool_)
    for k in range(6):
        p, q = a[k], b[k]
        out_i[0, k] = p // q
        out_i[1, k] = p % q
        out_i[2, k] = (p << (q & 63)) >> 3
        out_i[3, k] = -p + ~q
        out_i[4, k] = abs(p) if p != -9223372036854775808 else 0
        out_i[5, k] = min(p, q, 7)
        out_i[6, k] = max(np.int32(p), q)
        out_i[7, k] = (p > 0) - (p < 0)
        out_i[8, k] = np.int64(x[k]) if abs(x[k]) < 1e18 else 0
        out_i[9, k] = int(math.floor(y[k])) if abs(y[k]) < 1e9 else 1
        out_i[10, k] = np.int8(p) * np.int16(q)
        out_i[11, k] = divmod(p, 7)[0] + divmod(q, -3)[1]
        u, v = np.uint64(p), np.uint64(q)
        out_u[0, k] = u // v
        out_u[1, k] = u % v
        out_u[2, k] = u >> np.uint64(7)
        out_u[3, k] = -u
        out_u[4, k] = u * v + np.uint64(1)
        out_u[5, k] = np.uint64(np.uint32(p)) + np.uint8(q)
        out_f[0, k] = x[k] // y[k]
        out_f[1, k] = x[k] % y[k]
        out_f[2, k] = p / q
        out_f[3, k] = np.float32(x[k]) + np.int16(q)
        out_f[4, k] = np.float32(x[k]) * np.uint16(q)
        out_f[5, k] = np.sqrt(x[k]) + math.exp(y[k] * 0.001)
        out_f[6, k] = -x[k] if x[k] else y[k]
        out_f[7, k] = np.float32(x[k]) ** np.float32(0.5)
        out_f[8, k] = np.floor(y[k]) + np.ceil(x[k]) + np.trunc(y[k])
        out_f[9, k] = np.float32(u) + np.float64(v)
        out_f[10, k] = max(x[k], y[k]) - min(np.float32(x[k]), y[k])
        out_f[11, k] = np.float32(np.float32(x[k]) % np.float32(y[k]))
        out_b[0, k] = u < p
        out_b[1, k] = np.int8(p) < np.uint8(q)
        out_b[2, k] = x[k] != y[k]
        out_b[3, k] = np.isnan(x[k]) or np.isfinite(y[k])
        out_b[4, k] = not (p and q)
        out_b[5, k] = 0 <= p < q
        out_b[6, k] = np.bool_(x[k])
        out_b[7, k] = ~(p > q)
    return (out_i, out_u, out_f, out_b, )
'''


def test_handwritten_corners_of_numbas_scalar_semantics():
    """int64/uint64 (which minijax's programs do not make), division by zero,
    INT64_MIN // -1, mixed signed and unsigned comparisons, Python's float % and //,
    casts and literals, min/max and the truth of floats."""
    from numba import from_dtype, types
    i64 = np.iinfo(np.int64)
    a = np.array([7, -7, i64.min, 0, 5, -6], np.int64)
    b = np.array([2, 0, -1, -3, -7, 3], np.int64)
    x = np.array([5.5, -0.0, np.inf, np.nan, -7.25, 4.0])
    y = np.array([-2.0, 0.0, 3.0, 1.5, 0.5, -2.0])
    for arr in (a, b, x, y):
        arr.flags.writeable = False
    specs = [ArgSpec(v.dtype, v.shape) for v in (a, b, x, y)]
    kernel = translate_kernel(_HANDWRITTEN, "jit_corners", specs)
    signature = tuple(types.Array(from_dtype(v.dtype), 1, "C", readonly=True)
                      for v in (a, b, x, y))
    numba_kernel, _, _ = compiler.compile_kernel(_HANDWRITTEN, "jit_corners", signature)
    expected = numba_kernel(a, b, x, y)
    got = run_translated(kernel, [a, b, x, y], specs)
    for g, e in zip(got, expected):
        assert_same_bits(g, e)


def test_pooling_and_its_gradient():
    x = np.nan_to_num(floats((2, 6, 6, 3)), posinf=2, neginf=-2)

    def pools(a):
        avg = lax.reduce_window(a, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
        top = lax.reduce_window(a, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
        return jnp.sum(avg * avg) + jnp.sum(top)
    check_same_bits(lambda a: (pools(a), minijax.grad(pools)(a)), x)


def test_integer_products_through_an_inlined_array_helper():
    a, b = ints((4, 6), np.int32), ints((6, 3), np.int32)
    lowering = minijax.jit(lambda x, y: x @ y).lower(a, b)._lowering
    assert "_sgemm" not in lowering.source   # (integers: loops in a helper, not BLAS)
    check_same_bits(lambda x, y: (x @ y, jnp.einsum("ij,kj->ik", x, x)), a, b)
