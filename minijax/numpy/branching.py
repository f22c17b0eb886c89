"""Chapter 08 — ``jnp.piecewise``: a different function on each region of the input.

``piecewise(x, [c0, c1], [f0, f1, f_else])`` evaluates ``f_k`` where ``c_k``
holds (the first true condition wins) and ``f_else`` elsewhere. JAX builds it
from two earlier pieces: each element picks a branch index (the first true
condition, found with a ``cumsum`` and an ``argmax``), then ``lax.switch``
runs that branch, vectorized over the elements by ``jnp.vectorize``. Under
``vmap`` a ``switch`` becomes a ``select_n`` of every branch, which is what
the jaxpr shows: every function is evaluated on all of ``x``, and each
element keeps its own branch's value.

Chapter 08 registers it into chapter 00's ``minijax.numpy``.
"""
from __future__ import annotations

import minijax.numpy as _jnp
from minijax.control_flow.conditionals import switch
from minijax.jit import jit
from minijax.numpy.util import check_arraylike
from minijax.numpy.vectorization import vectorize

__all__ = ["piecewise"]


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluate ``funclist[k]`` (a function of ``x``, or a constant) where ``condlist[k]``
    is the first true condition; a ``funclist`` one longer than ``condlist`` gives
    the value everywhere else (otherwise 0). Results have ``x``'s dtype."""
    check_arraylike("piecewise", x)
    x = _jnp.asarray(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:  # the "otherwise" function becomes branch 0
        funclist = [funclist[-1], *funclist[:-1]]
    elif nf == nc:
        funclist = [0, *funclist]
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    consts = {i: f for i, f in enumerate(funclist) if not callable(f)}
    funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
    return _piecewise(x, _jnp.asarray(condlist, dtype=bool), consts, funcs, *args, **kw)


def _piecewise_impl(x, condlist, consts, funcs, *args, **kw):
    funcdict = dict(funcs)
    branches = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    # the branch of each element: 0 if no condition holds, else 1 + the first true one
    seen = _jnp.cumsum(_jnp.concatenate([_jnp.zeros_like(condlist[:1]), condlist], 0), 0)
    index = _jnp.argmax(seen, 0)
    dtype = x.dtype

    def call(f):
        return lambda v: f(v, *args, **kw).astype(dtype)

    def constant(c):
        return lambda v: _jnp.array(c, dtype=dtype)

    branches = [call(f) if callable(f) else constant(f) for f in branches]
    return vectorize(switch, excluded=(1,))(index, branches, x)


_piecewise_impl.__name__ = _piecewise_impl.__qualname__ = "_piecewise"
_piecewise = jit(_piecewise_impl, static_argnums=(3,))  # the constants are traced

_jnp.piecewise = piecewise
