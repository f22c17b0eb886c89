"""The float32 math of the Numba backend (``backends/cpu/math_helpers.py``).

Each function is checked over a sweep of float32 inputs (a stride through
all bit patterns, so every binade, subnormals included, plus the domain
edges): the distance in ulps to NumPy's float64 result rounded to float32,
and the special values exactly (±0 with its sign, ±inf, NaN, subnormals).

exp, expm1, log, log1p, tanh, logistic, erf and erf_inv follow XLA's float32
algorithms (:mod:`minijax.lax.xla_math32`), so they are a few ulps off the
correctly rounded result, and flush subnormals to zero as XLA does
(``exp(-88)`` is 0); JAX's own bits for them are checked in
``test_xla_float32_math.py``, and here ``random.normal``'s. The others
(exp2, sinh, cosh, the inverse hyperbolics) compute in float64 and round once.
Last, the property the module exists for: the fused loop vectorizes.
"""
import warnings

import numpy as np
import pytest
import scipy.special

import minijax
import minijax.numpy as jnp
from minijax import lax, random
from tests.ch09_numba.conftest import (cpu_jit, is_fallback, outputs_by_name, padded,
                                      rounded, ulps)

F32 = np.float32
TINY, MAX = np.finfo(F32).smallest_subnormal, np.finfo(F32).max
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 1e-39, -1e-39,
                    np.finfo(F32).tiny, MAX, -MAX, 1.0, -1.0, np.nextafter(F32(1), F32(0)),
                    np.nextafter(F32(-1), F32(0)), np.nextafter(F32(-1), F32(-2)), 2.0 ** -25,
                    -(2.0 ** -25), 3e-8, -3e-8, 88.72, 88.73, -87.3, -103.9, -104.5, 9.9, -10.1,
                    1e-4, -1e-4, 0.5, -0.5], F32)


def _sweep() -> np.ndarray:
    """~64000 float32s: every 71597th bit pattern, dense [-12, 12] and [-1, 1], SPECIAL.
    (Fewer than 2**16 elements: the kernel stays serial, and compiles faster.)"""
    bits = np.arange(0, 2 ** 32, 71597, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([bits.view(F32), np.linspace(-12, 12, 2001, dtype=F32),
                           np.linspace(-1, 1, 2001, dtype=F32), SPECIAL])


X = _sweep()
NAMES = ["exp", "expm1", "log", "log1p", "tanh", "logistic", "exp2", "sinh", "cosh", "atanh",
         "asinh", "acosh", "erf", "erf_inv"]
REFERENCE = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
             "tanh": np.tanh, "logistic": scipy.special.expit, "exp2": np.exp2, "sinh": np.sinh,
             "cosh": np.cosh, "atanh": np.arctanh, "asinh": np.arcsinh, "acosh": np.arccosh,
             "erf": scipy.special.erf, "erf_inv": scipy.special.erfinv}


def _all_functions(x):
    return tuple(getattr(lax, name)(x) for name in NAMES)


_JITTED = cpu_jit(_all_functions)


def at(x, name: str) -> np.ndarray:
    """``name`` at the few points ``x`` (padded to X's shape: one shape, one compile)."""
    return outputs_by_name(_JITTED, NAMES, padded(x, len(X)), keep=len(x))[name]


@pytest.fixture(scope="module")
def results():
    """Every function on X, from ONE compiled kernel (one Numba compile)."""
    assert not is_fallback(_JITTED, X)
    return outputs_by_name(_JITTED, NAMES, X)


def reference(name: str, x: np.ndarray) -> np.ndarray:
    return rounded(REFERENCE[name], x)



#: XLA's float32 algorithms: the largest error in ulps against NumPy's float64
#: result rounded to float32, where input and result are normal floats (XLA
#: flushes subnormals to zero). exp is off by up to 5 ulps next to its overflow
#: threshold (2**127 times a polynomial used outside its interval).
XLA_ULP_BOUND = {"exp": 5, "expm1": 5, "log": 1, "log1p": 2, "tanh": 4, "logistic": 2,
                 "erf": 4}
#: The others compute in float64 and round once: correctly rounded but for a
#: vanishing fraction of inputs (none in this sweep), hence the bound of 1.
ULP_BOUND = {name: 1 for name in NAMES if name != "erf_inv" and name not in XLA_ULP_BOUND}


@pytest.mark.parametrize("name", list(ULP_BOUND))
def test_error_in_ulps_over_a_sweep_of_float32(results, name):
    err = ulps(results[name], reference(name, X))
    worst = int(np.argmax(err))
    assert err.max() <= ULP_BOUND[name], (X[worst], results[name][worst])


@pytest.mark.parametrize("name", list(XLA_ULP_BOUND))
def test_xla_algorithms_error_in_ulps(results, name):
    ref = reference(name, X)
    normal = (np.abs(X) >= np.finfo(F32).tiny) & ~(np.abs(ref) < np.finfo(F32).tiny)
    err = ulps(results[name], ref)[normal]
    worst = int(np.argmax(err))
    assert err.max() <= XLA_ULP_BOUND[name], (X[normal][worst], results[name][normal][worst])
    assert np.mean(err == 0) > 0.6  # most results are still correctly rounded


@pytest.mark.parametrize("name", list(XLA_ULP_BOUND) + ["erf_inv"])
def test_compiled_equals_interpreted_bit_for_bit(results, name):
    """The Numba helper (hardware FMA) and the eager impl (NumPy, FMA emulated)
    run the same recipe: the same bits on every input of the sweep."""
    err = ulps(results[name], np.asarray(getattr(lax, name)(X)))  # (NaN equals NaN)
    assert err.max() == 0, X[np.argmax(err)]


def test_erf_inv_error_is_that_of_gilles_polynomials(results):
    """erf_inv follows XLA's float32 algorithm, not a correctly rounded one:
    a few ulps in the middle, up to ~64 ulps in the far tails (a subnormal x,
    which XLA flushes to zero, left out)."""
    err, a = ulps(results["erf_inv"], reference("erf_inv", X)), np.abs(X)
    normal = a >= np.finfo(F32).tiny
    assert err[normal & (a < 0.99)].max() <= 4
    assert err[normal & (a <= 1)].max() <= 64
    assert (results["erf_inv"][a < np.finfo(F32).tiny] == 0).all()


SPECIAL_VALUES = {  # name -> [(x, f(x))], compared bit for bit (the sign of zero too)
    # XLA's algorithms (values from JAX 0.10.2): subnormals flushed to zero
    "exp": [(-np.inf, 0.0), (np.inf, np.inf), (np.nan, np.nan), (0.0, 1.0), (-0.0, 1.0),
            (89.0, np.inf), (-104.0, 0.0), (TINY, 1.0), (-87.5, 0.0)],
    "expm1": [(-np.inf, -1.0), (np.inf, np.inf), (np.nan, np.nan), (0.0, 0.0), (-0.0, -0.0),
              (-TINY, -TINY), (89.0, np.inf), (-200.0, -1.0)],
    "log": [(0.0, -np.inf), (-0.0, -np.inf), (-1.0, np.nan), (-np.inf, np.nan), (np.inf, np.inf),
            (np.nan, np.nan), (1.0, 0.0), (TINY, -np.inf)],
    "log1p": [(-1.0, -np.inf), (-2.0, np.nan), (np.inf, np.inf), (np.nan, np.nan), (0.0, 0.0),
              (-0.0, -0.0), (TINY, 0.0), (-TINY, -0.0)],
    "tanh": [(np.inf, 1.0), (-np.inf, -1.0), (np.nan, np.nan), (0.0, 0.0), (-0.0, -0.0),
             (20.0, 1.0), (-TINY, -TINY)],
    "logistic": [(np.inf, 1.0), (-np.inf, 0.0), (np.nan, np.nan), (0.0, 0.5), (200.0, 1.0),
                 (-200.0, 0.0), (-88.0, 0.0)],
    "exp2": [(-np.inf, 0.0), (np.inf, np.inf), (np.nan, np.nan), (3.0, 8.0), (-149.0, TINY),
             (-150.5, 0.0), (128.0, np.inf)],
    "sinh": [(np.inf, np.inf), (-np.inf, -np.inf), (np.nan, np.nan), (-0.0, -0.0), (90.0, np.inf),
             (-TINY, -TINY)],
    "cosh": [(np.inf, np.inf), (-np.inf, np.inf), (np.nan, np.nan), (-0.0, 1.0), (-90.0, np.inf)],
    "atanh": [(1.0, np.inf), (-1.0, -np.inf), (1.5, np.nan), (np.nan, np.nan), (-0.0, -0.0),
              (-np.inf, np.nan)],
    "asinh": [(np.inf, np.inf), (-np.inf, -np.inf), (np.nan, np.nan), (-0.0, -0.0),
              (MAX, 89.415985)],
    "acosh": [(1.0, 0.0), (np.inf, np.inf), (0.5, np.nan), (-np.inf, np.nan), (np.nan, np.nan)],
    "erf": [(np.inf, 1.0), (-np.inf, -1.0), (np.nan, np.nan), (-0.0, -0.0), (4.0, 1.0),
            (-TINY, -0.0), (0.5, 0.5204999)],
    "erf_inv": [(1.0, np.inf), (-1.0, -np.inf), (1.5, np.nan), (-np.inf, np.nan), (np.nan, np.nan),
                (0.0, 0.0), (-0.0, -0.0)],
}


@pytest.mark.parametrize("name", NAMES)
def test_special_values_exactly(name):
    xs, expected = (np.array(v, F32) for v in zip(*SPECIAL_VALUES[name]))
    out = at(xs, name)
    np.testing.assert_array_equal(out, expected)  # NaN == NaN here
    real = ~np.isnan(expected)  # (a NaN's sign bit means nothing)
    np.testing.assert_array_equal(np.signbit(out[real]), np.signbit(expected[real]))


def test_erf_inv_gives_jax_bits():
    x = np.array([-0.99999994, -0.999, -0.9, -0.5, -1e-20, 0.0, 1e-7, 0.1, 0.25, 0.75, 0.99,
                  0.9999, 0.99999994], F32)
    # expected values from JAX 0.10.2
    expected = np.array([-3.8325066566467285, -2.3267576694488525, -1.163087010383606,
                         -0.4769362807273865, -8.862267680051088e-21, 0.0, 8.862268430220865e-08,
                         0.08885598927736282, 0.22531206905841827, 0.8134198188781738,
                         1.821386694908142, 2.7510268688201904, 3.8325066566467285], F32)
    np.testing.assert_array_equal(at(x, "erf_inv"), expected)


# expected values from JAX 0.10.2: the bits of jax.random.normal(jax.random.key(k), (128,))
JAX_NORMAL_BITS = {
    0: (
        "3fcfb2bd40019df0bede0017bda102223e34512cbf78dad7befd97cc3efd1f31"
        "3f2a12ccbf733dea400b7d6dbffa42603eb796953e21950c3fa377833fc156e9"
        "3f787ce93f197fea3cca5922bff54f20bfedff273fdd33d33d414aab3f506ab1"
        "3e067ac33e90d1543f9f2e193f30b632bf4cfd21bf3db185bfc4f8573e9afa6d"
        "bca9b4b23de80320be61f34e3d906e223f5a7198bf525fc5bc6f7072be1a12c1"
        "bf666f43bf4252973eaa8b723f4f2af23d2ede63bf13e243bed42c19bff87afd"
        "3fa876913f4118063e259720bd0ead1fbfaa52713ec988993ef716cd3f4dc7c6"
        "bf223b443f84f5f5bf3dd8eebedc238fbe6680babf0508e8bfd5a8e33f2ce406"
        "3e68d832bf970ba3bf7a0b363f993600bf575dd73f28e92a3f88b4bf3ea17ee6"
        "3ee015803f95ff643f685fad3f9c7ef3bf0be08f3f5b36c3bc0282e23ef2669d"
        "bf8df4db40291c493f63bb453f7ec5873e82a9353dffebc03f95039f3e459844"
        "be43944fbedf8958bf92b6a53e4a58503f9596d5bf5f970b3f61be35beb02e9f"
        "be15a846bf69dc8e3faf5f57bf47b3293ebac90a3f79e453bbeb08fe3e579318"
        "3e42ed513ec40d21bfa20045bfbdff54bdea95d93f8d467d3e4b3af03e5b05cf"
        "bf2918cfbf3a2b183ecf12b93e42358bbf1a69f73f71ef603f8abc82c00396b6"
        "bf36bd023f17c6373f867fd6bfbb78cb3f28f681be9a7b473e0853b2beaa667f"
    ),
    42: (
        "bce7df153eef2be83e9766613e1d3b24bdfe04eb3e5e211abfb86eb93f418009"
        "3f057b1a3f6900edbec4dcbd3f91e5bb3fb90f863f8a5b26bd6693b63f68db2f"
        "3f0eae3d3e605087bfb968bc3f43a1cbbe775817bf96f5f5bff82e7a3eb66851"
        "be76e8133f9b894cbfb296a3bf08e69d3e8a95fd3fc522ca3f318a70bdd4bd57"
        "bf0097313f2d5be63de3055cbeb20c383ee8e9073e694e72bf0e9a84bf620d04"
        "be5a9fe93e9db3a8be3fb6593dbfc3ed3ebf6d5cbf8752bd3ee4b20f3f9afb54"
        "3ede260ebf342a2b3e34a056be4b78fabe5f574e3fa483203ec02e13be3659d7"
        "be758bc1bed1d34b3ebbf6dc3f980cfebf84ed51bf4b57b33f877ed5beb96b86"
        "bd61c35cc0035d903fc02138bfbb33913da52969bf53550cbdf1cf36bf6701ad"
        "3f1057d2bf85b36fbfab02bd3fd183d83d2e0008bf9e9dd3be3f27573f1c8d62"
        "be827d013faa6b2c3f86d1033f7e2a5bbffc0b4fbf06e4b2c0146f163f8c3a5a"
        "4019ebd43f3bfc103f3acdadbf6701d2bf0d58ed3ee18709bee10f1c3f9e46eb"
        "be32d3653e3070023e90903bbf8022b33d9d68983f4f22d3be5914d0c001aa39"
        "3f0ff7763f5edb09bce49527bfbe150ebf3336dbbf86811b3ee09a143f33b8ea"
        "bec8a9a93f88e2eb3e0c8c02bee6ae0b3e6e1e113eb3d0883f196e14bebe1f00"
        "bea921ebbe442cedbe15f2c73ef7d48f3faea872c00946e33ee1912e3f20adb1"
    ),
}


@pytest.mark.parametrize("seed", sorted(JAX_NORMAL_BITS))
def test_random_normal_matches_jax_bits(seed):
    """erf_inv(u) with w = -log1p(-u*u), both XLA's algorithms: every sample
    is JAX's, bit for bit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        f = minijax.jit(lambda k: random.normal(k, (128,)), backend="cpu")
    out = np.asarray(f(random.key(seed)))
    big_endian = np.frombuffer(bytes.fromhex(JAX_NORMAL_BITS[seed]), ">u4")
    expected = big_endian.astype(np.uint32).view(F32)
    np.testing.assert_array_equal(out.view(np.uint32), expected.view(np.uint32))


def _selu(x):
    return 1.0507 * jnp.where(x > 0, x, 1.6733 * (jnp.exp(x) - 1))


def test_fused_transcendental_loop_vectorizes():
    """The point of the module: no libm call is left in the loop, so LLVM
    turns it into SIMD code (vectors of 8 or 16 floats, or 4-8 doubles)."""
    x = np.linspace(-3, 3, 1000, dtype=F32)
    ir = cpu_jit(_selu).lower(x).compile().as_text()
    assert any(f"<{n} x float>" in ir for n in (4, 8, 16))
    assert "@expf" not in ir and "@exp(" not in ir


def test_every_helper_is_inlined(results):
    """A helper LLVM does not inline stays a call, and its loop scalar: the
    kernel of all the functions above calls no helper and no libm function
    (but sqrt, which LLVM vectorizes itself)."""
    ir = _JITTED.lower(X).compile().as_text()
    calls = {line.split("@")[1].split("(")[0] for line in ir.splitlines()
             if " call " in line and "@" in line}
    assert not [c for c in calls if "kernel" in c], calls  # a helper of the kernel module
    assert not calls & {"exp", "expf", "log", "logf", "log1p", "log1pf", "tanhf", "erf", "erff"}
    assert any(f"<{n} x double>" in ir for n in (4, 8))
