"""Chapter 05 — names for parts of a program: ``named_scope`` and ``named_call``.

JAX lets a program name its parts: ``with jax.named_scope("attention"):`` or
``jax.named_call(f, name="mlp")``. The names form a stack (``mlp/attention``)
that JAX writes into the metadata of the compiled program, where profilers
and compiler dumps show it. They change nothing else: not the results, not
the printed jaxpr (``make_jaxpr`` prints the same equations with or without
them).

minijax keeps the same stack, per thread; :func:`current_name_stack` reads
it (as a profiler or a code generator would).
"""
from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Callable

__all__ = ["named_scope", "named_call", "current_name_stack"]


class _NameStack(threading.local):
    names: tuple[str, ...] = ()


_stack = _NameStack()


def current_name_stack() -> str:
    """The names of the scopes open now, outermost first: ``"outer/inner"``."""
    return "/".join(_stack.names)


@contextmanager
def named_scope(name: str):
    """Name the operations traced inside the ``with`` block (``jax.named_scope``)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    prev = _stack.names
    _stack.names = prev + (name,)
    try:
        yield
    finally:
        _stack.names = prev


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun``, run inside ``named_scope(name)`` (``jax.named_call``).

    ``name`` defaults to the function's ``__name__``.
    """
    if name is None:
        name = fun.__name__

    @functools.wraps(fun)
    def named_f(*args, **kwargs):
        with named_scope(name):
            return fun(*args, **kwargs)
    return named_f
