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

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from minijax.backends.interpreter import jaxpr_cost_analysis
from minijax.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprPpContext, JaxprPpSettings,
                           Literal, Var, _dropvars, pp_eqn, pp_jaxpr)

__all__ = ["ELEMENTWISE", "REDUCTIONS", "LoopNest", "Dot", "Call", "KernelPlan",
           "make_plan", "sub_plan", "inline_calls", "hoist_consts", "map_subjaxprs",
           "eqn_subjaxprs", "eqn_text", "eqn_header"]

#: Primitives computed element by element: each output element depends only
#: on the input elements at the same index (or, for ``broadcast_in_dim``, at a
#: remapped index; ``iota`` on the index itself).
ELEMENTWISE = frozenset("""
    neg sign add sub mul div rem max min abs square integer_pow pow nextafter
    floor ceil round is_finite exp exp2 log log1p expm1 logistic sqrt rsqrt cbrt
    sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh
    erf erfc erf_inv lgamma digamma real imag complex conj
    not and or xor population_count clz shift_left shift_right_logical
    shift_right_arithmetic eq ne lt le gt ge select_n clamp
    convert_element_type reduce_precision copy stop_gradient add_any
    broadcast_in_dim iota
    """.split())

#: Reductions a loop nest may end in (with its producer fused in).
REDUCTIONS = frozenset("""
    reduce_sum reduce_prod reduce_max reduce_min reduce_and reduce_or reduce_xor
    argmax argmin
    """.split())

#: Call primitives whose body is inlined into the caller's plan: ``jit`` and
#: friends, ``checkpoint`` (its rematerialization only matters to ``grad``),
#: custom derivatives (the primal function is what runs), and ``name``
#: (``checkpoint_name``, an identity).
INLINE_CALLS = frozenset({"jit", "pjit", "closed_call", "core_call", "remat2",
                          "custom_jvp_call", "custom_vjp_call", "name"})


def _call_body(eqn) -> ClosedJaxpr | None:
    """The jaxpr an inlined call runs (``None`` for ``name``, an identity)."""
    params = eqn.params
    if eqn.primitive.name == "name":
        return None
    if "call_jaxpr" in params:  # custom_jvp_call / custom_vjp_call
        return params["call_jaxpr"]
    body = params["jaxpr"]
    return body if isinstance(body, ClosedJaxpr) else ClosedJaxpr(body, [])


def map_subjaxprs(eqn, fn):
    """``eqn`` with ``fn`` applied to each ClosedJaxpr among its params
    (``cond``'s branches, ``scan``'s body...); ``eqn`` itself if none changed."""
    def visit(val):
        if isinstance(val, ClosedJaxpr):
            return fn(val)
        if isinstance(val, tuple) and any(isinstance(v, ClosedJaxpr) for v in val):
            return tuple(visit(v) for v in val)
        return val
    params = {k: visit(v) for k, v in eqn.params.items()}
    if all(params[k] is eqn.params[k] for k in params):
        return eqn
    return eqn.replace(params=params)


def _closed_jaxprs_in(val) -> list:
    return [v for v in (val if isinstance(val, tuple) else (val,)) if isinstance(v, ClosedJaxpr)]


def eqn_subjaxprs(eqn):
    """The ClosedJaxprs among ``eqn``'s params."""
    for val in eqn.params.values():
        yield from _closed_jaxprs_in(val)


def closed_subjaxprs(jaxpr: Jaxpr):
    """The ClosedJaxprs directly inside ``jaxpr``'s equations' params."""
    for eqn in jaxpr.eqns:
        yield from eqn_subjaxprs(eqn)


def inline_calls(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """The same program with every nested call (see :data:`INLINE_CALLS`)
    replaced by its body, also inside the bodies of control flow.

    Inner variables get fresh ``Var`` s at each call site (a jaxpr called
    twice must not define the same variable twice); inner constants become
    constants of the result.
    """
    jaxpr = closed_jaxpr.jaxpr
    constvars, consts = list(jaxpr.constvars), list(closed_jaxpr.consts)
    eqns: list = []

    def inline(inner: Jaxpr, inner_consts, args):
        env = {}
        for v, c in zip(inner.constvars, inner_consts):
            env[v] = Var(v.aval)
            constvars.append(env[v])
            consts.append(c)
        env.update(zip(inner.invars, args))
        read = lambda a: a if isinstance(a, Literal) else env[a]  # noqa: E731
        for eqn in inner.eqns:
            outs = [v if isinstance(v, DropVar) else Var(v.aval) for v in eqn.outvars]
            env.update(zip(eqn.outvars, visit(eqn, [read(a) for a in eqn.invars], outs)))
        return [read(a) for a in inner.outvars]

    def visit(eqn, ins, outs):
        """Append ``eqn`` (or its inlined body) reading ``ins``; return its results."""
        if eqn.primitive.name not in INLINE_CALLS:
            eqns.append(map_subjaxprs(eqn, inline_calls).replace(invars=ins, outvars=outs))
            return outs
        body = _call_body(eqn)
        return ins if body is None else inline(body.jaxpr, body.consts, ins)

    top = {}
    for eqn in jaxpr.eqns:
        ins = [a if isinstance(a, Literal) else top.get(a, a) for a in eqn.invars]
        top.update(zip(eqn.outvars, visit(eqn, ins, list(eqn.outvars))))
    outvars = [a if isinstance(a, Literal) else top.get(a, a) for a in jaxpr.outvars]
    return ClosedJaxpr(Jaxpr(constvars, jaxpr.invars, outvars, eqns), consts)


def hoist_consts(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """Make the constants of every nested jaxpr constants of the top level too.

    A kernel gets its constants as arguments of its one entry function, and a
    nested body is written *inside* that function: its constant variables are
    the same ``Var`` s, now bound once, at the top.
    """
    constvars, consts = list(closed_jaxpr.jaxpr.constvars), list(closed_jaxpr.consts)
    seen = set(constvars)

    def collect(jaxpr: Jaxpr) -> None:
        for sub in closed_subjaxprs(jaxpr):
            for v, c in zip(sub.jaxpr.constvars, sub.consts):
                if v not in seen:
                    seen.add(v)
                    constvars.append(v)
                    consts.append(c)
            collect(sub.jaxpr)

    collect(closed_jaxpr.jaxpr)
    if len(constvars) == len(closed_jaxpr.jaxpr.constvars):
        return closed_jaxpr
    return ClosedJaxpr(closed_jaxpr.jaxpr.replace(constvars=constvars), consts)


# =============================================================================
# Steps
# =============================================================================
def eqn_text(eqn, names: JaxprPpContext) -> str:
    """One equation as the jaxpr printer writes it, on one line."""
    return " ".join(pp_eqn(eqn, names, JaxprPpSettings()).format(width=10**6).split())


def eqn_header(eqn, names: JaxprPpContext) -> str:
    """:func:`eqn_text` without the nested jaxprs (a loop's body, ``cond``'s branches)."""
    params = {k: v for k, v in eqn.params.items() if not _closed_jaxprs_in(v)}
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


def step_inputs(step) -> list:
    """The variables a step reads from memory (defined by earlier steps or given)."""
    eqns = [step.eqn] if not isinstance(step, LoopNest) else [
        *step.eqns, *([step.reduction] if step.reduction is not None else [])]
    defined = {v for e in eqns for v in e.outvars}
    seen = []
    for e in eqns:
        for a in e.invars:
            if isinstance(a, Var) and a not in defined and a not in seen:
                seen.append(a)
    return seen


def buffer_donors(steps, live_out) -> dict:
    """Which loop nests may write a stored value into the buffer of an input.

    XLA reuses a temporary's buffer once its last reader is done; so do we, in
    the simplest case that pays: ``c = add b 3.0`` right after ``b = dot ...``
    writes ``c`` into ``b``'s memory instead of allocating (and page-faulting)
    a fresh array. Input ``b`` of loop nest ``i`` gives its buffer to a store
    ``c`` when:

    - ``b`` was allocated by this list of steps (a loop nest's store or a
      ``dot``'s result), not a kernel argument, constant or loop-body input;
    - nothing reads ``b`` after step ``i``, directly or through a view (the
      outputs of ``Call`` steps may be views of their inputs, e.g. a reshape,
      so their readers count as readers of the inputs);
    - ``b`` and ``c`` have the loop's shape and the same dtype, so every read
      of ``b`` in the loop is at the index being written.

    ``live_out``: the values used after these steps (the kernel's or a body's
    outputs). Returns ``{step index: {store: donor}}``.
    """
    inputs = [step_inputs(step) for step in steps]
    last_use = {v: i for i, ins in enumerate(inputs) for v in ins}
    last_use.update({v: len(steps) for v in live_out if isinstance(v, Var)})
    for step, ins in zip(reversed(steps), reversed(inputs)):  # a view keeps its base alive
        if isinstance(step, Call):
            end = max((last_use.get(v, -1) for v in step.eqn.outvars), default=-1)
            for v in ins:
                last_use[v] = max(last_use.get(v, -1), end)
    allocated, donors = set(), {}
    for i, (step, ins) in enumerate(zip(steps, inputs)):
        if isinstance(step, LoopNest) and step.shape:
            free = [v for v in ins if v in allocated and last_use.get(v) == i
                    and tuple(v.aval.shape) == tuple(step.shape)]
            for c in step.stores:
                b = next((v for v in free if v.aval.dtype == c.aval.dtype
                          and tuple(c.aval.shape) == tuple(step.shape)), None)
                if b is not None:
                    free.remove(b)
                    donors.setdefault(i, {})[c] = b
            allocated.update(step.stores)
        elif isinstance(step, Dot):
            allocated.update(step.eqn.outvars)
    return donors


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
            subs = _closed_jaxprs_in(val)
            for k, sub in enumerate(subs):
                lines.append(f"    {key}{f'[{k}]' if isinstance(val, tuple) else ''}:")
                for step in _group(sub.jaxpr):
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


def make_plan(closed_jaxpr: ClosedJaxpr, *, elementwise=ELEMENTWISE, calls=frozenset(),
              dot: bool = True, dtype_ok=lambda dtype: True,
              extended_ok=lambda dtype, eqns: False) -> KernelPlan:
    """Group the equations of ``closed_jaxpr`` into fused steps.

    The backend says what it can lower: the ``elementwise`` primitives it can
    write as scalar code, the ``calls`` it lowers one by one, whether it
    lowers ``dot_general`` (``dot``), and the dtypes it handles: NumPy ones
    (``dtype_ok``), and extended ones such as PRNG keys (``extended_ok``,
    given the dtype and the equations that read or write a value of it).
    """
    closed_jaxpr = hoist_consts(_fold_transposed_operands(_fold_transposed_products(
        _dead_code_elimination(inline_calls(closed_jaxpr)))))
    jaxpr = closed_jaxpr.jaxpr
    names = _names(jaxpr)
    unsupported = _unsupported(jaxpr, elementwise, calls, dot, dtype_ok, extended_ok)
    if unsupported:
        return KernelPlan(closed_jaxpr, [], unsupported, names)
    return KernelPlan(closed_jaxpr, _group(jaxpr), [], names)


def sub_plan(plan: KernelPlan, closed_jaxpr: ClosedJaxpr) -> KernelPlan:
    """The plan of a jaxpr nested in ``plan``'s (a loop body, a branch): its own
    steps, fused the same way, and the names of the enclosing plan."""
    return KernelPlan(closed_jaxpr, _group(closed_jaxpr.jaxpr), [], plan.names)


def _fold_transposed_products(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``c = dot_general a b; d = transpose[(1, 0)] c`` becomes ``d = dot_general b a``.

    Reverse-mode AD writes this pair for every matrix product (the transpose
    rule of ``dot_general`` puts the product's dimensions back in order), and
    the copy costs a full pass over the result. A product of matrices with one
    free dimension on each side, transposed, is the product with the operands
    swapped (``(A B)^T = B^T A^T``); BLAS reads the operands' transposes for
    free. Done when the transpose is the product's only reader (top level only).
    """
    jaxpr = closed_jaxpr.jaxpr
    uses = Counter(a for e in jaxpr.eqns for a in e.invars if isinstance(a, Var))
    uses.update(v for v in jaxpr.outvars if isinstance(v, Var))
    products = {e.outvars[0]: e for e in jaxpr.eqns if _swappable_product(e)}
    folded, eqns = set(), []
    for eqn in jaxpr.eqns:
        src = eqn.invars[0] if eqn.invars else None
        if (eqn.primitive.name == "transpose" and tuple(eqn.params["permutation"]) == (1, 0)
                and src in products and uses[src] == 1):
            dot = products[src]
            (lc, rc), batch = dot.params["dimension_numbers"]
            params = {**dot.params, "dimension_numbers": ((rc, lc), batch)}
            eqns.append(dot.replace(invars=dot.invars[::-1], outvars=eqn.outvars,
                                    params=params))
            folded.add(id(dot))
        else:
            eqns.append(eqn)
    if not folded:
        return closed_jaxpr
    eqns = [e for e in eqns if id(e) not in folded]
    return ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts)


def _fold_transposed_operands(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``t = transpose[(1, 0)] y; c = dot_general t b`` becomes a product of ``y``
    itself, contracted on its other dimension.

    ``x.T @ b`` traces as a transpose and then a product; BLAS reads a
    transposed operand for free (a flag), so the copy the transpose would make
    is dropped. The transpose stays if something else reads it (top level only).
    """
    jaxpr = closed_jaxpr.jaxpr
    transposes = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
                  if e.primitive.name == "transpose" and tuple(e.params["permutation"]) == (1, 0)}
    changed, eqns = False, []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general" and not eqn.params["dimension_numbers"][1][0]:
            (lc, rc), batch = eqn.params["dimension_numbers"]
            invars, dims = list(eqn.invars), [list(lc), list(rc)]
            for side in (0, 1):
                src = transposes.get(invars[side]) if isinstance(invars[side], Var) else None
                if src is not None and len(dims[side]) == 1:
                    invars[side], dims[side] = src, [1 - dims[side][0]]
            if invars != list(eqn.invars):
                params = {**eqn.params, "dimension_numbers": ((tuple(dims[0]), tuple(dims[1])),
                                                               batch)}
                eqn = eqn.replace(invars=invars, params=params)
                changed = True
        eqns.append(eqn)
    if not changed:
        return closed_jaxpr
    return _dead_code_elimination(ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts))


def _swappable_product(eqn) -> bool:
    """A ``dot_general`` without batch dimensions and one free dimension per side."""
    if eqn.primitive.name != "dot_general":
        return False
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    return (not lb and not rb and len(lhs.aval.shape) - len(lc) == 1
            and len(rhs.aval.shape) - len(rc) == 1)


def _dead_code_elimination(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations none of whose results is used (every primitive here is pure),
    also inside nested jaxprs (whose inputs and outputs stay as they are)."""
    jaxpr = closed_jaxpr.jaxpr
    live = {v for v in jaxpr.outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in live for v in eqn.outvars):
            kept.append(map_subjaxprs(eqn, _dead_code_elimination))
            live.update(v for v in eqn.invars if isinstance(v, Var))
    if len(kept) == len(jaxpr.eqns) and all(a is b for a, b in zip(kept[::-1], jaxpr.eqns)):
        return closed_jaxpr
    return ClosedJaxpr(jaxpr.replace(eqns=kept[::-1]), closed_jaxpr.consts)


def _unsupported(jaxpr, elementwise, calls, dot, dtype_ok, extended_ok) -> list[str]:
    bad = []
    users: dict = {}  # dtype -> the equations reading or writing a value of it
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        users.setdefault(v.aval.dtype, [])
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        known = (name in elementwise or name in REDUCTIONS or name in calls
                 or (dot and name == "dot_general"))
        if not known and name not in bad:
            bad.append(name)
        for sub in eqn_subjaxprs(eqn) if known else ():  # a loop body, a branch...
            bad += [b for b in _unsupported(sub.jaxpr, elementwise, calls, dot, dtype_ok,
                                            extended_ok) if b not in bad]
        for v in [*eqn.invars, *eqn.outvars]:
            users.setdefault(v.aval.dtype, []).append(eqn)
    for dtype in sorted(users, key=str):
        ok = dtype_ok(dtype) if isinstance(dtype, np.dtype) else extended_ok(dtype, users[dtype])
        if not ok:
            bad.append(f"dtype {dtype}")
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


def _group(jaxpr: Jaxpr) -> list:
    g = _Grouper(jaxpr)
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in REDUCTIONS:
            g.reduction(eqn)
        elif name == "dot_general":
            g.other(eqn, Dot(eqn))
        elif name in ELEMENTWISE and not eqn.primitive.multiple_results:
            g.elementwise(eqn)
        else:
            g.other(eqn, Call(eqn))
    for group in list(g.open.values()):
        g.close(group)
    return g.steps
