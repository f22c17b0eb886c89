"""Chapter 12 — ``debug.breakpoint``: a debugger prompt inside a running program.

``debug.callback`` can call *any* Python function with the values of a running
program; a debugger is one such function. At trace time ``breakpoint()`` takes
a snapshot of the Python call stack (each frame's file, line, source and
locals); the locals that are tracers become the operands of one
``debug_callback``, everything else is kept as it is. When the program runs,
the callback puts the concrete values back into the frames and opens a
``pdb``-like prompt on them::

    @jit
    def f(x):
        y = jnp.sin(x)
        debug.breakpoint()        # (jdb) p y  ->  Array(0.9092974, dtype=float32)
        return y

The prompt (JAX's "cli" debugger, ``(jdb)``) knows ``p``/``pp`` (print an
expression), ``u``/``d`` (move up/down the stack), ``l`` (list the source),
``w`` (where), ``c`` (continue) and ``q`` (quit the program); any other line
is evaluated as an expression. Extra keyword arguments go to the debugger
(``stdin=``, ``stdout=``: the tests' way to type into it).

As a ``debug.callback`` it works under ``jit``, ``vmap`` (one prompt per
example), ``grad`` (primal values) and in control flow (a breakpoint in a
``cond`` branch opens only when that branch runs). In minijax a jitted
program runs on its device's queue: the prompt opens on that worker thread,
while the caller goes on until it reads a result of the program (a REPL or a
notebook reading the value it displays waits for the session to end).
"""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import pprint
import sys
import threading
import traceback
from typing import IO, Any, Callable

from minijax.callback import pure_callback
from minijax.core import Tracer
from minijax.debugging import _MINIJAX_DIR, debug_callback
from minijax.lax import stop_gradient
from minijax.tree_util import tree_flatten, tree_leaves, tree_unflatten

__all__ = ["breakpoint", "DebuggerFrame", "CliDebugger", "register_debugger",
           "get_debugger"]

# =============================================================================
# A snapshot of one Python frame
# =============================================================================
class _CantFlatten:
    """Stands for a local that is not a pytree (its flattening raised)."""
    def __repr__(self):
        return "<cant_flatten>"


cant_flatten = _CantFlatten()


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """What the debugger shows of one frame: where it is, and its local variables."""
    filename: str
    locals: dict[str, Any]
    globals: dict[str, Any]
    code_context: Any
    source: list[str]
    lineno: int
    offset: int | None  # the index of line ``lineno`` in ``source``

    @classmethod
    def from_frameinfo(cls, frame_info: inspect.FrameInfo) -> "DebuggerFrame":
        try:
            _, start = inspect.getsourcelines(frame_info.frame)
            source = inspect.getsource(frame_info.frame).split("\n")
            offset = frame_info.lineno - max(start, 1)  # (start is 0 for a whole module)
            if offset >= len(source):  # (code from exec/eval: no usable source)
                source, offset = [], None
        except (OSError, TypeError):
            source, offset = [], None
        return cls(frame_info.filename, dict(frame_info.frame.f_locals), {},
                   frame_info.code_context, source, frame_info.lineno, offset)


def _flatten_locals(frames: list[DebuggerFrame]):
    """Every frame's locals as flat leaves (a local that cannot be flattened becomes
    ``cant_flatten``), and a function that rebuilds the frames from new leaves."""
    trees = []
    leaves = []
    for frame in frames:
        names, values = [], []
        for name, value in frame.locals.items():
            try:
                tree_leaves(value)
            except Exception:  # noqa: BLE001 (any failure: show a placeholder)
                value = cant_flatten
            names.append(name)
            values.append(value)
        flat, tree = tree_flatten(values)
        trees.append((names, tree, len(flat)))
        leaves.extend(flat)

    def rebuild(new_leaves) -> list[DebuggerFrame]:
        it = iter(new_leaves)
        out = []
        for frame, (names, tree, n) in zip(frames, trees):
            values = tree_unflatten(tree, [next(it) for _ in range(n)])
            out.append(dataclasses.replace(frame, locals=dict(zip(names, values))))
        return out
    return leaves, rebuild


# =============================================================================
# Debuggers
# =============================================================================
#: name -> (priority, debugger(frames, thread_id, **kwargs))
_debugger_registry: dict[str, tuple[int, Callable]] = {}


def register_debugger(name: str, debugger: Callable, priority: int) -> None:
    """Make ``debugger`` available as ``breakpoint(backend=name)``; the one with the
    highest priority is the default."""
    if name in _debugger_registry:
        raise ValueError(f"Debugger with name \"{name}\" already registered.")
    _debugger_registry[name] = (priority, debugger)


def get_debugger(backend: str | None = None) -> Callable:
    if backend is not None and backend in _debugger_registry:
        return _debugger_registry[backend][1]
    if not _debugger_registry:
        raise ValueError("No debuggers registered!")
    return max(_debugger_registry.values(), key=lambda entry: entry[0])[1]


class CliDebugger(cmd.Cmd):
    """The text debugger: JAX's ``(jdb)`` prompt, on Python's :mod:`cmd`."""
    prompt = "(jdb) "

    def __init__(self, frames: list[DebuggerFrame], thread_id: int | None,
                 stdin: IO[str] | None = None, stdout: IO[str] | None = None,
                 completekey: str = "tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None
        self.frames = frames  # innermost first
        self.frame_index = 0
        self.thread_id = thread_id
        self.intro = "Entering jdb:"

    def evaluate(self, expr: str):
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})

    def _print(self, text: str) -> None:
        print(text, file=self.stdout)

    def _error_message(self) -> None:
        self._print("*** " + traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip())

    def default(self, line):
        """Evaluate an expression and print its repr."""
        self.do_p(line)

    def print_backtrace(self) -> None:
        lines = ["Traceback:"]
        for frame in self.frames[::-1]:
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    <no source>" if frame.offset is None
                         else f"    {frame.source[frame.offset].strip()}")
        self._print("\n".join(lines))

    def print_context(self, num_lines: int = 2) -> None:
        frame = self.frames[self.frame_index]
        lines = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            for i, line in enumerate(frame.source):
                if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                    lines.append(("->  " if i == frame.offset else "    ") + line)
        self._print("\n".join(lines))

    def do_p(self, arg):
        """p expression
        Evaluates and prints the value of an expression
        """
        try:
            self._print(repr(self.evaluate(arg)))
        except Exception:  # noqa: BLE001 (the user's expression: report, go on)
            self._error_message()

    def do_pp(self, arg):
        """pp expression
        Evaluates and pretty-prints the value of an expression
        """
        try:
            self._print(pprint.pformat(self.evaluate(arg)))
        except Exception:  # noqa: BLE001
            self._error_message()

    def do_up(self, arg, /):
        """u(p)
        Move up a stack frame.
        """
        if self.frame_index == len(self.frames) - 1:
            self._print("At topmost frame.")
        else:
            self.frame_index += 1
        self.print_context()
    do_u = do_up

    def do_down(self, arg, /):
        """d(own)
        Move down a stack frame.
        """
        if self.frame_index == 0:
            self._print("At bottommost frame.")
        else:
            self.frame_index -= 1
        self.print_context()
    do_d = do_down

    def do_list(self, arg):
        """l(ist)
        List source code for the current file.
        """
        self.print_context(num_lines=5)
    do_l = do_list

    def do_continue(self, arg):
        """c(ont(inue))
        Continue the program's execution.
        """
        return True
    do_c = do_cont = do_continue

    def do_quit(self, arg):
        """q(uit)\n(exit)
        Quit the debugger. The program is given an exit command.
        """
        sys.exit(0)
    do_q = do_EOF = do_exit = do_quit

    def do_where(self, arg):
        """w(here)
        Prints a stack trace with the most recent frame on the bottom.
        'bt' is an alias for this command.
        """
        self.print_backtrace()
    do_w = do_bt = do_where

    def run(self) -> None:
        while True:
            try:
                self.cmdloop()
                break
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def run_cli_debugger(frames: list[DebuggerFrame], thread_id: int | None, **kwargs) -> None:
    CliDebugger(frames, thread_id, **kwargs).run()


register_debugger("cli", run_cli_debugger, -1)

#: One prompt at a time (two devices' programs may reach breakpoints together).
debug_lock = threading.Lock()


# =============================================================================
# breakpoint
# =============================================================================
def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None,
               **kwargs):
    """Open a debugger prompt here when the program runs, on the concrete values.

    ``backend`` picks the debugger (``"cli"``, the default); ``filter_frames``
    hides minijax's own frames; ``num_frames`` keeps that many frames, the
    innermost first; ``ordered=True`` keeps it in program order with other
    ordered ``debug.print``/``debug.breakpoint`` calls. With ``token`` (a pytree
    of arrays) the prompt opens once ``token`` is computed, and ``token`` is
    returned, to be used later (if it is not, the breakpoint is dropped as
    dead code). Other keyword arguments go to the debugger.
    """
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frame_infos = inspect.stack()[1:]  # (not this function's own frame)
    if filter_frames:
        frame_infos = [fi for fi in frame_infos if not fi.filename.startswith(_MINIJAX_DIR)]
    frames = [DebuggerFrame.from_frameinfo(fi) for fi in frame_infos]
    if num_frames is not None:
        frames = frames[:num_frames]
    leaves, rebuild = _flatten_locals(frames)
    # the tracers are the program's values: operands; everything else stays as it is
    is_traced = [isinstance(x, Tracer) for x in leaves]
    traced = [x for x, t in zip(leaves, is_traced) if t]

    def _breakpoint_callback(*values):
        it = iter(values)
        frames = rebuild([next(it) if t else x for x, t in zip(leaves, is_traced)])
        thread_id = (None if threading.current_thread() is threading.main_thread()
                     else threading.get_ident())
        debugger = get_debugger(backend=backend)
        with debug_lock:
            debugger(frames, thread_id, **kwargs)

    if token is None:
        debug_callback(_breakpoint_callback, *traced, ordered=ordered)
        return None

    def _with_token(tok, *values):
        _breakpoint_callback(*values)
        return tok
    token, traced = stop_gradient((token, traced))
    return pure_callback(_with_token, token, token, *traced)
