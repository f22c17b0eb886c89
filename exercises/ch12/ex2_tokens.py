"""Exercise 2 of chapter 12: runtime tokens of your own.

Chapter 11's executor runs each device's queue in order, and two devices side
by side. It asks one *effects hook* what an effectful dispatch must wait for
(``minijax.runtime.executor.set_effects_hook``). Chapter 12 installs
``minijax/runtime/tokens.py``'s ``runtime_tokens`` there. In this exercise
you write that hook yourself, following JAX's design note "Sequencing
side-effects in JAX": *runtime tokens* keep ordered effects in program order
across dispatches and devices, and *output tokens* let a barrier wait for
effects that have no outputs to wait on.

A dispatch's effects are a set of ``Effect`` s (``jaxpr.effects``);
``ordered_effects_of(effects)`` keeps the ordered ones (``OrderedDebug``,
``OrderedIO``, ...). A token is a :class:`~minijax.runtime.futures.Completion`
(``wait()``, ``done``, ``error``): the completion of the dispatch that made it.
Write the four methods of :class:`Tokens`:

1. ``token_inputs(effects)``: what a queued dispatch with ``effects`` must
   wait for before it runs: for each of its *ordered* effects, the current
   token of that effect, if there is one and it is not done yet. One token
   per effect: an ordered print never waits for an ordered ``io_callback``.
2. ``set_token_results(effects, device, completion)``: the dispatch that
   finishes at ``completion`` was just queued. It becomes the token of each
   of its ordered effects, and (ordered effects or not) the *output token*
   of ``device``. Keep, per device, the output tokens that are still
   pending or that failed (an error must not be lost); forget those that
   finished well.
3. ``wait_in_order(effects)``: an effectful primitive is about to run now,
   on this thread (an eager ``debug.print``): wait for the tokens of its
   ordered effects, and forget them (nothing is pending for them afterwards).
4. ``block_until_ready()``: the barrier: wait for every output token and
   every current token, forget them all, and raise the error of the first
   one that failed (``raise_stored(error)`` raises a copy chained to it).

Check it: ``make exercise-ch12`` (or ``pytest exercises/ch12/test_ex2_tokens.py``);
the check installs your hook with ``executor.set_effects_hook(Tokens())``.

Hint: chapter 12's own hook is ``minijax/runtime/tokens.py``; it also keeps
the tokens per user thread, which this exercise does not ask for.
"""
from minijax.effects import ordered_effects_of  # noqa: F401
from minijax.runtime.futures import Completion, _raise_stored as raise_stored  # noqa: F401


class Tokens:
    """Runtime tokens (one per ordered effect) and output tokens (per device)."""

    def __init__(self):
        #: ordered effect -> the completion of the last dispatch with that effect
        self.current_tokens: dict = {}
        #: device -> completions of its effectful dispatches that may still fail
        self.output_tokens: dict = {}

    def token_inputs(self, effects) -> list:
        raise NotImplementedError("exercise 2 of chapter 12: Tokens.token_inputs")

    def set_token_results(self, effects, device, completion: Completion) -> None:
        raise NotImplementedError("exercise 2 of chapter 12: Tokens.set_token_results")

    def wait_in_order(self, effects) -> None:
        raise NotImplementedError("exercise 2 of chapter 12: Tokens.wait_in_order")

    def block_until_ready(self) -> None:
        raise NotImplementedError("exercise 2 of chapter 12: Tokens.block_until_ready")
