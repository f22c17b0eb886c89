"""Chapter 00 — primitives: the smallest operations minijax knows.

Every computation, however written (``jnp.sum``, ``x @ y``, ``lax.cond``), is
eventually a sequence of *primitive* applications. A primitive is an object
with a name (``sin``, ``reduce_sum``) and one door, :meth:`Primitive.bind`.
What a primitive *means* is kept outside it, in one rule table per
interpretation, each a plain dict keyed by primitive:

- :data:`impl_rules` — compute it on NumPy arrays (this chapter);
- :data:`abstract_eval_rules` — compute only its output shape, dtype and weak
  type from its inputs' (this chapter), raising JAX's error on bad input;
- later chapters add ``jvp_rules``, ``batching_rules``, ``transpose_rules``
  and one lowering table per backend, each in the module that owns it.

Adding a primitive means adding one entry to each table; ``tests/test_rules.py``
lists any primitive missing one.

``bind`` does not know how to evaluate anything. It hands the primitive and
its arguments to the *current dispatcher*: in chapter 00 that is eager
evaluation (:mod:`minijax.dispatch`); chapter 01 installs a dispatcher that
asks the current *trace* instead, which is how tracing works.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["Primitive", "impl_rules", "abstract_eval_rules", "all_primitives",
           "set_bind_dispatcher", "get_bind_dispatcher"]


class Primitive:
    """A named primitive operation. ``multiple_results`` primitives return a list."""
    multiple_results = False
    #: May eager dispatch memoize this primitive's abstract eval, keyed by the
    #: input avals and params? True only for a *pure* rule (its result depends
    #: on nothing else); :func:`minijax.lax.base.standard_primitive` sets it.
    cache_abstract_eval = False

    def __init__(self, name: str, *, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        _registry.append(self)

    def bind(self, *args, **params):
        """Apply the primitive to ``args`` under the current interpretation."""
        return _dispatcher(self, args, params)

    def __repr__(self):
        return self.name


_registry: list[Primitive] = []

#: primitive -> function(*numpy_arrays, **params) -> numpy array (or list of them)
impl_rules: dict[Primitive, Callable] = {}
#: primitive -> function(*ShapedArrays, **params) -> ShapedArray (or list of them)
abstract_eval_rules: dict[Primitive, Callable] = {}


def all_primitives() -> list[Primitive]:
    """Every primitive created so far, in creation order."""
    return list(_registry)


def _no_dispatcher(prim, args, params):
    raise RuntimeError("no evaluator installed; import minijax first")


_dispatcher: Callable = _no_dispatcher


def set_bind_dispatcher(fn: Callable) -> Callable:
    """Install ``fn(prim, args, params)`` as what ``bind`` calls; return the old one."""
    global _dispatcher
    old, _dispatcher = _dispatcher, fn
    return old


def get_bind_dispatcher() -> Callable:
    return _dispatcher


# ---- TEMPORARY SHIM (replaced by the real attributes at merge) ----
_E = set("""neg sign add sub mul div rem max min abs square integer_pow pow nextafter
    floor ceil round is_finite exp exp2 log log1p expm1 logistic sqrt rsqrt cbrt
    sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh
    erf erfc erf_inv lgamma digamma real imag complex conj
    not and or xor population_count clz shift_left shift_right_logical
    shift_right_arithmetic eq ne lt le gt ge select_n clamp
    convert_element_type reduce_precision copy stop_gradient add_any""".split())
_R = set("reduce_sum reduce_prod reduce_max reduce_min reduce_and reduce_or reduce_xor argmax argmin".split())
_C = {"jit", "remat2", "custom_jvp_call", "custom_vjp_call", "name"}
_DM = set("""broadcast_in_dim reshape squeeze expand_dims transpose rev concatenate stack split
    unstack tile pad iota slice dynamic_slice dynamic_update_slice gather scatter
    convert_element_type bitcast_convert_type copy stop_gradient reduce_precision""".split())
_T = set("""exp exp2 log log1p expm1 logistic sqrt rsqrt cbrt sin cos tan asin acos atan atan2
    sinh cosh tanh asinh acosh atanh pow erf erfc erf_inv lgamma digamma""".split())


def _kind(self):
    n = self.name
    if n in _E: return "elementwise"
    if n in ("broadcast_in_dim", "iota"): return "broadcast"
    if n in _R: return "reduction"
    if n in _C: return "call"
    if n == "dot_general": return "dot"
    if n.startswith("cum"): return "cumulative"
    if n in ("sort", "top_k"): return "sort"
    if n in _DM: return "data_movement"
    return "other"


Primitive.kind = property(_kind)
Primitive.moves_data = property(lambda self: self.name in _DM)
Primitive.transcendental = property(lambda self: self.name in _T)


def register_rule_table(name, table):
    pass
