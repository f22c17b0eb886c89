"""Chapter 09 — writing the kernel module of a plan.

:func:`generate_source` turns a :class:`~minijax.backends.fusion.KernelPlan`
into ONE Python module with ONE ``@njit(nogil=True)`` entry function: loops
over static shapes, a local per jaxpr variable (named as the printed jaxpr
names it), each line commented with the equation it comes from, and the
helpers the scalar rules asked for: imported from the one helper module that
all kernels share (:func:`helper_library_source`), so that each is compiled
once, not once per kernel.

Control flow (``cond``, ``while``, ``scan``: see ``numba_control_flow``) is
written *inline*: a nested jaxpr gets a plan of its own (:func:`fusion.sub_plan`,
so loop bodies are fused too) whose steps are written inside a native ``if``,
``while`` or ``for`` of the same function. The printer gives every variable,
nested ones included, a distinct name, so the code reads like the jaxpr.

A fused loop nest of at least :data:`PARALLEL_THRESHOLD` elements (with no
reduction) runs its outer loop with ``prange``: the kernel is then compiled
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

from minijax.backends import fusion
from minijax.backends.numba_calls import CALL_LOWERINGS, permuted_copy
from minijax.backends.numba_scalar import (HELPER_NJIT_OPTIONS, HELPER_PRELUDES, HELPERS,
                                           SCALAR_RULES, _Ctx, gemm_helper,
                                           _kind, _minmax, cast, literal, np_dtype)
from minijax.jaxpr import Literal, Var

__all__ = ["generate_source", "kernel_outputs", "PARALLEL_THRESHOLD", "helper_library_source",
           "use_helper_library"]

#: Fused loop nests with at least this many elements run their outer loop in parallel.
PARALLEL_THRESHOLD = 2 ** 16

#: The number of partial results of a reduction over the innermost axis
#: (``_KernelWriter._lanes_loop_nest``). Measured on rows of 1000 float32 summed
#: in float64: 8 and 16 lanes 0.28 ms, 64 lanes 0.19 ms, 128 lanes 0.31 ms
#: (one accumulator: 0.79 ms).
LANES = 64


_RESERVED = set(keyword.kwlist) | {"np", "math", "njit", "range", "abs", "max", "min",
                                   "int", "float", "bool", "len", "print"}


class _KernelWriter:
    """Writes the entry function of one plan, line by line."""

    def __init__(self, plan: fusion.KernelPlan, fn_name: str):
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
        return f"{self.var(a)}[{', '.join(idx)}]"

    def text(self, eqn) -> str:
        return fusion.eqn_text(eqn, self.plan.names)

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
            typed = not one_type or v.aval.shape or e.startswith(np_dtype(v.aval.dtype) + "(")
            pairs.append((name, e if typed else cast(v.aval.dtype, e)))
        if pairs:
            self.emit(", ".join(n for n, _ in pairs) + " = " + ", ".join(e for _, e in pairs))

    def inline(self, closed_jaxpr, args=None) -> list[str]:
        """Write the steps of a nested jaxpr here, at the current indentation.

        ``args`` (expressions) are bound to its inputs first; by default they
        are bound already. Its constants are arguments of the entry function
        (see :func:`fusion.hoist_consts`). Returns the expressions of its outputs.
        """
        jaxpr = closed_jaxpr.jaxpr
        if args is not None:
            self.assign(jaxpr.invars, args)
        self.write_steps(fusion.sub_plan(self.plan, closed_jaxpr).steps, jaxpr.outvars)
        return [self.atom(v) for v in jaxpr.outvars]

    def reshape_code(self, x: str, aval, new_shape) -> str:
        if not aval.shape:
            return f"np.full({tuple(new_shape)}, {x})"
        if not new_shape:
            return f"{x}.ravel()[0]"
        return f"np.ascontiguousarray({x}).reshape({tuple(new_shape)})"

    # --- the function ---------------------------------------------------------------
    def write(self) -> str:
        jaxpr = self.plan.closed_jaxpr.jaxpr
        params = ", ".join(self.var(v) for v in [*jaxpr.constvars, *jaxpr.invars])
        self.write_steps(self.plan.steps, jaxpr.outvars)
        outs = [self.var(v) for v in kernel_outputs(jaxpr)]
        self.emit(f"return ({''.join(o + ', ' for o in outs)})")
        header = f"def {self.fn_name}({params}):"
        return "\n".join([header, *self.lines])

    def write_steps(self, steps, live_out) -> None:
        """Write ``steps``; ``live_out`` are the values used after them."""
        donors = fusion.buffer_donors(steps, live_out)
        for i, step in enumerate(steps):
            if isinstance(step, fusion.LoopNest):
                self.loop_nest(step, donors.get(i, {}))
            elif isinstance(step, fusion.Dot):
                self.dot(step.eqn)
            else:
                self.call(step.eqn)

    def call(self, eqn) -> None:
        args = [self.atom(a) for a in eqn.invars]
        expr = CALL_LOWERINGS[eqn.primitive.name](self, eqn, *args)
        if expr is not None:  # None: the lowering wrote its lines itself
            self.emit(f"{self.var(eqn.outvars[0])} = {expr}", self.text(eqn))

    def dot(self, eqn) -> None:
        """``dot_general`` as (batched) matrix products of contiguous 3-D operands:
        one gemm call per batch element (float32), or plain loops (integers)."""
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        lhs, rhs = eqn.invars
        out = eqn.outvars[0]
        dtype = out.aval.dtype
        ls, rs = lhs.aval.shape, rhs.aval.shape
        lf = [d for d in range(len(ls)) if d not in lc and d not in lb]
        rf = [d for d in range(len(rs)) if d not in rc and d not in rb]
        size = lambda shape, dims: int(np.prod([shape[d] for d in dims], dtype=np.int64))  # noqa
        B, M, K, N = size(ls, lb), size(ls, lf), size(ls, lc), size(rs, rf)
        name = self.var(out)
        self.emit(f"# {self.text(eqn)}")
        if not lb and M * N * K > 0 and self._matrix_dot(eqn, name):
            return
        operands = []
        for a, perm, shape3, suffix in ((lhs, [*lb, *lf, *lc], (B, M, K), "lhs"),
                                        (rhs, [*rb, *rc, *rf], (B, K, N), "rhs")):
            x = self.atom(a)
            if perm != sorted(perm) and a.aval.shape:
                x = self._transposed(x, a.aval, perm, f"{name}_{suffix}t")
            code = self.reshape_code(x, a.aval, shape3)
            if a.aval.dtype != dtype:
                code = f"{code}.astype({np_dtype(dtype)})"
            self.emit(f"{name}_{suffix} = {code}")
            operands.append(f"{name}_{suffix}")
        out_shape = tuple(out.aval.shape)
        if np.dtype(dtype) == np.float32 and M * N * K > 0:  # each product: one sgemm call
            gemm = self._helper(gemm_helper(False, False))
            self.emit(f"{name}_3d = np.empty({(B, M, N)}, dtype={np_dtype(dtype)})")
            self.emit(f"for i0 in range({B}):")
            self.emit(f"    {gemm}({operands[0]}[i0], {operands[1]}[i0], {name}_3d[i0])")
        else:
            self.emit(f"{name}_3d = np.zeros({(B, M, N)}, dtype={np_dtype(dtype)})")
            self.emit(f"{self._helper('_dot_loop')}({operands[0]}, {operands[1]}, {name}_3d)")
        self.emit(f"{name} = {name}_3d.reshape({out_shape})" if out_shape
                  else f"{name} = {name}_3d[0, 0, 0]")

    def _matrix_dot(self, eqn, name: str) -> bool:
        """A product of two float32 matrices as ONE call of a gemm helper on the
        operands as they are stored (``numba_scalar.gemm_helper``: BLAS's gemm
        with a transpose flag for each, so ``x.T`` is never copied). Returns
        False for the other cases (batches, vectors, other dtypes).

        The helpers compile once, in the shared helper module; ``np.dot``
        compiled Numba's BLAS wrapper again for each pair of operand layouts
        (0.1-0.5 s each in a fresh process)."""
        (lc, rc), _ = eqn.params["dimension_numbers"]
        lhs, rhs = eqn.invars
        dtype = eqn.outvars[0].aval.dtype
        if not (len(lc) == 1 and lhs.aval.ndim == rhs.aval.ndim == 2
                and lhs.aval.dtype == rhs.aval.dtype == dtype and np.dtype(dtype) == np.float32):
            return False
        m, n = lhs.aval.shape[1 - lc[0]], rhs.aval.shape[1 - rc[0]]
        gemm = self._helper(gemm_helper(lc[0] == 0, rc[0] == 1))
        a, b = (f"np.ascontiguousarray({self.atom(x)})" for x in (lhs, rhs))
        self.emit(f"{name} = np.empty(({m}, {n}), dtype={np_dtype(dtype)})")
        self.emit(f"{gemm}({a}, {b}, {name})  # {name} = {self.atom(lhs)}"
                  f"{'.T' * (lc[0] == 0)} @ {self.atom(rhs)}{'.T' * (rc[0] == 1)}")
        return True

    def _transposed(self, x: str, aval, perm, name: str) -> str:
        """A contiguous copy of ``x`` with its axes permuted, written as element
        loops: ``x.transpose(perm)`` would compile Numba's tuple formatting
        (seconds, the first time in a process) and still need a copy to reshape."""
        shape = tuple(aval.shape[d] for d in perm)
        permuted_copy(self, name, x, shape, np_dtype(aval.dtype), perm)
        return name

    def _helper(self, name: str) -> str:
        self.helpers.add(name)
        return name

    # --- fused loop nests -----------------------------------------------------------
    def loop_nest(self, step: fusion.LoopNest, donors=None) -> None:
        """One fused loop nest; ``donors`` maps a store to the dead input whose
        buffer it reuses (see :func:`fusion.buffer_donors`)."""
        donors = donors or {}
        shape, rank = tuple(step.shape), len(step.shape)
        idx = [f"i{d}" for d in range(rank)]
        what = f"fused loop nest over {list(shape)}: {len(step.eqns)} equation(s)"
        if step.reduction is not None:
            what += f" into {step.reduction.primitive.name}"
        self.emit(f"# --- {what}")
        for v in step.stores:
            if rank and v in donors:
                self.emit(f"{self.var(v)} = {self.var(donors[v])}  # reuses the buffer: "
                          f"{self.var(donors[v])} is not read after this loop")
            elif rank:
                self.emit(f"{self.var(v)} = np.empty({shape}, dtype={np_dtype(v.aval.dtype)})")
        reduce = _Reduction(self, step.reduction, idx) if step.reduction is not None else None
        if reduce:
            reduce.init()
        size = int(np.prod(shape, dtype=np.int64))
        parallel = rank and reduce is None and size >= PARALLEL_THRESHOLD
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
                    self.emit(f"{self.var(v)}[{', '.join(idx)}] = {local[v]}")
            if reduce:
                reduce.update(operand(step.reduction.invars[0]), acc)

        if reduce and reduce.lanes(shape):
            self._lanes_loop_nest(shape, reduce, body)
            return
        for d in range(rank):
            loop = "prange" if parallel and d == 0 else "range"
            self.emit(f"for i{d} in {loop}({shape[d]}):")
            self.depth += 1
        body()
        self.depth -= rank
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
        parallel = kept >= 1 and size >= PARALLEL_THRESHOLD
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
        for d in range(1 if parallel else 0, kept):
            self.emit(f"for i{d} in range({shape[d]}):")
            self.depth += 1
        self.emit(f"for {last}l in range({lanes}):")
        self.emit(f"    {lane(last + 'l')} = {literal(reduce.identity(), reduce.acc_dtype)}")
        for d in range(kept, rank - 1):
            self.emit(f"for i{d} in range({shape[d]}):")
            self.depth += 1
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
        self.depth -= rank - 1 - kept
        self.emit(f"for {last}l in range({lanes}):")
        self.depth += 1
        reduce.update(lane(f"{last}l"))
        self.depth -= 1 + kept + (1 if parallel else 0)
        reduce.finish()

    def scalar(self, eqn, operand, idx) -> str:
        """The expression of one element of ``eqn``'s output, at loop index ``idx``."""
        name = eqn.primitive.name
        out = eqn.outvars[0].aval
        if name == "iota":
            return cast(out.dtype, idx[eqn.params["dimension"]])
        if name == "broadcast_in_dim":
            x = eqn.invars[0]
            if isinstance(x, Literal) or not x.aval.shape or x.aval.shape == out.shape:
                return operand(x)
            dims = eqn.params["broadcast_dimensions"]
            x_idx = ["0" if x.aval.shape[d] == 1 else idx[dims[d]] for d in range(len(dims))]
            return self.read(x, x_idx)
        ctx = _Ctx(eqn, self.helpers)
        return SCALAR_RULES[name](ctx, *[operand(a) for a in eqn.invars])


class _Reduction:
    """The accumulator of a reduction fused at the end of a loop nest."""

    def __init__(self, w: _KernelWriter, eqn, idx):
        self.w, self.eqn, self.idx = w, eqn, idx
        self.kind = eqn.primitive.name.replace("reduce_", "")
        self.x = eqn.invars[0]
        self.out = eqn.outvars[0]
        axes = set(eqn.params["axes"])
        self.kept = [i for d, i in enumerate(idx) if d not in axes]
        self.axis = idx[eqn.params["axes"][0]] if self.kind.startswith("arg") else None
        self.name = w.var(self.out)
        dtype = self.out.aval.dtype
        wide = {"f": np.float64, "i": np.int64, "u": np.uint64}
        self.acc_dtype = (np.dtype(wide.get(_kind(dtype), dtype)) if self.kind in ("sum", "prod")
                          else dtype)

    def ref(self, name: str) -> str:
        return f"{name}[{', '.join(self.kept)}]" if self.kept else name

    def identity(self):
        dtype, kind = self.acc_dtype, _kind(self.acc_dtype)
        if self.kind in ("max", "min"):
            if kind == "f":
                return float("-inf") if self.kind == "max" else float("inf")
            if kind == "b":
                return self.kind == "min"
            info = np.iinfo(dtype)
            return info.min if self.kind == "max" else info.max
        return {"sum": 0, "prod": 1, "and": -1 if kind != "b" else True, "or": 0, "xor": 0}[self.kind]

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
        """Whether to accumulate in lanes (see ``_KernelWriter._lanes_loop_nest``):
        a sum, product, max or min over the innermost axes (the kept ones come
        first), with at least ``LANES`` elements on the last one."""
        rank = len(shape)
        return (self.kind in ("sum", "prod", "max", "min") and rank > 0
                and self.kept == self.idx[:len(self.kept)] and len(self.kept) < rank
                and shape[-1] >= LANES)

    def update(self, x: str, acc: str | None = None) -> None:
        """Fold element ``x`` into the accumulator (or into ``acc``, a lane)."""
        w, acc = self.w, acc or self.ref(f"{self.name}_acc")
        if self.axis is not None:
            best = self.ref(f"{self.name}_best")
            better = w._helper("_arg_better_" + self.kind[3:])
            w.emit(f"if {self.axis} == 0 or {better}({x}, {best}):")
            w.emit(f"    {best} = {x}")
            w.emit(f"    {self.ref(self.name)} = {cast(self.out.aval.dtype, self.axis)}")
            return
        kind, dk = self.kind, _kind(self.acc_dtype)
        if kind in ("sum", "prod"):
            w.emit(f"{acc} {'+' if kind == 'sum' else '*'}= {x}")
            return
        if kind in ("max", "min"):
            ctx = _Ctx(self.eqn, w.helpers)
            ctx.out_dtype = self.acc_dtype
            new = _minmax(kind == "max")(ctx, acc, x)
        else:
            op = {"and": "&", "or": "|", "xor": "^"}[kind]
            new = f"{acc} {op} {x}" if dk == "b" else cast(self.acc_dtype, f"{acc} {op} {x}")
        w.emit(f"{acc} = {new}")

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


def kernel_outputs(jaxpr) -> list:
    """The jaxpr outputs the kernel computes (not inputs, constants or literals), once each."""
    given = set(jaxpr.constvars) | set(jaxpr.invars)
    outs: list = []
    for v in jaxpr.outvars:
        if isinstance(v, Var) and v not in given and v not in outs:
            outs.append(v)
    return outs


_DECORATOR = '@njit(nogil=True, cache=True, error_model="numpy")'
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


#: A helper is called only from compiled code, so it needs neither of the two
#: wrappers Numba builds by default for a call from Python (the CPython one) and
#: through a C pointer (the cfunc one): without them a helper compiles in 0.02-0.03 s
#: instead of 0.06-0.12 s, and the workload 4 kernel pulls in a dozen helpers.
_HELPER_DECORATOR = (f"{_DECORATOR[:-1]},\n      "
                     "no_cpython_wrapper=True, no_cfunc_wrapper=True)")


def _helper_decorator(name: str) -> str:
    """The ``@njit`` line of helper ``name``, with its extra options if it has any."""
    extra = HELPER_NJIT_OPTIONS.get(name)
    return _HELPER_DECORATOR if extra is None else f"{_HELPER_DECORATOR[:-1]}, {extra})"


def _entry_name(name: str) -> str:
    return "jit_" + (re.sub(r"\W+", "_", name).strip("_") or "fun")


#: The shared helper module (set by :func:`use_helper_library`): its module name
#: and the decorated source of each helper in it.
_library: dict = {"module": None, "helpers": {}}

_HELPER_IMPORTS = "import math\n\nimport numpy as np\nfrom numba import njit"


def _decorated(name: str) -> str:
    """Helper ``name`` as written into a module: its decorator and code."""
    return f"{_helper_decorator(name)}{HELPERS[name].rstrip()}"


def _with_preludes(names) -> list[str]:
    """The module-level code the helpers ``names`` need (each once), then the helpers."""
    preludes = dict.fromkeys(HELPER_PRELUDES[h].strip() for h in names if h in HELPER_PRELUDES)
    return [*preludes, *(_decorated(h) for h in names)]


def helper_library_source() -> str:
    """One module holding every helper registered so far, for all kernels to import.

    Each kernel module used to carry a copy of the helpers it calls, and so
    compiled them again: ``_exp32`` alone costs 0.17 s, the log helpers 0.4 s.
    Imported from one module, a helper is compiled once per process for each
    argument type, and once per machine (``cache=True``: Numba keeps its
    machine code beside the module, in the cache directory).
    """
    body = "\n\n\n".join(_with_preludes(sorted(HELPERS)))
    return ('"""Helpers of the kernels generated by minijax.backends.numba_cpu."""\n'
            f"{_HELPER_IMPORTS}\n\n\n{body}\n")


def use_helper_library(module_name: str) -> None:
    """From now on kernels import the helpers registered so far from
    ``module_name`` (the module :func:`helper_library_source` wrote) instead of
    defining them. A helper registered later, or registered again with other
    code (a sort helper written for one plan), is still written into the
    kernel module itself."""
    _library["module"] = module_name
    _library["helpers"] = {h: _decorated(h) for h in HELPERS}


def generate_source(plan: fusion.KernelPlan, name: str) -> str:
    """The kernel module for ``plan``: imports, the helpers it uses, the entry function."""
    fn_name = _entry_name(name)
    writer = _KernelWriter(plan, fn_name)
    body = writer.write()
    jaxpr_text = "\n".join("    " + line for line in str(plan.closed_jaxpr).splitlines())
    plan_text = "\n".join("    " + line for line in str(plan).splitlines())
    shared = sorted(h for h in writer.helpers if _library["helpers"].get(h) == _decorated(h))
    imports = _HELPER_IMPORTS + (", prange" if writer.parallel else "")
    if shared:
        imports += f"\n\nfrom {_library['module']} import {', '.join(shared)}"
    parts = [
        f'"""Kernel for jit({name}), generated by minijax.backends.numba_cpu.\n\n'
        f"The jaxpr:\n\n{jaxpr_text}\n\nThe plan:\n\n{plan_text}\n\"\"\"",
        imports,
    ]
    parts += _with_preludes([h for h in sorted(writer.helpers) if h not in shared])
    parts.append(f"{_PARALLEL_DECORATOR if writer.parallel else _DECORATOR}\n{body}")
    return "\n\n\n".join(parts) + "\n"
