"""Chapter 10 — the CUDA backend: jaxprs lowered to numba.cuda kernels.

The pipeline, stage for stage against the CPU's (chapter 09)::

    CPU:   jaxpr -> plan -> one @njit function     -> LLVM IR  -> machine code
    CUDA:  jaxpr -> plan -> @cuda.jit kernels       -> PTX      -> GPU code
                            + a host driver           (Compiled.as_text())
                            (Lowered.as_text())

The plan is the CPU's (:func:`minijax.backends.plan.make_plan`), asked of
:class:`CudaTarget`, which answers from the CUDA rule table. What it cannot
lower is an error at lowering time, naming the primitive: a GPU program
never falls back to the interpreter behind the user's back.

Running (:class:`CudaExecutable`): the arguments' device arrays (a GPU
Array's own memory, or a host value copied over on the stream), then the
driver, which queues the kernels on the device's stream and returns at once.
The outputs are :class:`~.memory.CudaBuffer` s, ready when the event recorded
after the last kernel has passed.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax import lax
from minijax.array import Array
from minijax.backends.cpu.backend import _as_keys
from minijax.backends.cpu.syntax import data_shape, is_half, is_threefry_key
from minijax.backends.cuda import compile as compiler
from minijax.backends.cuda import conv  # noqa: F401  (registers the convolution lowering)
from minijax.backends.cuda import windowed  # noqa: F401  (registers the pooling lowerings)
from minijax.backends.cuda.memory import (CudaBuffer, device_array_of, recorded_event,
                                          to_device)
from minijax.backends.cuda.platform import gpu_devices, gpu_is_default, numba_cuda, simulator
from minijax.backends.cuda.rules import LOWERINGS
from minijax.backends.cuda.writer import GPU_LAUNCH, SIMULATOR_LAUNCH, generate_module
from minijax.backends.interpreter import as_output_array
from minijax.backends.plan import Target, make_plan, output_sources, rule_problem
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.primitives import impl_rules

__all__ = ["CudaTarget", "NumbaCudaBackend", "CudaLowering", "CudaExecutable"]


class CudaTarget(Target):
    """The planner's questions, answered from :data:`.rules.LOWERINGS`."""

    def eqn_problem(self, eqn) -> str | None:
        problem = rule_problem(eqn, LOWERINGS)
        if problem is not None:
            return problem
        rule = LOWERINGS[eqn.primitive]
        if any(is_half(a.aval.dtype) for a in [*eqn.invars, *eqn.outvars]) and not (
                rule.form in ("scalar", "reduction", "dot", "index", "driver")
                or (rule.form == "kernel" and rule.bits) or eqn.primitive is lax.scatter_p):
            return f"{eqn.primitive.name} on float16"
        return None

    def dtype_problem(self, dtype) -> str | None:
        """bool, integers, float16/32/64, complex64/128. A float16 is stored as
        float16 and computed with in float32, as on the CPU."""
        ok = dtype.kind in "biuc" or (dtype.kind == "f" and dtype.itemsize >= 2)
        return None if ok else f"dtype {dtype}"

    def extended_problem(self, dtype, eqns) -> str | None:
        """Threefry keys, as long as only rules marked ``bits`` touch them (the
        kernels hold their key data), as on the CPU."""
        if is_threefry_key(dtype) and all(LOWERINGS[e.primitive].bits
                                          or e.primitive.kind == "control_flow"  # carries
                                          for e in eqns if e.primitive in LOWERINGS):
            return None
        return f"dtype {dtype}"


TARGET = CudaTarget()


def _unsupported_error(name: str, what) -> NotImplementedError:
    return NotImplementedError(
        f"jit({name}) cannot be lowered for CUDA: no CUDA lowering for "
        f"{', '.join(what)}. Run it on the CPU (put its inputs on jax.devices('cpu')[0], "
        "or jit(f, backend='cpu')).")


class CudaLowering(Lowering):
    """The generated module: ``as_text()`` is its source (kernels, then the driver)."""

    def __init__(self, backend, closed_jaxpr, name: str, plan, module):
        super().__init__(backend, closed_jaxpr, name)
        self.plan = plan
        self.module = module

    def as_text(self) -> str:
        return self.module.source

    def cost_analysis(self) -> dict[str, float]:
        return self.plan.cost_analysis()


class CudaExecutable(Executable):
    """The loaded module, and how to run its driver on minijax values."""
    #: the driver queues work on the device's own stream and returns at once
    asynchronous = True

    def __init__(self, lowering: CudaLowering):
        super().__init__(lowering)
        self.module = compiler.load_module(lowering.module.source)
        self.driver = getattr(self.module, lowering.module.driver)
        if not simulator() and gpu_devices():
            self._compile_kernels()
        closed = lowering.plan.closed_jaxpr
        jaxpr = closed.jaxpr
        self._consts = list(closed.consts)
        self._const_avals = [v.aval for v in jaxpr.constvars]
        self._device_consts = {}  # device -> the constants' device arrays
        self._sources = output_sources(jaxpr)

    def _device(self, flat_args):
        for x in flat_args:
            buffer = getattr(x, "_buffer", None)
            if isinstance(buffer, CudaBuffer):
                return buffer.device
        devices = gpu_devices()
        if not devices:
            raise RuntimeError("jit(%s) was compiled for CUDA, but no GPU is present "
                               "(and the CUDA simulator is off)" % self.name)
        return devices[0]

    def __call__(self, *flat_args) -> list:
        """Run on the device of the first GPU argument (else GPU 0): :meth:`run_on`."""
        return self.run_on(self._device(flat_args), flat_args)

    def run_on(self, device, flat_args) -> list:
        """Queue the program on ``device``'s stream; returns at once (a program with
        callbacks returns after its last one). An error of the run (a failed input,
        a failing copy, launch or callback) is raised here; chapter 11's executor
        stores it in the outputs, raised where they are read, as on the CPU."""
        if device.platform != "gpu":  # jit(f, device=cpu) never reaches here: not a GPU
            raise ValueError(f"jit({self.name}) was compiled for CUDA; {device} is no GPU")
        with numba_cuda().gpus[device.id]:  # allocations and launches on that GPU
            return self._run(device, flat_args)

    def _run(self, device, flat_args) -> list:
        consts = self._device_consts.get(device)
        if consts is None:
            consts = [device_array_of(c, a, device)
                      for c, a in zip(self._consts, self._const_avals)]
            self._device_consts[device] = consts
        args = [device_array_of(x, a, device) for x, a in zip(flat_args, self.in_avals)]
        host = [_host_caller(eqn, device) for eqn in self.lowering.module.host_eqns]
        results = self.driver(device.stream, host, *consts, *args)
        done = recorded_event(device.stream)
        outs = []
        for (kind, k), aval in zip(self._sources, self.out_avals):
            if kind == "kernel":
                shape, view = aval.shape, None
                if is_threefry_key(aval.dtype):  # the kernels computed key data
                    shape, view = data_shape(aval)[0], partial(_as_keys, aval=aval)
                buffer = CudaBuffer(results[k], device, shape=shape,
                                    dtype=np.dtype(aval.dtype), event=done, host_view=view)
                outs.append(Array(aval, buffer))
            elif kind == "arg":
                outs.append(as_output_array(flat_args[k], aval))
            elif kind == "const":
                outs.append(as_output_array(self._consts[k], aval))
            else:
                outs.append(as_output_array(np.asarray(k, dtype=aval.dtype), aval))
        return outs

    def _compile_kernels(self) -> None:
        """On a real GPU, compile every kernel now (a compile error is an error of
        the call, as in JAX), not at its first launch."""
        for kernel in self.lowering.module.kernels:
            getattr(self.module, kernel.name).compile(compiler.kernel_signature(kernel))

    def as_text(self, assembly: bool = False, cc=None) -> str:
        """The PTX of every kernel, for compute capability ``cc`` (the GPU's, else 8.0).
        (``assembly=True``, the GPU's machine code, is not shown: ``None``.)"""
        if assembly:
            raise NotImplementedError("SASS is not shown; the PTX is as_text()")
        if cc is None:
            cc = compiler.DEFAULT_CC
            if not simulator() and gpu_devices():
                cc = numba_cuda().gpus[0].compute_capability
        parts = []
        for kernel in self.lowering.module.kernels:
            parts.append(f"// ---- {kernel.name} (grid {kernel.grid}, block {kernel.block})\n"
                         + compiler.kernel_ptx(self.module, kernel, cc))
        return "\n\n".join(parts)

    def cost_analysis(self) -> dict[str, float]:
        return self.lowering.plan.cost_analysis()


def _host_caller(eqn, device):
    """``host[k]`` of the driver: ``eqn``'s impl rule on its operands copied back
    from the device (waiting for the kernels before), results copied over."""
    impl = impl_rules[eqn.primitive]
    in_avals = [a.aval for a in eqn.invars]
    out_avals = [v.aval for v in eqn.outvars]

    def call(stream, *xs):
        values = [x.copy_to_host(stream=stream) for x in xs]
        stream.synchronize()
        values = [v.reshape(a.shape) if a.shape else v.reshape(())[()]
                  for v, a in zip(values, in_avals)]
        results = impl(*values, **eqn.params)
        if not eqn.primitive.multiple_results:  # (an FFT: one result, not a list of them)
            results = [results]
        return tuple(to_device(np.asarray(r, dtype=a.dtype).reshape(a.shape), device)
                     for r, a in zip(results, out_avals))
    return call


class NumbaCudaBackend(Backend):
    """Kernels for numba.cuda, run on a GPU or on Numba's CUDA simulator."""
    name = "cuda"
    platform = "gpu"
    ir_name = "numba.cuda kernel source"
    compiler_name = "numba.cuda"

    def lower(self, closed_jaxpr, *, name: str, **options):
        plan = make_plan(closed_jaxpr, TARGET)
        if not plan.supported:
            raise _unsupported_error(name, plan.unsupported)
        launch = SIMULATOR_LAUNCH if simulator() else GPU_LAUNCH
        try:
            module = generate_module(plan, name, launch)
        except NotImplementedError as e:
            raise _unsupported_error(name, [str(e)]) from None
        return CudaLowering(self, closed_jaxpr, name, plan, module)

    def compile(self, lowering, **options):
        return CudaExecutable(lowering)


def _register() -> None:
    """Register the backend: the default one (above the CPU's 1) when the GPU is the
    default platform, else only by name (``backend="cuda"``) or by device."""
    register_backend("cuda", NumbaCudaBackend(), priority=2 if gpu_is_default() else -1)
