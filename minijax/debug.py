"""Chapter 12 — ``minijax.debug``: the public names of the debugging callbacks, as ``jax.debug``.

``debug.print(fmt, *args, ordered=False, **kwargs)`` and
``debug.callback(fn, *args, ordered=False, **kwargs)`` (and ``debug.log``, a
``debug.print`` to the ``logging`` module) are defined in
:mod:`minijax.debugging`, ``debug.breakpoint()`` in :mod:`minijax.debugger`;
this module only gives them JAX's short names (``print`` and ``breakpoint``
here shadow the builtins only inside this module).
"""
from minijax.debugger import breakpoint  # noqa: F401,A004
from minijax.debugging import DebugEffect, OrderedDebugEffect  # noqa: F401
from minijax.debugging import debug_callback as callback  # noqa: F401
from minijax.debugging import debug_log as log  # noqa: F401
from minijax.debugging import debug_print as print  # noqa: F401,A001

__all__ = ["print", "log", "callback", "breakpoint", "DebugEffect", "OrderedDebugEffect"]
