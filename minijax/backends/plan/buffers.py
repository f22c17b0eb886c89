"""Chapter 09 — buffer reuse: which loop nest may write into a dead input's memory.

Allocating a fresh array for every stored value costs a page fault per 4 KiB
the first time it is written. XLA reuses a temporary's buffer once its last
reader is done; :func:`buffer_donors` finds the simplest case that pays, for
any target that writes a plan (see ``cpu/writer.py``).
"""
from __future__ import annotations

from minijax.backends.plan.kernel_plan import Call, Dot, LoopNest
from minijax.jaxpr import Var

__all__ = ["step_inputs", "buffer_donors"]


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
