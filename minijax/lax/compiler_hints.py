"""Chapter 00 — operations that speak to the compiler, not to the values.

- :func:`optimization_barrier`: the identity, as a primitive
  (``optimization_barrier``) that a compiler may not look through: XLA neither
  moves computations across it nor merges a value computed before it with
  one computed after (rematerialization relies on that). minijax's targets do
  not reorder across equations anyway, so its lowering is the identity.
- :func:`composite`: a function with a name (``my.tangent``) that a compiler
  could replace by a kernel of its own; XLA calls its *decomposition* when it
  has none, and so does minijax, which calls it directly (JAX records a
  ``composite`` equation holding the decomposition's jaxpr; minijax's jaxpr
  shows the decomposition's equations in its place).
"""
from __future__ import annotations

from typing import Callable

from minijax.abstract_arrays import get_aval
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

__all__ = ["optimization_barrier", "composite"]

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True,
                                   linear_in=(0, ...))
impl_rules[optimization_barrier_p] = lambda *xs: list(xs)
abstract_eval_rules[optimization_barrier_p] = lambda *avals: list(avals)


def optimization_barrier(operand, /):
    """``operand`` unchanged (an array, or a tuple/list of arrays), behind a barrier
    no compiler optimization crosses."""
    if isinstance(operand, (tuple, list)):
        return type(operand)(optimization_barrier_p.bind(*operand))
    out, = optimization_barrier_p.bind(operand)
    return out


def composite(decomposition: Callable, name: str, version: int = 0):
    """``decomposition`` as a named operation (see the module docstring): the
    returned function takes arrays positionally and attributes by keyword."""
    if not isinstance(name, str):
        raise TypeError(f"composite name must be a string, got {name!r}")

    def call(*args, **attributes):
        for a in args:
            get_aval(a)  # (JAX's check: the positional arguments are arrays)
        return decomposition(*args, **attributes)
    call.__name__ = getattr(decomposition, "__name__", name)
    return call
