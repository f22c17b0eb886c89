"""The stages of reverse-mode AD of one function, side by side (chapter 07).

:func:`draw_ad_stages` draws three real jaxprs with
:func:`~pictures.jaxpr_graph.draw_jaxpr`:

1. **jvp**: ``make_jaxpr`` of ``(x, t) -> jvp(f, (x,), (t,))``. The equations
   that read the tangent ``t`` (directly or not) are drawn in red: they are
   linear in ``t``; the others compute from ``x`` alone.
2. **linearize**: the linear jaxpr ``t -> J t`` that ``linearize(f, x)``
   records: only the red equations are left; what they read from ``x`` (the
   residuals) are now constants, dashed inputs or numbers in the boxes.
3. **transpose**: ``make_jaxpr`` of ``linear_transpose`` of that linear
   function, ``ct -> J^T ct``: the same equations, in reverse order, each
   replaced by its transpose. This is the backward pass ``grad`` runs.
"""
from __future__ import annotations

import matplotlib.pyplot as plt

from minijax.interpreters.ad import jvp
from minijax.interpreters.linearize import linearize
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.interpreters.transpose import linear_transpose
from minijax.jaxpr import ClosedJaxpr, Literal

from .jaxpr_graph import draw_jaxpr, graph_of


def tangent_equations(jaxpr, tangent_invars) -> set:
    """The equations of ``jaxpr`` that depend on the variables ``tangent_invars``."""
    tainted, eqns = set(tangent_invars), set()
    for eqn in jaxpr.eqns:
        if any(not isinstance(v, Literal) and v in tainted for v in eqn.invars):
            tainted.update(eqn.outvars)
            eqns.add(id(eqn))
    return eqns


def ad_stage_jaxprs(f, x):
    """``[(title, jaxpr), ...]`` for the three stages of ``f`` at ``x``."""
    jvp_jaxpr = make_jaxpr(lambda x, t: jvp(f, (x,), (t,)))(x, x)
    y, f_jvp = linearize(f, x)
    linear = ClosedJaxpr(f_jvp.jaxpr, f_jvp.consts)
    transposed = make_jaxpr(linear_transpose(f_jvp, x))(y)
    return [("1. jvp: (x, t) -> (f(x), J t)", jvp_jaxpr),
            ("2. linearize: t -> J t", linear),
            ("3. transpose: ct -> J^T ct", transposed)]


def draw_ad_stages(f, x):
    """Draw the jvp, linearized and transposed jaxprs of ``f`` at ``x``; returns the Figure."""
    stages = ad_stage_jaxprs(f, x)
    widths = [1 + max(n["column"] for n in graph_of(j)[0]) for _, j in stages]
    fig, axes = plt.subplots(1, 3, figsize=(1.05 * sum(widths) + 1.0, 3.4),
                             gridspec_kw=dict(width_ratios=widths))
    (t1, jvp_jaxpr), (t2, linear), (t3, transposed) = stages
    linear_eqns = tangent_equations(jvp_jaxpr.jaxpr, jvp_jaxpr.jaxpr.invars[1:])
    draw_jaxpr(jvp_jaxpr, ax=axes[0], title=t1, highlight=lambda e: id(e) in linear_eqns,
               highlight_label="reads the tangent (linear)")
    draw_jaxpr(linear, ax=axes[1], title=t2, highlight=lambda e: True)
    draw_jaxpr(transposed, ax=axes[2], title=t3, highlight=lambda e: True)
    fig.tight_layout()
    return fig
