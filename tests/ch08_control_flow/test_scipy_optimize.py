"""``minijax.scipy.optimize.minimize`` (BFGS) against SciPy and JAX 0.10.2."""
import numpy as np
import pytest
import scipy.optimize

import minijax
import minijax.numpy as jnp
from minijax.scipy.optimize import minimize
from minijax.scipy.optimize.line_search import line_search


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def test_bfgs_finds_the_minimum_of_a_quadratic():
    a = jnp.array([1.0, 2.0])
    r = minimize(lambda x, a: jnp.sum((x - a) ** 2), jnp.zeros(2), (a,), method="BFGS")
    np.testing.assert_allclose(r.x, [1.0, 2.0], atol=1e-6)
    assert (int(r.nit), int(r.nfev), int(r.status)) == (2, 3, 0)  # from JAX 0.10.2
    assert bool(r.success)


def test_bfgs_on_rosenbrock_reaches_its_minimum():
    r = minimize(rosen, jnp.array([0.5, 0.5, 0.8]), method="BFGS")
    np.testing.assert_allclose(r.x, np.ones(3), atol=2e-3)  # Rosenbrock's minimum
    # BFGS's inverse-Hessian estimate, against the inverse of the true Hessian there
    np.testing.assert_allclose(r.hess_inv @ np.ones(3), np.linalg.solve(
        np.asarray(minijax.hessian(rosen)(r.x)), np.ones(3)), rtol=0.2, atol=0.2)
    want = scipy.optimize.rosen(np.asarray(r.x, np.float64))
    assert abs(float(r.fun) - want) < 1e-5


@pytest.mark.slow  # compiles the nested while_loops
def test_bfgs_runs_under_jit():
    jitted = minijax.jit(lambda x: minimize(rosen, x, method="BFGS").x)(jnp.array([0.5, 0.5]))
    np.testing.assert_allclose(jitted, [0.99999994, 0.9999999], atol=1e-6)  # from JAX 0.10.2


def test_bfgs_reports_running_out_of_line_search_as_jax():
    r = minimize(rosen, jnp.array([-1.2, 1.0, 0.5]), method="BFGS")
    # from JAX 0.10.2: status 3 (line search failed with status 1), after 4 steps
    assert (int(r.nit), int(r.nfev), int(r.njev), int(r.status)) == (4, 13, 13, 3)
    np.testing.assert_allclose(r.x, [-0.7048668, 0.5241802, 0.27636728], atol=1e-5)
    assert not bool(r.success)


def test_line_search_satisfies_the_wolfe_conditions():
    f = lambda x: jnp.sum(x ** 4) + jnp.sum(x ** 2)  # noqa: E731
    x, p = jnp.array([1.0, -2.0]), jnp.array([-1.0, 2.0])
    res = line_search(f, x, p)
    a = float(res.a_k)
    g0 = np.dot(np.asarray(minijax.grad(f)(x)), p)
    assert float(f(x + a * p)) <= float(f(x)) + 1e-4 * a * g0
    assert abs(np.dot(np.asarray(minijax.grad(f)(x + a * p)), p)) <= 0.9 * abs(g0)
    assert int(res.status) == 0


def test_minimize_errors():
    with pytest.raises(ValueError, match="not recognized"):
        minimize(rosen, jnp.zeros(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match="must be a tuple"):
        minimize(rosen, jnp.zeros(2), args=[1], method="BFGS")
