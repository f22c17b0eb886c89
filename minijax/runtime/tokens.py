"""Chapter 12 — runtime tokens: side effects in program order, and ``effects_barrier``.

Chapter 11 made every dispatch asynchronous: each device has its own queue,
and two devices run side by side. For pure programs nobody can tell. With
side effects one can::

    f = jit(lambda: debug.print("hello", ordered=True), device=devices()[0])
    g = jit(lambda: debug.print("world", ordered=True), device=devices()[1])
    f(); g()                    # device 1 may well print first

This module implements JAX's design note "Sequencing side-effects in JAX"
(in ``../shared/seeds``) on top of chapter 11's executor, through the hook
:func:`minijax.runtime.executor.set_effects_hook`:

- **Runtime tokens** order dispatches. Each *ordered* effect (``OrderedDebug``,
  ``OrderedIO``) has one token: the completion of the last dispatch with that
  effect. A new dispatch with the effect waits for the token before it runs
  (its work item's ``after``; on another device, that wait is the token's
  "copy" to the new device), then becomes the token itself. One token per
  effect, so ordered prints never wait for unrelated ordered IO.
- **Output tokens** make waiting possible. Every dispatch with an effect,
  ordered or not, becomes its device's output token; a device runs in order,
  so waiting for its last token waits for everything before it.
  :func:`effects_barrier` waits for every device's output token, and raises
  the error of a callback that failed (earlier tokens of a device are kept
  until they are known to have succeeded, so that no error is lost).
- **Per thread.** As in JAX, the tokens live in a ``threading.local``: each
  user thread has its own stream of tokens, sequencing is promised within a
  thread only, and ``effects_barrier`` waits for the calling thread's effects.

The tokens carry *order*, not data: a dispatch waits for its token, but an
error in the dispatch that made the token is not passed on (chapter 11 would
pass an input's error on), so one failed callback does not fail every later
ordered dispatch. Compiler tokens, which order effects *inside* one program,
are not needed here: the interpreter and the generated kernels run a jaxpr's
equations in program order.

Unordered effects are not sequenced at all: only waited for.
"""
from __future__ import annotations

import atexit
import os
import threading

from minijax.effects import ordered_effects_of
from minijax.runtime import executor
from minijax.runtime.futures import Completion, _raise_stored

__all__ = ["RuntimeTokenSet", "runtime_tokens", "effects_barrier", "install", "uninstall"]


class RuntimeTokenSet(threading.local):
    """The tokens of one user thread (a fresh, empty set in every thread)."""

    def __init__(self):
        #: ordered effect -> the completion of the last dispatch with that effect
        self.current_tokens: dict = {}
        #: device -> completions of its effectful dispatches, oldest first: the last is
        #: the device's output token; earlier ones stay only while they might fail
        self.output_tokens: dict = {}

    # --- the executor's hook (see minijax.runtime.executor.set_effects_hook) --------------
    def token_inputs(self, effects) -> list[Completion]:
        """What a dispatch with ``effects`` waits for: its ordered effects' tokens."""
        tokens = []
        for eff in ordered_effects_of(effects):
            tok = self.current_tokens.get(eff)
            if tok is not None and not tok.done:
                tokens.append(tok)
        return tokens

    def set_token_results(self, effects, device, completion: Completion) -> None:
        """The dispatch finishing at ``completion`` is the new token of each of its
        ordered effects, and the output token of ``device``."""
        for eff in ordered_effects_of(effects):
            self.current_tokens[eff] = completion
        self.set_output_token(device, completion)

    def wait_in_order(self, effects) -> None:
        """Before an effect that runs now, on this thread: wait for its ordered tokens.

        It ends before this thread dispatches anything else, so afterwards
        nothing is pending for those effects (their tokens are dropped).
        """
        for eff in ordered_effects_of(effects):
            tok = self.current_tokens.pop(eff, None)
            if tok is not None:
                tok.wait()

    # --- output tokens ------------------------------------------------------------------
    def set_output_token(self, device, completion: Completion) -> None:
        earlier = self.output_tokens.get(device, [])
        # Forget what finished well; keep what is pending (it may fail) and what failed.
        kept = [c for c in earlier if not c.done or c.error is not None]
        kept.append(completion)
        self.output_tokens[device] = kept

    def clear(self) -> None:
        self.current_tokens = {}
        self.output_tokens = {}

    def block_until_ready(self) -> None:
        """Wait for every token of this thread; raise the first error a dispatch stored."""
        pending = [c for tokens in self.output_tokens.values() for c in tokens]
        pending += list(self.current_tokens.values())
        self.clear()
        errors = []
        for c in pending:
            c.wait()
            if c.error is not None and c.error not in errors:
                errors.append(c.error)
        if errors:
            if len(errors) > 1:
                try:
                    errors[0].add_note(f"({len(errors) - 1} more effectful computation(s) "
                                       "failed before this effects_barrier)")
                except AttributeError:  # pragma: no cover - add_note is Python 3.11+
                    pass
            _raise_stored(errors[0])


#: This process's tokens (each thread sees its own).
runtime_tokens = RuntimeTokenSet()


def effects_barrier() -> None:
    """Waits until existing functions have completed any side-effects.

    (Those dispatched by the calling thread.) If one of them failed (a
    callback raised), its error is raised here, chained to the original.
    """
    runtime_tokens.block_until_ready()


def install() -> None:
    """Thread runtime tokens through chapter 11's executor (done on import)."""
    executor.set_effects_hook(runtime_tokens)


def uninstall() -> None:
    executor.set_effects_hook(None)


@atexit.register
def _wait_for_tokens() -> None:
    """At exit, let pending effects happen (a print queued last still prints), as JAX does.

    Registered after chapter 11's ``shutdown`` (atexit runs in reverse), so it runs first.
    An error is not raised again here: a failing callback was logged when it failed
    ("jax.debug.callback failed", as JAX logs it), and the program is ending.
    """
    if executor._effects_hook is runtime_tokens:
        try:
            runtime_tokens.block_until_ready()
        except Exception:  # noqa: BLE001  (logged when it happened; see above)
            pass


def _forget_tokens_in_child() -> None:
    """After ``os.fork()`` the child has none of the parent's streams (chapter 11 starts
    them afresh): the parent's pending tokens would never complete there."""
    runtime_tokens.clear()


install()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_tokens_in_child)
