"""Chapter 00 — the math half of ``jnp``, plus ``nn`` and ``scipy.special``.

Values are checked against NumPy (or NumPy formulas); dtypes, weak types,
error classes and messages against JAX 0.10.2, whose results are hard-coded
here (``# expected values from JAX 0.10.2``). The dtype tables were produced
by running every function on every input kind below under real JAX.
"""
from contextlib import contextmanager

import numpy as np

import minijax
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import minijax.nn as nn
import minijax.numpy as jnp
import minijax.scipy.special as sp
from minijax import primitives

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on NaN inputs

# --- input kinds and the dtype tables ---------------------------------------------------

KINDS = {
    "pyint": lambda: 3, "pyfloat": lambda: 2.5, "pybool": lambda: True,
    "b": lambda: np.array([True, False]), "i8": lambda: np.array([3, -2], np.int8),
    "u8": lambda: np.array([3, 2], np.uint8), "i32": lambda: np.array([3, -2], np.int32),
    "f16": lambda: np.array([1.5, -2], np.float16), "f32": lambda: np.array([1.5, -2], np.float32),
}
KIND_NAMES = ["pyint", "pyfloat", "pybool", "b", "i8", "u8", "i32", "f16", "f32"]
BINARY_PAIRS = [(k, k) for k in KIND_NAMES] + [
    ("i8", "pyint"), ("i8", "pyfloat"), ("f16", "pyfloat"), ("i32", "f32"), ("u8", "i8"),
    ("b", "pyint"), ("pyint", "pyfloat"), ("f32", "pyint"), ("pyint", "i32"), ("f16", "i32")]
NN_KINDS = ["pyfloat", "pyint", "i32", "f16", "f32"]
_SHORT = {"b": "bool", "i8": "int8", "u8": "uint8", "i16": "int16", "i32": "int32",
          "u32": "uint32", "f16": "float16", "f32": "float32"}

# Encoding: dtype short name, "*" when weakly typed, "!Type"/"!Value"/"!Index" for an
# exception of that class, "(a,b)" for a tuple of results.
# expected values from JAX 0.10.2
UNARY_DTYPES = {
    "negative": "i32* f32* !Type !Type i8 u8 i32 f16 f32",
    "positive": "i32* f32* b b i8 u8 i32 f16 f32",
    "abs": "i32* f32* b b i8 u8 i32 f16 f32",
    "absolute": "i32* f32* b b i8 u8 i32 f16 f32",
    "fabs": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "sign": "i32* f32* !Type !Type i8 u8 i32 f16 f32",
    "floor": "i32* f32* b b i8 u8 i32 f16 f32",
    "ceil": "i32* f32* b b i8 u8 i32 f16 f32",
    "round": "i32* f32* !Value !Value i8 u8 i32 f16 f32",
    "around": "i32* f32* !Value !Value i8 u8 i32 f16 f32",
    "trunc": "i32* f32* b b i8 u8 i32 f16 f32",
    "rint": "f32 f32* f32 f32 f32 f32 f32 f16 f32",
    "sqrt": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "cbrt": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "square": "i32* f32* i32 i32 i8 u8 i32 f16 f32",
    "reciprocal": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "exp": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "exp2": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "expm1": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "log": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "log2": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "log10": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "log1p": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "sin": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "cos": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "tan": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arcsin": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arccos": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arctan": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "sinh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "cosh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "tanh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arcsinh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arccosh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "arctanh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "asin": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "acos": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "atan": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "asinh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "acosh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "atanh": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "deg2rad": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "rad2deg": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "degrees": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "radians": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "isnan": "b* b* b b b b b b b",
    "isinf": "b b b b b b b b b",
    "isfinite": "b b* b b b b b b b",
    "isposinf": "b b b b b b b b b",
    "isneginf": "b b b b b b b b b",
    "nan_to_num": "i32* f32 b b i8 u8 i32 f16 f32",
    "logical_not": "b* b* b b b b b b b",
    "bitwise_not": "i32* !Type b b i8 u8 i32 !Type !Type",
    "invert": "i32* !Type b b i8 u8 i32 !Type !Type",
    "signbit": "b b b b b b b b b",
    "conj": "i32* f32* b b i8 u8 i32 f16 f32",
    "conjugate": "i32* f32* b b i8 u8 i32 f16 f32",
    "real": "i32* f32* b b i8 u8 i32 f16 f32",
    "imag": "i32* f32* b b i8 u8 i32 f16 f32",
    "sinc": "f32* f32* f32 f32 f32 f32 f32 f16 f32",
    "sum": "i32 f32 i32 i32 i32 u32 i32 f16 f32",
    "prod": "i32 f32 i32 i32 i32 u32 i32 f16 f32",
    "max": "i32 f32 b b i8 u8 i32 f16 f32",
    "min": "i32 f32 b b i8 u8 i32 f16 f32",
    "amax": "i32 f32 b b i8 u8 i32 f16 f32",
    "amin": "i32 f32 b b i8 u8 i32 f16 f32",
    "mean": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "var": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "std": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "argmax": "i32 i32 i32 i32 i32 i32 i32 i32 i32",
    "argmin": "i32 i32 i32 i32 i32 i32 i32 i32 i32",
    "any": "b b b b b b b b b",
    "all": "b b b b b b b b b",
    "cumsum": "i32 f32 i32 i32 i8 u8 i32 f16 f32",
    "cumprod": "i32 f32 i32 i32 i8 u8 i32 f16 f32",
    "nansum": "i32 f32 i32 i32 i32 u32 i32 f16 f32",
    "nanmean": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "nanmax": "i32 f32 b b i8 u8 i32 f16 f32",
    "nanmin": "i32 f32 b b i8 u8 i32 f16 f32",
    "ptp": "i32 f32 !Type !Type i8 u8 i32 f16 f32",
    "count_nonzero": "i32 i32 i32 i32 i32 i32 i32 i32 i32",
    "average": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
    "median": "f32 f32 f32 f32 f32 f32 f32 f16 f32",
}
BINARY_DTYPES = {
    "add": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "subtract": "i32* f32* !Type !Type i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "multiply": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "divide": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "true_divide": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "floor_divide": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "remainder": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "mod": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "fmod": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "power": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32 f32* f32 i32 f16",
    "pow": "i32* f32* i32 i32 i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32 f32* f32 i32 f16",
    "float_power": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "maximum": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "minimum": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "fmax": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "fmin": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "arctan2": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "atan2": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "hypot": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32 f16 f32 f32 f32 f32* f32 f32 f16",
    "logaddexp": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "copysign": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32* f16 f32 f32 f32* f32* f32 f32 f16",
    "heaviside": "f32* f32* f32 f32 f32 f32 f32 f16 f32 f32 f32 f16 f32 f32 f32 f32* f32 f32 f16",
    "equal": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "not_equal": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "less": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "less_equal": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "greater": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "greater_equal": "b* b* b b b b b b b b b* b b b b* b* b b b",
    "logical_and": "b* b* b b b b b b b b b b b b b b* b b b",
    "logical_or": "b* b* b b b b b b b b b b b b b b* b b b",
    "logical_xor": "b* b* b b b b b b b b b b b b b b* b b b",
    "bitwise_and": "i32* !Type b b i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "bitwise_or": "i32* !Type b b i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "bitwise_xor": "i32* !Type b b i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "left_shift": "i32* !Type i32 i32 i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "right_shift": "i32* !Type i32 i32 i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "bitwise_left_shift": "i32* !Type i32 i32 i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "bitwise_right_shift": "i32* !Type i32 i32 i8 u8 i32 !Type !Type i8 !Type !Type !Type i16 i32* !Type !Type i32 !Type",
    "isclose": "b b b b b b b b b b b b b b b b b b b",
    "dot": "i32* f32* b b i8 u8 i32 f16 f32 !Type f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "matmul": "!Value !Value !Value b i8 u8 i32 f16 f32 !Value !Value !Value f32 i16 !Value !Value !Value !Value f16",
    "vdot": "i32* f32* b b i8 u8 i32 f16 f32 !Type !Type !Type f32 i16 !Type f32* !Type !Type f16",
    "inner": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "outer": "i32* f32* b b i8 u8 i32 f16 f32 i8 f32* f16 f32 i16 i32* f32* f32 i32 f16",
    "allclose": "b b b b b b b b b b b b b b b b b b b",
    "array_equal": "b b b b b b b b b b b b b b b b b b b",
    "array_equiv": "b b b b b b b b b b b b b b b b b b b",
}
NN_DTYPES = {
    "nn.elu": "f32* f32* f32* f16 f32",
    "nn.gelu": "f32 f32 f32 f16 f32",
    "nn.leaky_relu": "f32* f32* f32* f16 f32",
    "nn.log_sigmoid": "f32* f32* f32 f16 f32",
    "nn.log_softmax": "!Value !Value f32 f16 f32",
    "nn.relu": "f32* i32* i32 f16 f32",
    "nn.relu6": "f32* f32* f32* f16 f32",
    "nn.sigmoid": "f32* !Type !Type f16 f32",
    "nn.silu": "f32* !Type !Type f16 f32",
    "nn.softmax": "!Value !Value f32 f16 f32",
    "nn.softplus": "f32* f32* f32 f16 f32",
    "special.erf": "f32* f32* f32 f16 f32",
    "special.erfc": "f32* f32* f32 f16 f32",
    "special.erfinv": "f32* f32* f32 f16 f32",
    "special.expit": "f32* f32* f32 f16 f32",
    "special.logit": "f32* f32* f32 f16 f32",
}
OTHER_DTYPES = {
    "clip(f16,None,1)": "f16",
    "clip(i32,1,2)": "i32",
    "clip(i32,1.5,2)": "f32*",
    "cumsum(b,dtype=b)": "b",
    "cumulative_prod(i8)": "i8",
    "cumulative_sum(b)": "i32",
    "cumulative_sum(i8)": "i32",
    "divmod(f32,f32)": "(f32,f32)",
    "divmod(i8,pyint)": "(i8,i8)",
    "divmod(pyint,pyint)": "(i32*,i32*)",
    "einsum(,,pyfloat,pyfloat)": "f32*",
    "einsum(i,i->,i8,f32)": "f32",
    "einsum(i->,b)": "b",
    "isclose(i32,pyint)": "b",
    "kron(i8,pyint)": "i8",
    "logsumexp(f16)": "f16",
    "logsumexp(i32)": "f32",
    "logsumexp(pyfloat)": "f32",
    "mean(i32,dtype=i32)": "i32",
    "norm(f16)": "f16",
    "norm(i32)": "f32",
    "norm(pyfloat)": "f32",
    "one_hot(i32,3)": "f32",
    "one_hot(i32,3,i8)": "i8",
    "power(i32,pyint)": "i32",
    "select(b,f16,pyfloat)": "f16",
    "select(b,i8)": "i8",
    "sum(f32,dtype=i8)": "i8",
    "sum(i8,dtype=f16)": "f16",
    "tensordot(i8,u8)": "i16",
    "trace(f16)": "f16",
    "trace(i8)": "i32",
    "var(i8,dtype=f16)": "f16",
    "where(b,i8,pyint)": "i8",
    "where(b,pyint,pyfloat)": "f32*",
    "where(i32,f16,f32)": "f32",
}


def describe(fn, *args):
    """The encoding above of ``fn(*args)``'s result (or of the exception it raises)."""
    try:
        out = fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is being compared
        return "!" + type(e).__name__.replace("Error", "")
    if isinstance(out, tuple):
        return "(" + ",".join(describe(lambda o=o: o) for o in out) + ")"
    short = {v: k for k, v in _SHORT.items()}[np.dtype(out.dtype).name]
    return short + ("*" if out.weak_type else "")


def _module_fn(qualname):
    mod, _, name = qualname.rpartition(".")
    return getattr({"nn": nn, "special": sp, "": jnp}[mod], name)


@pytest.mark.parametrize("name", list(UNARY_DTYPES))
def test_unary_dtypes_and_weak_types(name):
    fn = _module_fn(name)
    got = " ".join(describe(fn, KINDS[k]()) for k in KIND_NAMES)
    assert got == UNARY_DTYPES[name]


@pytest.mark.parametrize("name", list(BINARY_DTYPES))
def test_binary_dtypes_and_weak_types(name):
    fn = _module_fn(name)
    got = " ".join(describe(fn, KINDS[a](), KINDS[b]()) for a, b in BINARY_PAIRS)
    assert got == BINARY_DTYPES[name]


@pytest.mark.parametrize("name", list(NN_DTYPES))
def test_nn_and_special_dtypes(name):
    fn = _module_fn(name)
    got = " ".join(describe(fn, KINDS[k]()) for k in NN_KINDS)
    assert got == NN_DTYPES[name]


K = {k: f() for k, f in KINDS.items()}
OTHER_CALLS = {
    "clip(f16,None,1)": lambda: jnp.clip(K["f16"], None, 1),
    "clip(i32,1,2)": lambda: jnp.clip(K["i32"], 1, 2),
    "clip(i32,1.5,2)": lambda: jnp.clip(K["i32"], 1.5, 2),
    "cumsum(b,dtype=b)": lambda: jnp.cumsum(K["b"], dtype=bool),
    "cumulative_prod(i8)": lambda: jnp.cumulative_prod(K["i8"]),
    "cumulative_sum(b)": lambda: jnp.cumulative_sum(K["b"]),
    "cumulative_sum(i8)": lambda: jnp.cumulative_sum(K["i8"]),
    "divmod(f32,f32)": lambda: jnp.divmod(K["f32"], K["f32"]),
    "divmod(i8,pyint)": lambda: jnp.divmod(K["i8"], 2),
    "divmod(pyint,pyint)": lambda: jnp.divmod(7, 2),
    "einsum(,,pyfloat,pyfloat)": lambda: jnp.einsum(",", 2.0, 3.0),
    "einsum(i,i->,i8,f32)": lambda: jnp.einsum("i,i->", K["i8"], K["f32"]),
    "einsum(i->,b)": lambda: jnp.einsum("i->", K["b"]),
    "isclose(i32,pyint)": lambda: jnp.isclose(K["i32"], 3),
    "kron(i8,pyint)": lambda: jnp.kron(K["i8"], 2),
    "logsumexp(f16)": lambda: sp.logsumexp(K["f16"]),
    "logsumexp(i32)": lambda: sp.logsumexp(K["i32"]),
    "logsumexp(pyfloat)": lambda: sp.logsumexp(2.5),
    "mean(i32,dtype=i32)": lambda: jnp.mean(K["i32"], dtype=jnp.int32),
    "norm(f16)": lambda: jnp.linalg.norm(K["f16"]),
    "norm(i32)": lambda: jnp.linalg.norm(K["i32"]),
    "norm(pyfloat)": lambda: jnp.linalg.norm(2.5),
    "one_hot(i32,3)": lambda: nn.one_hot(K["i32"], 3),
    "one_hot(i32,3,i8)": lambda: nn.one_hot(K["i32"], 3, dtype=jnp.int8),
    "power(i32,pyint)": lambda: jnp.power(K["i32"], 2),
    "power(f32,pyint)": lambda: jnp.power(K["f32"], 2),
    "power(pyint,i32)": lambda: jnp.power(2, K["i32"]),
    "power(f16,i32)": lambda: jnp.power(K["f16"], K["i32"]),
    "select(b,f16,pyfloat)": lambda: jnp.select([K["b"]], [K["f16"]], 2.5),
    "select(b,i8)": lambda: jnp.select([K["b"]], [K["i8"]]),
    "sum(f32,dtype=i8)": lambda: jnp.sum(K["f32"], dtype=jnp.int8),
    "sum(i8,dtype=f16)": lambda: jnp.sum(K["i8"], dtype=jnp.float16),
    "sum(u8)": lambda: jnp.sum(K["u8"]),
    "tensordot(i8,u8)": lambda: jnp.tensordot(K["i8"], K["u8"], 1),
    "trace(f16)": lambda: jnp.trace(np.ones((2, 2), np.float16)),
    "trace(i8)": lambda: jnp.trace(np.ones((2, 2), np.int8)),
    "var(i8,dtype=f16)": lambda: jnp.var(K["i8"], dtype=jnp.float16),
    "where(b,i8,pyint)": lambda: jnp.where(K["b"], K["i8"], 1),
    "where(b,pyint,pyfloat)": lambda: jnp.where(K["b"], 1, 2.5),
    "where(i32,f16,f32)": lambda: jnp.where(K["i32"], K["f16"], K["f32"]),
}


@pytest.mark.parametrize("key", [k for k in OTHER_DTYPES if k in OTHER_CALLS])
def test_other_dtypes(key):
    assert describe(OTHER_CALLS[key]) == OTHER_DTYPES[key]


def test_every_tabled_call_is_exercised():
    assert set(OTHER_DTYPES) <= set(OTHER_CALLS)


# --- elementwise values against NumPy ---------------------------------------------------

RNG = np.random.RandomState(0)
F = (RNG.randn(3, 4) * 3).astype(np.float32)
F[0, 0], F[1, 1], F[2, 2], F[0, 1], F[1, 2], F[2, 3] = np.nan, np.inf, -0.0, -np.inf, 0.5, -2.5
G = (RNG.randn(3, 4) * 3).astype(np.float32)
G[0, 2] = 0.0
I = RNG.randint(-7, 8, (3, 4)).astype(np.int32)
J = RNG.randint(1, 5, (3, 4)).astype(np.int32) * np.where(RNG.rand(3, 4) > 0.5, 1, -1).astype(np.int32)
B = RNG.rand(3, 4) > 0.5
P = RNG.rand(3, 4).astype(np.float32)


def check(out, expected, rtol=2e-6, atol=1e-6):
    """Compare a minijax result with NumPy's ``expected`` (in the result's dtype)."""
    out = np.asarray(out)
    expected = np.asarray(expected)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    if out.dtype.kind in "fc":
        np.testing.assert_allclose(out, expected.astype(out.dtype), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(out, expected.astype(out.dtype))


UNARY_NUMPY = {
    "negative": np.negative, "positive": np.positive, "abs": np.abs, "fabs": np.fabs,
    "sign": np.sign, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "around": np.round, "trunc": np.trunc, "rint": np.rint, "sqrt": np.sqrt,
    "cbrt": np.cbrt, "square": np.square, "exp": np.exp, "exp2": np.exp2,
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin,
    "arccos": np.arccos, "arctan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "deg2rad": np.deg2rad,
    "rad2deg": np.rad2deg, "degrees": np.degrees, "radians": np.radians,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "isposinf": np.isposinf, "isneginf": np.isneginf, "nan_to_num": np.nan_to_num,
    "logical_not": np.logical_not, "signbit": np.signbit, "sinc": np.sinc,
    "conj": np.conj, "conjugate": np.conjugate, "real": np.real, "imag": np.imag,
}


@pytest.mark.parametrize("name", list(UNARY_NUMPY))
@pytest.mark.parametrize("data", [F, P, I], ids=["special_floats", "unit_floats", "ints"])
def test_unary_values_match_numpy(name, data):
    expected = UNARY_NUMPY[name](data)
    if name in ("nan_to_num",) and data.dtype == np.float32:
        expected = np.nan_to_num(data)  # float32 limits, as in JAX
    check(getattr(jnp, name)(data), expected, rtol=3e-6)


def test_reciprocal_and_bitwise_not():
    check(jnp.reciprocal(G[G != 0]), 1 / G[G != 0])
    check(jnp.reciprocal(I), 1.0 / I.astype(np.float32))  # integers become float32
    check(jnp.bitwise_not(I), np.bitwise_not(I))
    check(jnp.invert(B), np.invert(B))
    check(jnp.invert(np.array([0, 200], np.uint8)), np.array([255, 55]))


def test_round_decimals_and_halves():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.25, 3.14159], np.float32)
    check(jnp.round(x), np.round(x))                      # halves to even
    check(jnp.round(x, 2), np.round(x, 2), rtol=1e-6)
    check(jnp.around(G, 1), np.round(G, 1), rtol=1e-6)
    check(jnp.round(I), I)
    check(jnp.rint(x), np.rint(x))
    # expected values from JAX 0.10.2: a weak scalar stays weak; float16 rounds via float32
    assert repr(jnp.round(2.567, 2)) == "Array(2.57, dtype=float32, weak_type=True)"
    assert repr(jnp.round(np.array([1.2345, 3.14159], np.float16), 3)) == \
        "Array([1.234, 3.14 ], dtype=float16)"


BINARY_NUMPY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "true_divide": np.true_divide, "floor_divide": np.floor_divide,
    "remainder": np.remainder, "mod": np.mod, "fmod": np.fmod, "power": np.power,
    "pow": np.power, "float_power": np.float_power, "maximum": np.maximum,
    "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin, "arctan2": np.arctan2,
    "atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
    "copysign": np.copysign, "heaviside": np.heaviside, "equal": np.equal,
    "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}
_INT_SKIP = {"power", "pow"}  # int ** negative int: see test_integer_power


@pytest.mark.parametrize("name", list(BINARY_NUMPY))
def test_binary_values_match_numpy(name):
    jfn, nfn = getattr(jnp, name), BINARY_NUMPY[name]
    x, y = F, G
    if name in ("power", "pow", "float_power"):
        x = np.abs(x)  # NumPy and XLA agree on pow only for non-negative bases
    check(jfn(x, y), nfn(x.astype(np.float64), y.astype(np.float64)), rtol=5e-6)
    if name not in _INT_SKIP:
        check(jfn(I, J), nfn(I, J), rtol=5e-6)
    check(jfn(G, 2), nfn(G, np.float32(2)), rtol=5e-6)          # Python scalar operand
    check(jfn(G[0], G), nfn(G[0], G), rtol=5e-6)                # broadcasting


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift", "bitwise_left_shift", "bitwise_right_shift"])
def test_bitwise_values_match_numpy(name):
    s = np.abs(J) % 5
    nfn = getattr(np, name.replace("bitwise_left", "left").replace("bitwise_right", "right"))
    check(getattr(jnp, name)(I, s), nfn(I, s))
    u = np.array([200, 7, 128], np.uint8)
    check(getattr(jnp, name)(u, np.array([1, 2, 7], np.uint8)), nfn(u, np.array([1, 2, 7], np.uint8)))
    if "shift" not in name:
        check(getattr(jnp, name)(B, B[::-1]), nfn(B, B[::-1]))


def test_integer_division_and_remainder_follow_numpy_signs():
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    check(jnp.floor_divide(a, b), np.floor_divide(a, b))   # floors, unlike lax.div
    check(jnp.remainder(a, b), np.remainder(a, b))         # sign of the divisor
    check(jnp.fmod(a, b), np.fmod(a, b))                   # sign of the dividend
    check(jnp.divmod(a, b)[0], np.divmod(a, b)[0])
    check(jnp.divmod(a, b)[1], np.divmod(a, b)[1])
    check(jnp.floor_divide(a.astype(np.uint8) % 5, np.uint8(2)), (a.astype(np.uint8) % 5) // 2)
    x, y = np.array([7.5, -7.5, 1.0, -0.0], np.float32), np.array([2.0, 2.0, -3.0, 5.0], np.float32)
    check(jnp.divmod(x, y)[0], np.divmod(x, y)[0])
    check(jnp.divmod(x, y)[1], np.divmod(x, y)[1])
    check(jnp.asarray(x) // y, x // y)
    check(jnp.asarray(x) % y, x % y)


def test_division_by_zero_as_jax():
    a = np.array([7, -7, 0, 5], np.int32)
    z = np.zeros(4, np.int32)
    # expected values from JAX 0.10.2
    check(jnp.floor_divide(a, z), [-2, -2, -1, -2])
    check(jnp.remainder(a, z), [0, 0, 0, 0])
    check(jnp.fmod(a, z), [0, 0, 0, 0])
    check(jnp.floor_divide(np.array([7., -7., 0., 1.], np.float32),
                           np.array([0., 2., 0., -0.], np.float32)), [np.inf, -4, np.nan, -np.inf])
    check(jnp.remainder(np.array([7., -7., 0., 1., np.inf], np.float32),
                        np.array([0., 2., 0., -0., 2.], np.float32)), [np.nan, 1, np.nan, np.nan, np.nan])


def test_integer_power():
    check(jnp.power(np.array([2, -3, 0, 1], np.int32), np.array([0, 3, 0, 5], np.int32)),
          [1, -27, 1, 1])
    # expected values from JAX 0.10.2: an int to a negative int power (NumPy raises)
    check(jnp.power(np.array([2, 1, -1], np.int32), np.array([-1, -2, -3], np.int32)), [0, 1, -1])
    check(jnp.asarray(I) ** 3, I ** 3)
    check(2 ** jnp.asarray(np.abs(J)), 2 ** np.abs(J))
    check(jnp.power(G, 2), G.astype(np.float64) ** 2)


def test_shifts_as_jax():
    # expected values from JAX 0.10.2 (XLA shifts: out-of-range amounts give 0 or -1)
    check(jnp.left_shift(np.array([1, -1, 3], np.int32), np.array([31, 33, -1], np.int32)),
          [-2147483648, 0, 0])
    check(jnp.right_shift(np.array([-8, 8, -1], np.int32), np.array([1, 40, 3], np.int32)), [-4, 0, -1])
    check(jnp.right_shift(np.array([200], np.uint8), np.array([9], np.uint8)), [0])


def test_nan_propagation_and_signed_zeros():
    check(jnp.maximum(np.array([np.nan, 1.], np.float32), np.array([1., np.nan], np.float32)),
          [np.nan, np.nan])
    check(jnp.fmax(np.array([np.nan, 1., np.nan], np.float32), np.array([1., np.nan, np.nan], np.float32)),
          [1., 1., np.nan])
    check(jnp.sign(np.array([-0., 0., np.nan, -3.], np.float32)), [-0., 0., np.nan, -1.])
    assert np.signbit(np.asarray(jnp.sign(np.float32(-0.0))))
    check(jnp.signbit(np.array([-0.0, 0.0, -np.nan, np.nan, -1], np.float32)),
          np.signbit(np.array([-0.0, 0.0, -np.nan, np.nan, -1], np.float32)))
    check(jnp.copysign(np.float32(2), np.array([-0.0, 0.0], np.float32)), [-2.0, 2.0])
    check(jnp.logaddexp(np.array([np.inf, -np.inf, 1000.], np.float32),
                        np.array([np.inf, -np.inf, 1000.], np.float32)),
          np.logaddexp(np.array([np.inf, -np.inf, 1000.]), np.array([np.inf, -np.inf, 1000.])))
    big = np.array([3e38, 0, np.inf], np.float32)
    check(jnp.hypot(big, big), np.hypot(big, big))


def test_clip_where_select():
    check(jnp.clip(G, -1, 1), np.clip(G, -1, 1))
    check(jnp.clip(I, min=0), np.clip(I, 0, None))
    check(jnp.clip(F, max=0.5), np.minimum(F, 0.5))
    check(jnp.clip(G, 1, -1), np.clip(G, 1, -1))                  # max wins when min > max
    check(jnp.asarray(G).clip(-1, 1), np.clip(G, -1, 1))
    check(jnp.where(B, F, G), np.where(B, F, G))
    check(jnp.where(B[0], I, 1.5), np.where(B[0], I, 1.5))
    check(jnp.where(I, 1, 0), np.where(I, 1, 0))                  # non-bool condition
    check(jnp.where(True, G, 0), G)
    check(jnp.select([B, G > 0], [F, I], -1), np.select([B, G > 0], [F, I], -1))
    check(jnp.select([G > 0], [G]), np.select([G > 0], [G]))


def test_isclose_and_nan_to_num():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 1.0], np.float32)
    b = np.array([1.0 + 1e-6, np.nan, np.inf, np.inf, 0.0, 1.1], np.float32)
    check(jnp.isclose(a, b), np.isclose(a, b))
    check(jnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    check(jnp.isclose(a, b, rtol=0.2, atol=0), np.isclose(a, b, rtol=0.2, atol=0))
    check(jnp.nan_to_num(F, nan=1.0, posinf=2.0, neginf=-3.0),
          np.nan_to_num(F, nan=1.0, posinf=2.0, neginf=-3.0))
    check(jnp.nan_to_num(I), I)


def test_complex_part_functions_on_real_inputs():
    check(jnp.real(G), G)
    check(jnp.imag(G), np.zeros_like(G))
    check(jnp.conj(I), I)
    check(jnp.asarray(G).real, G)
    check(jnp.asarray(G).imag, np.zeros_like(G))


_BROADCAST_OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "arctan2",
                  "hypot", "logaddexp", "copysign", "fmax", "less", "equal", "greater_equal"]


@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                max_side=3),
       op=st.sampled_from(_BROADCAST_OPS), data=st.data())
def test_binary_ufuncs_broadcast_like_numpy(shapes, op, data):
    elems = st.floats(-10, 10, width=32, allow_subnormal=False)
    x = data.draw(hnp.arrays(np.float32, shapes.input_shapes[0], elements=elems))
    y = data.draw(hnp.arrays(np.float32, shapes.input_shapes[1], elements=elems))
    if op == "divide":
        y = np.where(y == 0, np.float32(1), y)
    out = getattr(jnp, op)(x, y)
    assert out.shape == shapes.result_shape
    check(out, getattr(np, op)(x, y), rtol=1e-5, atol=1e-6)


@given(x=hnp.arrays(np.int32, hnp.array_shapes(max_dims=2, max_side=4),
                    elements=st.integers(-50, 50)),
       y=st.integers(-9, 9).filter(bool), op=st.sampled_from(["floor_divide", "remainder",
                                                             "fmod", "multiply", "subtract"]))
def test_integer_ufuncs_with_python_scalars(x, y, op):
    out = getattr(jnp, op)(x, y)
    assert out.dtype == np.int32 and not out.weak_type
    check(out, getattr(np, op)(x, np.int32(y)))


# --- reductions --------------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "any", "all",
              "ptp", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "median"]
A3 = (RNG.randn(2, 3, 4) * 2).astype(np.float32)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(name, axis, keepdims):
    check(getattr(jnp, name)(A3, axis=axis, keepdims=keepdims),
          getattr(np, name)(A3, axis=axis, keepdims=keepdims), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmax", "nanmin", "nanmean"])
def test_nan_reductions_skip_nans(name):
    x = np.array([[np.nan, 1.0, 2.0], [np.nan, np.nan, np.nan], [3.0, np.nan, -1.0]], np.float32)
    check(getattr(jnp, name)(x, axis=1), getattr(np, name)(x, axis=1))
    check(getattr(jnp, name)(I, axis=0), getattr(np, name)(I, axis=0), rtol=1e-6)


@given(x=hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.floats(-100, 100, width=32)),
       name=st.sampled_from(["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"]),
       keepdims=st.booleans(), data=st.data())
def test_reductions_over_random_axes(x, name, keepdims, data):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, max_size=x.ndim))
    axis = None if not axes else tuple(a - x.ndim if data.draw(st.booleans()) else a for a in axes)
    if name == "prod":
        x = np.clip(x, -2, 2)
    expected = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    out = getattr(jnp, name)(x, axis=axis, keepdims=keepdims)
    assert out.shape == np.shape(expected)
    check(out, expected, rtol=1e-4, atol=1e-4)


@given(x=hnp.arrays(np.int8, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.integers(-100, 100)), data=st.data())
def test_integer_sums_and_argmax(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    out = jnp.sum(x, axis=axis)
    assert out.dtype == np.int32  # small integers accumulate in int32, as in NumPy and JAX
    check(out, np.sum(x, axis=axis))
    keep = data.draw(st.booleans())
    check(jnp.argmax(x, axis=axis, keepdims=keep), np.argmax(x, axis=axis, keepdims=keep))
    check(jnp.argmin(x, axis=axis), np.argmin(x, axis=axis))
    check(jnp.cumsum(x, axis=axis), np.cumsum(x, axis=axis).astype(np.int8))


def test_argmax_argmin():
    check(jnp.argmax(G), np.argmax(G))
    check(jnp.argmin(G, axis=0), np.argmin(G, axis=0))
    check(jnp.argmax(G, keepdims=True), np.argmax(G, keepdims=True))
    check(jnp.asarray(G).argmax(axis=-1), np.argmax(G, axis=-1))
    # expected values from JAX 0.10.2: NaN counts as the maximum and the minimum
    check(jnp.argmax(np.array([1., np.nan, 3.], np.float32)), 1)
    check(jnp.argmin(np.array([1., np.nan, -3.], np.float32)), 1)
    assert jnp.argmax(G).dtype == np.int32


def test_reduction_options():
    check(jnp.var(G, axis=1, ddof=1), np.var(G, axis=1, ddof=1))
    check(jnp.std(G, ddof=2, keepdims=True), np.std(G, ddof=2, keepdims=True))
    check(jnp.var(G, correction=1), np.var(G, ddof=1))
    check(jnp.var(np.ones(2, np.float32), ddof=2), np.nan)        # N - ddof <= 0 gives NaN
    check(jnp.var(G, axis=1, where=B), np.var(G, axis=1, where=B), rtol=1e-5)
    check(jnp.mean(G, axis=0, where=B), np.mean(G, axis=0, where=B))
    check(jnp.sum(G, where=B), np.sum(G, where=B), rtol=1e-5)
    check(jnp.max(G, axis=1, where=B, initial=-5.0), np.max(G, axis=1, where=B, initial=-5.0))
    check(jnp.max(G, axis=1, initial=4.0), np.max(G, axis=1, initial=4.0))
    check(jnp.sum(I, initial=100), np.sum(I, initial=100))
    check(jnp.sum(I, dtype=jnp.float32), np.sum(I).astype(np.float32))
    check(jnp.mean(I, dtype=jnp.int32), np.trunc(np.sum(I) / I.size))  # int mean truncates
    check(jnp.prod(B, axis=0), np.prod(B, axis=0))
    check(jnp.any(I, axis=0), np.any(I, axis=0))
    check(jnp.all(G > -5, axis=1, keepdims=True), np.all(G > -5, axis=1, keepdims=True))
    check(jnp.count_nonzero(I, axis=1), np.count_nonzero(I, axis=1))
    check(jnp.count_nonzero(I), np.count_nonzero(I))
    check(jnp.ptp(I, axis=1, keepdims=True), np.ptp(I, axis=1, keepdims=True))
    # expected values from JAX 0.10.2: int8 sums accumulate in int32, cumsum and prod do not widen
    check(jnp.sum(np.array([100, 100], np.int8)), 200)
    check(jnp.cumsum(np.array([100, 100], np.int8)), [100, -56])
    check(jnp.prod(np.array([100, 100], np.int8)), 10000)


def test_empty_reductions():
    e = np.zeros((0, 3), np.float32)
    check(jnp.sum(e, axis=0), np.zeros(3))
    check(jnp.prod(np.zeros((2, 0), np.int8), axis=1), [1, 1])
    check(jnp.mean(np.zeros(0, np.float32)), np.nan)
    check(jnp.var(np.zeros(0, np.float32)), np.nan)
    check(jnp.max(e, axis=0, initial=1.0), [1.0, 1.0, 1.0])
    check(jnp.max(e, axis=1), np.zeros(0))                      # nothing to reduce per output
    check(jnp.any(np.zeros(0, bool)), False)
    check(jnp.all(np.zeros(0, bool)), True)


def test_average():
    w = P[0]
    check(jnp.average(G, axis=1, weights=w), np.average(G, axis=1, weights=w), rtol=1e-5)
    avg, wsum = jnp.average(G, weights=P, returned=True)
    e_avg, e_wsum = np.average(G, weights=P, returned=True)
    check(avg, e_avg, rtol=1e-5)
    check(wsum, e_wsum, rtol=1e-5)
    avg, wsum = jnp.average(I, axis=0, returned=True)
    check(avg, np.average(I, axis=0))
    check(wsum, [3.0] * 4)
    check(jnp.average(A3, axis=(2, 0), weights=P.T[:, :2]),
          np.average(A3, axis=(2, 0), weights=P.T[:, :2]), rtol=1e-5)


def test_cumulative_reductions():
    check(jnp.cumsum(G, axis=1), np.cumsum(G, axis=1), rtol=1e-5)
    check(jnp.cumsum(G), np.cumsum(G), rtol=1e-5)                 # flattened
    check(jnp.cumprod(I, axis=0), np.cumprod(I, axis=0))
    check(jnp.asarray(I).cumsum(axis=0), np.cumsum(I, axis=0))
    check(jnp.cumsum(B, axis=0), np.cumsum(B, axis=0))
    check(jnp.cumsum(I, axis=0, dtype=jnp.float32), np.cumsum(I, axis=0))
    # expected values from JAX 0.10.2: a bool cumsum counts nonzeros, then casts to bool
    check(jnp.cumsum(np.array([-1, 1, 0, 2], np.int32), dtype=bool), [True, True, True, True])
    check(jnp.cumulative_sum(I, axis=1, include_initial=True),
          np.cumulative_sum(I, axis=1, include_initial=True))
    check(jnp.cumulative_prod(I, axis=0, include_initial=True),
          np.cumulative_prod(I, axis=0, include_initial=True))
    check(jnp.cumulative_sum(I[0]), np.cumulative_sum(I[0]))


def test_whole_array_comparisons():
    assert bool(jnp.allclose(G, G * (1 + 1e-6)))
    assert not bool(jnp.allclose(G, G + 1))
    assert bool(jnp.array_equal(F, F, equal_nan=True))
    assert not bool(jnp.array_equal(F, F))
    assert not bool(jnp.array_equal(G, G[:2]))
    assert bool(jnp.array_equiv(G[0], np.broadcast_to(G[0], (5, 4))))
    assert not bool(jnp.array_equiv(G, G[0, :1][None]))
    assert jnp.array_equal(G, G).dtype == np.bool_


# --- products ----------------------------------------------------------------------------

def _r(*shape, dtype=np.float32):
    return np.asarray(RNG.randn(*shape), dtype)


MATMUL_SHAPES = [((2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 4)),
                 ((1, 2, 3), (5, 3, 4)), ((3,), (3,)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
                 ((2, 1, 2, 3), (1, 5, 3, 4)), ((2, 3), (6, 3, 4)), ((1, 2, 3), (1, 3, 4)),
                 ((0, 2, 3), (3, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy(sa, sb):
    a, b = _r(*sa), _r(*sb)
    check(jnp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-5)
    check(jnp.asarray(a) @ b, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 2)), ((3,), (3,)),
                                   ((2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 3), ())])
def test_dot_matches_numpy(sa, sb):
    a, b = _r(*sa), _r(*sb)
    check(jnp.dot(a, b), np.dot(a, b), rtol=1e-5, atol=1e-5)


def test_products_of_integers_and_bools():
    check(jnp.matmul(I, J.T), I @ J.T)
    check(jnp.dot(B, B.T), np.dot(B, B.T))
    check(jnp.matmul(I, G.T), I @ G.T.astype(np.float64), rtol=1e-5, atol=1e-5)
    out = jnp.dot(2.0, 3.0)
    assert out.weak_type and float(out) == 6.0   # expected values from JAX 0.10.2


def test_other_products_match_numpy():
    a3, b3 = _r(2, 3, 4), _r(3, 4, 5)
    check(jnp.vdot(G, P), np.vdot(G, P), rtol=1e-5)
    check(jnp.inner(G, P), np.inner(G, P), rtol=1e-5, atol=1e-5)
    check(jnp.inner(G, 2), np.inner(G, 2))
    check(jnp.outer(G, P[0]), np.outer(G, P[0]))
    check(jnp.outer(B[0], B[1]), np.outer(B[0], B[1]))
    check(jnp.tensordot(a3, b3), np.tensordot(a3, b3), rtol=1e-5, atol=1e-5)
    check(jnp.tensordot(a3, b3[0], axes=1), np.tensordot(a3, b3[0], axes=1), rtol=1e-5, atol=1e-5)
    c = _r(4, 3, 2)
    check(jnp.tensordot(a3, c, axes=([1, 2], [1, 0])), np.tensordot(a3, c, axes=([1, 2], [1, 0])),
          rtol=1e-5, atol=1e-5)
    d = _r(4, 2)
    check(jnp.tensordot(a3, d, axes=(2, 0)), np.tensordot(a3, d, axes=(2, 0)), rtol=1e-5, atol=1e-5)
    check(jnp.tensordot(G, P, 0), np.tensordot(G, P, 0))
    check(jnp.kron(G[:2, :2], P[:3, :2]), np.kron(G[:2, :2], P[:3, :2]))
    check(jnp.kron(G[0], P), np.kron(G[0], P))
    check(jnp.trace(G), np.trace(G), rtol=1e-5)
    check(jnp.trace(a3, offset=1, axis1=1, axis2=2), np.trace(a3, offset=1, axis1=1, axis2=2), rtol=1e-5)
    check(jnp.trace(a3, offset=-1, axis1=2, axis2=0), np.trace(a3, offset=-1, axis1=2, axis2=0), rtol=1e-5)
    check(jnp.asarray(G).trace(), np.trace(G), rtol=1e-5)
    assert jnp.trace(I.astype(np.int8)).dtype == np.int32


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i->", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ij->", [(2, 3)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 2)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("iji->j", [(2, 3, 2)]),
    ("ii,ij->j", [(3, 3), (3, 4)]), ("ab,bc,cd", [(2, 3), (3, 4), (4, 2)]),
    ("...i,...i", [(2, 3), (3,)]), ("ij,j->i", [(1, 3), (3,)]), ("bi,bj->bij", [(2, 3), (2, 4)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bj->bi", [(1, 2, 3), (4, 3)]), ("ij,bjk->bik", [(2, 3), (6, 3, 4)]), ("ba", [(2, 3)]),
    ("i->", [(0,)]), (" ij , jk -> ik ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(subscripts, shapes):
    ops = [_r(*s) for s in shapes]
    check(jnp.einsum(subscripts, *ops), np.einsum(subscripts.replace(" ", ""), *ops),
          rtol=1e-5, atol=1e-5)


def test_einsum_integer_and_mixed_operands():
    check(jnp.einsum("ij,jk->ik", I, J.T), np.einsum("ij,jk->ik", I, J.T))
    check(jnp.einsum("ii->", I[:3, :3]), np.trace(I[:3, :3]))
    check(jnp.einsum("i,i->", I[0], G[0]), np.dot(I[0], G[0]), rtol=1e-5)


# --- linalg.norm ----------------------------------------------------------------------------

@pytest.mark.parametrize("ord_,axis,keepdims", [
    (None, None, False), (None, None, True), (1, None, False), (-1, None, False),
    (np.inf, None, False), (-np.inf, None, False), ("fro", None, True), (None, 1, False),
    (3, 0, True), (0, 1, False), (np.inf, 1, False), (-np.inf, 0, False), (1, (1, 0), False),
    (np.inf, (0, 1), True), (2, 0, False), (0.5, 1, False)])
def test_norm_matches_numpy(ord_, axis, keepdims):
    check(jnp.linalg.norm(G, ord_, axis, keepdims), np.linalg.norm(G, ord_, axis, keepdims),
          rtol=1e-5, atol=1e-5)


def test_vector_and_matrix_norms():
    a3 = _r(2, 3, 4)
    check(jnp.linalg.norm(G[0]), np.linalg.norm(G[0]), rtol=1e-6)
    check(jnp.linalg.norm(a3), np.linalg.norm(a3), rtol=1e-6)          # any rank with ord=None
    check(jnp.linalg.norm(a3, 1, axis=(2, 0)), np.linalg.norm(a3, 1, axis=(2, 0)), rtol=1e-5)
    check(jnp.linalg.vector_norm(a3, axis=(0, 1)), np.linalg.vector_norm(a3, axis=(0, 1)), rtol=1e-5)
    check(jnp.linalg.vector_norm(a3, ord=np.inf), np.linalg.vector_norm(a3, ord=np.inf))
    check(jnp.linalg.matrix_norm(a3), np.linalg.matrix_norm(a3), rtol=1e-5)
    check(jnp.linalg.matrix_norm(a3, ord=1), np.linalg.matrix_norm(a3, ord=1), rtol=1e-5)
    check(jnp.linalg.norm(I[0]), np.linalg.norm(I[0]), rtol=1e-6)


# --- nn and scipy.special ------------------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


NN_FORMULAS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": _sigmoid,
    "softplus": lambda x: np.logaddexp(x.astype(np.float64), 0),
    "silu": lambda x: x * _sigmoid(x),
    "swish": lambda x: x * _sigmoid(x),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x.astype(np.float64) ** 3))),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "log_sigmoid": lambda x: -np.logaddexp(0, -x.astype(np.float64)),
}


@pytest.mark.parametrize("name", list(NN_FORMULAS))
def test_activations_match_formulas(name):
    x = np.concatenate([G.ravel(), np.array([-100., 100., 0.], np.float32)])
    check(getattr(nn, name)(x), NN_FORMULAS[name](x), rtol=1e-5, atol=1e-6)


def test_gelu_exact_and_parameters():
    from math import erf
    x = G.ravel()
    exact = np.array([0.5 * v * (1 + erf(v / np.sqrt(2))) for v in x.astype(np.float64)])
    check(nn.gelu(x, approximate=False), exact, rtol=1e-5, atol=1e-6)
    check(nn.elu(x, 0.5), np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0))), rtol=1e-6)
    check(nn.leaky_relu(x, 0.2), np.where(x >= 0, x, 0.2 * x))


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_softmax_and_log_softmax(axis):
    s = nn.softmax(G, axis=axis)
    check(s, _np_softmax(G.astype(np.float64), axis), rtol=1e-5, atol=1e-7)
    check(jnp.sum(s, axis=axis), np.ones_like(np.sum(G, axis=axis)), rtol=1e-5)
    check(nn.log_softmax(G, axis=axis), np.log(_np_softmax(G.astype(np.float64), axis)),
          rtol=1e-5, atol=1e-5)


def test_softmax_is_stable_and_masks():
    check(nn.softmax(np.array([1000., 0.], np.float32)), [1.0, 0.0])
    check(nn.log_softmax(np.array([1000., 0.], np.float32)), [0.0, -1000.0])
    check(nn.softmax(np.array([-np.inf, 0.], np.float32)), [0.0, 1.0])
    mask = np.array([[True, False, True, True]] * 3)
    s = np.asarray(nn.softmax(G, where=mask))
    check(s[:, 1], np.zeros(3))
    check(s.sum(-1), np.ones(3), rtol=1e-5)
    check(nn.log_softmax(G, where=mask)[:, 1], [-np.inf] * 3)


def test_logsumexp():
    check(sp.logsumexp(G, axis=1), np.log(np.sum(np.exp(G.astype(np.float64)), axis=1)), rtol=1e-6)
    check(nn.logsumexp(G), np.log(np.sum(np.exp(G.astype(np.float64)))), rtol=1e-6)
    check(sp.logsumexp(G, axis=1, keepdims=True),
          np.log(np.sum(np.exp(G.astype(np.float64)), axis=1, keepdims=True)), rtol=1e-6)
    check(sp.logsumexp(np.array([1000., 1000.], np.float32)), 1000 + np.log(2))  # no overflow
    check(sp.logsumexp(np.array([-1000., -1000.], np.float32)), -1000 + np.log(2))
    check(sp.logsumexp(np.array([-np.inf, -np.inf], np.float32)), -np.inf)     # not NaN
    check(sp.logsumexp(np.array([np.inf, 1.], np.float32)), np.inf)
    b = P - 0.5
    val, sign = sp.logsumexp(G, axis=0, b=b, return_sign=True)
    total = np.sum(b * np.exp(G.astype(np.float64)), axis=0)
    check(val, np.log(np.abs(total)), rtol=1e-5, atol=1e-6)
    check(sign, np.sign(total))
    check(sp.logsumexp(G, axis=0, b=b), np.where(total < 0, np.nan, np.log(np.abs(total))),
          rtol=1e-5, atol=1e-6)
    check(sp.logsumexp(G, axis=1, where=B),
          [np.log(np.sum(np.exp(G[r][B[r]].astype(np.float64)))) if B[r].any() else -np.inf
           for r in range(3)], rtol=1e-6)


def test_one_hot_and_standardize():
    check(nn.one_hot(np.array([0, 2, 5, -1]), 3), np.eye(3)[[0, 2]].tolist() + [[0] * 3] * 2)
    oh = nn.one_hot(I % 3, 3, axis=0)
    assert oh.shape == (3, 3, 4) and oh.dtype == np.float32
    check(oh, np.moveaxis(np.eye(3)[I % 3], -1, 0))
    check(nn.standardize(G), (G - G.mean(-1, keepdims=True)) / np.sqrt(G.var(-1, keepdims=True) + 1e-5),
          rtol=1e-4, atol=1e-5)


def test_special_functions():
    from math import erf, erfc, lgamma
    x = np.clip(G.ravel(), -3, 3)
    check(sp.erf(x), [erf(v) for v in x], rtol=1e-6, atol=1e-6)
    check(sp.erfc(x), [erfc(v) for v in x], rtol=1e-5, atol=1e-6)
    y = P.ravel() * 1.8 - 0.9
    check(sp.erf(sp.erfinv(y)), y, rtol=1e-5, atol=1e-6)
    check(sp.expit(x), _sigmoid(x), rtol=1e-6)
    check(sp.logit(P), np.log(P / (1 - P)), rtol=1e-5, atol=1e-6)
    check(sp.gammaln(np.abs(x) + 0.5), [lgamma(v) for v in np.abs(x) + 0.5], rtol=1e-5, atol=1e-6)


# --- errors: JAX's classes and messages ----------------------------------------------------

X = np.ones((2, 3), np.float32)
# expected values from JAX 0.10.2
ERRORS = {
    "add shapes": (lambda: jnp.add(np.ones(3, np.float32), np.ones(4, np.float32)), TypeError,
                   "add got incompatible shapes for broadcasting: (3,), (4,)."),
    "mul shapes": (lambda: jnp.multiply(X, np.ones((3, 2), np.float32)), TypeError,
                   "mul got incompatible shapes for broadcasting: (2, 3), (3, 2)."),
    "add ranks": (lambda: jnp.add(X, np.ones(4, np.float32)), ValueError,
                  "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]"),
    "add list": (lambda: jnp.add([1, 2], 1), TypeError,
                 "add requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    "sin list": (lambda: jnp.sin([1., 2.]), TypeError,
                 "sin requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    "sum list": (lambda: jnp.sum([1, 2]), TypeError,
                 "sum requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    "sum axis": (lambda: jnp.sum(X, axis=2), ValueError,
                 "axis 2 is out of bounds for array of dimension 2"),
    "sum axis neg": (lambda: jnp.sum(X, axis=-3), ValueError,
                     "axis -3 is out of bounds for array of dimension 2"),
    "sum dup": (lambda: jnp.sum(X, axis=(1, -1)), ValueError, "duplicate value in 'axis': (1, -1)"),
    "mean axis": (lambda: jnp.mean(X, axis=5), IndexError, "tuple index out of range"),
    "var axis": (lambda: jnp.var(X, axis=(0, 3)), IndexError, "tuple index out of range"),
    "argmax axis": (lambda: jnp.argmax(X, axis=2), IndexError, "tuple index out of range"),
    "argmax empty": (lambda: jnp.argmax(np.ones((0,), np.float32)), ValueError,
                     "attempt to get argmax of an empty sequence"),
    "argmin empty": (lambda: jnp.argmin(np.ones((2, 0), np.float32), axis=1), ValueError,
                     "attempt to get argmin of an empty sequence"),
    "max empty": (lambda: jnp.max(np.ones((0,), np.float32)), ValueError,
                  "zero-size array to reduction operation max which has no identity"),
    "min empty": (lambda: jnp.min(np.ones((0, 3), np.float32), axis=0), ValueError,
                  "zero-size array to reduction operation min which has no identity"),
    "max where": (lambda: jnp.max(X, where=X > 0), ValueError,
                  "reduction operation max does not have an identity, so to use a where mask "
                  "one has to specify 'initial'"),
    "where dtype": (lambda: jnp.sum(X, where=np.ones((2, 3), np.int32)), ValueError,
                    "jnp.sum: where must be None or a boolean array; got where.dtype=dtype('int32')."),
    "initial": (lambda: jnp.sum(X, initial=np.ones(2)), ValueError,
                "initial value must be a scalar. Got array of shape (2,)"),
    "out": (lambda: jnp.sum(X, out=X), NotImplementedError,
            "The 'out' argument to jnp.sum is not supported."),
    "cumsum axis": (lambda: jnp.cumsum(X, axis=2), ValueError,
                    "axis 2 is out of bounds for array of dimension 2"),
    "cumulative_sum nd": (lambda: jnp.cumulative_sum(X), ValueError,
                          "The input array has rank 2, however axis was not set to an explicit "
                          "value. The axis argument is only optional for one-dimensional arrays."),
    "cumulative_prod 0d": (lambda: jnp.cumulative_prod(np.float32(1)), ValueError,
                           "The input must be non-scalar to take a cumulative product, however a "
                           "scalar value or scalar array was given."),
    "var both": (lambda: jnp.var(X, ddof=1, correction=1), ValueError,
                 "ddof and correction can't be provided simultaneously."),
    "std dtype": (lambda: jnp.std(X, dtype=jnp.int32), ValueError,
                  "dtype argument to jnp.std must be inexact; got int32"),
    "matmul shapes": (lambda: jnp.matmul(X, np.ones((4, 5), np.float32)), TypeError,
                      "dot_general requires contracting dimensions to have the same shape, got "
                      "(3,) and (4,)."),
    "matmul operator": (lambda: jnp.asarray(X) @ np.ones((4, 5), np.float32), TypeError,
                        "dot_general requires contracting dimensions to have the same shape, "
                        "got (3,) and (4,)."),
    "matmul batch": (lambda: jnp.matmul(np.ones((2, 2, 3), np.float32), np.ones((3, 3, 4), np.float32)),
                     ValueError, "Incompatible types for matmul arguments: float32[2,2,3] and "
                     "float32[3,3,4]"),
    "matmul 0d": (lambda: jnp.matmul(X, 2.0), ValueError,
                  "matmul input operand 1 must have ndim at least 1, but it has ndim 0"),
    "dot shapes": (lambda: jnp.dot(X, X), TypeError, "dot_general requires contracting dimensions "
                   "to have the same shape, got (3,) and (2,)."),
    "tensordot int": (lambda: jnp.tensordot(X, X, axes=3), TypeError,
                      "Number of tensordot axes (axes 3) exceeds input ranks ((2, 3) and (2, 3))"),
    "tensordot lens": (lambda: jnp.tensordot(X, X, axes=([0], [0, 1])), TypeError,
                       "tensordot requires axes lists to have equal length, got [0] and [0, 1]."),
    "tensordot bad": (lambda: jnp.tensordot(X, X, axes="a"), TypeError,
                      "tensordot axes argument must be an int, a pair of ints, or a pair of "
                      "lists/tuples of ints."),
    "einsum size": (lambda: jnp.einsum("ij,jk->ik", X, np.ones((4, 5))), ValueError,
                    "Size of label 'j' for operand 1 (3) does not match previous terms (4)."),
    "einsum operands": (lambda: jnp.einsum("ij,jk->ik", X), ValueError,
                        "Number of einsum subscripts, 2, must be equal to the number of operands, 1."),
    "einsum output": (lambda: jnp.einsum("ij->ik", X), ValueError,
                      "Output character 'k' did not appear in the input"),
    "einsum rank": (lambda: jnp.einsum("ijk->i", X), ValueError,
                    "Einstein sum subscript 'ijk' does not contain the correct number of indices "
                    "for operand 0."),
    "trace same": (lambda: jnp.trace(X, axis1=0, axis2=-2), ValueError,
                   "axis1 and axis2 can not be same. axis1=0 and axis2=-2"),
    "where size": (lambda: jnp.where(X > 0, 1, 2, size=3), ValueError,
                   "size and fill_value arguments cannot be used in three-term where function."),
    "where two": (lambda: jnp.where(X > 0, 1), TypeError, "where requires ndarray or scalar "
                  "arguments, got <class 'NoneType'> at position 2."),
    "select len": (lambda: jnp.select([X > 0], [X, X]), ValueError,
                   "condlist must have length equal to choicelist (1 vs 2)"),
    "clip none": (lambda: jnp.clip(), ValueError, "No input was provided to the clip function."),
    "round bool": (lambda: jnp.round(np.ones(2, bool)), ValueError,
                   "data type <class 'numpy.bool'> not inexact"),
    "round int": (lambda: jnp.round(np.ones(2, np.int32), -1), NotImplementedError,
                  "integer np.round not implemented for decimals < 0"),
    "norm axes": (lambda: jnp.linalg.norm(np.ones((2, 2, 2)), axis=(0, 1, 2)), ValueError,
                  "Improper number of axes for norm: axis=(0, 1, 2). Pass one axis to compute a "
                  "vector-norm, or two axes to compute a matrix-norm."),
    "norm ord": (lambda: jnp.linalg.norm(X, ord="bad"), ValueError,
                 "Invalid order 'bad' for matrix norm."),
    "norm vord": (lambda: jnp.linalg.norm(np.ones(3), ord="inf"), ValueError,
                  "Invalid order 'inf' for vector norm.Use 'jax.numpy.inf' instead."),
    "average axis": (lambda: jnp.average(X, weights=np.ones(3)), ValueError,
                     "Axis must be specified when shapes of a and weights differ."),
    "average shape": (lambda: jnp.average(X, axis=0, weights=np.ones(3)), ValueError,
                      "Shape of weights must be consistent with shape of a along specified axis."),
    "softmax list": (lambda: nn.softmax([1., 2.]), TypeError,
                     "max requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    "one_hot axis": (lambda: nn.one_hot(np.arange(3), 3, axis=3), ValueError,
                     "axis 3 is out of bounds for array of dimension 2"),
    "erf list": (lambda: sp.erf([1.]), TypeError,
                 "erf requires ndarray or scalar arguments, got <class 'list'> at position 0."),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_jax(case):
    fn, cls, msg = ERRORS[case]
    with pytest.raises(cls) as info:
        fn()
    assert str(info.value) == msg


@pytest.mark.parametrize("fn", [lambda: jnp.bitwise_and(X, X), lambda: jnp.left_shift(X, 1),
                                lambda: jnp.invert(X), lambda: jnp.negative(np.ones(2, bool)),
                                lambda: jnp.subtract(np.ones(2, bool), np.ones(2, bool)),
                                lambda: jnp.power(np.arange(3, dtype=np.int32), -1),
                                lambda: nn.sigmoid(np.arange(3, dtype=np.int32))])
def test_lax_rejects_unsupported_dtypes(fn):
    with pytest.raises(TypeError):
        fn()


# --- the primitives each function binds (JAX's jaxprs, minus its inner jit) ---------------------

@contextmanager
def recorded():
    """Record the name and params of every primitive bound, then evaluate it as usual."""
    log = []
    previous = primitives.get_bind_dispatcher()

    def record(prim, args, params):
        log.append((prim.name, params))
        return previous(prim, args, params)

    primitives.set_bind_dispatcher(record)
    try:
        yield log
    finally:
        primitives.set_bind_dispatcher(previous)


def _names(fn, *args):
    args = [jnp.asarray(a) for a in args]
    with recorded() as log:
        fn(*args)
    return log


# expected values from JAX 0.10.2 (jax.make_jaxpr, inner jit calls inlined)
PRIMITIVES = [
    ("mean of ints", lambda x: jnp.mean(x), [np.ones((2, 3), np.int32)],
     ["convert_element_type", "reduce_sum", "div"]),
    ("sum of int8", lambda x: jnp.sum(x), [np.ones((2, 3), np.int8)],
     ["convert_element_type", "reduce_sum"]),
    ("sum keepdims", lambda x: jnp.sum(x, axis=1, keepdims=True), [X], ["reduce_sum", "broadcast_in_dim"]),
    ("max initial", lambda x: jnp.max(x, axis=0, initial=2.0), [X], ["reduce_max", "max"]),
    ("argmax flat", lambda x: jnp.argmax(x), [X], ["reshape", "argmax"]),
    ("any", lambda x: jnp.any(x, axis=0), [X], ["convert_element_type", "reduce_or"]),
    ("true_divide ints", jnp.true_divide, [np.ones(3, np.int32)] * 2,
     ["convert_element_type", "convert_element_type", "div"]),
    ("floor_divide ints", jnp.floor_divide, [np.ones(3, np.int32)] * 2,
     ["div", "sign", "sign", "ne", "rem", "ne", "and", "sub", "select_n"]),
    ("remainder floats", jnp.remainder, [X, X],
     ["rem", "ne", "lt", "lt", "ne", "and", "add", "select_n"]),
    ("x ** 2", lambda x: x ** 2, [X], ["integer_pow"]),
    ("reciprocal", jnp.reciprocal, [X], ["integer_pow"]),
    ("log10", jnp.log10, [X], ["log", "mul"]),
    ("isclose", jnp.isclose, [X, X],
     ["ne", "ne", "and", "is_finite", "sub", "abs", "abs", "mul", "add", "le", "eq", "and", "or"]),
    ("logaddexp", jnp.logaddexp, [X, X],
     ["max", "sub", "ne", "add", "abs", "neg", "exp", "log1p", "add", "select_n"]),
    ("matmul", jnp.matmul, [np.ones((5, 2, 3), np.float32), np.ones((5, 3, 4), np.float32)],
     ["dot_general"]),
    ("matmul broadcast", jnp.matmul, [np.ones((5, 1, 2, 3), np.float32), np.ones((4, 3, 4), np.float32)],
     ["squeeze", "dot_general", "transpose"]),
    ("einsum diagonal", lambda x: jnp.einsum("ii->i", x), [np.ones((3, 3), np.float32)],
     ["iota", "iota", "eq", "broadcast_in_dim", "select_n", "reduce_sum"]),
    ("einsum transpose", lambda x: jnp.einsum("ij->ji", x), [X], ["transpose"]),
    ("softmax", lambda x: nn.softmax(x), [X],
     ["reduce_max", "max", "broadcast_in_dim", "sub", "exp", "reduce_sum", "broadcast_in_dim", "div"]),
    ("logsumexp", lambda x: sp.logsumexp(x, axis=1), [X],
     ["reduce_max", "max", "is_finite", "broadcast_in_dim", "select_n", "broadcast_in_dim", "sub",
      "exp", "reduce_sum", "sign", "abs", "log", "add"]),
    ("norm", lambda x: jnp.linalg.norm(x), [X], ["mul", "reduce_sum", "sqrt"]),
]


@pytest.mark.parametrize("name,fn,args,expected", PRIMITIVES, ids=[p[0] for p in PRIMITIVES])
def test_primitives_bound_match_jax(name, fn, args, expected):
    # Eagerly, a cast of a concrete array is done at once in NumPy (no equation), so
    # JAX's convert_element_type equations are left out of the comparison.
    skip = ("stop_gradient", "copy", "convert_element_type")
    if name == "mean of ints":  # eagerly, the division by the count is XLA's product
        got = [e.primitive.name for e in minijax.make_jaxpr(fn)(*args).jaxpr.eqns]
    else:
        got = [n for n, _ in _names(fn, *args)]
    assert [n for n in got if n not in skip] == [n for n in expected if n not in skip]


def test_mean_divides_by_the_count_as_xla():
    # JAX's mean is a jit in which the count is a constant, and XLA divides by a
    # constant as a product with its reciprocal; values from JAX 0.10.2
    x = jnp.array([[1, 3, 4, 2], [5, 2, 6, 3], [8, 1, 2, 9]])
    assert repr(jnp.mean(x)) == "Array(3.8333335, dtype=float32)"  # IEEE: 3.8333333
    assert repr(minijax.jit(jnp.mean)(x)) == "Array(3.8333335, dtype=float32)"
    y = np.float32([1.5, 2.25, 7.0, 0.1, 3.3, 9.0])
    assert repr(jnp.mean(y)) == "Array(3.8583336, dtype=float32)"
    assert repr(jnp.mean(y.reshape(2, 3), axis=1)) == "Array([3.5833335, 4.133333 ], dtype=float32)"
    assert str(minijax.make_jaxpr(jnp.mean)(np.ones((2, 3), np.int32))) == (
        "{ lambda ; a:i32[2,3]. let\n"
        "    b:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    c:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b\n"
        "    d:f32[] = div c 6.0:f32[]\n"
        "  in (d,) }")


def test_division_by_a_broadcast_divisor_is_xla_product():
    # x / 3.0 on an array is x * (1/3) in XLA, eagerly and under jit; values from JAX 0.10.2
    pi = jnp.pi
    x = jnp.array([pi / 4, pi / 2, 2 * pi / 3])
    assert repr(x * 180 / pi) == "Array([ 45.     ,  90.     , 119.99999], dtype=float32)"
    assert repr(minijax.jit(lambda x: x * 180 / pi)(x)) == \
        "Array([ 45.     ,  90.     , 119.99999], dtype=float32)"
    a = np.float32([0.3, 1.7, -2.2, 5.0])
    b = np.float32([0.7, 0.9, 1.3, 3.1])  # the same shape: IEEE division, as XLA
    np.testing.assert_array_equal(minijax.jit(lambda a, b: a / b)(a, b), a / b)
    np.testing.assert_array_equal(minijax.jit(lambda a, b: a / b[0])(a, b),
                                  a * (np.float32(1) / b[0]))


def test_dot_general_dimension_numbers_match_jax():
    cases = [  # expected values from JAX 0.10.2
        (jnp.matmul, (5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,)))),
        (jnp.matmul, (2, 3), (6, 3, 4), (((1,), (1,)), ((), ()))),
        (jnp.matmul, (3,), (5, 3, 4), (((0,), (1,)), ((), ()))),
        (jnp.dot, (2, 3, 4), (5, 4, 6), (((2,), (1,)), ((), ()))),
        (lambda a, b: jnp.einsum("ij,ij->i", a, b), (2, 3), (2, 3), (((1,), (1,)), ((0,), (0,)))),
        (lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [1, 0])), (2, 3, 4), (4, 3, 5),
         (((1, 2), (1, 0)), ((), ()))),
    ]
    for fn, sa, sb, dims in cases:
        log = _names(fn, np.ones(sa, np.float32), np.ones(sb, np.float32))
        (params,) = [p for n, p in log if n == "dot_general"]
        got = tuple(tuple(tuple(int(i) for i in d) for d in pair) for pair in params["dimension_numbers"])
        assert got == dims
        assert params["preferred_element_type"] == np.float32
