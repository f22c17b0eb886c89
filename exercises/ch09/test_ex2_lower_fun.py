"""Check of chapter 09, exercise 2: ``hard_swish`` lowered as the jaxpr of a function."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.backends import cpu
from minijax.backends.plan import LoopNest, make_plan
from minijax.backends.registry import add_fallback_listener, remove_fallback_listener
from _load import load

ex = load(__file__, "ex2_lower_fun")

x = np.linspace(-5, 5, 1001, dtype=np.float32)


def f(x):
    return jnp.exp(ex.hard_swish(x)) - 1.0


def numpy_f(x):
    return np.exp(x * np.clip(x + np.float32(3), 0, 6).astype(np.float32) / np.float32(6)) - 1


@pytest.fixture
def fallbacks():
    seen = []
    listener = lambda backend, name, reason: seen.append(f"{backend}: jit({name}): {reason}")
    add_fallback_listener(listener)
    yield seen
    remove_fallback_listener(listener)


def test_eager_impl_is_given():
    np.testing.assert_allclose(np.asarray(ex.hard_swish(x)),
                               x * np.clip(x + 3, 0, 6) / 6, rtol=1e-6)


def test_compiles_on_the_cpu_without_falling_back(fallbacks):
    out = minijax.jit(f)(x)
    assert not fallbacks, fallbacks
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), numpy_f(x), rtol=1e-5, atol=1e-6)


def test_the_plan_is_one_fused_loop_nest():
    plan = make_plan(minijax.make_jaxpr(f)(x), cpu.CpuTarget())
    assert plan.supported, str(plan)
    assert len(plan.steps) == 1 and isinstance(plan.steps[0], LoopNest), str(plan)
    names = [e.primitive.name for e in plan.steps[0].eqns]
    assert "hard_swish" not in names and "exp" in names and len(names) >= 5, names


def test_dtype_follows_the_input(fallbacks):
    x16 = np.linspace(-5, 5, 41).astype(np.float16)
    out = minijax.jit(ex.hard_swish)(x16)
    assert not fallbacks, fallbacks
    assert out.dtype == np.float16
    want = x16 * np.clip(x16 + np.float16(3), 0, 6).astype(np.float16) / np.float16(6)
    np.testing.assert_allclose(np.asarray(out, np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-3)
