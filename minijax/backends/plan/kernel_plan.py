"""Chapter 09 — the kernel plan: which equations of a jaxpr become one loop.

Running a jaxpr one primitive at a time (chapter 06's interpreter) writes
every intermediate value to memory and reads it back. For
``selu(x) = scale * where(x > 0, x, alpha * exp(x) - alpha)`` that is six
passes over ``x`` and five temporary arrays. A compiler does better by
*fusing*: one loop over the output, computing each element from the inputs
in registers, writing only the result. XLA does this; this module decides
it for minijax. It is backend-neutral: chapter 09 turns a plan into Numba
code for the CPU, chapter 10 into CUDA kernels.

A :class:`KernelPlan` is a list of *steps*, in an order that respects every
data dependence:

- :class:`LoopNest`: a maximal group of *elementwise* equations over one
  output shape (arithmetic, comparisons, ``select_n``,
  ``convert_element_type``, ``broadcast_in_dim``, ``iota``...) run in ONE loop
  nest; only values used outside the group (``stores``) are written to
  memory. A loop nest may end in a *reduction* (``reduce_sum``, ``argmax``...)
  of a value it computes: the producer is fused into the reduction loop.
- :class:`Dot`: a ``dot_general``, which the backend hands to BLAS.
- :class:`Call`: any other primitive the backend lowers on its own
  (``reshape``, ``transpose``, ``slice``...). Its inputs are materialized.

A primitive the backend cannot lower makes the plan *unsupported*
(``plan.unsupported`` names the culprits); the backend then runs the jaxpr
with the interpreter instead, so nothing breaks. Nested calls (``jit``,
``checkpoint``, custom derivatives) are inlined first, as XLA does. Control
flow (``cond``, ``while``, ``scan``) stays one :class:`Call` step whose
nested jaxprs get plans of their own (:func:`sub_plan`): the backend writes
them as native branches and loops, fused inside as well. Constants of nested
jaxprs become constants of the kernel (:func:`hoist_consts`).

The grouping rule is greedy and simple: walking the equations in order, an
elementwise equation joins the *open* group of its output shape; reading a
value of another open group *closes* that group (it is emitted, and its
values become arrays in memory). Open groups never read each other, so
closing them in any order is correct.
"""
from __future__ import annotations
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from minijax.backends.cost import jaxpr_cost_analysis
from minijax.backends.plan.passes import closed_jaxprs_in, eqn_subjaxprs, prepare
from minijax.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprPpContext, JaxprPpSettings,
                           Var, _dropvars, pp_eqn, pp_jaxpr)

__all__ = ["LoopNest", "Dot", "Call", "KernelPlan", "Target", "rule_problem", "make_plan",
           "sub_plan",
           "eqn_text", "eqn_header", "is_fused", "is_reduction", "kernel_outputs",
           "output_sources"]


def is_fused(primitive) -> bool:
    """Computed element by element inside a loop nest: its kind is ``"elementwise"``
    (each output element from the input elements at the same index) or
    ``"broadcast"`` (at a remapped index: ``broadcast_in_dim``, ``iota``)."""
    return primitive.kind in ("elementwise", "broadcast") and not primitive.multiple_results


def is_reduction(primitive) -> bool:
    """A reduction a loop nest may end in, with its producer fused in."""
    return primitive.kind == "reduction"


# =============================================================================
# Steps
# =============================================================================
def eqn_text(eqn, names: JaxprPpContext) -> str:
    """One equation as the jaxpr printer writes it, on one line."""
    return " ".join(pp_eqn(eqn, names, JaxprPpSettings()).format(width=10**6).split())


def eqn_header(eqn, names: JaxprPpContext) -> str:
    """:func:`eqn_text` without the nested jaxprs (a loop's body, ``cond``'s branches)."""
    params = {k: v for k, v in eqn.params.items() if not closed_jaxprs_in(v)}
    return eqn_text(eqn.replace(params=params), names)


@dataclass
class LoopNest:
    """One loop nest over ``shape`` computing ``eqns`` element by element.

    ``stores`` are the values written to memory (used after the loop);
    every other value lives in a register for one iteration. ``reduction``,
    if set, is a reduction of a value computed in the loop (or read from
    memory when ``eqns`` is empty), accumulated in the same loop.
    """
    shape: tuple
    eqns: list = field(default_factory=list)
    stores: list = field(default_factory=list)
    reduction: object = None

    def describe(self, names) -> list[str]:
        what = f"loop nest over {list(self.shape)}: {len(self.eqns)} fused equation(s)"
        if self.reduction is not None:
            what += f" + {self.reduction.primitive.name}"
        stores = " ".join(names.var_names[v] for v in self.stores)
        lines = [what + (f", stores {stores}" if stores else "")]
        lines += ["    " + eqn_text(e, names) for e in self.eqns]
        if self.reduction is not None:
            lines.append("    " + eqn_text(self.reduction, names))
        return lines


@dataclass
class Dot:
    """A ``dot_general``: a call to BLAS (matrix multiply) on the CPU."""
    eqn: object

    def describe(self, names) -> list[str]:
        return ["dot (BLAS)", "    " + eqn_text(self.eqn, names)]


@dataclass
class Call:
    """A primitive with a lowering of its own (its inputs are in memory)."""
    eqn: object

    def describe(self, names) -> list[str]:
        """The equation, then the plan of each nested jaxpr (a loop body, a branch)."""
        lines = [f"call {self.eqn.primitive.name}", "    " + eqn_header(self.eqn, names)]
        for key, val in self.eqn.params.items():
            subs = closed_jaxprs_in(val)
            for k, sub in enumerate(subs):
                lines.append(f"    {key}{f'[{k}]' if isinstance(val, tuple) else ''}:")
                for step in group(sub.jaxpr):
                    first, *rest = step.describe(names)
                    lines += ["        " + first, *("        " + line for line in rest)]
        return lines


@dataclass
class KernelPlan:
    """The steps of one kernel, for the (inlined) ``closed_jaxpr``.

    ``names`` names every variable as the jaxpr printer does (``a``, ``b``...),
    so the generated code and ``str(plan)`` use the same names as the jaxpr.
    ``unsupported`` lists what the backend cannot lower; when it is not
    empty, ``steps`` is empty and the backend falls back to the interpreter.
    """
    closed_jaxpr: ClosedJaxpr
    steps: list
    unsupported: list
    names: JaxprPpContext

    @property
    def supported(self) -> bool:
        return not self.unsupported

    def __str__(self) -> str:
        if self.unsupported:
            return "unsupported plan (falls back to the interpreter): " + \
                ", ".join(self.unsupported)
        lines = []
        for k, step in enumerate(self.steps):
            first, *rest = step.describe(self.names)
            lines += [f"step {k}: {first}", *rest]
        return "\n".join(lines)

    def cost_analysis(self) -> dict[str, float]:
        """Flops as chapter 06 counts them; bytes as *this plan* moves them.

        A fused loop reads each input array and writes each stored value once,
        so fusion shows up here as fewer bytes accessed than the interpreter's
        count for the same jaxpr.
        """
        cost = jaxpr_cost_analysis(self.closed_jaxpr)
        cost["bytes accessed"] = float(sum(_step_bytes(s) for s in self.steps))
        return cost


def _nbytes(aval) -> int:
    return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize


def _step_bytes(step) -> int:
    if isinstance(step, LoopNest):
        eqns = step.eqns + ([step.reduction] if step.reduction is not None else [])
        made = {v for e in eqns for v in e.outvars}
        reads = {v for e in eqns for v in e.invars if isinstance(v, Var) and v not in made}
        writes = set(step.stores) | (set(step.reduction.outvars) if step.reduction else set())
        return sum(_nbytes(v.aval) for v in reads | writes)
    eqn = step.eqn
    return (sum(_nbytes(v.aval) for v in eqn.invars if isinstance(v, Var))
            + sum(_nbytes(v.aval) for v in eqn.outvars))


# =============================================================================
# Building the plan
# =============================================================================
def _names(jaxpr: Jaxpr) -> JaxprPpContext:
    """Printer names for every variable, nested jaxprs' included: printing the
    jaxpr once names them in the printer's order (constvars, invars, equations)."""
    names = JaxprPpContext(_dropvars(jaxpr))
    pp_jaxpr(jaxpr, names, JaxprPpSettings())
    return names


class Target:
    """What a target (the CPU, CUDA) tells the planner: which equations it can lower.

    The planner itself decides fusion from each primitive's kind; a target
    only answers, per equation, why it *cannot* lower it (``None`` when it
    can), and which dtypes it handles: NumPy ones (:meth:`dtype_problem`) and
    extended ones such as PRNG keys (:meth:`extended_problem`, given the
    equations that read or write a value of that dtype).
    """

    def eqn_problem(self, eqn) -> str | None:
        raise NotImplementedError

    def dtype_problem(self, dtype) -> str | None:
        return None

    def extended_problem(self, dtype, eqns) -> str | None:
        return f"dtype {dtype}"


def rule_problem(eqn, table) -> str | None:
    """What every target checks first: ``eqn``'s primitive has a rule in ``table``,
    and, if an operand or result is complex, the rule says it handles complex
    numbers (``rule.complex``). ``None`` when both hold."""
    rule = table.get(eqn.primitive)
    if rule is None:
        return eqn.primitive.name
    if not rule.complex and any(isinstance(a.aval.dtype, np.dtype) and a.aval.dtype.kind == "c"
                                for a in [*eqn.invars, *eqn.outvars]):
        return f"{eqn.primitive.name} on complex numbers"
    return None


def make_plan(closed_jaxpr: ClosedJaxpr, target: Target) -> KernelPlan:
    """Rewrite ``closed_jaxpr`` (:func:`~minijax.backends.plan.passes.prepare`) and
    group its equations into fused steps, if ``target`` can lower all of them."""
    closed_jaxpr = prepare(closed_jaxpr)
    jaxpr = closed_jaxpr.jaxpr
    names = _names(jaxpr)
    unsupported = _unsupported(jaxpr, target)
    if unsupported:
        return KernelPlan(closed_jaxpr, [], unsupported, names)
    return KernelPlan(closed_jaxpr, group(jaxpr), [], names)


def sub_plan(plan: KernelPlan, closed_jaxpr: ClosedJaxpr) -> KernelPlan:
    """The plan of a jaxpr nested in ``plan``'s (a loop body, a branch): its own
    steps, fused the same way, and the names of the enclosing plan."""
    return KernelPlan(closed_jaxpr, group(closed_jaxpr.jaxpr), [], plan.names)


def _unsupported(jaxpr, target: Target) -> list[str]:
    """Why ``target`` cannot lower ``jaxpr`` (nested bodies included): one reason each."""
    bad: list[str] = []
    users: dict = {}  # dtype -> the equations reading or writing a value of it
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        users.setdefault(v.aval.dtype, [])
    for eqn in jaxpr.eqns:
        problem = target.eqn_problem(eqn)
        if problem is not None and problem not in bad:
            bad.append(problem)
        for sub in eqn_subjaxprs(eqn) if problem is None else ():  # a loop body, a branch...
            bad += [b for b in _unsupported(sub.jaxpr, target) if b not in bad]
        for v in [*eqn.invars, *eqn.outvars]:
            users.setdefault(v.aval.dtype, []).append(eqn)
    for dtype in sorted(users, key=str):
        problem = (target.dtype_problem(dtype) if isinstance(dtype, np.dtype)
                   else target.extended_problem(dtype, users[dtype]))
        if problem is not None and problem not in bad:
            bad.append(problem)
    return bad


class _Grouper:
    """The greedy grouping walk (see the module docstring)."""

    def __init__(self, jaxpr: Jaxpr):
        self.outvars = {v for v in jaxpr.outvars if isinstance(v, Var)}
        self.uses = Counter(v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var))
        self.steps: list = []
        self.open: dict[tuple, LoopNest] = {}   # loop shape -> the open group
        self.producer: dict[Var, LoopNest] = {}  # value -> the open group computing it

    def close(self, group: LoopNest) -> None:
        """Emit ``group``: decide what it stores, then forget it is open."""
        eqns = group.eqns + ([group.reduction] if group.reduction is not None else [])
        inside = Counter(v for e in eqns for v in e.invars if isinstance(v, Var))
        group.stores = [v for e in group.eqns for v in e.outvars
                        if not isinstance(v, DropVar)
                        and (v in self.outvars or self.uses[v] > inside[v])]
        if self.open.get(group.shape) is group:
            del self.open[group.shape]
        for e in group.eqns:
            for v in e.outvars:
                self.producer.pop(v, None)
        self.steps.append(group)

    def materialize(self, atoms) -> None:
        for v in atoms:
            if isinstance(v, Var) and v in self.producer:
                self.close(self.producer[v])

    def elementwise(self, eqn) -> None:
        shape = eqn.outvars[0].aval.shape
        for v in eqn.invars:
            group = self.producer.get(v) if isinstance(v, Var) else None
            if group is not None and (group.shape != shape or v.aval.shape != shape):
                self.close(group)  # read from memory (e.g. the operand of a broadcast)
        group = self.open.get(shape)
        if group is None:
            group = self.open[shape] = LoopNest(shape)
        group.eqns.append(eqn)
        for v in eqn.outvars:
            self.producer[v] = group

    def reduction(self, eqn) -> None:
        x = eqn.invars[0]
        group = self.producer.get(x) if isinstance(x, Var) else None
        if group is not None and group.shape == x.aval.shape:
            group.reduction = eqn  # the producer fuses into the reduction loop
            self.close(group)
        else:
            self.materialize([x])
            self.steps.append(LoopNest(tuple(x.aval.shape), reduction=eqn))

    def other(self, eqn, step) -> None:
        self.materialize(eqn.invars)
        self.steps.append(step)


def group(jaxpr: Jaxpr) -> list:
    """The steps of ``jaxpr``, by the greedy walk of the module docstring."""
    g = _Grouper(jaxpr)
    for eqn in jaxpr.eqns:
        if is_reduction(eqn.primitive):
            g.reduction(eqn)
        elif eqn.primitive.kind == "dot":
            g.other(eqn, Dot(eqn))
        elif is_fused(eqn.primitive):
            g.elementwise(eqn)
        else:
            g.other(eqn, Call(eqn))
    for group in list(g.open.values()):
        g.close(group)
    return g.steps


# =============================================================================
# What a compiled kernel returns, and where each jaxpr output comes from
# =============================================================================
def kernel_outputs(jaxpr) -> list:
    """The jaxpr outputs the kernel computes (not inputs, constants or literals), once each."""
    given = set(jaxpr.constvars) | set(jaxpr.invars)
    outs: list = []
    for v in jaxpr.outvars:
        if isinstance(v, Var) and v not in given and v not in outs:
            outs.append(v)
    return outs


def output_sources(jaxpr) -> list[tuple[str, object]]:
    """Where each output of ``jaxpr`` comes from, for an executable to assemble its
    results: ``("kernel", k)`` (the kernel's ``k``-th result, see
    :func:`kernel_outputs`), ``("arg", i)``, ``("const", i)`` or ``("lit", value)``."""
    computed = kernel_outputs(jaxpr)
    sources: list = []
    for v in jaxpr.outvars:
        if not isinstance(v, Var):
            sources.append(("lit", v.val))
        elif v in computed:
            sources.append(("kernel", computed.index(v)))
        elif v in jaxpr.invars:
            sources.append(("arg", jaxpr.invars.index(v)))
        else:
            sources.append(("const", jaxpr.constvars.index(v)))
    return sources
