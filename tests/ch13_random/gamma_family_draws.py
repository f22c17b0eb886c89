"""The gamma-family draws the chapter 13 tests compare with JAX, written once for both.

Each draw is a function of ``(jax, key)``, where ``jax`` is the library's top-level
module, so the same code runs under ``import jax`` (to make
``jax_gamma_family_values.py``) and under ``import minijax`` (in the tests).
"""
import numpy as np

F32 = np.float32

#: name -> function(random) -> key
KEYS = {
    "key0": lambda random: random.key(0),
    "key42": lambda random: random.key(42),
    "legacy7": lambda random: random.PRNGKey(7),
}

_ALPHAS = np.array([0.05, 0.5, 1.0, 2.5, 10.0, 100.0], F32)
_GRAD_ALPHAS = np.array([0.3, 1.0, 2.5, 10.0], F32)

DRAWS = {
    "gamma_scalar": lambda jax, k: jax.random.gamma(k, 2.0),
    "gamma_shape": lambda jax, k: jax.random.gamma(k, 0.7, (6,)),
    "gamma_alphas": lambda jax, k: jax.random.gamma(k, _ALPHAS),
    "gamma_broadcast": lambda jax, k: jax.random.gamma(k, np.array([0.3, 3.0], F32), (3, 2)),
    "loggamma": lambda jax, k: jax.random.loggamma(k, np.array([0.001, 0.1, 1.0, 4.0], F32)),
    "beta": lambda jax, k: jax.random.beta(k, np.array([0.5, 2.0, 5.0], F32), 2.0, (2, 3)),
    "dirichlet": lambda jax, k: jax.random.dirichlet(k, np.array([0.5, 1.0, 3.0], F32), (2,)),
    "chisquare": lambda jax, k: jax.random.chisquare(k, np.array([1.0, 3.0, 10.0], F32)),
    "f": lambda jax, k: jax.random.f(k, 3.0, np.array([2.0, 5.0, 10.0], F32)),
    "t": lambda jax, k: jax.random.t(k, np.array([1.0, 3.0, 10.0], F32), (2, 3)),
    "poisson_small": lambda jax, k: jax.random.poisson(k, np.array([0.5, 2.0, 5.0, 9.0], F32)),
    "poisson_large": lambda jax, k: jax.random.poisson(k, np.array([10.0, 25.0, 300.0], F32)),
    "poisson_shape": lambda jax, k: jax.random.poisson(k, 3.0, (2, 4)),
    "poisson_zero": lambda jax, k: jax.random.poisson(k, np.array([0.0, 1.0], F32)),
    "binomial": lambda jax, k: jax.random.binomial(
        k, np.array([5.0, 20.0, 100.0, 1000.0], F32), np.array([0.3, 0.5, 0.2, 0.9], F32)),
    "binomial_shape": lambda jax, k: jax.random.binomial(k, 10.0, 0.4, (2, 3)),
    "multinomial": lambda jax, k: jax.random.multinomial(k, 20.0, np.array([0.2, 0.3, 0.5], F32)),
    "multinomial_batch": lambda jax, k: jax.random.multinomial(
        k, np.array([10.0, 50.0], F32), np.array([0.1, 0.6, 0.3], F32), shape=(2, 3)),
    "generalized_normal": lambda jax, k: jax.random.generalized_normal(k, 1.5, (5,)),
    "ball": lambda jax, k: jax.random.ball(k, 3, 2.0, (2,)),
    "ball_p1": lambda jax, k: jax.random.ball(k, 2, 1.0, (3,)),
    "wald": lambda jax, k: jax.random.wald(k, np.array([0.5, 1.0, 3.0], F32)),
    "vmap_keys": lambda jax, k: jax.vmap(
        lambda kk: jax.random.gamma(kk, np.array([1.0, 2.0], F32)))(jax.random.split(k, 3)),
    "vmap_alpha": lambda jax, k: jax.vmap(lambda a: jax.random.gamma(k, a))(
        np.array([0.5, 2.0, 8.0], F32)),
    "vmap_poisson": lambda jax, k: jax.vmap(lambda kk, lam: jax.random.poisson(kk, lam, (3,)))(
        jax.random.split(k, 2), np.array([2.0, 30.0], F32)),
    "vmap_dirichlet": lambda jax, k: jax.vmap(
        lambda kk: jax.random.dirichlet(kk, np.array([1.0, 2.0, 3.0], F32)))(
            jax.random.split(k, 2)),
    "jacfwd_gamma": lambda jax, k: jax.jacfwd(lambda a: jax.random.gamma(k, a))(
        np.array([0.5, 2.0], F32)),
    "jit_gamma": lambda jax, k: jax.jit(lambda kk, a: jax.random.gamma(kk, a, (2, 2)))(
        k, np.array([1.5, 0.25], F32)),
    "grad_gamma": lambda jax, k: jax.grad(lambda a: jax.random.gamma(k, a).sum())(_GRAD_ALPHAS),
    "grad_loggamma": lambda jax, k: jax.grad(
        lambda a: jax.random.loggamma(k, a).sum())(_GRAD_ALPHAS),
    "grad_beta": lambda jax, k: jax.grad(
        lambda a: jax.random.beta(k, a, 2.0).sum())(np.array([0.5, 3.0], F32)),
}

