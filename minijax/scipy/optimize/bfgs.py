"""Chapter 08 — BFGS: quasi-Newton minimization with an inverse-Hessian estimate.

Each step moves along ``p = -H g`` (``H`` estimates the inverse Hessian, ``g``
is the gradient) by a line-searched step ``s``; the change of gradient
``y`` then updates ``H`` so that it maps ``y`` back to ``s`` (the secant
condition), keeping it symmetric positive definite:
``H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T`` with ``rho = 1 / (y . s)``.
The loop stops when ``|g| < gtol`` (in the ``norm``), the line search fails,
or after ``maxiter`` steps.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.autodiff import value_and_grad
from minijax.control_flow.loops import while_loop
from minijax.numpy import linalg as jnp_linalg
from minijax.scipy.optimize.line_search import line_search

__all__ = ["minimize_bfgs", "BFGSResults"]


class BFGSResults(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def minimize_bfgs(fun, x0, maxiter: int | None = None, norm=np.inf, gtol: float = 1e-5,
                  line_search_maxiter: int = 10) -> BFGSResults:
    """Minimize ``fun`` (a scalar function of a vector) from ``x0`` by BFGS.
    ``status``: 0 converged, 1 ``maxiter`` reached, ``2 + s`` line search
    failed with status ``s``."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = BFGSResults(converged=jnp_linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0,
                        nfev=1, ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
                        H_k=jnp.eye(d, dtype=x0.dtype),
                        old_old_fval=f_0 + jnp_linalg.norm(g_0) / 2, status=0,
                        line_search_status=0)

    def going(s):
        return ~s.converged & ~s.failed & (s.k < maxiter)

    def step(s):
        p_k = -_dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        s = s._replace(nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
                       line_search_status=ls.status)
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        h_next = (jnp.einsum("ij,jk,lk", w, s.H_k, w, precision=lax.Precision.HIGHEST)
                  + rho_k * s_k[:, None] * s_k[None, :])
        h_next = jnp.where(jnp.isfinite(rho_k), h_next, s.H_k)  # y . s = 0: keep H
        return s._replace(converged=jnp_linalg.norm(ls.g_k, ord=norm) < gtol, k=s.k + 1,
                          x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k, H_k=h_next,
                          old_old_fval=s.f_k)

    state = while_loop(going, step, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)
