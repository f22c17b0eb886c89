"""Chapter 06 — backends: who turns a jaxpr into something that runs.

``jit`` traces a function to a :class:`~minijax.jaxpr.ClosedJaxpr` and hands
it to a *backend* in two steps, the same two steps JAX takes with XLA:

1. ``backend.lower(closed_jaxpr, name=...)`` translates the jaxpr into the
   backend's own program text (JAX: StableHLO). The result, a
   :class:`Lowering`, can be printed with ``as_text()``.
2. ``backend.compile(lowering)`` turns that into an :class:`Executable`, a
   callable ``executable(*flat_args) -> list of Arrays``.

Backends are registered by name with a priority; ``get_backend()`` returns
the one with the highest priority. Chapter 06 registers the NumPy
*interpreter* (:mod:`minijax.backends.interpreter`); chapter 09 registers
Numba with a higher priority, and from then on ``jit`` compiles to machine
code without any change to ``jit`` itself. ``jit(f, backend="interpreter")``
picks one by name; ``backend="cpu"`` picks the best backend for that platform.
"""
from __future__ import annotations

import logging
from typing import Any

from minijax.config import optional_string_state
from minijax.jaxpr import ClosedJaxpr

__all__ = ["Backend", "Lowering", "Executable", "register_backend", "unregister_backend",
           "get_backend", "backends", "default_backend", "execute", "set_executor",
           "add_fallback_listener", "remove_fallback_listener", "report_fallback"]

logger = logging.getLogger("minijax.backends")


class Lowering:
    """A jaxpr translated for one backend: printable, compilable.

    It keeps the jaxpr and its constants, but not the ``ClosedJaxpr``
    object itself: ``jit`` caches compiled programs in a dictionary with
    *weak* references to ``ClosedJaxpr`` keys, and a value that referred to
    its own key would keep it alive forever.
    """

    def __init__(self, backend: "Backend", closed_jaxpr, name: str):
        self.backend = backend
        self.jaxpr = closed_jaxpr.jaxpr
        self.consts = list(closed_jaxpr.consts)
        self.name = name
        self.in_avals = list(closed_jaxpr.in_avals)
        self.out_avals = list(closed_jaxpr.out_avals)

    @property
    def closed_jaxpr(self):
        return ClosedJaxpr(self.jaxpr, self.consts)

    def as_text(self) -> str:
        raise NotImplementedError

    def cost_analysis(self) -> dict[str, float]:
        raise NotImplementedError


class Executable:
    """A compiled program: ``executable(*flat_args)`` returns the list of flat outputs."""

    def __init__(self, lowering: Lowering):
        self.lowering = lowering
        self.name = lowering.name
        self.in_avals = lowering.in_avals
        self.out_avals = lowering.out_avals

    def __call__(self, *flat_args) -> list:
        raise NotImplementedError

    def as_text(self) -> str:
        raise NotImplementedError

    def cost_analysis(self) -> dict[str, float]:
        raise NotImplementedError


class Backend:
    """A compiler for jaxprs. Subclasses implement :meth:`lower` and :meth:`compile`.

    ``platform`` is the kind of device it runs on (``"cpu"``, ``"gpu"``);
    ``ir_name`` and ``compiler_name`` appear in ``jax_log_compiles`` messages
    (JAX's say "jaxpr to MLIR module conversion" and "XLA compilation").
    """
    name = "unknown"
    platform = "cpu"
    ir_name = "program"
    compiler_name = "unknown"

    def lower(self, closed_jaxpr, *, name: str, **options) -> Lowering:
        raise NotImplementedError

    def compile(self, lowering: Lowering, **options) -> Executable:
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r} ({self.platform})>"


default_backend_option = optional_string_state(
    "minijax_default_backend", None,
    "The backend jit uses when none is named: a backend name ('cpu' for Numba, "
    "'interpreter'). Default: the registered backend with the highest priority.")

#: name -> (priority, backend)
_backends: dict[str, tuple[int, Any]] = {}
_ranked: list[tuple[str, Backend]] = []  # by decreasing priority (the default first)


def register_backend(name: str, backend: Backend, priority: int = 0) -> None:
    """Make ``backend`` available as ``name``; the highest priority is the default."""
    _backends[name] = (priority, backend)
    _rank()


def unregister_backend(name: str) -> None:
    del _backends[name]
    _rank()


def _rank() -> None:
    ranked = sorted(_backends.items(), key=lambda kv: -kv[1][0])
    _ranked[:] = [(name, backend) for name, (_, backend) in ranked]


def backends() -> dict[str, Backend]:
    """All registered backends, by name, the default first."""
    return dict(_ranked)


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name``, the best one for platform ``name``, or the default."""
    ranked = _ranked
    if not ranked:
        raise RuntimeError("no minijax backend is registered")
    if name is None:
        name = default_backend_option.value
        if name is None:
            return ranked[0][1]
    if name in _backends:
        return _backends[name][1]
    for _, backend in ranked:
        if backend.platform == name:
            return backend
    platforms = ", ".join(sorted({b.platform for _, b in ranked}))
    raise RuntimeError(f"Unknown backend: '{name}' requested, but no platforms that are "
                       f"instances of {name} are present. Platforms present are: "
                       f"{platforms}")


def default_backend() -> str:
    """The platform of the default backend (``"cpu"``), as ``jax.default_backend()``."""
    return get_backend().platform


# --- running an executable: the hook of chapter 11 --------------------------------
#: ``executor(executable, flat_args, device)`` -> list of output Arrays whose
#: buffers are futures (chapter 11); ``None``: call the executable right here.
_executor = None


def set_executor(executor) -> None:
    """Install (or, with ``None``, remove) the executor that runs executables."""
    global _executor
    _executor = executor


def execute(executable: Executable, flat_args, device=None) -> list:
    """Run ``executable`` on ``flat_args`` (on ``device``): the list of output Arrays.

    ``jit`` calls this rather than ``executable(*flat_args)``, so that chapter
    11 can put the call on a device's queue and return futures at once.
    """
    if _executor is None:
        return executable(*flat_args)
    return _executor(executable, flat_args, device)


# --- falling back to the interpreter: one hook for every backend ----------------------
#: Called as ``listener(backend, name, reason)`` on every fallback (the tests fail a
#: test in which a kernel ran on the interpreter unless it expects it).
_fallback_listeners: list = []


def add_fallback_listener(fn) -> None:
    """Call ``fn(backend, name, reason)`` whenever a backend falls back to the interpreter."""
    _fallback_listeners.append(fn)


def remove_fallback_listener(fn) -> None:
    """Stop calling ``fn`` (added by :func:`add_fallback_listener`)."""
    _fallback_listeners.remove(fn)


def report_fallback(backend: str, name: str, reason: str) -> None:
    """A backend that cannot lower or compile jit(name) runs it on the interpreter
    instead: it says so here (a debug message on logger ``minijax.backends``, and a
    call to each listener with ``(backend, name, reason)``)."""
    logger.debug("%s: jit(%s) runs on the interpreter: %s", backend, name, reason)
    for fn in list(_fallback_listeners):
        fn(backend, name, reason)
