"""Chapter 12 — ``minijax.debug``: the public names of the debugging callbacks, as ``jax.debug``.

``debug.print(fmt, *args, ordered=False, **kwargs)`` and
``debug.callback(fn, *args, ordered=False, **kwargs)`` are defined in
:mod:`minijax.debugging`; this module only gives them JAX's short names
(``print`` here shadows the builtin only inside this module).
"""
from minijax.debugging import debug_callback as callback  # noqa: F401
from minijax.debugging import debug_print as print  # noqa: F401,A001

__all__ = ["print", "callback"]
