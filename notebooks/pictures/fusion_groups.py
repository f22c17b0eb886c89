"""Chapter 09's picture: a jaxpr with its fusion groups drawn over it.

:func:`draw_fusion_groups` takes a real kernel plan
(``minijax.backends.plan.make_plan(closed_jaxpr, target)``) and draws the
jaxpr the plan was made from (after the planner's passes: nested ``jit``s
inlined, dead code dropped), one box per equation, in the jaxpr's order. Each
box is coloured by the plan step that computes it: the equations of one fused
loop nest share a colour (a reduction that ends the loop nest too); a matrix
product (a BLAS call) or another call is a step of its own. A value the loop
nest writes to memory (``stores``, the result of its reduction) or that a call
writes is marked on the right; every other value of a loop nest lives in a
register for one iteration.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from minijax.backends.plan import Call, Dot, LoopNest
from minijax.backends.plan.kernel_plan import eqn_header

__all__ = ["draw_fusion_groups", "step_of_each_equation"]


def step_of_each_equation(plan) -> dict:
    """``{id(eqn): step index}`` for every top-level equation the plan computes."""
    owner = {}
    for k, step in enumerate(plan.steps):
        if isinstance(step, LoopNest):
            eqns = step.eqns + ([step.reduction] if step.reduction is not None else [])
        else:
            eqns = [step.eqn]
        for e in eqns:
            owner[id(e)] = k
    return owner


def _describe(step) -> str:
    if isinstance(step, LoopNest):
        n = len(step.eqns)
        what = f"loop nest over {list(step.shape)}: {n} fused equation{'s' if n != 1 else ''}"
        return what + (f" + {step.reduction.primitive.name}" if step.reduction is not None else "")
    if isinstance(step, Dot):
        return "dot_general: a BLAS call"
    return f"call {step.eqn.primitive.name}"


def _var_text(v, names) -> str:
    return f"{names.var_names[v]}:{v.aval.str_short(short_dtypes=True)}"


def draw_fusion_groups(plan, title: str | None = None, *, width: float = 11.0):
    """A matplotlib Figure: the plan's jaxpr, one box per equation, coloured by step."""
    if not plan.supported:
        raise ValueError(f"the plan is not supported: {plan}")
    jaxpr, names = plan.closed_jaxpr.jaxpr, plan.names
    owner = step_of_each_equation(plan)
    in_memory = set()   # values written to memory: a loop nest's stores and reductions, calls
    for s in plan.steps:
        if isinstance(s, LoopNest):
            in_memory.update(s.stores)
            in_memory.update(s.reduction.outvars if s.reduction is not None else ())
        else:
            in_memory.update(s.eqn.outvars)
    colors = [plt.get_cmap("tab10")(k % 10) for k in range(len(plan.steps))]

    rows = len(jaxpr.eqns) + 2
    fig, ax = plt.subplots(figsize=(width, 0.42 * rows + 0.6 + 0.32 * len(plan.steps)))
    ins = " ".join(_var_text(v, names) for v in [*jaxpr.constvars, *jaxpr.invars])
    ax.text(0.0, rows - 0.5, f"{{ lambda ; {ins}. let", family="monospace", fontsize=9,
            va="center")
    seen_steps = set()
    for r, eqn in enumerate(jaxpr.eqns):
        y = rows - 1.5 - r
        k = owner[id(eqn)]
        text = eqn_header(eqn, names)
        if len(text) > 64:
            text = text[:61] + "..."
        ax.add_patch(FancyBboxPatch((0.3, y - 0.36), 6.6, 0.72, boxstyle="round,pad=0.02",
                                    fc=colors[k], ec="k", alpha=0.35, lw=0.8))
        ax.text(0.4, y, text, family="monospace", fontsize=8, va="center")
        note = f"step {k}"
        if k not in seen_steps:
            note += f": {_describe(plan.steps[k])}"
            seen_steps.add(k)
        ax.text(7.05, y, note, fontsize=8, va="center", color=colors[k], weight="bold")
        outs = [names.var_names[v] for v in eqn.outvars if v in in_memory]
        if outs:
            ax.text(6.85, y, f"→ {', '.join(outs)} to memory", fontsize=7, va="center",
                    ha="right", color="dimgray", style="italic")
    outs = [names.var_names[v] if v in names.var_names else str(v) for v in jaxpr.outvars]
    outs_text = ", ".join(outs) + ("," if len(outs) == 1 else "")
    ax.text(0.0, 0.5, f"  in ({outs_text}) }}", family="monospace", fontsize=9, va="center")
    ax.set_xlim(-0.1, 11.5)
    ax.set_ylim(0, rows)
    ax.axis("off")
    n_loops = sum(isinstance(s, LoopNest) for s in plan.steps)
    ax.set_title(title or f"{len(jaxpr.eqns)} equations, {len(plan.steps)} steps "
                          f"({n_loops} fused loop nest{'s' if n_loops != 1 else ''})", fontsize=10)
    fig.tight_layout()
    return fig
