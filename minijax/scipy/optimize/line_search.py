"""Chapter 08 — the line search of BFGS: a step length satisfying the strong Wolfe
conditions (Nocedal & Wright, *Numerical Optimization*, algorithms 3.5 and 3.6).

Along the direction ``p`` from ``x``, ``phi(a) = f(x + a p)``. A good step
``a`` decreases ``phi`` enough (``phi(a) <= phi(0) + c1 a phi'(0)``: Wolfe
one, "sufficient decrease") and flattens it enough
(``|phi'(a)| <= c2 |phi'(0)|``: Wolfe two, "curvature"). The search tries
growing steps ``a_1, 2 a_1, 4 a_1, ...``; once a trial brackets a good step,
``_zoom`` narrows the bracket ``[a_lo, a_hi]`` by cubic, then quadratic,
then bisection interpolation. Both are ``while_loop``s whose state is a
NamedTuple, updated with ``where`` (every branch is computed, one is kept).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.autodiff import value_and_grad
from minijax.control_flow.loops import while_loop
from minijax.numpy.util import promote_dtypes_inexact

__all__ = ["line_search", "LineSearchResults"]


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through ``(a, fa)`` with slope ``fpa`` at ``a``,
    ``(b, fb)`` and ``(c, fc)``."""
    dtype = jnp.result_type(a, fa, fpa, b, fb, c, fc)
    C = fpa
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    d2 = jnp.array([fb - fa - C * db, fc - fa - C * dc], dtype=dtype)
    A, B = _dot(d1, d2) / denom
    radical = B * B - 3.0 * A * C
    return a + (-B + jnp.sqrt(radical)) / (3.0 * A)


def _quadmin(a, fa, fpa, b, fb):
    """The minimizer of the parabola through ``(a, fa)`` with slope ``fpa``, and ``(b, fb)``."""
    db = b - a
    B = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2.0 * B)


def _replace_where(condition, state, **new):
    """``state`` with the fields in ``new`` replaced where ``condition`` holds."""
    return state._replace(**{k: jnp.where(condition, v, getattr(state, k))
                             for k, v in new.items()})


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any  # the previous a_hi or a_lo: the third point of the cubic
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(phi_and_grad, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi,
          g_0, pass_through):
    """Narrow ``[a_lo, a_hi]`` (``phi(a_lo)`` the lower end) to a strong-Wolfe step.
    ``pass_through``: skip the loop (this zoom's result is not used)."""
    state = _ZoomState(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo,
                       dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
                       a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
                       a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0,
                       nfev=0, ngev=0)
    delta1, delta2 = 0.2, 0.1  # how far inside the bracket an interpolated step must be

    def body(s):
        width = s.a_hi - s.a_lo
        left, right = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        cubic_margin, quad_margin = delta1 * width, delta2 * width
        threshold = jnp.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        s = s._replace(failed=s.failed | (width <= threshold))
        a_cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > left + cubic_margin) & (a_cubic < right - cubic_margin)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > left + quad_margin) & (a_quad < right - quad_margin)
        use_bisection = ~use_cubic & ~use_quad
        a_j = jnp.where(use_cubic, a_cubic, s.a_rec)
        a_j = jnp.where(use_quad, a_quad, a_j)
        a_j = jnp.where(use_bisection, (s.a_lo + s.a_hi) / 2.0, a_j)
        phi_j, dphi_j, g_j = phi_and_grad(a_j)
        phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        s = _replace_where(hi_to_j, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                           a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _replace_where(star_to_j, s._replace(done=star_to_j | s.done), a_star=a_j,
                           phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = _replace_where(hi_to_lo, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo,
                           a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _replace_where(lo_to_j & ~hi_to_lo, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _replace_where(lo_to_j, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    return while_loop(lambda s: ~s.done & ~pass_through & ~s.failed, body, state)


class _SearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any  # the previous trial step, its phi and phi'
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """``a_k``: the step; ``f_k``, ``g_k``: ``f`` and its gradient there;
    ``status``: 0 found, 1 zoom failed, 3 out of iterations."""
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step length along ``pk`` from ``xk`` meeting the strong Wolfe conditions."""
    xk, pk = promote_dtypes_inexact(jnp.asarray(xk), jnp.asarray(pk))

    def phi_and_grad(t):
        t = jnp.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    if old_fval is None or gfk is None:
        phi_0, dphi_0, gfk = phi_and_grad(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:  # the first trial from the last decrease (N&W eq. 3.60)
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start = 1

    def wolfe_one(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    fresh = old_fval is None or gfk is None
    state = _SearchState(done=jnp.array(False), failed=jnp.array(False), i=1, a_i1=0.0,
                         phi_i1=phi_0, dphi_i1=dphi_0, nfev=int(fresh), ngev=int(fresh),
                         a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(s):
        a_i = jnp.where(s.i == 1, start, s.a_i1 * 2.0)
        phi_i, dphi_i, g_i = phi_and_grad(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        # a good step lies between the last two trials: zoom with either end as "lo"
        zoom_up = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        found = wolfe_two(dphi_i) & ~zoom_up
        zoom_down = (dphi_i >= 0.0) & ~zoom_up & ~found
        z1 = _zoom(phi_and_grad, wolfe_one, wolfe_two, s.a_i1, s.phi_i1, s.dphi_i1, a_i, phi_i,
                   dphi_i, gfk, ~zoom_up)
        s = s._replace(nfev=s.nfev + z1.nfev, ngev=s.ngev + z1.ngev)
        z2 = _zoom(phi_and_grad, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, s.a_i1, s.phi_i1,
                   s.dphi_i1, gfk, ~zoom_down)
        s = s._replace(nfev=s.nfev + z2.nfev, ngev=s.ngev + z2.ngev)
        s = _replace_where(zoom_up, s._replace(done=zoom_up | s.done,
                                               failed=(zoom_up & z1.failed) | s.failed),
                           a_star=z1.a_star, phi_star=z1.phi_star, dphi_star=z1.dphi_star,
                           g_star=z1.g_star)
        s = _replace_where(found, s._replace(done=found | s.done), a_star=a_i, phi_star=phi_i,
                           dphi_star=dphi_i, g_star=g_i)
        s = _replace_where(zoom_down, s._replace(done=zoom_down | s.done,
                                                 failed=(zoom_down & z2.failed) | s.failed),
                           a_star=z2.a_star, phi_star=z2.phi_star, dphi_star=z2.dphi_star,
                           g_star=z2.g_star)
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = jnp.where(state.failed, jnp.array(1), jnp.where(state.i > maxiter, jnp.array(3),
                                                              jnp.array(0)))
    a_k = jnp.asarray(state.a_star)
    # a float32 step below 1e-8 is rounded up to 1e-8 (it would not move x)
    a_k = jnp.where((dtypes.finfo(a_k.dtype).bits != 64) & (jnp.abs(a_k) < 1e-8),
                    jnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResults(failed=state.failed | ~state.done, nit=state.i - 1,
                             nfev=state.nfev, ngev=state.ngev, k=state.i, a_k=a_k,
                             f_k=state.phi_star, g_k=state.g_star, status=status)
