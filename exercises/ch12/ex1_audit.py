"""Exercise 1 of chapter 12: an effect of your own, ``audit``.

``audit(tag, x)`` appends ``(tag, value of x)`` to :data:`AUDIT_LOG` when the
program *runs*: eagerly, at every call of a jitted function, at every
iteration of a loop, on the primal values under ``grad``. A log entry is a
side effect, so ``audit`` is a primitive with an **effect**: the effect keeps
it alive through dead-code elimination (it has no outputs at all), and with
``ordered=True`` the runtime tokens of chapter 12 keep two audits on two
devices in program order.

The primitive and the two effect classes are made for you below. Write:

1. ``_audit_impl(x, *, tag, ordered)``: append ``(tag, x.tolist())`` to
   ``AUDIT_LOG`` (``x`` is a NumPy array) and return ``[]``: no outputs.
2. ``_audit_abstract_eval(x, *, tag, ordered)``: no outputs either: ``[]``.
3. ``_audit_effects(*, tag, ordered)``: the equation's effects, a set:
   ``{ordered_audit_effect}`` or ``{audit_effect}``.
4. ``_audit_jvp(primals, tangents, *, tag, ordered)``: audit the primal
   values (bind ``audit_p`` on them) and return ``([], [])``: no outputs,
   nothing to differentiate.
5. ``register()``: put the rules in their tables, keyed by ``audit_p``:
   ``impl_rules``, ``abstract_eval_rules``, ``effect_rules`` (chapter 05's
   table of effects, which ``eqn.effects`` and ``jaxpr.effects`` read),
   ``jvp_rules``; make ``OrderedAuditEffect`` an *ordered* effect
   (``ordered_effects.add_type``); and give ``audit_p`` a CPU lowering:
   ``cpu_rules.register_host_call_lowerings(audit_p)`` lowers it as a call
   from the compiled kernel back into your impl rule (chapter 09's host
   calls), as ``debug.print`` is.
6. ``audit(tag, x, ordered=False)``: the user's function: bind ``audit_p``
   on ``x`` (``jnp.asarray(x)``) with the params ``tag`` and ``ordered``;
   return ``None``.

Check it: ``make exercise-ch12`` (or ``pytest exercises/ch12/test_ex1_audit.py``).

Hints: ``minijax/debugging.py`` does all of this for ``debug_print``; the
params of a primitive reach every rule as keyword arguments.
"""
from minijax import numpy as jnp  # noqa: F401
from minijax.backends.cpu import rules as cpu_rules  # noqa: F401
from minijax.effects import Effect, ordered_effects  # noqa: F401
from minijax.interpreters.ad import jvp_rules  # noqa: F401
from minijax.jaxpr import effect_rules  # noqa: F401
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules  # noqa: F401

#: (tag, value) pairs, in the order the audits ran.
AUDIT_LOG: list = []

audit_p = Primitive("audit", multiple_results=True, kind="other")


class AuditEffect(Effect):
    """The effect of ``audit``: never dropped, not sequenced."""
    name = "Audit"


class OrderedAuditEffect(Effect):
    """The effect of ``audit(..., ordered=True)``: in program order."""
    name = "OrderedAudit"


audit_effect, ordered_audit_effect = AuditEffect(), OrderedAuditEffect()


def _audit_impl(x, *, tag, ordered):
    raise NotImplementedError("exercise 1 of chapter 12: the impl rule of audit")


def _audit_abstract_eval(x, *, tag, ordered):
    raise NotImplementedError("exercise 1 of chapter 12: the abstract-eval rule of audit")


def _audit_effects(*, tag, ordered):
    raise NotImplementedError("exercise 1 of chapter 12: the effects of audit")


def _audit_jvp(primals, tangents, *, tag, ordered):
    raise NotImplementedError("exercise 1 of chapter 12: the jvp rule of audit")


def register() -> None:
    """Register audit's rules, its ordered effect and its CPU lowering."""
    raise NotImplementedError("exercise 1 of chapter 12: register audit's rules")


def audit(tag: str, x, ordered: bool = False) -> None:
    """Append ``(tag, value of x)`` to ``AUDIT_LOG`` when the program runs."""
    raise NotImplementedError("exercise 1 of chapter 12: audit(tag, x), binding audit_p")
