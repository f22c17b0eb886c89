"""Chapter 08 — the principal branch of ``loggamma`` for complex arguments.

Lanczos with reflection gives ``log Gamma(z)`` only up to a multiple of
``2 pi i`` left of ``Re z = 1/2``. The principal branch (SciPy's: one cut
along the negative real axis) is found instead by the recurrence
``log Gamma(z) = log Gamma(z + n) - sum_{k<n} log(z + k)``, with ``n`` the steps
that bring ``Re z`` to ``1/2`` or beyond, where Lanczos needs no reflection.
``n`` depends on the data, so the sum is a ``while_loop`` (this chapter's);
this module registers it with chapter 00's ``loggamma``.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.control_flow.loops import while_loop
from minijax.scipy import gamma_functions

__all__ = ["complex_loggamma"]


def complex_loggamma(z):
    bad = gamma_functions._poles_or_nan(z)
    z_safe = jnp.where(bad, jnp.ones_like(z), z)
    n = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(z_safe)).astype(np.int32))

    def going(state):
        k, _ = state
        return jnp.any(k < n)

    def step(state):
        k, total = state
        inside = k < n
        term = jnp.log(jnp.where(inside, z_safe + k.astype(z.dtype), jnp.ones_like(z_safe)))
        return k + 1, total + jnp.where(inside, term, jnp.zeros_like(total))

    _, log_sum = while_loop(going, step, (0, jnp.zeros_like(z_safe)))
    value = gamma_functions.complex_loggamma_lanczos(z_safe + n.astype(z.dtype)) - log_sum
    return jnp.where(bad, jnp.array(complex(np.nan, np.nan), z.dtype), value)


gamma_functions._COMPLEX_LOGGAMMA.append(complex_loggamma)
