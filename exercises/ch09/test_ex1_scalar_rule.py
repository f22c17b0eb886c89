"""Check of chapter 09, exercise 1: the CPU lowering rule of ``softsign``."""
import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.backends import cpu
from minijax.backends.plan import LoopNest, make_plan
from minijax.backends.registry import add_fallback_listener, remove_fallback_listener
from _load import load

ex = load(__file__, "ex1_scalar_rule")

x = np.linspace(-4, 4, 1001, dtype=np.float32)


def f(x):
    return jnp.sin(ex.softsign(x * 2.0))


def numpy_f(x):
    y = x * np.float32(2)
    return np.sin(y / (np.float32(1) + np.abs(y)))


@pytest.fixture
def fallbacks():
    """The fallbacks to the interpreter reported while a test runs."""
    seen = []
    listener = lambda backend, name, reason: seen.append(f"{backend}: jit({name}): {reason}")
    add_fallback_listener(listener)
    yield seen
    remove_fallback_listener(listener)


def test_compiles_on_the_cpu_without_falling_back(fallbacks):
    out = minijax.jit(f)(x)
    assert not fallbacks, fallbacks
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), numpy_f(x), rtol=1e-6, atol=1e-7)


def test_the_kernel_source_has_the_rule_in_the_fused_loop(fallbacks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        src = minijax.jit(f, backend="cpu").lower(x).as_text()
    assert not fallbacks, fallbacks
    line = next(l for l in src.splitlines() if "= softsign" in l and "_i = " in l)
    assert "np.float32(1" in line, f"constants stay float32: {line}"
    plan = make_plan(minijax.make_jaxpr(f)(x), cpu.CpuTarget())
    assert len(plan.steps) == 1 and isinstance(plan.steps[0], LoopNest), str(plan)
    assert [e.primitive.name for e in plan.steps[0].eqns] == ["mul", "softsign", "sin"]


def test_a_2d_array_and_a_scalar(fallbacks):
    a = x[:1000].reshape(40, 25)
    got = minijax.jit(lambda a, s: ex.softsign(a) + ex.softsign(s))(a, np.float32(3.0))
    assert not fallbacks, fallbacks
    want = a / (1 + np.abs(a)) + np.float32(3 / 4)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
