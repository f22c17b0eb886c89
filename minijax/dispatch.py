"""Chapter 00 — eager evaluation: what ``bind`` does when nothing is being traced.

``apply_primitive`` is the whole of minijax's "op-by-op" mode:

1. run the primitive's *abstract evaluation rule* on the inputs' avals, which
   checks the inputs (raising JAX's error for bad shapes or dtypes) and tells
   us the output's shape, dtype and weak type;
2. run the primitive's *impl rule* on the inputs' NumPy values;
3. wrap each result in an ``Array`` carrying the aval from step 1.

Step 1 is why a minijax error says the same thing eagerly and under ``jit``:
both paths use the same rule.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray, get_aval
from minijax.array import Array
from minijax.buffers import Buffer, buffer_on
from minijax.primitives import abstract_eval_rules, impl_rules, set_bind_dispatcher


def to_numpy(x) -> np.ndarray:
    """The value of a concrete operand as a NumPy array of its canonical dtype."""
    if isinstance(x, Array):
        return x._value
    if dtypes.is_python_scalar(x):
        return np.asarray(x, dtype=dtypes.canonicalize_dtype(dtypes.dtype(x)))
    if isinstance(x, (np.ndarray, np.generic)):
        dt = dtypes.canonicalize_dtype(x.dtype)
        return np.asarray(x, dtype=dt)
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


def output_value(value, aval: ShapedArray) -> np.ndarray:
    """An impl rule's result as a NumPy array of type ``aval`` (checked)."""
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
    if value.shape != aval.shape:
        raise AssertionError(
            f"impl rule returned shape {value.shape}, abstract eval said {aval.shape}")
    return value


def wrap_output(value, aval: ShapedArray, device=None) -> Array:
    """Wrap an impl rule's result in an ``Array`` of the expected type."""
    return Array(aval, buffer_on(output_value(value, aval), device))


# Abstract evaluation of a small array costs more than the NumPy computation
# itself, and a program applies the same primitive to the same avals again and
# again. So for primitives whose rule is pure (``prim.cache_abstract_eval``),
# eager dispatch remembers each result. Only successes are remembered: a bad
# input still raises its error every time.
_abstract_eval_cache: dict = {}


def abstract_eval(prim, avals_in, params):
    """``abstract_eval_rules[prim](*avals_in, **params)``, memoized where allowed."""
    if not prim.cache_abstract_eval:
        return abstract_eval_rules[prim](*avals_in, **params)
    try:
        key = (prim, *avals_in, *params.items())
        return _abstract_eval_cache[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable param (a list, an array): no memo
        return abstract_eval_rules[prim](*avals_in, **params)
    out = abstract_eval_rules[prim](*avals_in, **params)
    if len(_abstract_eval_cache) > 4096:  # bound the memory a long session uses
        _abstract_eval_cache.clear()
    _abstract_eval_cache[key] = tuple(out) if prim.multiple_results else out
    return out


#: Chapter 11 installs its executor here: ``executor(prim, args, params,
#: avals_out)`` returns the output Array(s), whose buffers are futures that a
#: device queue fills later, or ``None`` to have the primitive run right now.
_executor = None


def set_executor(executor) -> None:
    """Install (or, with ``None``, remove) the executor of eager primitives."""
    global _executor
    _executor = executor


def apply_primitive(prim, args, params):
    """Evaluate ``prim`` on concrete ``args`` and return Array(s).

    The output types come from abstract evaluation, at once; the numbers come
    from the impl rule, now (or, with chapter 11's executor, on a device queue).
    """
    # ``type(x) is Array`` is the common case; skip get_aval's general checks.
    avals_in = [x.aval if type(x) is Array else get_aval(x) for x in args]
    avals_out = abstract_eval(prim, avals_in, params)
    if _executor is not None:
        out = _executor(prim, args, params, avals_out)
        if out is not None:
            return out
    return run_impl(prim, args, params, avals_out)


def run_impl(prim, args, params, avals_out, device=None):
    """Run ``prim``'s impl rule on the values of ``args`` now: Array(s) of ``avals_out``."""
    # (an Array whose plain Buffer is ready gives its data directly: the common case)
    outs = impl_rules[prim](*[x._buffer._data if type(x) is Array and type(x._buffer) is Buffer
                              else to_numpy(x) for x in args], **params)
    if prim.multiple_results:
        return [wrap_output(o, a, device) for o, a in zip(outs, avals_out)]
    return wrap_output(outs, avals_out, device)


set_bind_dispatcher(apply_primitive)
