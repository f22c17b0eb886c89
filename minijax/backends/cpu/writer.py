"""Chapter 09 — writing the kernel module of a plan.

:func:`generate_source` turns a :class:`~minijax.backends.plan.KernelPlan`
into ONE Python module with ONE ``@njit(nogil=True)`` entry function: loops
over static shapes, a local per jaxpr variable (named as the printed jaxpr
names it), each line commented with the equation it comes from, and the
helpers the rules asked for: imported from the one helper module that all
kernels share (:func:`.helpers.helper_library_source`), so that each is
compiled once, not once per kernel.

The writer knows the *shape* of the code: loop nests, reductions (in lanes
that vectorize), the order of steps, names, buffer reuse. What one primitive
becomes is its rule's business (:mod:`.rules`, looked up by primitive).

Control flow (``cond``, ``while``, ``scan``: see their rules) is
written *inline*: a nested jaxpr gets a plan of its own (:func:`~minijax.backends.plan.sub_plan`,
so loop bodies are fused too) whose steps are written inside a native ``if``,
``while`` or ``for`` of the same function. The printer gives every variable,
nested ones included, a distinct name, so the code reads like the jaxpr.

A fused loop nest of at least :data:`.ELEMENTWISE_PARALLEL_THRESHOLD` elements
(with no reduction) runs its outer loop with ``prange``: the kernel is then compiled
with ``parallel`` on (for ``prange`` only, see :data:`_PARALLEL_DECORATOR`) and
Numba spreads that loop over threads. Smaller kernels stay serial: a parallel
compile is two to three times slower. Numba outlines the body of a ``prange``
loop into a function of its own, types it again and compiles its machine code
twice (in that function and in the kernel, which links it in); moving the body
into a separate ``@njit`` function called from a small ``prange`` launcher was
measured and is slower still, as every extra function level compiles the
code it calls once more.
"""
from __future__ import annotations

import keyword
import re

import numpy as np

from minijax.backends import plan as kernel_plan
from minijax.backends.cpu.helpers import (DECORATOR, decorated, shared_helpers,
                                          request, with_preludes)
from minijax.backends.cpu.loops import (ELEMENTWISE_PARALLEL_THRESHOLD, PARALLEL_THRESHOLD, open_loops,
                                        opened)
from minijax.backends.cpu.rules import LOWERINGS, ScalarContext, reduction_identity
from minijax.backends.cpu.syntax import (cast, data_shape, half_helpers, is_half, kind, literal,
                                         np_dtype)
from minijax.jaxpr import Literal, Var

__all__ = ["generate_source", "entry_name", "KernelWriter"]

#: The number of partial results of a reduction over the innermost axis
#: (``KernelWriter._lanes_loop_nest``). Measured on rows of 1000 float32 summed
#: in float64: 8 and 16 lanes 0.28 ms, 64 lanes 0.19 ms, 128 lanes 0.31 ms
#: (one accumulator: 0.79 ms).
LANES = 64


_RESERVED = set(keyword.kwlist) | {"np", "math", "njit", "range", "abs", "max", "min",
                                   "int", "float", "bool", "len", "print"}


class KernelWriter:
    """Writes the entry function of one plan, line by line."""

    def __init__(self, plan: kernel_plan.KernelPlan, fn_name: str):
        self.plan = plan
        self.fn_name = fn_name
        self.lines: list[str] = []
        self.helpers: set[str] = set()
        self.depth = 1
        self.parallel = False  # set when a loop nest is written with prange
        self._counter = 0

    # --- small utilities ------------------------------------------------------------
    def emit(self, code: str, comment: str | None = None) -> None:
        line = "    " * self.depth + code
        self.lines.append(f"{line}  # {comment}" if comment else line)

    def var(self, v) -> str:
        name = self.plan.names.var_names[v]
        return name + "_" if name in _RESERVED else name

    def atom(self, a) -> str:
        """A materialized value: an array name, a scalar name, or a literal."""
        return literal(a.val, a.aval.dtype) if isinstance(a, Literal) else self.var(a)

    def read(self, a, idx, loop_shape=None) -> str:
        """Element ``idx`` of a materialized value (a scalar is its own element).

        In a loop over ``loop_shape``, an operand with size-1 dimensions where
        the loop has more is broadcast (lax allows that for equal ranks).
        """
        if isinstance(a, Literal) or not a.aval.shape:
            return self.atom(a)
        if loop_shape is not None and tuple(a.aval.shape) != tuple(loop_shape):
            idx = ["0" if n == 1 else i for n, i in zip(a.aval.shape, idx)]
        element = f"{self.var(a)}[{', '.join(idx)}]"
        if is_half(a.aval.dtype):
            return f"{self.helper(half_helpers(a.aval.dtype)[1])}({element})"
        return element

    def store(self, v, idx, value: str) -> None:
        """``v[idx] = value`` (a float16 or bfloat16 is stored as its bits: see ``syntax``)."""
        if is_half(v.aval.dtype):
            value = f"{self.helper(half_helpers(v.aval.dtype)[0])}({value})"
        self.emit(f"{self.var(v)}[{', '.join(idx)}] = {value}")

    def text(self, eqn) -> str:
        return kernel_plan.eqn_text(eqn, self.plan.names)

    def fresh(self, prefix: str) -> str:
        """A new local name (``it0``, ``it1``...): digits never occur in jaxpr names."""
        self._counter += 1
        return f"{prefix}{self._counter - 1}"

    def assign(self, targets, exprs, *, one_type: bool = False) -> None:
        """``t, u = v, w`` (all right-hand sides are read first), skipping ``_``
        targets and ``x = x``.

        ``one_type``: the targets are assigned in several places (a loop carry,
        the outputs of ``if`` branches), so scalars are cast to their dtype:
        Numba gives a variable ONE type, and would otherwise silently unify
        int32 and int64 into int64, say. Arrays need no cast: Numba unifies a
        read-only argument and a fresh array of the same dtype and rank.
        """
        pairs = []
        for v, e in zip(targets, exprs):
            name = self.var(v)
            if name == "_" or name == e:
                continue
            typed = (not one_type or data_shape(v.aval)[0]  # arrays (a key is its data)
                     or e.startswith(np_dtype(v.aval.dtype) + "("))
            pairs.append((name, e if typed else cast(v.aval.dtype, e)))
        if pairs:
            self.emit(", ".join(n for n, _ in pairs) + " = " + ", ".join(e for _, e in pairs))

    def inline(self, closed_jaxpr, args=None) -> list[str]:
        """Write the steps of a nested jaxpr here, at the current indentation.

        ``args`` (expressions) are bound to its inputs first; by default they
        are bound already. Its constants are arguments of the entry function
        (see :func:`~minijax.backends.plan.hoist_consts`). Returns the expressions of its outputs.
        """
        jaxpr = closed_jaxpr.jaxpr
        if args is not None:
            self.assign(jaxpr.invars, args)
        self.write_steps(kernel_plan.sub_plan(self.plan, closed_jaxpr).steps, jaxpr.outvars)
        return [self.atom(v) for v in jaxpr.outvars]

    def reshape_code(self, x: str, aval, new_shape) -> str:
        if not aval.shape and not new_shape:  # a scalar stays a scalar
            return x
        if not aval.shape:
            return f"np.full({tuple(new_shape)}, {x})"
        if not new_shape:
            return f"{x}.ravel()[0]"
        return f"np.ascontiguousarray({x}).reshape({tuple(new_shape)})"

    # --- the function ---------------------------------------------------------------
    def write(self) -> str:
        jaxpr = self.plan.closed_jaxpr.jaxpr
        params = ", ".join(self.var(v) for v in [*jaxpr.constvars, *jaxpr.invars])
        for v in [*jaxpr.constvars, *jaxpr.invars]:  # a float16 scalar arrives as its bits
            if is_half(v.aval.dtype) and not v.aval.shape:
                from_bits = self.helper(half_helpers(v.aval.dtype)[1])
                self.emit(f"{self.var(v)} = {from_bits}({self.var(v)})")
        self.write_steps(self.plan.steps, jaxpr.outvars)
        outs = [self.var(v) if v.aval.shape or not is_half(v.aval.dtype)
                else f"{self.helper(half_helpers(v.aval.dtype)[0])}({self.var(v)})"
                for v in kernel_plan.kernel_outputs(jaxpr)]
        self.emit(f"return ({''.join(o + ', ' for o in outs)})")
        header = f"def {self.fn_name}({params}):"
        return "\n".join([header, *self.lines])

    def write_steps(self, steps, live_out) -> None:
        """Write ``steps``; ``live_out`` are the values used after them."""
        donors = kernel_plan.buffer_donors(steps, live_out)
        for i, step in enumerate(steps):
            if isinstance(step, kernel_plan.LoopNest):
                self.loop_nest(step, donors.get(i, {}))
            else:  # a Dot or a Call: the primitive's call rule writes it
                self.call(step.eqn)

    def call(self, eqn) -> None:
        """A step that is not a loop nest: its rule writes it (see :mod:`.rules`)."""
        args = [self.atom(a) for a in eqn.invars]
        expr = LOWERINGS[eqn.primitive].fn(self, eqn, *args)
        if expr is not None:  # None: the rule wrote its lines itself
            self.emit(f"{self.var(eqn.outvars[0])} = {expr}", self.text(eqn))

    def helper(self, name: str) -> str:
        """Request helper ``name`` (and the helpers it calls) for this kernel."""
        return request(self.helpers, name)

    # --- fused loop nests -----------------------------------------------------------
    def loop_nest(self, step: kernel_plan.LoopNest, donors=None) -> None:
        """One fused loop nest; ``donors`` maps a store to the dead input whose
        buffer it reuses (see :func:`~minijax.backends.plan.buffer_donors`)."""
        donors = donors or {}
        shape, rank = tuple(step.shape), len(step.shape)
        idx = ["0" if n == 1 else f"i{d}" for d, n in enumerate(shape)]  # no range(1) loops
        what = f"fused loop nest over {list(shape)}: {len(step.eqns)} equation(s)"
        if step.reduction is not None:
            what += f" into {step.reduction.primitive.name}"
        self.emit(f"# --- {what}")
        for v in step.stores:
            if rank and v in donors:
                self.emit(f"{self.var(v)} = {self.var(donors[v])}  # reuses the buffer: "
                          f"{self.var(donors[v])} is not read after this loop")
            elif rank:
                self.emit(f"{self.var(v)} = np.empty({shape}, dtype={data_shape(v.aval)[1]})")
        reduce = _Reduction(self, step.reduction, idx) if step.reduction is not None else None
        if reduce:
            reduce.init()
        size = int(np.prod(shape, dtype=np.int64))
        parallel = rank and reduce is None and size >= ELEMENTWISE_PARALLEL_THRESHOLD
        self.parallel |= bool(parallel)
        local: dict = {}  # value -> its scalar name in the loop body

        def operand(a):
            return local[a] if isinstance(a, Var) and a in local else self.read(a, idx, shape)

        def body(acc=None) -> None:
            """The loop body: each equation's element, the stores, the reduction."""
            local.clear()
            for eqn in step.eqns:
                out = eqn.outvars[0]
                name = f"{self.var(out)}_i" if rank else self.var(out)
                self.emit(f"{name} = {self.scalar(eqn, operand, idx)}", self.text(eqn))
                local[out] = name
            for v in step.stores:
                if rank:
                    self.store(v, idx, local[v])
            if reduce:
                reduce.update(operand(step.reduction.invars[0]), acc)

        if reduce and _chunkable(shape, reduce):
            self._chunked_full_reduction(shape, reduce, body)
            return
        if reduce and reduce.lanes(shape):
            self._lanes_loop_nest(shape, reduce, body)
            return
        opened = 0
        for d in range(rank):
            if idx[d] != "0":
                loop = "prange" if parallel and not opened else "range"
                self.emit(f"for i{d} in {loop}({shape[d]}):")
                self.depth += 1
                opened += 1
        body()
        self.depth -= opened
        if reduce:
            reduce.finish()

    def _lanes_loop_nest(self, shape, reduce, body) -> None:
        """A reduction over the innermost axes, in ``LANES`` partial results.

        ``acc += x`` in a loop is a chain: each add waits for the one before
        (4 cycles), and LLVM may not reorder float adds, so it cannot use
        vector instructions either. Here the innermost loop is cut into rows of
        ``LANES`` elements, each element accumulated into its own lane
        (``acc_lanes[l] += x``): the adds of one row are independent, LLVM
        vectorizes them, and the lanes are folded into the result at the end,
        in a fixed order. The sum is computed in another order than the plain
        loop's (the float64 accumulator keeps it far within float32's rounding).

        A big nest with kept axes runs its first axis in ``prange`` chunks, each
        chunk with its own row of lanes: every output element is still summed
        by one thread, in the same order, so the result does not depend on the
        number of threads."""
        rank, n, lanes = len(shape), shape[-1], LANES
        kept = len(reduce.kept)
        name = f"{reduce.name}_lanes"
        size = int(np.prod(shape, dtype=np.int64))
        parallel = kept >= 1 and shape[0] > 1 and size >= PARALLEL_THRESHOLD
        last = f"i{rank - 1}"
        if parallel:
            rows = -(-shape[0] // min(shape[0], 64))  # rows per chunk, at most 64 chunks
            chunks = -(-shape[0] // rows)
            self.parallel = True
            self.emit(f"{name} = np.empty(({chunks}, {lanes}), dtype={np_dtype(reduce.acc_dtype)})")
            self.emit(f"for i0c in prange({chunks}):  # chunks of {rows} rows, one row of lanes each")
            self.emit(f"    for i0 in range(i0c * {rows}, min(i0c * {rows} + {rows}, {shape[0]})):")
            self.depth += 2
            lane = lambda i: f"{name}[i0c, {i}]"  # noqa: E731
        else:
            self.emit(f"{name} = np.empty({lanes}, dtype={np_dtype(reduce.acc_dtype)})")
            lane = lambda i: f"{name}[{i}]"  # noqa: E731
        outer = opened(open_loops(self, shape, "i", range(1 if parallel else 0, kept)))
        self.emit(f"for {last}l in range({lanes}):")
        self.emit(f"    {lane(last + 'l')} = {literal(reduce.identity(), reduce.acc_dtype)}")
        inner = opened(open_loops(self, shape, "i", range(kept, rank - 1)))
        full = n - n % lanes
        self.emit(f"for {last}o in range(0, {full}, {lanes}):")
        self.emit(f"    for {last}l in range({lanes}):")
        self.depth += 2
        self.emit(f"{last} = {last}o + {last}l")
        body(lane(f"{last}l"))
        self.depth -= 2
        if full < n:  # the last, partial row: into lane 0
            self.emit(f"for {last} in range({full}, {n}):")
            self.depth += 1
            body(lane(0))
            self.depth -= 1
        self.depth -= inner
        self.emit(f"for {last}l in range({lanes}):")
        self.depth += 1
        reduce.update(lane(f"{last}l"))
        self.depth -= 1 + outer + (2 if parallel else 0)
        reduce.finish()

    def _chunked_full_reduction(self, shape, reduce, body) -> None:
        """A big sum, product, max or min over every axis, spread over threads:
        the first axis is cut into at most 64 chunks, each accumulated by one
        thread into partial results of its own (a row of ``LANES`` lanes when
        the last axis is long enough, else one), and the partial results are
        folded into the result at the end, in chunk order. The chunks do not
        depend on the number of threads, so neither does the result (it may
        differ from a one-thread loop's in the last digit: another order of
        additions)."""
        rank, n = len(shape), shape[-1]
        lanes = LANES if n >= LANES else 1
        name, last = f"{reduce.name}_parts", f"i{rank - 1}"
        rows = -(-shape[0] // min(shape[0], 64))
        chunks = -(-shape[0] // rows)
        self.parallel = True
        self.emit(f"# --- fused loop nest over {list(shape)} into {reduce.eqn.primitive.name}, "
                  f"in {chunks} chunks of {rows} rows")
        self.emit(f"{name} = np.empty(({chunks}, {lanes}), dtype={np_dtype(reduce.acc_dtype)})")
        self.emit(f"for i0c in prange({chunks}):  # each chunk's own partial results")
        self.emit(f"    for {last}l in range({lanes}):")
        self.emit(f"        {name}[i0c, {last}l] = {literal(reduce.identity(), reduce.acc_dtype)}")
        self.emit(f"    for i0 in range(i0c * {rows}, min(i0c * {rows} + {rows}, {shape[0]})):")
        self.depth += 2
        inner = opened(open_loops(self, shape, "i", range(1, rank - 1)))
        if lanes == 1:
            self.emit(f"for {last} in range({n}):")
            self.depth += 1
            body(f"{name}[i0c, 0]")
            self.depth -= 1
        else:
            full = n - n % lanes
            self.emit(f"for {last}o in range(0, {full}, {lanes}):")
            self.emit(f"    for {last}l in range({lanes}):")
            self.depth += 2
            self.emit(f"{last} = {last}o + {last}l")
            body(f"{name}[i0c, {last}l]")
            self.depth -= 2
            if full < n:  # the last, partial row: into lane 0
                self.emit(f"for {last} in range({full}, {n}):")
                self.depth += 1
                body(f"{name}[i0c, 0]")
                self.depth -= 1
        self.depth -= inner + 2
        self.emit(f"for i0c in range({chunks}):  # the partial results, in chunk order")
        self.emit(f"    for {last}l in range({lanes}):")
        self.depth += 2
        reduce.update(f"{name}[i0c, {last}l]")
        self.depth -= 2
        reduce.finish()

    def scalar(self, eqn, operand, idx) -> str:
        """The expression of one element of ``eqn``'s output, at loop index ``idx``."""
        ctx = ScalarContext(eqn, self.helpers, idx, self.read)
        expr = LOWERINGS[eqn.primitive].fn(ctx, *[operand(a) for a in eqn.invars])
        out = eqn.outvars[0].aval.dtype
        if is_half(out) and eqn.primitive.kind == "elementwise" and not (
                eqn.primitive.moves_data and all(a.aval.dtype == out for a in eqn.invars)):
            return f"{self.helper(half_helpers(out)[2])}({expr})"  # a 16-bit result: round it
        return expr


def _chunkable(shape, reduce) -> bool:
    """Is this reduction one to spread over threads in chunks
    (:meth:`KernelWriter._chunked_full_reduction`): a sum, product, max or min
    over every axis of a big nest whose first axis can be cut?"""
    return (reduce.kind in ("sum", "prod", "max", "min") and not reduce.kept
            and len(shape) >= 2 and shape[0] > 1
            and int(np.prod(shape, dtype=np.int64)) >= PARALLEL_THRESHOLD)


class _Reduction:
    """The accumulator of a reduction fused at the end of a loop nest. How one
    element folds in is the primitive's rule (form ``"reduction"`` in :mod:`.rules`)."""

    def __init__(self, w: KernelWriter, eqn, idx):
        self.w, self.eqn, self.idx = w, eqn, idx
        self.rule = LOWERINGS[eqn.primitive]
        self.kind = eqn.primitive.name.replace("reduce_", "")
        self.x = eqn.invars[0]
        self.out = eqn.outvars[0]
        axes = set(eqn.params["axes"])
        self.kept = [i for d, i in enumerate(idx) if d not in axes]
        self.axis = idx[eqn.params["axes"][0]] if self.kind.startswith("arg") else None
        self.name = w.var(self.out)
        dtype = self.out.aval.dtype
        wide = {"f": np.float64, "i": np.int64, "u": np.uint64}  # sums and products: wide
        self.acc_dtype = (np.dtype(wide.get(kind(dtype), dtype)) if self.kind in ("sum", "prod")
                          else dtype)

    def ref(self, name: str) -> str:
        return f"{name}[{', '.join(self.kept)}]" if self.kept else name

    def identity(self):
        return reduction_identity(self.kind, self.acc_dtype)

    def init(self) -> None:
        w, shape = self.w, tuple(self.out.aval.shape)
        w.emit(f"# {w.text(self.eqn)}")
        if self.axis is not None:  # argmax / argmin: the best value and its index
            xdt = self.x.aval.dtype
            w.emit(f"{self.name}_best = " + (f"np.empty({shape}, dtype={np_dtype(xdt)})"
                                               if shape else literal(0, xdt)))
            idt = self.out.aval.dtype
            w.emit(f"{self.name} = " + (f"np.zeros({shape}, dtype={np_dtype(idt)})"
                                          if shape else literal(0, idt)))
            return
        init = literal(self.identity(), self.acc_dtype)
        w.emit(f"{self.name}_acc = " + (f"np.full({shape}, {init}, dtype={np_dtype(self.acc_dtype)})"
                                          if shape else init))

    def lanes(self, shape) -> bool:
        """Whether to accumulate in lanes (see ``KernelWriter._lanes_loop_nest``):
        a sum, product, max or min over the innermost axes (the kept ones come
        first), with at least ``LANES`` elements on the last one."""
        rank = len(shape)
        return (self.kind in ("sum", "prod", "max", "min") and rank > 0
                and self.kept == self.idx[:len(self.kept)] and len(self.kept) < rank
                and shape[-1] >= LANES)

    def update(self, x: str, acc: str | None = None) -> None:
        """Fold element ``x`` into the accumulator (or into ``acc``, a lane)."""
        w, acc = self.w, acc or self.ref(f"{self.name}_acc")
        ctx = ScalarContext(self.eqn, w.helpers)
        if self.axis is not None:  # the rule says whether x is better than the best
            best = self.ref(f"{self.name}_best")
            w.emit(f"if {self.axis} == 0 or {self.rule.fn(ctx, best, x)}:")
            w.emit(f"    {best} = {x}")
            w.emit(f"    {self.ref(self.name)} = {cast(self.out.aval.dtype, self.axis)}")
            return
        ctx.out_dtype = self.acc_dtype
        w.emit(self.rule.fn(ctx, acc, x))

    def finish(self) -> None:
        if self.axis is not None:
            return
        w, dtype = self.w, self.out.aval.dtype
        acc = f"{self.name}_acc"
        if self.acc_dtype == dtype:
            w.emit(f"{self.name} = {acc}")
        elif self.out.aval.shape:
            w.emit(f"{self.name} = {acc}.astype({np_dtype(dtype)})")
        else:
            w.emit(f"{self.name} = {cast(dtype, acc)}")


def entry_name(name: str) -> str:
    """The entry function's name: ``jit_`` and the jitted function's name."""
    return "jit_" + (re.sub(r"\W+", "_", name).strip("_") or "fun")


#: The entry of a kernel with a ``prange`` loop. Numba's ``parallel=True`` also
#: rewrites NumPy calls, array expressions and slice assignments into parallel
#: loops ("parfors") and fuses them: analyses over the whole function that cost
#: compile time (a second of the MLP step's 9 s) and that our kernels do not
#: need, as every big elementwise loop is already a ``prange``. So only
#: ``prange`` is switched on.
_PARALLEL_DECORATOR = (
    "# Only the prange loops run in parallel: Numba's other rewrites of parallel=True\n"
    "# (NumPy calls, array expressions, slice assignments) are off: they cost compile time.\n"
    '@njit(nogil=True, cache=True, error_model="numpy",\n'
    "      parallel=dict(prange=True, numpy=False, setitem=False, reduction=False,\n"
    "                    comprehension=False, inplace_binop=False, stencil=False, fusion=False))")


def _imports(code: str, parallel: bool) -> str:
    """The imports ``code`` uses: ``math`` and ``np`` only when it calls them."""
    lines = []
    if re.search(r"\bmath\.", code):
        lines.append("import math")
    if re.search(r"\bnp\.", code):
        lines.append("import numpy as np")
    return "\n".join(lines + [f"from numba import njit{', prange' if parallel else ''}"])


def generate_source(plan: kernel_plan.KernelPlan, name: str) -> str:
    """The kernel module for ``plan``: imports, the helpers it uses, the entry function."""
    fn_name = entry_name(name)
    writer = KernelWriter(plan, fn_name)
    body = writer.write()
    jaxpr_text = "\n".join("    " + line for line in str(plan.closed_jaxpr).splitlines())
    plan_text = "\n".join("    " + line for line in str(plan).splitlines())
    library, shared = shared_helpers(writer.helpers)
    own = with_preludes([h for h in sorted(writer.helpers) if h not in shared])
    entry = f"{_PARALLEL_DECORATOR if writer.parallel else DECORATOR}\n{body}"
    imports = _imports("\n".join([*own, entry]), writer.parallel)
    if shared:
        imports += f"\n\nfrom {library} import {', '.join(shared)}"
    parts = [
        f'"""Kernel for jit({name}), generated by minijax.backends.cpu.\n\n'
        f"The jaxpr:\n\n{jaxpr_text}\n\nThe plan:\n\n{plan_text}\n\"\"\"",
        imports, *own, entry,
    ]
    return "\n\n\n".join(parts) + "\n"


def imported_helpers_text(source: str) -> str:
    """The source of the shared helpers a kernel module imports (for ``as_text()``)."""
    library, _ = shared_helpers(())
    m = re.search(rf"^from {library} import (.*)$", source, re.M) if library else None
    if not m:
        return ""
    names = [n.strip() for n in m.group(1).split(",")]
    return (f"# ---- helpers imported from {library} (the shared helper module) ----\n\n"
            + "\n\n\n".join(decorated(h) for h in names) + "\n")
