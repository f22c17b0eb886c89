"""Chapter 12 — effects: what a computation does besides returning its outputs.

Until now every primitive was *pure*: its outputs depend only on its inputs,
and it does nothing else. Three freedoms follow, and every earlier chapter
used them: an equation whose outputs nobody reads may be dropped (dead-code
elimination), two equations with no data flowing between them may run in
either order, and two dispatches may run at the same time on two devices
(chapter 11). A print breaks all three: it has no output, yet must not be
dropped; and ``print("hello"); print("world")`` has no data between the two
prints, yet should print in that order.

JAX's answer, which minijax follows, is to *name* what a primitive does
besides computing: an :class:`Effect`. An equation records its effects
(``eqn.effects``), and a jaxpr the union of its equations'
(``jaxpr.effects``; chapter 05's :func:`~minijax.jaxpr.eqn_effects` computes
them, and a higher-order equation has the effects of the jaxprs it holds).
Then:

- dead-code elimination keeps every equation with an effect;
- an effect is **ordered** when its occurrences must happen in program order
  (``debug.print(..., ordered=True)``, ``io_callback(..., ordered=True)``):
  the runtime threads a *token* through the dispatches that have it
  (:mod:`minijax.runtime.tokens`), so that a program that prints on device 0
  and then on device 1 prints in that order. An **unordered** effect is
  only protected from elimination, and waited for by ``effects_barrier()``.

Effects are plain objects; which *kind* of effect one is (ordered or not) is
a property of its class, registered in an :class:`EffectTypeSet`, as in JAX
(``jax._src.effects``). The effects themselves are defined next to their
primitives: ``Debug``/``OrderedDebug`` in :mod:`minijax.debugging`,
``IO``/``OrderedIO`` in :mod:`minijax.callback`.
"""
from __future__ import annotations

from typing import Iterable

from minijax.jaxpr import join_effects, no_effects

__all__ = ["Effect", "Effects", "EffectTypeSet", "no_effects", "join_effects",
           "ordered_effects", "is_ordered", "ordered_effects_of", "effect_kinds"]


class Effect:
    """A side effect: something a primitive does besides computing its outputs.

    An effect is an object (usually a single instance of its class) that
    equations and jaxprs carry in their ``effects`` sets; ``str`` is its
    class's ``name`` (``Debug``, ``OrderedIO``), as JAX prints it.
    """
    name = "Effect"

    def __str__(self):
        return self.name


#: The type of ``eqn.effects`` and ``jaxpr.effects``: a set of :class:`Effect` s.
Effects = frozenset


class EffectTypeSet:
    """A set of effect *classes*: "is this effect ordered?" is "is its class in the set?"."""

    def __init__(self):
        self._effect_types: set[type] = set()

    def add_type(self, effect_type: type) -> None:
        self._effect_types.add(effect_type)

    def contains(self, eff: Effect) -> bool:
        return any(isinstance(eff, t) for t in self._effect_types)

    def filter_in(self, effects: Iterable[Effect]) -> list[Effect]:
        return [eff for eff in effects if self.contains(eff)]

    def filter_not_in(self, effects: Iterable[Effect]) -> list[Effect]:
        return [eff for eff in effects if not self.contains(eff)]

    def __repr__(self):
        return f"EffectTypeSet({self._effect_types})"


#: The ordered effects: their occurrences happen in program order, across
#: dispatches and devices (one runtime token per effect and thread).
ordered_effects = EffectTypeSet()


def effect_kinds(name: str, module: str, what: str) -> tuple[type, type]:
    """The two effect classes of one kind of effect: ``<name>Effect`` (printed
    ``name``: never dropped, not sequenced) and ``Ordered<name>Effect`` (printed
    ``Ordered<name>``: in program order, registered in :data:`ordered_effects`)."""
    unordered = type(f"{name}Effect", (Effect,), {
        "name": name, "__module__": module,
        "__doc__": f"The effect of {what}: never dropped, not sequenced."})
    ordered = type(f"Ordered{name}Effect", (Effect,), {
        "name": f"Ordered{name}", "__module__": module,
        "__doc__": f"The effect of {what} with ``ordered=True``: in program order."})
    ordered_effects.add_type(ordered)
    return unordered, ordered


def is_ordered(effect: Effect) -> bool:
    """Must occurrences of ``effect`` happen in program order?"""
    return ordered_effects.contains(effect)


def ordered_effects_of(effects: Iterable[Effect]) -> list[Effect]:
    """The ordered effects among ``effects``, in a fixed order (by name)."""
    return sorted(ordered_effects.filter_in(effects), key=str)
