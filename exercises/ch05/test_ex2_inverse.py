"""Check of exercise 2 of chapter 05: the inverse interpreter, against NumPy's inverse functions."""
import numpy as np
import pytest
from _load import load

import minijax
import minijax.numpy as jnp

ex = load(__file__, "ex2_inverse")

Y = np.linspace(0.5, 2.0, 7).astype(np.float32)


@pytest.mark.parametrize("fun,numpy_inverse,y", [
    (jnp.exp, np.log, Y),
    (lambda x: jnp.exp(jnp.tanh(x)), lambda y: np.arctanh(np.log(y)), Y),
    (lambda x: jnp.log1p(jnp.exp(x)), lambda y: np.log(np.expm1(y)), Y),
    (lambda x: jnp.tanh(jnp.log(jnp.log1p(x))), lambda y: np.expm1(np.exp(np.arctanh(y))), Y / 4),
])
def test_inverse_against_numpy(fun, numpy_inverse, y):
    x = ex.inverse(fun)(y)
    np.testing.assert_allclose(np.asarray(x), numpy_inverse(y), rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(fun(x)), y, rtol=2e-5, atol=1e-6)


def test_the_inverse_is_a_program_of_primitives():
    f = lambda x: jnp.exp(jnp.tanh(x))
    jaxpr = minijax.make_jaxpr(ex.inverse(f))(Y)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["log", "atanh"]
    batched = minijax.vmap(ex.inverse(f))(Y.reshape(7, 1))
    np.testing.assert_allclose(np.asarray(batched)[:, 0], np.arctanh(np.log(Y)), rtol=2e-5)


def test_unsupported_equations_are_reported():
    with pytest.raises(NotImplementedError, match="sin"):
        ex.inverse(jnp.sin)(Y)
