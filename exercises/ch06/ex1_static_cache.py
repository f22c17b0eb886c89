"""Exercise 1 of chapter 06: ``jit``'s cache, with static arguments.

Section 5 of the chapter wrote ``mini_jit``: flatten the arguments, look
their types up in a cache, trace on a miss, evaluate the cached jaxpr. Here
you write it again, with one more feature: **static arguments**.

``cached_jit(fun, static_argnums)(*args)`` must behave as
``jax.jit(fun, static_argnums=static_argnums)`` does, in what it computes
and in *when it traces* (calls ``fun``):

- the arguments at ``static_argnums`` (positions) are passed to ``fun`` as
  the Python values they are, untraced; they must be hashable, and their
  *values* are part of the cache key: a new value traces again. As in JAX,
  ``2``, ``2.0`` and ``True`` are three values (Python says ``2 == 2.0``);
- the other arguments are pytrees (chapter 03) of arrays and scalars; the
  key holds their tree structure and the abstract value of each leaf
  (``minijax.core.get_aval``: shape, dtype and weak type, so ``1.0`` and
  ``np.float32(1.0)`` are two keys), never their values;
- on a miss, trace ``fun`` to a jaxpr with chapter 05's
  ``trace_to_jaxpr_dynamic(flat_fun, in_avals)`` (it returns
  ``(jaxpr, out_avals, consts)``) and keep the ``ClosedJaxpr`` and the
  output tree in the cache; on every call, evaluate the jaxpr with
  ``eval_jaxpr`` on the flat dynamic arguments and rebuild the output tree.

Check: ``make exercise-ch06`` (``pytest exercises/ch06``): the numbers of
traces for a sequence of calls are JAX 0.10.2's.
Hint: split ``args`` into static and dynamic ones first; ``flat_fun``
receives only the flat dynamic leaves, and puts the static values back in
their places before calling ``fun``.
"""
from minijax import tree_util  # noqa: F401
from minijax.core import get_aval  # noqa: F401
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic  # noqa: F401
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr  # noqa: F401


def cached_jit(fun, static_argnums=()):
    """``fun``, traced once per signature (dynamic types and static values), then evaluated."""
    raise NotImplementedError("exercise 1 of chapter 06: write cached_jit")
