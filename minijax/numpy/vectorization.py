"""Chapter 04 — ``jnp.vectorize`` and ``jnp.apply_along_axis``: NumPy's loops, as ``vmap``.

NumPy's ``np.vectorize`` runs a Python loop over the elements. JAX's runs no
loop at all: it wraps the function in one ``vmap`` per broadcast dimension,
so the function is traced once, on batched values.

A *signature* such as ``"(n,m),(m)->(n)"`` (NumPy's generalized ufuncs) names
the trailing *core* dimensions each argument keeps; the dimensions in front
of them are the *loop* dimensions, broadcast against each other as NumPy
broadcasts. Without a signature every dimension is a loop dimension and the
function sees scalars.

The trick that keeps the batched program small: a loop dimension of size 1
(or missing) in an argument is not broadcast but squeezed away and given
``in_axes=None`` for that ``vmap``; a loop dimension no argument has is
added back at the end with ``expand_dims``.

Chapter 04 registers these functions into chapter 00's ``minijax.numpy``.
"""
from __future__ import annotations

import functools
import operator
import re

import numpy as np

import minijax.numpy as _jnp
from minijax.interpreters.batching import vmap
from minijax.lax.base import canonicalize_axis
from minijax.numpy.util import check_arraylike

__all__ = ["vectorize", "apply_along_axis", "apply_over_axes", "fromfunction"]

_DIM = r"\w+"
_ARG = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def parse_signature(signature: str):
    """``"(m,n),(n)->(m)"`` -> ``([("m", "n"), ("n",)], [("m",)])``."""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = signature.split("->")
    parse = lambda side: [tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, side)]
    return parse(inputs), parse(outputs)


def _record_core_sizes(sizes: dict, shape: tuple, core: tuple, context: str,
                       *, is_input: bool) -> None:
    """Check ``shape``'s trailing core dimensions against (and add them to) ``sizes``."""
    if is_input and len(shape) < len(core):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for "
                         f"all core dimensions {core!r} {context}")
    if not is_input and len(shape) != len(core):
        raise ValueError(f"output shape {shape!r} does not match core dimensions "
                         f"{core!r} {context}")
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size!r} vs "
                             f"{sizes[name]!r} {context}")


def _checking_outputs(fun, sizes: dict, output_cores: list, context: str):
    """``fun``, checking that what it returns has the signature's output core shapes."""
    def checked(*args):
        out = fun(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(output_cores) > 1 and not isinstance(out, tuple):
            raise TypeError("output must be a tuple when multiple outputs are expected, "
                            f"got: {out!r}\n{context}")
        if len(outs) != len(output_cores):
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(output_cores)!r}, got {len(outs)!r} {context}")
        known = dict(sizes)
        for o, core in zip(outs, output_cores):
            _record_core_sizes(known, np.shape(o), core, context, is_input=False)
        return out
    return checked


def _bind_static(fun, static_positions: dict, static_kwargs: dict):
    """``fun`` with the arguments at ``static_positions`` (index -> value) and
    ``static_kwargs`` filled in; the result takes only the other arguments."""
    if not static_positions and not static_kwargs:
        return fun

    def bound(*args, **kwargs):
        args = list(args)
        for i in sorted(static_positions):
            args.insert(i, static_positions[i])
        return fun(*args, **kwargs, **static_kwargs)
    return bound


def _split_static(fun, static: set, args: tuple, kwargs: dict):
    """Take the arguments named by ``static`` (positions or keyword names) out of
    the call and into ``fun``; they reach it unchanged, never batched."""
    positions = {i: args[i] for i in static if isinstance(i, int) and i < len(args)}
    static_kwargs = {k: v for k, v in kwargs.items() if k in static}
    fun = _bind_static(fun, positions, static_kwargs)
    args = tuple(a for i, a in enumerate(args) if i not in positions)
    kwargs = {k: v for k, v in kwargs.items() if k not in static}
    return fun, args, kwargs


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """Vectorize ``pyfunc`` with NumPy's broadcasting, by ``vmap`` (``jnp.vectorize``).

    ``excluded`` holds positions (ints) or keyword names (strs) of arguments
    passed to ``pyfunc`` unchanged; ``signature`` (``"(n),(n)->()"``) names
    the core dimensions ``pyfunc`` sees and must return.
    """
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = (f"on vectorized function with excluded={excluded!r} and "
                   f"signature={signature!r}")
        fun, args, kwargs = _split_static(pyfunc, set(excluded), args, kwargs)
        if signature is None:
            input_cores, output_cores = [()] * len(args), None
        else:
            input_cores, output_cores = parse_signature(signature)
        nones = {i for i, a in enumerate(args) if a is None}  # passed through, as static
        if nones:
            if any(input_cores[i] != () for i in nones if i < len(input_cores)):
                raise ValueError(f"Cannot pass None at locations {nones} with "
                                 f"signature={signature!r}")
            fun, args, _ = _split_static(fun, nones, args, {})
            input_cores = [c for i, c in enumerate(input_cores) if i not in nones]
        # Keyword arguments that are not ``excluded`` are dropped, as JAX 0.10.2
        # drops them (``pyfunc`` sees its defaults): exclude a keyword to pass it.
        args = tuple(_jnp.asarray(a) for a in args)
        if len(args) != len(input_cores):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(input_cores)!r}, got {len(args)!r} {context}")
        sizes: dict = {}
        for a, core in zip(args, input_cores):
            _record_core_sizes(sizes, a.shape, core, context, is_input=True)
        loop_shapes = [a.shape[:a.ndim - len(core)] for a, core in zip(args, input_cores)]
        loop_shape = _broadcast_loop_shapes(loop_shapes)
        if output_cores is not None:
            fun = _checking_outputs(fun, sizes, output_cores, context)
        return _vmap_over_loop_dims(fun, args, loop_shapes, loop_shape)

    return wrapped


def _broadcast_loop_shapes(shapes) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: shapes="
                         f"{[tuple(s) for s in shapes]}") from None


def _vmap_over_loop_dims(fun, args, loop_shapes, loop_shape):
    """Apply ``fun`` to the core parts of ``args``, one ``vmap`` per loop dimension.

    Size-1 loop dimensions are squeezed and not mapped (``in_axes=None``); a
    loop dimension that every argument lacks is expanded on the result.
    """
    squeezed = []
    for a, shape in zip(args, loop_shapes):
        ones = tuple(i for i, size in enumerate(shape) if size == 1)
        squeezed.append(_jnp.squeeze(a, axis=ones) if ones else a)
    padded = [(1,) * (len(loop_shape) - len(s)) + tuple(s) for s in loop_shapes]
    expand = []
    batched = fun
    for dim in reversed(range(len(loop_shape))):  # the innermost vmap is the last dimension
        in_axes = tuple(None if p[dim] == 1 else 0 for p in padded)
        if all(ax is None for ax in in_axes):
            expand.append(dim)
        else:
            batched = vmap(batched, in_axes)
    out = batched(*squeezed)
    if not expand:
        return out
    if isinstance(out, tuple):
        return tuple(_jnp.expand_dims(o, axis=expand) for o in out)
    return _jnp.expand_dims(out, axis=expand)


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """Apply ``func1d`` to every 1-D slice of ``arr`` along ``axis``
    (``jnp.apply_along_axis``): one ``vmap`` per other dimension, no loop."""
    check_arraylike("apply_along_axis", arr)
    ndim = np.ndim(arr)
    axis = canonicalize_axis(axis, ndim)
    fun = lambda x: func1d(x, *args, **kwargs)
    for i in range(1, ndim - axis):  # the dimensions after ``axis``, kept at the end
        fun = vmap(fun, in_axes=i, out_axes=-1)
    for _ in range(axis):  # the dimensions before ``axis``, kept in front
        fun = vmap(fun, in_axes=0, out_axes=0)
    return fun(arr)


def apply_over_axes(func, a, axes):
    """Apply ``func(a, axis)`` for each axis in turn, keeping the rank: a result with
    one dimension fewer gets the reduced axis back as size 1 (``jnp.apply_over_axes``).
    (It needs no ``vmap``; it lives here beside its sibling ``apply_along_axis``.)"""
    check_arraylike("apply_over_axes", a)
    a = _jnp.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = _jnp.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """An array whose entry at ``(i, j, ...)`` is ``function(i, j, ...)``.

    NumPy calls ``function`` once on whole index grids; JAX (and minijax)
    call it on *scalar* indices, vmapped once per axis, so a function that
    returns an array gives an array per index (and the result has extra
    trailing axes), and a function returning a tuple gives a tuple of arrays.
    """
    shape = tuple(operator.index(d) for d in shape)
    for i in range(len(shape)):  # the innermost vmap maps the last index
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(_jnp.arange(d, dtype=dtype) for d in shape), **kwargs)


# register into chapter 00's jnp namespace (chapter 00 cannot import vmap)
_jnp.vectorize, _jnp.apply_along_axis = vectorize, apply_along_axis
_jnp.apply_over_axes, _jnp.fromfunction = apply_over_axes, fromfunction
