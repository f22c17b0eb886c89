"""Chapter 11 — the executor: every dispatch returns at once, with futures.

Three kinds of work reach a device, through three hooks of earlier chapters:

=====================  ======================================  ========================
work                   hook (chapter)                          what runs on the queue
=====================  ======================================  ========================
an eager primitive     ``dispatch.set_executor`` (00)          its NumPy impl rule
a jitted call          ``registry.set_executor`` (06)          the compiled executable
``device_put``         ``transfers.set_transfer_hook`` (00)    a copy of the data
=====================  ======================================  ========================

Each does the same three things on the Python thread: (1) find the output
types (the avals, known without running anything), (2) make one future
buffer per output, all sharing one completion, (3) put a :class:`WorkItem`
on the stream of the device, and return ``Array`` s at once.

Which device? The one asked for (``jit(f, device=d)``, ``device_put(x, d)``),
else the first input that lives on a device other than the default one
(arrays put on a device keep their computations there), else the default.

**Inline runs.** A queue round trip costs a few microseconds and a switch
between threads; adding two 8-element arrays costs less than that. So when
the device's queue is idle, every input is ready, and the work is known to
be tiny, the executor runs it right away on the calling thread: nothing
queued could be overtaken (the queue is empty), and the result is what the
queue would have made, only sooner. Errors keep their rule: an inline run
that fails stores its error in its outputs, raised where they are read.
"Tiny" is: for an eager primitive, at most :data:`INLINE_MAX_ELEMENTS`
elements in and out; for an executable, its fastest run so far took at most
:data:`INLINE_MAX_SECONDS`. ``config.update('minijax_inline_dispatch',
False)`` turns inline runs off (everything goes through the queues).

Tiny work that had to be queued (the queue was busy, or an input pending)
is marked *quick* when it waits for nothing but earlier items of its own
queue. When everything a queue holds is quick, tiny work that could run
inline waits for it (microseconds) and then runs inline: otherwise a loop of
tiny calls that once found the queue busy (the first call of a program, whose
cost is not known yet, is always queued) would stay queued for good, each
call behind the previous one, two threads taking turns with the GIL for
every call (``Stream.drain_quick``).

**Effects** (chapter 12). For a dispatch whose program has side effects
(its jaxpr's ``effects``; for an eager primitive, its equation's) the
executor asks the *effects hook* that chapter 12 installs
(:func:`set_effects_hook`) what it must wait for (the runtime tokens of its
ordered effects: the work item waits for them before it runs), and tells it
the dispatch's completion (the new tokens). It runs inline only when there
is nothing to wait for; an inline run is finished at once, and is the new
token all the same. Without the hook, effects change nothing here. A
primitive with effects of its own (``debug_print``) is a call back into
Python: like any primitive whose params hold Python functions, it runs now,
on the caller's thread, after waiting for the tokens of its ordered effects.
"""
from __future__ import annotations

import math
import time

import numpy as np

from minijax import dispatch, profiler
from minijax.abstract_arrays import ShapedArray
from minijax.array import Array
from minijax.buffers import Buffer, buffer_on
from minijax.devices import default_device
from minijax.dtypes import canonicalize_dtype
from minijax.jaxpr import effect_rules, eqn_effects, no_effects
from minijax.primitives import impl_rules
from minijax.runtime.futures import Completion, FutureBuffer, failed_error
from minijax.runtime.streams import WorkItem, running, stream_for

__all__ = ["dispatch_primitive", "execute_executable", "transfer", "INLINE_MAX_ELEMENTS",
           "INLINE_MAX_SECONDS", "set_inline", "set_effects_hook", "effects_of_executable"]

#: Eager primitives with at most this many input + output elements may run inline.
INLINE_MAX_ELEMENTS = 1 << 14
#: Executables whose fastest run so far took at most this long may run inline.
#: The trip through the queue and back (two thread wake-ups) costs 50-90 us on
#: the 2-core machine: a 1e6-element ``x * 2 + 1`` took 104 us called directly
#: and 189 us through the queue. Up to half a millisecond that trip is a tenth
#: of the run or more, and overlapping the caller's next few microseconds of
#: Python with the run cannot win it back; longer work keeps the overlap.
INLINE_MAX_SECONDS = 500e-6

_inline = True


def set_inline(value: bool) -> None:
    """Allow (or forbid) inline runs (the ``minijax_inline_dispatch`` option)."""
    global _inline
    _inline = bool(value)


# =============================================================================
# Effects: the hook chapter 12 fills
# =============================================================================
#: Chapter 12's runtime tokens (:mod:`minijax.runtime.tokens`), or None. An
#: object with three methods, each given the dispatch's set of effects:
#:
#: - ``token_inputs(effects) -> list of Completion``: what a queued dispatch
#:   waits for before it runs (for its order only);
#: - ``set_token_results(effects, device, completion)``: the queued dispatch's
#:   completion, which becomes the new tokens;
#: - ``wait_in_order(effects)``: called before a dispatch that runs now, on the
#:   caller's thread.
_effects_hook = None


def set_effects_hook(hook) -> None:
    """Install (or, with ``None``, remove) the handler of effectful dispatches."""
    global _effects_hook
    _effects_hook = hook


def effects_of_executable(executable) -> frozenset:
    """The effects of a compiled program: those of the jaxpr it was lowered from."""
    jaxpr = getattr(getattr(executable, "lowering", None), "jaxpr", None)
    return no_effects if jaxpr is None else jaxpr.effects


def _nothing_to_wait_for(effects) -> bool:
    """May work with ``effects`` run inline: is no token of its ordered effects pending?"""
    return not effects or not _effects_hook.token_inputs(effects)


def _ran_inline(effects, device, error: BaseException | None = None) -> None:
    """Work with ``effects`` ran inline (and finished, or failed with ``error``): it is the
    new token all the same, so that ``effects_barrier`` raises its error."""
    if effects:
        done = Completion()
        done.set(None if error is None else failed_error(error))
        _effects_hook.set_token_results(effects, device, done)


# =============================================================================
# Helpers shared by the three kinds of work
# =============================================================================
def _device_of(args, device=None):
    """Where to run: ``device`` if given, else where the inputs live (see module doc)."""
    if device is not None:
        return device
    default = default_device()
    for x in args:
        if isinstance(x, Array) and x._buffer is not None:
            if x._buffer.device is not default:  # devices are singletons
                return x._buffer.device
    return default


def _tiny(args, out_avals) -> bool:
    """Is an eager primitive tiny: few elements in and out?"""
    n = 0
    for a in out_avals:
        n += math.prod(a.shape)
    for x in args:
        if isinstance(x, Array):
            n += math.prod(x.aval.shape)
        elif isinstance(x, np.ndarray):
            n += x.size
    return n <= INLINE_MAX_ELEMENTS


def _ready(args) -> bool:
    """Is every Array among ``args`` ready (and not deleted)?"""
    for x in args:
        if isinstance(x, Array):
            buf = x._buffer
            if buf is None or not buf.is_ready():
                return False
    return True


def _quick_item(buffers, device, after) -> bool:
    """May tiny work be marked quick on ``device``'s stream (see ``Stream.drain_quick``):
    no token to wait for, and each input ready or made by that same stream (an
    earlier item, in order)?"""
    if after:
        return False
    for b in buffers:
        if b.device is not device and not b.is_ready():
            return False
    return True


def _buffers_of(args) -> list:
    """The buffers of the Array arguments (``x._value`` raises if one was deleted)."""
    return [x._live_buffer() for x in args if isinstance(x, Array)]


def _arguments_ready(args) -> bool:
    """Is every Array among ``args`` ready? (A deleted one raises, as reading it would.)"""
    for x in args:
        if isinstance(x, Array):
            buf = x._buffer
            if buf is None:
                x._live_buffer()  # raises: the array was deleted
            if type(buf) is not Buffer and not buf.is_ready():  # a plain Buffer is ready
                return False
    return True


def _all_ready(buffers) -> bool:
    for b in buffers:
        if not b.is_ready():
            return False
    return True


def _future_arrays(avals, device):
    """One future Array per aval, all sharing one completion."""
    completion = Completion()
    buffers = [FutureBuffer(device, completion) for _ in avals]
    return completion, buffers, [Array(a, b) for a, b in zip(avals, buffers)]


def _failed_arrays(avals, device, error: BaseException):
    """Arrays whose (ready) buffers hold ``error``: what a failed inline run returns."""
    completion, _, arrays = _future_arrays(avals, device)
    completion.set(failed_error(error))
    return arrays


def _snapshot(x):
    """An argument as the worker will see it: immune to ``delete()`` and to mutation.

    A donated input is deleted as soon as ``jit`` returns, and a NumPy input
    may be written by the caller: the work item keeps its own Array (sharing
    the immutable buffer) or its own copy of the NumPy data.
    """
    if isinstance(x, Array):
        return type(x)(x.aval, x._live_buffer())
    if isinstance(x, np.ndarray):
        return x.copy()
    return x


def _enqueue(name, fn, args, avals_out, device, effects=no_effects, tiny=False):
    """Queue ``fn`` (-> one NumPy array per output) after ``args``; future Arrays.

    With ``effects``, the work also waits for the runtime tokens of its ordered
    effects, and its completion becomes the new tokens (chapter 12's hook).
    ``tiny``: the work itself is known to be quick (the item is marked quick
    when, besides, it will not wait for another stream or a token).
    """
    completion, outputs, arrays = _future_arrays(avals_out, device)
    hook = _effects_hook if effects else None
    after = hook.token_inputs(effects) if hook is not None else ()
    inputs = _buffers_of(args)
    stream_for(device).enqueue(WorkItem(name, fn, inputs, outputs, completion, after,
                                        quick=tiny and _quick_item(inputs, device, after)))
    if hook is not None:
        hook.set_token_results(effects, device, completion)
    return arrays


def _run_inline(name, device, fn):
    """Run ``fn`` now, on this thread, as a work item would (nested binds run here too)."""
    running.busy = True
    t0 = time.perf_counter()
    try:
        return fn()
    finally:
        running.busy = False
        if profiler.is_tracing():
            profiler.record_device_event(name, device, 0.0, t0, time.perf_counter())


# =============================================================================
# 1. Eager primitives
# =============================================================================
#: primitive -> may it be queued? (No if its params hold Python callables:
#: user code, e.g. a custom_jvp function, must run on the caller's thread; nor
#: if it has effects of its own, a call back into Python, chapter 12.)
_queueable: dict = {}


def _may_queue(prim, params) -> bool:
    ok = _queueable.get(prim)
    if ok is None:
        ok = _queueable[prim] = prim not in effect_rules and not any(
            callable(v) and not isinstance(v, type) for v in params.values())
    return ok


def _impl_or_failure(prim, args, params, avals_out, device, effects=no_effects):
    """Run the impl now; an error is stored in the outputs, as the queue would."""
    try:
        outs = dispatch.run_impl(prim, args, params, avals_out, device)
    except Exception as e:
        _ran_inline(effects, device, e)
        outs = _failed_arrays(avals_out if prim.multiple_results else [avals_out], device, e)
        return outs if prim.multiple_results else outs[0]
    _ran_inline(effects, device)
    return outs


def dispatch_primitive(prim, args, params, avals_out):
    """``apply_primitive``'s executor: queue the impl rule (or run it inline)."""
    if running.busy:
        return None  # inside a work item: run now, as chapter 00 does
    effects = eqn_effects(prim, params) if _effects_hook is not None else no_effects
    if not _may_queue(prim, params):  # user code: run now, as chapter 00 does
        if effects:
            _effects_hook.wait_in_order(effects)
        return None
    device = _device_of(args)
    if device.queue_is_own:  # a GPU: the device runs it as a kernel (chapter 10)
        return device.run_primitive(prim, args, params, avals_out)
    stream = stream_for(device)
    multiple = prim.multiple_results
    out_avals = avals_out if multiple else (avals_out,)
    tiny = _tiny(args, out_avals)
    if (_inline and tiny and (stream.idle() or stream.drain_quick()) and _ready(args)
            and _nothing_to_wait_for(effects)):
        if profiler.is_tracing():
            return _run_inline(prim.name, device, lambda: _impl_or_failure(
                prim, args, params, avals_out, device, effects))
        return _impl_or_failure(prim, args, params, avals_out, device, effects)
    snapshot = [_snapshot(x) for x in args]

    def run():
        outs = impl_rules[prim](*(dispatch.to_numpy(x) for x in snapshot), **params)
        return [dispatch.output_value(o, a) for o, a in
                zip(outs if multiple else [outs], out_avals)]
    outs = _enqueue(prim.name, run, args, out_avals, device, effects, tiny)
    return outs if multiple else outs[0]


# =============================================================================
# 2. Compiled executables (jit)
# =============================================================================
def _host_value(x, aval) -> np.ndarray:
    """An executable's output (an Array, or a NumPy value) as a NumPy array."""
    if isinstance(x, Array):
        return x._value
    return np.asarray(x, dtype=aval.dtype)


def _note_run_time(executable, seconds: float) -> None:
    """Remember the fastest run of ``executable`` (a slow run may just have waited for
    the GIL; the fastest one is the best estimate of what the work costs)."""
    fastest = getattr(executable, "_fastest_run_seconds", None)
    if fastest is None or seconds < fastest:
        executable._fastest_run_seconds = seconds


def _label_and_effects(executable) -> tuple[str, frozenset]:
    """The profiler's name of ``executable`` (``jit(f)``) and its effects, found once
    per executable (both are fixed when it is compiled)."""
    try:
        return executable._dispatch_label_and_effects
    except AttributeError:
        found = (f"jit({executable.name})", effects_of_executable(executable))
        executable._dispatch_label_and_effects = found
        return found


def execute_executable(executable, flat_args, device=None) -> list:
    """``registry.execute``'s executor: queue the executable (or run it inline)."""
    if running.busy:
        return executable(*flat_args)
    device = _device_of(flat_args, device)
    label, effects = _label_and_effects(executable)
    if _effects_hook is None:
        effects = no_effects
    if device.queue_is_own and not effects:
        # a GPU (chapter 10): the executable queues its kernels on the device's CUDA
        # stream and returns at once; that stream is the device's queue. A program
        # with effects calls back into Python from its host driver, which waits for
        # the kernels before each call: it goes on the device's queue thread below,
        # as on the CPU, so that the caller does not wait.
        run_on = getattr(executable, "run_on", None)  # the device it was asked to run on
        try:
            return _run_inline(label, device,
                               lambda: run_on(device, flat_args) if run_on is not None
                               else executable(*flat_args))
        except Exception as e:  # raised where an output is read
            return _failed_arrays(executable.out_avals, device, e)
    stream = stream_for(device)
    fastest = getattr(executable, "_fastest_run_seconds", None)
    tiny = fastest is not None and fastest <= INLINE_MAX_SECONDS
    # A program with effects (a print, a callback) runs inline whenever it may, as
    # JAX's CPU client runs one before returning: its lines appear during the call.
    if (_inline and (effects or tiny) and (stream.idle() or stream.drain_quick())
            and _arguments_ready(flat_args) and _nothing_to_wait_for(effects)):
        if effects or profiler.is_tracing():
            t0 = time.perf_counter()
            try:
                outs = _run_inline(label, device, lambda: executable(*flat_args))
            except Exception as e:
                _ran_inline(effects, device, e)
                return _failed_arrays(executable.out_avals, device, e)
            _ran_inline(effects, device)
            _note_run_time(executable, time.perf_counter() - t0)
        else:
            # The common inline run, spelled out: no effects, no profiler event. Its
            # time is not noted: it ran inline because its fastest run was already
            # quick, and a faster one changes no later decision.
            running.busy = True
            try:
                outs = executable(*flat_args)
            except Exception as e:  # raised where an output is read
                return _failed_arrays(executable.out_avals, device, e)
            finally:
                running.busy = False
        for o in outs:
            if o._buffer.device is not device and o.device != device:
                return [o if o.device == device else Array(o.aval, Buffer(o._value, device))
                        for o in outs]
        return outs
    snapshot = [_snapshot(x) for x in flat_args]
    avals = executable.out_avals

    def run():
        t0 = time.perf_counter()
        outs = executable(*snapshot)
        values = [_host_value(o, a) for o, a in zip(outs, avals)]
        _note_run_time(executable, time.perf_counter() - t0)
        return values
    outs = _enqueue(label, run, flat_args, avals, device, effects, tiny)
    for i, k in _forwarded(executable):  # an input returned as it is stays that Array
        x = flat_args[k]
        if isinstance(x, Array) and x.aval == avals[i]:
            outs[i] = x
    return outs


def _forwarded(executable) -> list[tuple[int, int]]:
    """(output index, input index) pairs of the outputs that are inputs, unchanged.

    The synchronous backends return such an input itself (``jit(lambda x: x)(y)
    is y``), which decides, for instance, that a donated ``y`` is not consumed.
    """
    pairs = getattr(executable, "_forwarded_pairs", None)
    if pairs is None:
        lowering = getattr(executable, "lowering", None)
        jaxpr = getattr(lowering, "jaxpr", None)
        pairs = []
        if jaxpr is not None:
            position = {id(v): k for k, v in enumerate(jaxpr.invars)}
            pairs = [(i, position[id(v)]) for i, v in enumerate(jaxpr.outvars)
                     if id(v) in position]
        executable._forwarded_pairs = pairs
    return pairs


# =============================================================================
# 3. Transfers (device_put)
# =============================================================================
def transfer(source, weak: bool, device):
    """``device_put``'s hook: copy ``source`` (an Array or NumPy data) onto ``device``."""
    if device is None:
        device = default_device()
    if isinstance(source, Array):
        aval = source.aval if source.aval.weak_type == weak else source.aval.update(
            weak_type=weak)
        args, kind = [source], type(source)  # a key array stays a key array
    else:
        source = np.asarray(source)
        aval = ShapedArray(source.shape, canonicalize_dtype(source.dtype), weak)
        args, kind = [], Array
    if device.queue_is_own:  # a GPU: its own stream copies asynchronously (chapter 10)
        return kind(aval, buffer_on(_copy(source, aval), device))
    if running.busy or (_inline and stream_for(device).idle() and math.prod(aval.shape)
                        <= INLINE_MAX_ELEMENTS and _all_ready(_buffers_of(args))):
        return kind(aval, Buffer(_copy(source, aval), device))
    # The copy *is* the transfer, so it is queued too: as with JAX, do not write
    # to a NumPy array handed to device_put before the result is ready.
    snapshot = _snapshot(source) if isinstance(source, Array) else source
    out = _enqueue("device_put", lambda: [_copy(snapshot, aval)], args, [aval], device)[0]
    return kind(out.aval, out._buffer)


def _copy(source, aval) -> np.ndarray:
    """The data of ``source`` (an Array or NumPy data) as a fresh array of ``aval``'s type."""
    if isinstance(source, Array):
        return np.array(source._value)
    return np.array(source, dtype=aval.dtype)
