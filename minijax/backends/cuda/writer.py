"""Chapter 10 — writing the CUDA module of a kernel plan.

The same :class:`~minijax.backends.plan.KernelPlan` as the CPU's (the same
fusion), written for ``numba.cuda``. One module holds:

- one ``@cuda.jit`` *kernel* per step of the plan, each run by many GPU
  threads at once:

  * a fused loop nest: a **grid-stride loop**. Thread ``t = cuda.grid(1)``
    computes element ``t`` of the output, then ``t + gridsize``, ... so any
    number of threads covers any size (and the simulator can run a 100,000
    element kernel with 64 threads);
  * a loop nest ending in a reduction: a **block-level tree reduction**.
    Each block owns output elements (``blockIdx.x``, then ``+ gridDim.x``);
    its threads fold a strided share of the reduced elements each, put their
    partial results in shared memory, and halve them pairwise
    (``syncthreads()`` between rounds) down to one. One block per output
    element needs no second pass and no atomics;
  * a ``dot_general``: a **tiled matrix product**. A block computes a
    ``TILE x TILE`` tile of the output; for each ``TILE``-wide slice of the
    contracted axis it loads one tile of each operand into shared memory
    (each thread loads one element), waits, and accumulates ``TILE``
    products from shared memory;
  * data movement (``transpose``, ``slice``, ``pad``...): a grid-stride loop
    over the output reading the operand where the rule says;

- one *host driver*, a plain Python function named after the jaxpr
  (``jit_f``), that allocates each value's device memory and launches the
  kernels in order on one CUDA stream. Launches return at once: the stream
  runs them in order, on the GPU, while Python goes on.

Every value is a device array named as the printed jaxpr names it; a scalar
is stored as one element (shape ``(1,)``). Each line of a kernel is commented
with its equation, as in the CPU's source.
"""
from __future__ import annotations

import keyword
import math
from dataclasses import dataclass

import numpy as np

from minijax.backends import plan as kernel_plan
from minijax.backends.cpu.rules import reduction_identity
from minijax.backends.cpu.syntax import (cast, data_shape, is_half, is_threefry_key, kind,
                                         literal, np_dtype)
from minijax.backends.cpu.writer import entry_name
from minijax.backends.cuda import helpers
from minijax.backends.cuda.rules import (LOWERINGS, CudaScalarContext, IndexContext,
                                         unravel)
from minijax.jaxpr import DropVar, Literal, Var

__all__ = ["Launch", "CudaModule", "generate_module", "SIMULATOR_LAUNCH", "GPU_LAUNCH", "Named"]


@dataclass(frozen=True)
class Launch:
    """How many threads a kernel gets: per block, the most blocks, the matmul tile.

    On a GPU: 256 threads a block (8 warps), enough blocks to fill it, 16x16
    tiles. On the simulator every GPU thread is a Python thread and a
    ``syncthreads()`` costs milliseconds, so it gets few of each; grid-stride
    loops make the results the same."""
    threads: int
    max_blocks: int
    tile: int


GPU_LAUNCH = Launch(threads=256, max_blocks=1024, tile=16)
SIMULATOR_LAUNCH = Launch(threads=8, max_blocks=2, tile=4)

#: Names a jaxpr variable may not keep (it gets a trailing ``_``). The kernels'
#: own locals all contain an underscore (``t_flat``, ``acc_v``), which the
#: printer's names (``a``, ``b``, ... ``ba``) never do: they cannot collide.
_RESERVED = set(keyword.kwlist) | {"np", "math", "cuda", "range", "abs", "max", "min", "int",
                                   "float", "bool", "len", "stream"}


#: Every kernel's decorator. ``cache=True``: on a GPU, Numba keeps the compiled
#: kernel beside the module file in minijax's compile cache (the module is named
#: by the hash of its source), so a second process loads it instead of compiling.
KERNEL_DECORATOR = "@cuda.jit(cache=True)"


@dataclass(frozen=True)
class Named:
    """A driver value that is no jaxpr variable (a loop's updated carry): its
    name and aval, usable wherever the writer takes a variable."""
    name: str
    aval: object


@dataclass
class Kernel:
    """One kernel of the module: its name, parameters (jaxpr values) and launch grid."""
    name: str
    params: list
    grid: tuple
    block: tuple
    source: str


@dataclass
class CudaModule:
    """The generated module: its source, the driver's name, and its kernels."""
    source: str
    driver: str
    kernels: list
    host_eqns: list


class CudaWriter:
    """Writes the kernels and the driver of one plan."""

    def __init__(self, plan: kernel_plan.KernelPlan, fn_name: str, launch: Launch):
        self.plan, self.fn_name, self.launch = plan, fn_name, launch
        self.helpers: list[str] = []
        self.kernels: list[Kernel] = []
        self.driver: list[str] = []
        self.lines: list[str] = []  # the kernel being written
        self.depth = 1
        self.driver_depth = 1
        self.host_eqns: list = []  # the callbacks the driver makes: host[k]

    # --- names and elements ------------------------------------------------------
    def var(self, v) -> str:
        """``v``'s name in the printed jaxpr; an unused value (printed ``_``) gets a
        name of its own, as the driver may still hold it (a loop's carry)."""
        if isinstance(v, Named):
            return v.name
        name = "_" if isinstance(v, DropVar) else self.plan.names.var_names[v]
        if name == "_":
            unused = self.__dict__.setdefault("_unused", {})
            return unused.setdefault(v, f"unused_{len(unused)}")
        return name + "_" if name in _RESERVED else name

    def text(self, eqn) -> str:
        return kernel_plan.eqn_text(eqn, self.plan.names)

    def read(self, a, idx, loop_shape=None) -> str:
        """Element ``idx`` of a value in memory (a scalar is element ``[0]``; a key
        array's ``idx`` ends with the word); in a loop over ``loop_shape``, a
        size-1 axis of the operand is broadcast."""
        if isinstance(a, Literal):
            return literal(a.val, a.aval.dtype)
        if not a.aval.shape and not is_threefry_key(a.aval.dtype):
            return f"{self.var(a)}[0]"
        if loop_shape is not None and tuple(a.aval.shape) != tuple(loop_shape):
            idx = ["0" if n == 1 else i for n, i in zip(a.aval.shape, idx)] + \
                list(idx[len(a.aval.shape):])
        return f"{self.var(a)}[{', '.join(idx)}]"

    def emit(self, code: str, comment: str | None = None) -> None:
        line = "    " * self.depth + code
        self.lines.append(f"{line}  # {comment}" if comment else line)

    def scalar(self, eqn, operand, idx) -> str:
        ctx = CudaScalarContext(eqn, self.helpers, idx, self.read)
        return LOWERINGS[eqn.primitive].fn(ctx, *[operand(a) for a in eqn.invars])

    # --- the module -----------------------------------------------------------------
    def write(self) -> CudaModule:
        jaxpr = self.plan.closed_jaxpr.jaxpr
        params = [self.var(v) for v in [*jaxpr.constvars, *jaxpr.invars]]
        self.driver.append(f"def {self.fn_name}({', '.join(['stream', 'host', *params])}):")
        self.driver.append('    """The host driver: allocates each value on the device and '
                           'launches the kernels, in order, on ``stream``; ``host[k]`` '
                           'are its calls back into Python."""')
        self.write_steps(self.plan.steps)
        outs = [self.var(v) for v in kernel_plan.kernel_outputs(jaxpr)]
        self.drive(f"return ({''.join(o + ', ' for o in outs)})")
        return self.module()

    def write_steps(self, steps) -> None:
        for step in steps:
            if isinstance(step, kernel_plan.LoopNest):
                self.loop_nest(step)
            elif isinstance(step, kernel_plan.Dot):
                self.dot(step.eqn)
            elif LOWERINGS[step.eqn.primitive].form == "host":
                LOWERINGS[step.eqn.primitive].fn(self, step.eqn)
            else:
                self.call(step.eqn)

    def drive(self, code: str, comment: str | None = None) -> None:
        """A line of the host driver, at the driver's current indentation."""
        line = "    " * self.driver_depth + code
        self.driver.append(f"{line}  # {comment}" if comment else line)

    # --- what control-flow rules (form "host") ask of the writer ------------------------
    def driver_atom(self, a) -> str:
        """A value as a device array in the driver (a literal is copied over; a
        string is a driver name already)."""
        if isinstance(a, str):
            return a
        if isinstance(a, Literal):
            value = f"np.array([{literal(a.val, a.aval.dtype)}])"
            return f"cuda.to_device({value}, stream=stream)"
        return self.var(a)

    def host_scalar(self, a) -> str:
        """A scalar value read on the host (the driver waits for it: a copy back)."""
        if isinstance(a, Literal):
            return repr(a.val.item() if hasattr(a.val, "item") else a.val)
        return f"{self.var(a)}.copy_to_host(stream=stream)[0]"

    def carry_names(self, outvars) -> list[str]:
        """Driver names for a loop's carried values (an unused one still needs one)."""
        return [self.var(v) for v in outvars]

    def bind(self, targets, atoms) -> None:
        """``targets = atoms`` in the driver (device arrays are never written in place);
        a target is a variable or a driver name (:meth:`carry_names`)."""
        pairs = [(t if isinstance(t, str) else self.var(t), self.driver_atom(a))
                 for t, a in zip(targets, atoms) if not isinstance(t, DropVar)]
        pairs = [(t, a) for t, a in pairs if t != a]
        if pairs:
            self.drive(", ".join(t for t, _ in pairs) + " = " + ", ".join(a for _, a in pairs))

    def keep_finished(self, pred, old, new, name: str):
        """A batched ``while_loop``'s carry: ``new`` where the example's predicate
        still holds, ``old`` where it is done (``pred`` indexes the leading axes)."""
        out = Named(name, old.aval)
        self.allocate(out)
        shape = data_shape(old.aval)[0]  # (a key's data has one more axis, of 2 words)
        size = int(np.prod(shape, dtype=np.int64))
        names = self.grid_stride(shape)
        running = self.read(pred, names[:len(pred.aval.shape)])
        self.emit(f"{self.read(out, names)} = ({self.read(new, names)} if {running} "
                  f"else {self.read(old, names)})")
        self.end_grid_stride()
        params = list(dict.fromkeys(a for a in (pred, old, new) if not isinstance(a, Literal)))
        self.kernel("while_loop under vmap: finished examples keep their carry", params + [out],
                    (self.blocks_for(size),), (self.launch.threads,), self.lines)
        return out

    def inline(self, closed_jaxpr, args) -> list:
        """The steps of a nested jaxpr (a branch, a loop body) here in the driver,
        its inputs bound to ``args``; its outputs."""
        jaxpr = closed_jaxpr.jaxpr
        if args is not None:
            self.bind(jaxpr.invars, args)
        self.write_steps(kernel_plan.sub_plan(self.plan, closed_jaxpr).steps)
        return list(jaxpr.outvars)

    def module(self) -> CudaModule:
        jaxpr_text = "\n".join("    " + line for line in str(self.plan.closed_jaxpr).splitlines())
        plan_text = "\n".join("    " + line for line in str(self.plan).splitlines())
        parts = [f'"""CUDA kernels for jit({self.fn_name[4:]}), generated by '
                 f"minijax.backends.cuda.\n\nThe jaxpr:\n\n{jaxpr_text}\n\nThe plan:\n\n"
                 f'{plan_text}\n"""',
                 "import cmath\nimport math\n\nimport numpy as np\nfrom numba import cuda",
                 *(helpers.helper_source(h) for h in self.helpers),
                 *(k.source for k in self.kernels),
                 "\n".join(self.driver)]
        return CudaModule("\n\n\n".join(parts) + "\n", self.fn_name, self.kernels,
                          self.host_eqns)

    def allocate(self, v) -> None:
        """The driver allocates ``v`` on the device (a scalar as one element; keys as
        their key data, uint32 with a trailing axis of 2; float16 as float16, which
        CUDA has, where the CPU kernels hold its bits)."""
        shape, dtype = data_shape(v.aval)
        if is_half(v.aval.dtype):
            dtype = "np.float16"
        self.drive(f"{self.var(v)} = cuda.device_array({shape or (1,)}, dtype={dtype}, "
                   "stream=stream)")

    def grid_stride(self, shape) -> list[str]:
        """Start a kernel's body: a grid-stride loop over the elements of ``shape``,
        thread ``t_flat`` taking elements ``t_flat``, ``t_flat + gridsize``, ...;
        returns the index of the element (``i0``, ``i1``...; ``0`` on a size-1 axis).
        :meth:`end_grid_stride` closes the loop."""
        size = int(np.prod(shape, dtype=np.int64))
        self.lines, self.depth = [], 1
        self.emit("t_flat = cuda.grid(1)")
        self.emit(f"while t_flat < {size}:")
        self.depth += 1
        idx = unravel("t_flat", shape) if shape else []
        for d, i in enumerate(idx):
            if i != "0":
                self.emit(f"i{d} = {i}")
        return [f"i{d}" if i != "0" else "0" for d, i in enumerate(idx)]

    def end_grid_stride(self) -> None:
        self.emit("t_flat += cuda.gridsize(1)")

    def kernel(self, what: str, params, grid, block, body_lines) -> None:
        """Add a kernel (its launch goes into the driver)."""
        name = f"{self.fn_name}_k{len(self.kernels)}"
        names = [self.var(v) for v in params]
        source = "\n".join([f"{KERNEL_DECORATOR}\ndef {name}({', '.join(names)}):",
                            f'    """{what}"""', *body_lines])
        self.kernels.append(Kernel(name, list(params), grid, block, source))
        self.drive(f"{name}[{grid}, {block}, stream]({', '.join(names)})")

    def blocks_for(self, size: int) -> int:
        return max(1, min(math.ceil(size / self.launch.threads), self.launch.max_blocks))

    # --- fused loop nests -----------------------------------------------------------
    def loop_nest(self, step: kernel_plan.LoopNest) -> None:
        if step.reduction is not None:
            return self.reduction_nest(step)
        shape = tuple(step.shape)
        size = int(np.prod(shape, dtype=np.int64))
        for v in step.stores:
            self.allocate(v)
        names = self.grid_stride(shape)
        local, _ = self.body(step.eqns, names, shape)
        for v in step.stores:
            self.emit(f"{self.read(v, names)} = {stored(v, local[v])}")
        self.end_grid_stride()
        what = f"fused loop nest over {list(shape)}: {len(step.eqns)} equation(s), grid-stride"
        self.kernel(what, self.nest_params(step), (self.blocks_for(size),),
                    (self.launch.threads,), self.lines)

    def body(self, eqns, idx, shape):
        """Each equation's element, in registers: ``(local, operand)``, where ``local``
        maps a value to its local name and ``operand(atom)`` is an atom's element."""
        local: dict = {}

        def operand(a):
            if isinstance(a, Var) and a in local:
                return local[a]
            element = self.read(a, idx, shape)
            # a float16 element is computed with in float32 (as on the CPU)
            return f"np.float32({element})" if is_half(a.aval.dtype) else element
        for eqn in eqns:
            out = eqn.outvars[0]
            name = f"{self.var(out)}_i"
            expr = self.scalar(eqn, operand, idx)
            if is_half(out.aval.dtype) and not (eqn.primitive.moves_data and all(
                    is_half(a.aval.dtype) for a in eqn.invars)):
                expr = f"np.float32(np.float16({expr}))"  # a float16 result: round it
            self.emit(f"{name} = {expr}", self.text(eqn))
            local[out] = name
        return local, operand

    def nest_params(self, step, extra=()) -> list:
        eqns = step.eqns + ([step.reduction] if step.reduction is not None else [])
        made = {v for e in step.eqns for v in e.outvars}
        params: list = []
        for e in eqns:
            for a in e.invars:
                if isinstance(a, Var) and a not in made and a not in params:
                    params.append(a)
        return params + [v for v in step.stores if v not in params] + list(extra)

    def reduction_nest(self, step) -> None:
        """A block-level tree reduction (see the module docstring)."""
        eqn = step.reduction
        out = eqn.outvars[0]
        shape = tuple(step.shape)
        axes = sorted(eqn.params["axes"])
        kept = [d for d in range(len(shape)) if d not in axes]
        out_size = int(np.prod([shape[d] for d in kept], dtype=np.int64))
        red_size = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        rkind = eqn.primitive.name.replace("reduce_", "")
        arg = rkind.startswith("arg")
        dtype = out.aval.dtype
        wide = {"i": np.int64, "u": np.uint64}
        acc_dtype = np.dtype(wide.get(kind(dtype), dtype)) if rkind in ("sum", "prod") else (
            np.dtype(eqn.invars[0].aval.dtype) if arg else np.dtype(dtype))
        if is_half(acc_dtype):  # float16 values are summed and compared in float32
            acc_dtype = np.dtype(np.float32)
        threads = self.launch.threads
        for v in step.stores:
            self.allocate(v)
        self.allocate(out)
        self.lines, self.depth = [], 1
        rule = LOWERINGS[eqn.primitive]
        ctx = CudaScalarContext(eqn, self.helpers)
        ctx.out_dtype = acc_dtype
        self.emit(f"# {self.text(eqn)}")
        self.emit(f"partial = cuda.shared.array({threads}, dtype={np_dtype(acc_dtype)})")
        if arg:
            self.emit(f"partial_index = cuda.shared.array({threads}, dtype=np.int64)")
        self.emit("thread_id = cuda.threadIdx.x")
        self.emit("out_o = cuda.blockIdx.x")
        self.emit(f"while out_o < {out_size}:  # this block's output element")
        self.depth += 1
        idx = ["0"] * len(shape)
        for d, i in zip(kept, unravel("out_o", [shape[d] for d in kept])):
            idx[d] = i
        for d, i in zip(axes, unravel("red_r", [shape[d] for d in axes])):
            idx[d] = i
        names = []
        for d, i in enumerate(idx):
            names.append(f"i{d}" if i != "0" else "0")
        ident = literal(reduction_identity(rkind.replace("arg", ""), acc_dtype), acc_dtype) \
            if not arg else literal(0, acc_dtype)
        self.emit(f"acc_v = {ident}")
        if arg:
            self.emit("acc_index = -1")
        self.emit("red_r = thread_id")
        self.emit(f"while red_r < {red_size}:  # this thread's share of the reduced elements")
        self.depth += 1
        for d, i in enumerate(idx):
            if i != "0":
                self.emit(f"i{d} = {i}")
        local, operand = self.body(step.eqns, names, shape)
        for v in step.stores:
            self.emit(f"{self.read(v, names)} = {stored(v, local[v])}")
        x = operand(eqn.invars[0])
        if arg:
            axis = names[eqn.params["axes"][0]]
            self.emit(f"if acc_index == -1 or {rule.fn(ctx, 'acc_v', x)}:")
            self.emit(f"    acc_v = {x}")
            self.emit(f"    acc_index = {axis}")
        else:
            self.emit(rule.fn(ctx, "acc_v", x))
        self.emit(f"red_r += {threads}")
        self.depth -= 1
        self.emit("partial[thread_id] = acc_v")
        if arg:
            self.emit("partial_index[thread_id] = acc_index")
        self.emit("cuda.syncthreads()")
        self.emit(f"half_s = {threads // 2}")
        self.emit("while half_s > 0:  # the tree: halve the partial results, pairwise")
        self.depth += 1
        self.emit("if thread_id < half_s:")
        self.depth += 1
        if arg:
            self.emit("left_v, right_v = partial[thread_id], partial[thread_id + half_s]")
            self.emit("left_i, right_i = partial_index[thread_id], partial_index[thread_id + half_s]")
            self.emit(f"if right_i != -1 and (left_i == -1 or {rule.fn(ctx, 'left_v', 'right_v')}"
                      f" or (not {rule.fn(ctx, 'right_v', 'left_v')} and right_i < left_i)):")
            self.emit("    partial[thread_id] = right_v")
            self.emit("    partial_index[thread_id] = right_i")
        else:
            self.emit("left_v = partial[thread_id]")
            self.emit(rule.fn(ctx, "left_v", "partial[thread_id + half_s]"))
            self.emit("partial[thread_id] = left_v")
        self.depth -= 1
        self.emit("cuda.syncthreads()")
        self.emit("half_s //= 2")
        self.depth -= 1
        kept_names = [names[d] for d in kept]
        target = (f"{self.var(out)}[{', '.join(kept_names)}]" if out.aval.shape
                  else f"{self.var(out)}[0]")
        for n, i in zip(kept_names, [idx[d] for d in kept]):
            if n != "0":  # this block's output element (a thread may have reduced nothing)
                self.emit(f"{n} = {i}")
        self.emit("if thread_id == 0:")
        if arg:
            self.emit(f"    {target} = {cast(dtype, 'partial_index[0]')}")
        elif is_half(dtype):
            self.emit(f"    {target} = {stored(out, 'partial[0]')}")
        else:
            value = "partial[0]" if acc_dtype == dtype else cast(dtype, "partial[0]")
            self.emit(f"    {target} = {value}")
        self.emit("cuda.syncthreads()  # before the next output element reuses partial")
        self.emit("out_o += cuda.gridDim.x")
        what = (f"fused loop nest over {list(shape)}: {len(step.eqns)} equation(s) into "
                f"{eqn.primitive.name}, a shared-memory tree per output element")
        self.kernel(what, self.nest_params(step, [out]),
                    (max(1, min(out_size, self.launch.max_blocks)),), (threads,), self.lines)

    # --- matrix products ------------------------------------------------------------
    def dot(self, eqn) -> None:
        """A tiled matrix product (see the module docstring)."""
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        lhs, rhs = eqn.invars
        out = eqn.outvars[0]
        ls, rs = lhs.aval.shape, rhs.aval.shape
        lf = [d for d in range(len(ls)) if d not in lc and d not in lb]
        rf = [d for d in range(len(rs)) if d not in rc and d not in rb]
        size = lambda shape, dims: int(np.prod([shape[d] for d in dims], dtype=np.int64))  # noqa
        B, M, K, N = size(ls, lb), size(ls, lf), size(ls, lc), size(rs, rf)
        T = self.launch.tile
        dtype = out.aval.dtype
        self.allocate(out)
        self.lines, self.depth = [], 1

        def element(x, shape, groups):
            """x at (b, m/n, k): each flat group index unravelled over its axes."""
            idx = [None] * len(shape)
            for flat, dims in groups:
                for d, i in zip(dims, unravel(flat, [shape[d] for d in dims])):
                    idx[d] = i
            return self.read(x, idx)

        self.emit(f"# {self.text(eqn)}")
        self.emit(f"# (B, M, K, N) = ({B}, {M}, {K}, {N}): out[b, m, n] = sum_k "
                  f"lhs[b, m, k] * rhs[b, k, n], in {T}x{T} tiles")
        compute = np.dtype(np.float32) if is_half(dtype) else dtype  # float16: in float32
        acc = np_dtype(compute)
        self.emit(f"lhs_tile = cuda.shared.array(({T}, {T}), dtype={acc})")
        self.emit(f"rhs_tile = cuda.shared.array(({T}, {T}), dtype={acc})")
        self.emit("t_x, t_y = cuda.threadIdx.x, cuda.threadIdx.y")
        self.emit(f"col_n = cuda.blockIdx.x * {T} + t_x")
        self.emit(f"row_m = cuda.blockIdx.y * {T} + t_y")
        self.emit("batch_b = cuda.blockIdx.z")
        self.emit(f"acc_v = {literal(0, compute)}")
        self.emit(f"for k_0 in range(0, {K}, {T}):")
        self.depth += 1
        self.emit("k_i = k_0 + t_x  # each thread loads one element of each tile")
        self.emit(f"if row_m < {M} and k_i < {K}:")
        self.emit(f"    lhs_tile[t_y, t_x] = "
                  f"{cast(compute, element(lhs, ls, [('batch_b', lb), ('row_m', lf), ('k_i', lc)]))}")
        self.emit("else:")
        self.emit(f"    lhs_tile[t_y, t_x] = {literal(0, compute)}")
        self.emit("k_i = k_0 + t_y")
        self.emit(f"if k_i < {K} and col_n < {N}:")
        self.emit(f"    rhs_tile[t_y, t_x] = "
                  f"{cast(compute, element(rhs, rs, [('batch_b', rb), ('k_i', rc), ('col_n', rf)]))}")
        self.emit("else:")
        self.emit(f"    rhs_tile[t_y, t_x] = {literal(0, compute)}")
        self.emit("cuda.syncthreads()  # the tiles are loaded")
        self.emit(f"for k_k in range({T}):")
        self.emit("    acc_v += lhs_tile[t_y, k_k] * rhs_tile[k_k, t_x]")
        self.emit("cuda.syncthreads()  # before the next tiles overwrite these")
        self.depth -= 1
        out_shape = out.aval.shape
        nb = len(lb)
        out_groups = [("batch_b", list(range(nb))), ("row_m", list(range(nb, nb + len(lf)))),
                      ("col_n", list(range(nb + len(lf), len(out_shape))))]
        self.emit(f"if row_m < {M} and col_n < {N}:")
        result = stored(out, "acc_v") if is_half(dtype) else cast(dtype, "acc_v")
        self.emit(f"    {element(out, out_shape, out_groups)} = {result}")
        grid = (max(1, math.ceil(N / T)), max(1, math.ceil(M / T)), max(1, B))
        self.kernel(f"dot_general as a tiled matrix product ({T}x{T} tiles in shared memory)",
                    list(dict.fromkeys(a for a in (lhs, rhs) if isinstance(a, Var))) + [out],
                    grid, (T, T), self.lines)

    # --- scatters -------------------------------------------------------------------
    #: how one update ``u`` combines into the output element ``o``, one thread at a time
    _COMBINE = {"scatter": "{o} = {u}", "scatter-add": "{o} += {u}",
                "scatter-sub": "{o} -= {u}", "scatter-mul": "{o} *= {u}",
                "scatter-min": "{o} = _fmin({o}, {u})", "scatter-max": "{o} = _fmax({o}, {u})"}
    #: the dtypes ``cuda.atomic.add`` takes
    _ATOMIC = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint32,
                                     np.uint64)}

    def scatter(self, eqn) -> None:
        """A scatter: copy the operand, then apply the updates. ``scatter-add`` and
        ``-sub`` use atomic adds, one thread per update element (the order of
        float additions is then not fixed, as on XLA's GPU backend); the others
        run in one thread, in the order of the indices (as the CPU: with repeated
        indices the last ``scatter`` wins)."""
        x, indices, upd = eqn.invars
        out = eqn.outvars[0]
        kind_ = eqn.primitive.name
        self.allocate(out)
        self.copy_kernel(out, x)
        ushape = tuple(upd.aval.shape)
        usize = int(np.prod(ushape, dtype=np.int64))
        if usize == 0:
            return
        atomic = kind_ in ("scatter-add", "scatter-sub") and np.dtype(upd.aval.dtype) in self._ATOMIC
        names = self.grid_stride(ushape)
        self.lines.insert(0, f"    # {self.text(eqn)}")
        target, inside = LOWERINGS[eqn.primitive].fn(IndexContext(eqn, self.read), names, "")
        u = self.read(upd, names)
        if inside is not None:
            self.emit(f"if {inside}:  # a window not wholly inside is dropped")
            self.depth += 1
        if atomic:
            sign = "-" if kind_ == "scatter-sub" else ""
            at = target[0] if len(target) == 1 else f"({', '.join(target)})"
            self.emit(f"cuda.atomic.add({self.var(out)}, {at}, {sign}{u})")
        else:
            if kind_ in ("scatter-min", "scatter-max"):
                helpers.request(self.helpers, "_fmin" if kind_ == "scatter-min" else "_fmax",
                                kind_)
            o = f"{self.var(out)}[{', '.join(target)}]"
            self.emit(self._COMBINE[kind_].format(o=o, u=u))
        if inside is not None:
            self.depth -= 1
        self.end_grid_stride()
        params = list(dict.fromkeys(a for a in (indices, upd) if isinstance(a, Var))) + [out]
        grid, block = ((self.blocks_for(usize),), (self.launch.threads,)) if atomic else \
            ((1,), (1,))
        what = (f"{kind_}: one update element per thread, atomic" if atomic else
                f"{kind_}: the updates in order, in one thread")
        self.kernel(what, params, grid, block, self.lines)

    def copy_kernel(self, out, x) -> None:
        """``out = x``, element by element (a scatter's output starts as its operand)."""
        shape = tuple(out.aval.shape)
        size = int(np.prod(shape, dtype=np.int64))
        names = self.grid_stride(shape)
        self.emit(f"{self.read(out, names)} = {self.read(x, names)}")
        self.end_grid_stride()
        params = ([x] if isinstance(x, Var) else []) + [out]
        self.kernel("a copy, grid-stride", params, (self.blocks_for(size),),
                    (self.launch.threads,), self.lines)

    # --- other calls ----------------------------------------------------------------
    def call(self, eqn) -> None:
        rule = LOWERINGS[eqn.primitive]
        if rule.form == "scatter":
            return self.scatter(eqn)
        out = eqn.outvars[0]
        if rule.form == "driver":  # no kernel: the driver does it on the host
            x = self.var(eqn.invars[0]) if isinstance(eqn.invars[0], Var) else None
            if x is None:
                raise NotImplementedError(f"{eqn.primitive.name} of a literal")
            self.drive(f"{self.var(out)} = {rule.fn(eqn, x)}", self.text(eqn))
            return
        if rule.form == "kernel":  # the rule writes its kernel (chapter 13's keys)
            return rule.fn(self, eqn)
        if rule.form != "index":
            raise NotImplementedError(f"{eqn.primitive.name} (form {rule.form})")
        key = is_threefry_key(out.aval.dtype)  # key data: one more axis, the word
        shape = data_shape(out.aval)[0]
        size = int(np.prod(shape, dtype=np.int64))
        self.allocate(out)
        names = self.grid_stride(shape)
        def read_word(a, at, loop_shape=None):
            """For key data: every key operand is read at the output's word."""
            at = list(at) + [names[-1]] if is_threefry_key(a.aval.dtype) else at
            return self.read(a, at, loop_shape)
        # the rule maps the key's index (the word axis is the kernel's own)
        expr = rule.fn(IndexContext(eqn, read_word if key else self.read),
                       names[:-1] if key else names)
        self.emit(f"{self.read(out, names)} = {expr}", self.text(eqn))
        self.end_grid_stride()
        params = [a for a in eqn.invars if isinstance(a, Var)]
        params = list(dict.fromkeys(params)) + [out]
        self.kernel(f"{eqn.primitive.name}: one output element per thread, grid-stride",
                    params, (self.blocks_for(size),), (self.launch.threads,), self.lines)


def stored(v, value: str) -> str:
    """``value`` (a computed element) as stored into ``v``'s array: a float16 array
    gets a float16 (the value was computed in float32)."""
    return f"np.float16({value})" if is_half(v.aval.dtype) else value


def generate_module(plan: kernel_plan.KernelPlan, name: str, launch: Launch) -> CudaModule:
    """The CUDA module for ``plan``: device helpers, kernels, and the host driver."""
    return CudaWriter(plan, entry_name(name), launch).write()
