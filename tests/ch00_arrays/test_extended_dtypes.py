"""bfloat16 and the float8/6/4 types (``minijax.narrow_floats``, from ``ml_dtypes``).

Names, promotion, printing, ``finfo``, ``issubdtype`` and arithmetic, all
checked against JAX 0.10.2: the arithmetic bit for bit (XLA's CPU backend,
like ``ml_dtypes``, computes each operation in float32 and rounds once).
Jitted bfloat16 runs in Numba kernels (as float16 does: float32 variables,
uint16 in memory); the 8-bit floats run on the interpreter, so their jitted
tests are marked ``numba_fallback``.
"""
import re
import subprocess
import sys

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

import minijax as jax  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import lax  # noqa: E402
from minijax.dtypes import TypePromotionError  # noqa: E402

BF16 = jnp.bfloat16
F8 = jnp.float8_e4m3fn

# --- names (from JAX 0.10.2: the narrow float types jax.numpy exports) ----------------------
NARROW_FLOATS = ["bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
                 "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                 "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
# from JAX 0.10.2: how make_jaxpr prints each
SHORT_NAMES = {"bfloat16": "bf16", "float4_e2m1fn": "f4_e2m1fn", "float8_e4m3fn": "f8_e4m3fn",
               "float8_e5m2": "f8_e5m2", "float8_e4m3b11fnuz": "f8_e4m3b11fnuz",
               "float8_e4m3fnuz": "f8_e4m3fnuz", "float8_e5m2fnuz": "f8_e5m2fnuz",
               "float8_e3m4": "f8_e3m4", "float8_e4m3": "f8_e4m3",
               "float8_e8m0fnu": "f8_e8m0fnu"}


@pytest.mark.parametrize("name", NARROW_FLOATS)
def test_names_are_ml_dtypes_types(name):
    scalar_type = getattr(jnp, name)
    assert jnp.dtype(scalar_type) == np.dtype(getattr(ml_dtypes, name))
    assert scalar_type == getattr(ml_dtypes, name)  # as jnp.float32 == np.float32
    assert jnp.issubdtype(scalar_type, jnp.floating)  # from JAX 0.10.2
    assert jnp.isdtype(scalar_type, "real floating")


@pytest.mark.parametrize("name", list(SHORT_NAMES))
def test_printed_in_jaxprs(name):
    x = jnp.ones(2, getattr(jnp, name))
    # from JAX 0.10.2: { lambda ; a:f8_e4m3fn[2]. let  in (a,) }
    assert str(jax.make_jaxpr(lambda x: x)(x)) == (
        f"{{ lambda ; a:{SHORT_NAMES[name]}[2]. let  in (a,) }}")
    # from JAX 0.10.2: Array([1, 2], dtype=float8_e4m3fn)
    assert repr(jnp.array([1.0, 2.0], getattr(jnp, name))) == f"Array([1, 2], dtype={name})"


def test_jax_dtypes_names_and_scalar_constructor():
    # from JAX 0.10.2
    assert jax.dtypes.bfloat16 is ml_dtypes.bfloat16
    assert repr(jnp.bfloat16(1.5)) == "Array(1.5, dtype=bfloat16)"
    assert repr(jnp.bfloat16(2)) == "Array(2, dtype=bfloat16)"
    assert jnp.bfloat16.dtype == np.dtype(ml_dtypes.bfloat16)
    assert jax.dtypes.canonicalize_dtype(BF16) == np.dtype(ml_dtypes.bfloat16)
    assert jax.dtypes.scalar_type_of(jnp.ones(2, BF16)) is float


def test_issubdtype():
    # from JAX 0.10.2
    assert jnp.issubdtype(BF16, jnp.inexact) and jnp.issubdtype(BF16, jnp.number)
    assert not jnp.issubdtype(BF16, np.float16)
    assert not jnp.issubdtype(jnp.float32, BF16)
    assert not jnp.issubdtype(BF16, jnp.integer)
    assert not jnp.issubdtype(BF16, jnp.complexfloating)
    assert jnp.issubdtype(BF16, BF16) and not jnp.issubdtype(BF16, F8)


def test_finfo():
    # from JAX 0.10.2
    info = jnp.finfo(BF16)
    assert (float(info.eps), float(info.max), float(info.tiny), info.bits) == (
        0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 16)
    assert info.dtype == np.dtype(ml_dtypes.bfloat16)
    assert str(info).splitlines()[0] == "Machine parameters for bfloat16"
    assert [float(jnp.finfo(getattr(jnp, n)).max) for n in (
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
        "float8_e5m2fnuz")] == [448.0, 57344.0, 240.0, 30.0, 57344.0]
    assert float(jnp.finfo(jnp.float8_e5m2).eps) == 0.25
    assert jnp.iinfo(jnp.int8).max == 127


# --- promotion (from JAX 0.10.2) -------------------------------------------------------------
@pytest.mark.parametrize("a, b, expected", [
    (BF16, "float16", "float32"), (BF16, "float32", "float32"), (BF16, int, "bfloat16"),
    (BF16, float, "bfloat16"), (BF16, complex, "complex64"), (BF16, "int8", "bfloat16"),
    (BF16, "int32", "bfloat16"), (BF16, "uint8", "bfloat16"), (BF16, "bool", "bfloat16"),
    (BF16, "complex64", "complex64"), (F8, float, "float8_e4m3fn"), (F8, int, "float8_e4m3fn"),
    (F8, F8, "float8_e4m3fn"), (F8, "int8", "float8_e4m3fn"), (F8, "uint32", "float8_e4m3fn"),
])
def test_promote_types(a, b, expected):
    assert jnp.promote_types(a, b) == np.dtype(getattr(ml_dtypes, expected, expected))
    assert jnp.promote_types(b, a) == jnp.promote_types(a, b)


def eight_bit_message(*names) -> str:
    """JAX's message, with the dtypes in either order (JAX takes them from a set)."""
    quoted = [f"'{n}'" for n in names]
    either = "|".join(", ".join(p) for p in (quoted, quoted[::-1]))
    return (rf"Input dtypes \(({either})\) have no available implicit dtype promotion path\. "
            r"To avoid unintended promotion, 8-bit floats do not support implicit promotion\. "
            r"If you'd like your inputs to be promoted to another type, you can do so "
            r"explicitly using e\.g\. x\.astype\('float32'\)")


@pytest.mark.parametrize("other", ["float32", "float8_e5m2", "bfloat16", "float16"])
def test_float8_refuses_implicit_promotion(other):
    other_dtype = getattr(jnp, other)
    with pytest.raises(TypePromotionError, match=eight_bit_message("float8_e4m3fn", other)):
        jnp.promote_types(F8, other_dtype)
    with pytest.raises(TypePromotionError, match=eight_bit_message("float8_e4m3fn", other)):
        jnp.ones(2, F8) + jnp.ones(2, other_dtype)


def test_result_type_and_weak_types():
    x = jnp.array([1.0, 2.0, 3.0], BF16)
    # from JAX 0.10.2
    assert jnp.result_type(BF16, 1.0) == np.dtype(ml_dtypes.bfloat16)
    assert jnp.result_type(x) == np.dtype(ml_dtypes.bfloat16)
    assert jax.dtypes.result_type(BF16, return_weak_type_flag=True) == (
        np.dtype(ml_dtypes.bfloat16), False)
    assert jax.dtypes.result_type(F8, 2.0, return_weak_type_flag=True) == (
        np.dtype(ml_dtypes.float8_e4m3fn), False)
    assert repr(x + 1.0) == "Array([2, 3, 4], dtype=bfloat16)"
    assert repr(x + jnp.float32(1)) == "Array([2., 3., 4.], dtype=float32)"
    assert repr(x + jnp.array([1, 2, 3], jnp.int32)) == "Array([2, 4, 6], dtype=bfloat16)"
    assert repr(jnp.asarray(1.0) + x) == "Array([2, 3, 4], dtype=bfloat16)"
    assert str(jax.make_jaxpr(lambda x: x + 1)(x)) == (
        "{ lambda ; a:bf16[3]. let b:bf16[3] = add a 1.0:bf16[] in (b,) }")


# --- creation, conversion and printing (from JAX 0.10.2) -------------------------------------
def test_creation_and_printing():
    assert repr(jnp.zeros(2, BF16)) == "Array([0, 0], dtype=bfloat16)"
    assert repr(jnp.arange(3, dtype=BF16)) == "Array([0, 1, 2], dtype=bfloat16)"
    assert repr(jnp.linspace(0, 1, 5, dtype=BF16)) == (
        "Array([0, 0.25, 0.5, 0.75, 1], dtype=bfloat16)")
    assert repr(jnp.array([1.1, 2.7, 1e5], dtype=BF16)) == (
        "Array([1.10156, 2.70312, 99840], dtype=bfloat16)")
    # float8_e4m3fn has no infinity: 500 overflows to NaN
    assert repr(jnp.array([1.1, 2.7, 500.0], dtype=F8)) == (
        "Array([1.125, 2.75, nan], dtype=float8_e4m3fn)")
    assert repr(jnp.array(3.3, BF16)) == "Array(3.29688, dtype=bfloat16)"
    assert str(jnp.array(3.3, BF16)) == "3.29688"
    assert repr(jnp.asarray(np.float32(1.3)).astype(BF16)) == "Array(1.29688, dtype=bfloat16)"
    assert repr(jnp.ones(3, BF16).astype(jnp.float8_e5m2)) == (
        "Array([1, 1, 1], dtype=float8_e5m2)")
    x = jnp.array([1.0, 2.0, 3.0], BF16)
    assert repr(x.astype(jnp.float32)) == "Array([1., 2., 3.], dtype=float32)"
    assert x.tolist() == [1.0, 2.0, 3.0] and np.asarray(x).dtype == np.dtype(BF16)


# --- arithmetic, bit for bit -------------------------------------------------------------------
XS = np.linspace(-3.7, 5.3, 12).astype(np.float32)
YS = np.linspace(0.45, 9.1, 12).astype(np.float32)

# from JAX 0.10.2: the uint16 bits of each bfloat16 result (uint8 for the float8 ones)
EXPECTED_BITS = {
    "convert": [49261, 49208, 49156, 49055, 48859, 16072, 16283, 16386, 16438, 16490, 16527,
                16554],
    "add": [49232, 49106, 48448, 16329, 16459, 16536, 16588, 16640, 16666, 16691, 16716, 16743],
    "mul": [49109, 49251, 49285, 49248, 49093, 16347, 16584, 16706, 16794, 16860, 16917, 16962],
    "div": [49412, 49173, 49027, 48866, 48628, 15799, 15984, 16046, 16088, 16121, 16138, 16149],
    "exp": [15562, 15719, 15874, 16020, 16167, 16317, 16471, 16628, 16777, 16923, 17070, 17227],
    "log": [48973, 15960, 16179, 16260, 16292, 16317, 16338, 16357, 16372, 16385, 16392, 16398],
    "tanh": [49024, 49022, 49016, 48985, 48847, 16062, 16214, 16247, 16254, 16256, 16256,
             16256],
    "sqrt": [16172, 16270, 16310, 16343, 16371, 16390, 16401, 16412, 16422, 16432, 16441, 16449],
    "sum": [17162],
    "dot": [17162],
    "matmul": [49646, 49686, 49717, 16820, 16840, 16860, 17045, 17071, 17097],
    "fused": [16321, 16329, 16353, 16404, 16502, 16639, 16791, 16956, 17130, 17299, 17461,
              17640],
}
BF16_OPS = {
    "convert": lambda x, y: x,
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "exp": lambda x, y: jnp.exp(x),
    "log": lambda x, y: jnp.log(y),
    "tanh": lambda x, y: jnp.tanh(x),
    "sqrt": lambda x, y: jnp.sqrt(y),
    "sum": lambda x, y: jnp.sum(x * y),
    "dot": lambda x, y: jnp.dot(x, y),
    "matmul": lambda x, y: x.reshape(3, 4) @ y.reshape(4, 3),
    "fused": lambda x, y: jnp.exp(x) * y + 1.5,
}


def jitted(f, backend):
    """``jit(f)``; the CUDA backend has no lowering for these types: it must say so."""
    if backend == "cuda":
        x = jnp.ones(2, BF16)
        with pytest.raises(NotImplementedError, match="no CUDA lowering for dtype bfloat16"):
            jax.jit(lambda x: x * 2)(x)
        pytest.skip("the CUDA backend refuses bfloat16 and the float8 types (checked here)")
    return jax.jit(f)


def bits(a) -> list:
    a = np.atleast_1d(np.asarray(a))
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint8).ravel().tolist()


@pytest.mark.parametrize("name", list(BF16_OPS))
def test_bfloat16_arithmetic_matches_jax_bit_for_bit(name):
    x, y = jnp.asarray(XS).astype(BF16), jnp.asarray(YS).astype(BF16)
    out = BF16_OPS[name](x, y)
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    assert bits(out) == EXPECTED_BITS[name]


@pytest.mark.parametrize("name", ["convert", "add", "mul", "div", "sqrt", "fused", "sum"])
def test_bfloat16_jitted_matches_jax_bit_for_bit(name, jit_backend):
    """The elementwise ops and jnp.sum (which sums in float32) run in a Numba kernel."""
    x, y = jnp.asarray(XS).astype(BF16), jnp.asarray(YS).astype(BF16)
    assert bits(jitted(BF16_OPS[name], jit_backend)(x, y)) == EXPECTED_BITS[name]


@pytest.mark.numba_fallback  # dot_general on bfloat16 is not lowered (as float16's)
@pytest.mark.parametrize("name", ["dot", "matmul"])
def test_bfloat16_jitted_products(name, jit_backend):
    x, y = jnp.asarray(XS).astype(BF16), jnp.asarray(YS).astype(BF16)
    assert bits(jitted(BF16_OPS[name], jit_backend)(x, y)) == EXPECTED_BITS[name]


def test_float8_arithmetic_matches_jax_bit_for_bit():
    x8, y8 = jnp.asarray(XS).astype(F8), jnp.asarray(YS).astype(F8)
    # from JAX 0.10.2
    assert bits(x8) == [199, 196, 192, 186, 174, 45, 58, 64, 67, 71, 73, 75]
    assert bits(x8 + y8) == [197, 190, 0, 60, 68, 74, 76, 80, 81, 83, 84, 86]
    e5 = jnp.float8_e5m2
    assert bits(jnp.asarray(XS).astype(e5) * jnp.asarray(YS).astype(e5)) == [
        190, 196, 196, 196, 190, 62, 70, 74, 77, 79, 80, 82]
    assert repr(jnp.array([1, 2], dtype=F8) * 3) == "Array([3, 6], dtype=float8_e4m3fn)"


@pytest.mark.numba_fallback  # the 8-bit floats are not lowered: the interpreter runs them
def test_float8_under_jit(jit_backend):
    x8, y8 = jnp.asarray(XS).astype(F8), jnp.asarray(YS).astype(F8)
    # from JAX 0.10.2
    assert bits(jitted(lambda a, b: a + b, jit_backend)(x8, y8)) == [
        197, 190, 0, 60, 68, 74, 76, 80, 81, 83, 84, 86]


def test_sums_accumulate_in_float32():
    x = jnp.arange(300, dtype=BF16)
    # from JAX 0.10.2: 44850 summed in float32, rounded once (bfloat16 steps: 44800)
    assert repr(jnp.sum(x)) == "Array(44800, dtype=bfloat16)"
    assert repr(lax.reduce_sum(x, (0,))) == "Array(44800, dtype=bfloat16)"
    assert repr(jnp.mean(jnp.array([1.0, 2.0, 3.0], BF16))) == "Array(2, dtype=bfloat16)"
    assert str(jax.make_jaxpr(jnp.sum)(jnp.ones(3, BF16))) == """\
{ lambda ; a:bf16[3]. let
    b:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    d:bf16[] = convert_element_type[new_dtype=bfloat16 weak_type=False] c
  in (d,) }"""


def test_more_functions_on_bfloat16():
    x = jnp.array([1.0, 2.0, 3.0], BF16)
    # from JAX 0.10.2
    assert repr(jnp.max(x)) == "Array(3, dtype=bfloat16)"
    assert repr(jnp.argmax(x)) == "Array(2, dtype=int32)"
    assert repr(x > 1.5) == "Array([False,  True,  True], dtype=bool)"
    assert repr(jnp.where(x > 1.5, x, 0.0)) == "Array([0, 2, 3], dtype=bfloat16)"
    assert repr(x.astype(jnp.int32)) == "Array([1, 2, 3], dtype=int32)"
    assert repr(jnp.prod(x)) == "Array(6, dtype=bfloat16)"
    assert repr(jnp.var(x)) == "Array(0.667969, dtype=bfloat16)"
    assert repr(jax.nn.softmax(x)) == "Array([0.090332, 0.245117, 0.667969], dtype=bfloat16)"
    assert repr(jnp.sin(x)) == "Array([0.839844, 0.910156, 0.141602], dtype=bfloat16)"
    assert repr(x + jnp.array([1, 2, 3], jnp.float16)) == "Array([2., 4., 6.], dtype=float32)"


def test_transformations_on_bfloat16():
    x = jnp.array([1.0, 2.0, 3.0], BF16)
    # from JAX 0.10.2
    assert repr(jax.grad(lambda x: jnp.sum(x * x))(x)) == "Array([2, 4, 6], dtype=bfloat16)"
    assert repr(jax.vmap(lambda x: x * 2)(x)) == "Array([2, 4, 6], dtype=bfloat16)"


# --- without ml_dtypes ------------------------------------------------------------------------
def test_minijax_works_without_ml_dtypes():
    """With ml_dtypes hidden, minijax imports, computes, and jnp.bfloat16 says what to install."""
    code = """
import sys
sys.modules['ml_dtypes'] = None  # as if it were not installed: importing it fails
import minijax.numpy as jnp, minijax as jax
print(repr(jnp.arange(3.0) * 2), jnp.promote_types('int8', 'float16'))
for get in (lambda: jnp.bfloat16, lambda: jax.dtypes.float8_e4m3fn):
    try:
        get()
    except AttributeError as e:
        print(e)
print(hasattr(jnp, 'float8_e5m2'), jnp.isdtype('float32', 'real floating'))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Array([0., 2., 4.], dtype=float32) float16"
    assert re.fullmatch(r"module 'minijax\.numpy' has no attribute 'bfloat16': it needs the "
                        r"ml_dtypes package, which is not installed \(pip install "
                        r"'minijax\[dtypes\]', or pip install ml_dtypes\)\.", lines[1])
    assert lines[2].startswith("module 'minijax.dtypes' has no attribute 'float8_e4m3fn': "
                               "it needs the ml_dtypes package")
    assert lines[3] == "False True"
