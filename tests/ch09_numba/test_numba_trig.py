"""float32 sin, cos and tan of the Numba backend (``backends/cpu/trig_helpers.py``).

Checked like ``test_numba_math.py``: over a sweep of float32 inputs (every
binade, the huge ones up to 3.4e38 included), the distance in ulps to NumPy's
float64 result rounded to float32; the special values bit for bit; huge
arguments, where only an exact (Payne–Hanek) argument reduction gets the
right numbers; and that the fused loop calls our helpers, not ``np.sin``.
"""
import numpy as np
import pytest

from minijax import lax
from tests.ch09_numba.conftest import (cpu_jit, is_fallback, outputs_by_name, padded,
                                      rounded, ulps)

F32 = np.float32
TINY, MAX = np.finfo(F32).smallest_subnormal, np.finfo(F32).max
NAMES = ["sin", "cos", "tan"]
REFERENCE = {"sin": np.sin, "cos": np.cos, "tan": np.tan}


def _near_multiples_of_half_pi() -> np.ndarray:
    """The float32s on either side of k * pi/2 for k up to 2**100: where the
    reduced argument r is tiny and every lost bit of pi shows."""
    k = np.concatenate([np.arange(1, 100), np.geomspace(100, 2.0 ** 100, 500).round()])
    near = (k * (np.pi / 2)).astype(F32)
    return np.concatenate([near, np.nextafter(near, F32(0)), np.nextafter(near, F32(np.inf))])


def _sweep() -> np.ndarray:
    """~64000 float32s: every 71597th bit pattern (all binades, both signs),
    dense [-12, 12], huge values, and the float32s nearest multiples of pi/2."""
    bits = np.arange(0, 2 ** 32, 71597, dtype=np.uint64).astype(np.uint32)
    huge = np.random.default_rng(0).uniform(-38, 38.5, 1500)
    huge = (np.sign(huge) * 10.0 ** np.abs(huge)).astype(F32)
    return np.concatenate([bits.view(F32), np.linspace(-12, 12, 1001, dtype=F32), huge,
                           _near_multiples_of_half_pi(), [MAX, -MAX, F32(1e38), F32(3.4e38)]])


X = _sweep()
assert len(X) < 2 ** 16  # the kernel stays serial, and compiles faster


def _all_functions(x):
    return lax.sin(x), lax.cos(x), lax.tan(x)


_JITTED = cpu_jit(_all_functions)


def at(x) -> dict:
    """The three functions at the few points ``x`` (padded to X's shape: one compile)."""
    return outputs_by_name(_JITTED, NAMES, padded(x, len(X)), keep=len(x))


@pytest.fixture(scope="module")
def results():
    """The three functions on X, from ONE compiled kernel."""
    assert not is_fallback(_JITTED, X)
    return outputs_by_name(_JITTED, NAMES, X)


def reference(name: str, x: np.ndarray) -> np.ndarray:
    return rounded(REFERENCE[name], x)



@pytest.mark.parametrize("name", NAMES)
def test_within_one_ulp_and_nearly_always_exact(results, name):
    """float64 reduction and polynomial, rounded once: NumPy's float64 result
    rounded to float32, but for a vanishing fraction of inputs (1 ulp then)."""
    err = ulps(results[name], reference(name, X))
    worst = int(np.argmax(err))
    assert err.max() <= 1, (X[worst], results[name][worst])
    assert np.mean(err == 0) >= 0.9999


@pytest.mark.parametrize("name", NAMES)
def test_huge_arguments_are_reduced_exactly(results, name):
    """Near multiples of pi/2 and up to 3.4e38: a reduction with a float64 pi
    would be wrong in every digit here; ours gives the correctly rounded result."""
    huge = np.abs(X) > 1e4
    assert huge.sum() > 2000
    np.testing.assert_array_equal(results[name][huge], reference(name, X[huge]))


def test_huge_arguments_give_jax_values():
    x = np.array([MAX, 1e38, 3.4e38, -1e20, 2.0 ** 100, 16777216.0, 1e5], F32)
    # expected values from JAX 0.10.2
    expected = {
        "sin": [-0.5218765139579773, 0.9891644716262817, -0.24408487975597382, -0.6565766930580139,
                -0.872183620929718, -0.7795636653900146, 0.03574879840016365],
        "cos": [0.8530210256576538, 0.14681167900562286, 0.9697538614273071, 0.7542592883110046,
                0.4891786575317383, 0.6263229846954346, -0.9993607997894287],
        "tan": [-0.6117979288101196, 6.737641334533691, -0.25169774889945984, -0.8704919815063477,
                -1.7829551696777344, -1.2446671724319458, -0.03577166423201561],
    }
    out = at(x)
    for name in NAMES:
        np.testing.assert_array_equal(out[name], np.array(expected[name], F32))


SPECIAL_VALUES = {  # name -> [(x, f(x))], compared bit for bit (the sign of zero too)
    "sin": [(0.0, 0.0), (-0.0, -0.0), (np.inf, np.nan), (-np.inf, np.nan), (np.nan, np.nan),
            (TINY, TINY), (-TINY, -TINY), (1e-20, 1e-20), (-3e-8, -3e-8), (2.0 ** -12, 2.0 ** -12)],
    "cos": [(0.0, 1.0), (-0.0, 1.0), (np.inf, np.nan), (-np.inf, np.nan), (np.nan, np.nan),
            (TINY, 1.0), (-1e-5, 1.0)],
    "tan": [(0.0, 0.0), (-0.0, -0.0), (np.inf, np.nan), (-np.inf, np.nan), (np.nan, np.nan),
            (TINY, TINY), (-TINY, -TINY), (1e-20, 1e-20), (-3e-8, -3e-8)],
}


@pytest.mark.parametrize("name", NAMES)
def test_special_values_exactly(name):
    xs, expected = (np.array(v, F32) for v in zip(*SPECIAL_VALUES[name]))
    out = at(xs)[name]
    np.testing.assert_array_equal(out, expected)  # NaN == NaN here
    real = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(out[real]), np.signbit(expected[real]))


def test_odd_and_even():
    """sin and tan are odd, cos even, bit for bit (the reduction works on |x|)."""
    x = X[np.isfinite(X)]
    pos, neg = at(np.abs(x)[:20000]), at(-np.abs(x)[:20000])
    np.testing.assert_array_equal(neg["sin"], -pos["sin"])
    np.testing.assert_array_equal(neg["tan"], -pos["tan"])
    np.testing.assert_array_equal(neg["cos"], pos["cos"])


def test_the_digits_of_two_over_pi():
    """The reduction's constant: 2/pi's bits after 26 zero bits (of weight 2**25 .. 2**0)."""
    from minijax.backends.cpu.trig_helpers import two_over_pi_words
    bits = 0
    for word in two_over_pi_words():
        bits = (bits << 64) | word
    # 2/pi in hexadecimal: 0.A2F9836E 4E441529 FC2757D1 F534DDC0 DB629599 3C439041 FE5163AB...
    expected = 0xA2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163AB
    assert bits >> (5 * 64 - 26 - 224) == expected


def test_kernel_calls_the_helpers_not_libm():
    """The point of the module: the loop calls the small branch-free helpers
    (which LLVM inlines), not ``np.sin`` (a libm call that keeps it scalar)."""
    lowered = _JITTED.lower(X)
    source = lowered.as_text()
    assert "np.sin(" not in source and "np.cos(" not in source and "np.tan(" not in source
    assert "_sin_end(" in source and "_rem_pio2_32(" in source
    ir = lowered.compile().as_text()
    calls = {line.split("@")[1].split("(")[0] for line in ir.splitlines()
             if " call " in line and "@" in line}
    assert not [c for c in calls if "kernel" in c], calls  # every helper inlined
    assert not calls & {"sin", "sinf", "cos", "cosf", "tan", "tanf"}
    assert any(f"<{n} x double>" in ir for n in (2, 4, 8))


def test_other_dtypes_keep_the_previous_rule():
    """Only float32 outputs use the helpers (minijax is 32-bit: a float64
    output only exists in a hand-made context, as here)."""
    from types import SimpleNamespace
    from minijax import lax
    from minijax.backends.cpu.rules import LOWERINGS
    for name in NAMES:
        f64 = np.dtype(np.float64)
        ctx = SimpleNamespace(out_dtype=f64, in_dtype=f64, helper=lambda h: h, wrap=lambda e: e,
                              is_complex=False)
        assert LOWERINGS[getattr(lax, f"{name}_p")].fn(ctx, "x") == f"np.{name}(x)"
