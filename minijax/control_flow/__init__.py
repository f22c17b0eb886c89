"""Chapter 08 — structured control flow: ``cond``, ``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map`` and ``associative_scan``.

Each takes Python *functions* for its branches or body, traces them once to
jaxprs, and binds one primitive (``cond``, ``while``, ``scan``) that holds
them, so that the choice or the loop happens inside the primitive, where every
transformation can handle it (``associative_scan`` needs no primitive).

Chapter 08 registers into chapter 00: importing this package adds the
functions to ``minijax.lax``, where JAX has them (``lax.cond``, ``lax.scan``...).
"""
from minijax import lax as _lax
from minijax.control_flow.associative import associative_scan
from minijax.control_flow.conditionals import cond, cond_p, switch
from minijax.control_flow.loops import fori_loop, map, scan, scan_p, while_loop, while_p
from minijax.control_flow.windowed import reduce_window_p  # (registers lax.reduce_window's generic form)

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan",
           "cond_p", "while_p", "scan_p", "reduce_window_p"]

for _name in __all__:
    setattr(_lax, _name, globals()[_name])
del _name
