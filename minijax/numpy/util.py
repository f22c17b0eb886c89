"""Chapter 00 — how ``jax.numpy`` turns NumPy-style calls into lax calls.

``lax`` is strict: one dtype, one rank. ``jnp`` is friendly: it promotes
dtypes through JAX's lattice (:mod:`minijax.dtypes`) and broadcasts ranks the
NumPy way, then calls ``lax``. The two helpers here do exactly that and are
used by every ``jnp`` function that takes several arrays:

- :func:`promote_dtypes` casts every argument to the result type (keeping
  the weak flag when every input was weak);
- :func:`promote_shapes` gives every argument the same rank by adding leading
  size-1 dimensions (a ``broadcast_in_dim``), leaving size-1 broadcasting to
  lax itself, which is what JAX's jaxprs show.
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax.array import Array, array_from_numpy
from minijax.lax import _convert_element_type
from minijax.lax.base import call_ignoring_fp_errors


def check_arraylike(fun_name: str, *args) -> None:
    """JAX's ``TypeError`` for arguments that are not arrays or scalars (lists, say)."""
    for pos, arg in enumerate(args):
        if not is_arraylike(arg):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(arg)} at position {pos}.")


def is_traced(x) -> bool:
    """A traced value (chapter 01's tracers): it has an aval but is not a concrete Array."""
    return hasattr(x, "aval") and not isinstance(x, Array)


def is_arraylike(x) -> bool:
    return (isinstance(x, (Array, np.ndarray, np.generic)) or dtypes.is_python_scalar(x)
            or hasattr(x, "aval") or hasattr(x, "__jax_array__"))


def promote_dtypes(*args):
    """Cast ``args`` to their common result type (JAX's lattice, weak types kept)."""
    if len(args) < 2:
        return list(args)
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [_cast(x, to_dtype, weak) for x in args]


def _cast(x, dtype, weak: bool):
    """``x`` converted for promotion; a Python scalar that already has the
    right (weak) type stays a Python scalar, so that a jaxpr shows it as JAX
    does (``mul b 0.1:f32[]``, not the float32-rounded ``0.10000000149011612``)."""
    if weak and dtypes.is_python_scalar(x) and dtypes.dtype(x, canonicalize=True) == dtype:
        return x
    if type(x) in _PY_NUMBERS and dtype.kind in "fc" and dtype in _NUMERIC_DTYPES:
        # Fast path for ``x * 2`` (a Python number meeting a float array): the
        # constant folding that ``_convert_element_type`` does, minus its checks.
        value = call_ignoring_fp_errors(np.asarray(x).astype, dtype)
        return array_from_numpy(value, weak_type=weak)
    return _convert_element_type(x, dtype, weak)


_PY_NUMBERS = (int, float, complex)


def promote_dtypes_inexact(*args):
    """Like :func:`promote_dtypes`, then to float if the result is not inexact."""
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if not dtypes.is_inexact(to_dtype):
        to_dtype = dtypes.default_float_dtype
    return [_cast(x, to_dtype, weak) for x in args]


def promote_dtypes_numeric(*args):
    """Like :func:`promote_dtypes`, with bool promoted to int32."""
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if to_dtype == dtypes.bool_:
        to_dtype = dtypes.default_int_dtype
    return [_convert_element_type(x, to_dtype, weak) for x in args]


def promote_shapes(fun_name: str, *args):
    """Give ``args`` a common rank by adding leading unit dimensions (NumPy's rule).

    Size-1 dimensions are left for lax to broadcast; rank-0 arguments are left
    alone (lax broadcasts scalars). When ranks differ, incompatible shapes
    raise JAX's ``ValueError`` here; when they agree, the lax primitive raises
    its ``TypeError`` (``add got incompatible shapes for broadcasting``).
    """
    shapes = [np.shape(x) if not hasattr(x, "aval") else x.aval.shape for x in args]
    nonscalar_ranks = {len(s) for s in shapes if s}
    if len(nonscalar_ranks) < 2:
        return list(args)
    from minijax.lax import broadcast_shapes, broadcast_to_rank
    result_rank = len(broadcast_shapes(*shapes))  # JAX's ValueError if incompatible
    return [broadcast_to_rank(x, result_rank) if s and len(s) < result_rank else x
            for x, s in zip(args, shapes)]


_NUMERIC_DTYPES = frozenset(dtypes._jax_types)  # not float0, not chapter 13's keys


def _all_same_strong_arrays(args) -> bool:
    """Are ``args`` Arrays of one shape and one strong numeric dtype (nothing to promote)?"""
    if not args or type(args[0]) is not Array:
        return False
    aval = args[0].aval
    return not aval.weak_type and aval.dtype in _NUMERIC_DTYPES and all(
        type(x) is Array and x.aval.dtype == aval.dtype and not x.aval.weak_type
        and x.aval.shape == aval.shape for x in args[1:])


# Each ``promote_args*`` starts with a fast path for the commonest eager call,
# ``jnp.add(x, y)`` on arrays of one shape and dtype: promotion would leave every
# argument as it is, and skipping it halves the cost of a small op.

def promote_args(fun_name: str, *args):
    """Check, promote dtypes, promote ranks: the front door of a jnp binary ufunc."""
    if _all_same_strong_arrays(args):
        return list(args)
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
    if _all_same_strong_arrays(args) and args[0].aval.dtype.kind in "fc":
        return list(args)
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
    if _all_same_strong_arrays(args) and args[0].aval.dtype != dtypes.bool_:
        return list(args)
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


# =============================================================================
# The inner jit of jnp functions (a hook that chapter 06 fills)
# =============================================================================
#: ``impl(fun, name, static_argnames) -> callable``, installed by ``minijax.jit``.
_jnp_jit_impl: Callable | None = None


def set_jnp_jit(impl: Callable | None) -> None:
    """Chapter 06 installs the real inner ``jit`` of the ``@jnp_jit`` functions."""
    global _jnp_jit_impl
    _jnp_jit_impl = impl


def jnp_jit(name: str, static_argnames: Sequence[str] = ()) -> Callable:
    """Mark a jnp function that JAX implements as a jitted function called ``name``.

    JAX wraps many ``jax.numpy`` functions in an inner ``jit``, so that a
    traced program shows ``jit[name=_where jaxpr={ ... }]`` instead of the
    primitives. Chapter 00 has no ``jit``: the function is called as it is.
    From chapter 06 on, ``minijax.jit`` installs the real wrapper (with
    ``static_argnames`` as JAX's), and jaxprs print as JAX's.
    """
    def decorate(fun: Callable) -> Callable:
        jitted: list[Callable] = []  # made on first use, once the hook is installed

        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            if _jnp_jit_impl is None:
                return fun(*args, **kwargs)
            if not jitted:
                jitted.append(_jnp_jit_impl(fun, name, tuple(static_argnames)))
            return jitted[0](*args, **kwargs)
        return wrapper
    return decorate


# =============================================================================
# Derivative rules of jnp functions (a hook that chapter 07 fills)
# =============================================================================
#: ``impl(fun, nondiff_argnums) -> custom_jvp``, installed by chapter 07.
_custom_jvp_impl: Callable | None = None


def set_custom_jvp(impl: Callable | None) -> None:
    """Chapter 07 installs the real ``custom_jvp`` behind :class:`jnp_custom_jvp`."""
    global _custom_jvp_impl
    _custom_jvp_impl = impl


class jnp_custom_jvp:
    """A jnp function that JAX gives a derivative rule of its own (``custom_jvp``).

    Where a formula's own derivative is wrong at some points, JAX states the
    derivative instead: ``relu``'s is 0 at the kink (``max(x, 0)`` would give
    0.5, half to each side of the tie), ``logaddexp(x, x)``'s is 1/2 for each
    argument (the stable formula ``max + log1p(exp(-|x1 - x2|))`` gives 0 and 1).
    Chapter 00 has no ``custom_jvp``: the function runs as written, and
    chapter 02's ``jvp`` differentiates the formula. From chapter 07 on, the
    real ``custom_jvp`` takes over (made on first use), and jaxprs show
    ``custom_jvp_call[name=relu ...]`` as JAX's do.

    ``defjvp``/``defjvps`` take the rule as ``custom_jvp``'s methods do;
    ``name`` renames ``fun`` (the name printed in jaxprs).
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (),
                 name: str | None = None):
        if name is not None:
            fun.__name__ = fun.__qualname__ = name
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self._rule: tuple = ()  # ("defjvp", (jvp,)) or ("defjvps", jvps)
        self._real: list = []

    def defjvp(self, jvp: Callable) -> Callable:
        self._rule = ("defjvp", (jvp,))
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        self._rule = ("defjvps", jvps)

    def __call__(self, *args, **kwargs):
        if _custom_jvp_impl is None:
            return self.fun(*args, **kwargs)
        if not self._real:
            real = _custom_jvp_impl(self.fun, self.nondiff_argnums)
            method, rules = self._rule
            getattr(real, method)(*rules)
            self._real.append(real)
        return self._real[0](*args, **kwargs)
