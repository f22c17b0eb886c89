"""Chapter 08 — ``jax.scipy.optimize.minimize``: BFGS behind SciPy's interface."""
from __future__ import annotations

from typing import Any, NamedTuple

import minijax.numpy as jnp
from minijax.scipy.optimize.bfgs import minimize_bfgs

__all__ = ["minimize", "OptimizeResults"]


class OptimizeResults(NamedTuple):
    """``x`` the minimizer, ``fun`` and ``jac`` the value and gradient there,
    ``hess_inv`` BFGS's inverse-Hessian estimate, ``nit`` the iterations."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options=None) -> OptimizeResults:
    """Minimize ``fun(x, *args)`` over the vector ``x`` from ``x0``; only
    ``method="BFGS"`` (``options``: ``maxiter``, ``norm``, ``gtol``,
    ``line_search_maxiter``)."""
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, "
                        f"got {args}")
    if method.lower() != "bfgs":
        raise ValueError(f"Method {method} not recognized")
    r = minimize_bfgs(lambda x: fun(x, *args), x0, **options)
    return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                           status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=r.H_k,
                           nfev=r.nfev, njev=r.ngev, nit=r.k)
