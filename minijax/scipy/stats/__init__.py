"""Chapter 00 — ``minijax.scipy.stats``: probability distributions, as ``jax.scipy.stats``.

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
composed of ``jax.numpy`` and ``jax.scipy.special`` operations: no new
primitives, so every backend runs them, and ``grad``/``vmap``/``jit`` apply.
The log-densities are the primary functions; ``pdf = exp(logpdf)``. Outside a
distribution's support a log-density is ``-inf``.
"""
from minijax.scipy.stats import (bernoulli, beta, cauchy, chi2, dirichlet,  # noqa: F401
                                 expon, gamma, geom, laplace, logistic,
                                 multivariate_normal, norm, poisson, t, uniform)
from minijax.scipy.stats.descriptive import ModeResult, mode, sem  # noqa: F401,E402
from minijax.scipy.stats import (betabinom, binom, gennorm, gumbel_l, gumbel_r,  # noqa: F401,E402
                                 multinomial, nbinom, pareto, truncnorm, vonmises,
                                 wrapcauchy)
from minijax.scipy.stats.rankdata import rankdata  # noqa: F401,E402
