"""Chapter 09 — compiling in the background: interpret first, switch when compiled.

Numba takes from a tenth of a second to several seconds to compile a kernel;
XLA compiles the same program in tens of milliseconds. For a program that
calls a jitted function once or a few times (a tutorial cell, a script's
set-up), that compile *is* the run time. Java's virtual machines and PyPy
answer the same problem with *tiers*: run the slow but ready version at once,
compile in the background, switch when the fast one is ready.

With ``config.update("minijax_background_compile", True)`` (environment
variable ``MINIJAX_BACKGROUND_COMPILE=1``), a kernel that is not in the disk
cache yet is compiled by a **separate Python process** while the calls run on
chapter 06's interpreter:

- a process, not a thread: Numba's compiler is Python code holding the GIL,
  and a compiling thread would slow the interpreter running beside it; the
  child needs only NumPy and Numba, loads the kernel module from the cache
  directory and compiles it there, so Numba writes the machine code into the
  disk cache (``cache=True``);
- each call first checks whether the child has finished; once it has, the
  backend loads the kernel from the disk cache (milliseconds) and every later
  call runs compiled;
- a child that fails changes nothing visible: the next call compiles in this
  process, which reports the error as the backend always does;
- children still running when the program exits are stopped.

The price is in the last bits: until the switch, float32 transcendentals are
the interpreter's (NumPy's float64 function rounded once), afterwards the
kernel's polynomials (within 1 ulp of them). That is why it is off by default:
``jit`` gives one program one set of results, as JAX does.
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import subprocess
import sys
import threading

from numba import types
from numba.np.numpy_support import as_dtype

from minijax.backends.interpreter import InterpreterExecutable
from minijax.backends.registry import Executable
from minijax.config import bool_state

__all__ = ["background_compile_option", "is_cached", "TieredExecutable"]

logger = logging.getLogger(__name__)

background_compile_option = bool_state(
    "minijax_background_compile", False,
    "Compile Numba kernels that are not in the disk cache in a separate process, "
    "running jit calls on the interpreter until the kernel is ready.")

#: What the child process runs: load the kernel module, compile its entry function.
_CHILD = r"""
import importlib.util, json, sys
import numpy as np
from numba import from_dtype, types
path, mod_name, fn_name, avals = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
def load(name, file):
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
if len(sys.argv) > 6:  # the shared helper module the kernel imports from
    load(sys.argv[5], sys.argv[6])
module = load(mod_name, path)
def numba_type(dtype, ndim):
    scalar = from_dtype(np.dtype(dtype))
    return types.Array(scalar, ndim, "C", readonly=True) if ndim else scalar
getattr(module, fn_name).compile(tuple(numba_type(d, n) for d, n in avals))
"""

_children: list[subprocess.Popen] = []
#: At most this many children compile at once (one core is left to the program);
#: a kernel waiting for a slot runs on the interpreter meanwhile.
MAX_CHILDREN = max(1, (os.cpu_count() or 2) - 1)


def _running() -> int:
    return sum(proc.poll() is None for proc in _children)


@atexit.register
def _stop_children() -> None:
    for proc in _children:
        if proc.poll() is None:
            proc.kill()


def is_cached(module) -> bool:
    """Whether Numba's disk cache has an index for this kernel module."""
    pycache = os.path.join(os.path.dirname(module.__file__), "__pycache__")
    try:
        return any(f.startswith(module.__name__ + ".") and f.endswith(".nbi")
                   for f in os.listdir(pycache))
    except OSError:
        return False


def _type_spec(numba_type) -> tuple[str, int]:
    """A parameter's Numba type, for the child: its NumPy dtype and its rank."""
    if isinstance(numba_type, types.Array):
        return as_dtype(numba_type.dtype).str, numba_type.ndim
    return as_dtype(numba_type).str, 0


class TieredExecutable(Executable):
    """The interpreter now, the compiled kernel once the child has built it.

    ``signature`` holds the Numba types of the entry function's parameters;
    ``compiled`` is a function making the compiled executable (it loads the
    kernel from the disk cache once the child is done); ``helper_module``, the
    shared helper module the kernel imports from, which the child loads first.
    """

    def __init__(self, lowering, interpreted_lowering, module, signature, compiled,
                 helper_module=None):
        super().__init__(lowering)
        self._slow = InterpreterExecutable(interpreted_lowering)
        self._compiled = compiled
        self._fast = None
        self._proc = None
        self._lock = threading.Lock()
        specs = [_type_spec(t) for t in signature]
        self._command = [sys.executable, "-c", _CHILD, module.__file__, module.__name__,
                         lowering.fn_name, json.dumps(specs)]
        if helper_module is not None:
            self._command += [helper_module.__name__, helper_module.__file__]
        self._start(force=False)

    def _start(self, force: bool) -> None:
        """Start the child, if a slot is free (or ``force``)."""
        with self._lock:
            if self._proc is None and (force or _running() < MAX_CHILDREN):
                self._proc = subprocess.Popen(self._command, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)
                _children.append(self._proc)

    @property
    def ready(self) -> bool:
        """Whether calls now run the compiled kernel."""
        return self._fast is not None

    def _switch(self):
        with self._lock:
            if self._fast is None:
                self._fast = self._compiled()  # from the disk cache, or compiled here
                _children.remove(self._proc)
            return self._fast

    def wait(self):
        """Block until the compiled kernel is ready; return it."""
        self._start(force=True)
        self._proc.wait()
        return self._switch()

    def __call__(self, *flat_args) -> list:
        fast = self._fast
        if fast is None:
            if self._proc is None:
                self._start(force=False)
            if self._proc is not None and self._proc.poll() is not None:
                fast = self._switch()
        return (fast or self._slow)(*flat_args)

    def as_text(self, assembly: bool = False) -> str:
        return self.wait().as_text(assembly=assembly)

    def cost_analysis(self) -> dict[str, float]:
        return self.lowering.cost_analysis()
