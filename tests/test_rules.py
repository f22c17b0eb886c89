"""Rule coverage: every primitive has an entry in every rule table that applies.

Each transformation owns one table keyed by primitive. This test lists, for
every primitive, the tables that lack it, and fails unless the absence is
listed below *with a reason* (as ``floor`` has no transpose rule: it is not
linear). Later chapters add their tables to ``TABLES``.
"""
import pytest

import minijax  # noqa: F401  (registers every primitive)
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batching_rules
from minijax.interpreters.transpose import transpose_rules
from minijax.primitives import abstract_eval_rules, all_primitives, impl_rules

#: Transposition applies only to linear primitives (chapter 07).
_ZERO_DERIVATIVE = "zero derivative: never applied to a linear (tangent) value"
_NONLINEAR = "nonlinear: its jvp rule applies only linear primitives to tangents"
_RANDOM = "random bits and keys: zero derivative, never linear"
_NONLINEAR_LINALG = "nonlinear factorization: its jvp rule uses triangular_solve and dot_general"
_NOT_TRANSPOSABLE = {
    **{name: _NONLINEAR_LINALG for name in ("cholesky", "lu", "qr", "eigh", "svd")},
    "lu_pivots_to_permutation": "integer-valued: zero derivative",
    "custom_vjp_call": "its jvp rule runs fwd and stages custom_lin, whose transpose "
                       "calls bwd: a linear jaxpr never holds custom_vjp_call",
    **{name: _RANDOM for name in ("random_seed", "random_split", "random_fold_in",
                                  "random_bits", "random_wrap", "random_unwrap",
                                  "threefry2x32")},
    "sign": _ZERO_DERIVATIVE,
    "floor": _ZERO_DERIVATIVE,
    "ceil": _ZERO_DERIVATIVE,
    "round": _ZERO_DERIVATIVE,
    "is_finite": _ZERO_DERIVATIVE,
    "not": _ZERO_DERIVATIVE,
    "and": _ZERO_DERIVATIVE,
    "or": _ZERO_DERIVATIVE,
    "xor": _ZERO_DERIVATIVE,
    "population_count": _ZERO_DERIVATIVE,
    "clz": _ZERO_DERIVATIVE,
    "shift_left": _ZERO_DERIVATIVE,
    "shift_right_logical": _ZERO_DERIVATIVE,
    "shift_right_arithmetic": _ZERO_DERIVATIVE,
    "eq": _ZERO_DERIVATIVE,
    "ne": _ZERO_DERIVATIVE,
    "lt": _ZERO_DERIVATIVE,
    "le": _ZERO_DERIVATIVE,
    "gt": _ZERO_DERIVATIVE,
    "ge": _ZERO_DERIVATIVE,
    "bitcast_convert_type": _ZERO_DERIVATIVE,
    "stop_gradient": _ZERO_DERIVATIVE,
    "iota": _ZERO_DERIVATIVE,
    "reduce_and": _ZERO_DERIVATIVE,
    "reduce_or": _ZERO_DERIVATIVE,
    "reduce_xor": _ZERO_DERIVATIVE,
    "argmax": _ZERO_DERIVATIVE,
    "argmin": _ZERO_DERIVATIVE,
    "rem": _NONLINEAR,
    "max": _NONLINEAR,
    "min": _NONLINEAR,
    "abs": _NONLINEAR,
    "square": _NONLINEAR,
    "integer_pow": _NONLINEAR,
    "pow": _NONLINEAR,
    "nextafter": _NONLINEAR,
    "exp": _NONLINEAR,
    "exp2": _NONLINEAR,
    "log": _NONLINEAR,
    "log1p": _NONLINEAR,
    "expm1": _NONLINEAR,
    "logistic": _NONLINEAR,
    "sqrt": _NONLINEAR,
    "rsqrt": _NONLINEAR,
    "cbrt": _NONLINEAR,
    "sin": _NONLINEAR,
    "cos": _NONLINEAR,
    "tan": _NONLINEAR,
    "asin": _NONLINEAR,
    "acos": _NONLINEAR,
    "atan": _NONLINEAR,
    "atan2": _NONLINEAR,
    "sinh": _NONLINEAR,
    "cosh": _NONLINEAR,
    "tanh": _NONLINEAR,
    "asinh": _NONLINEAR,
    "acosh": _NONLINEAR,
    "atanh": _NONLINEAR,
    "erf": _NONLINEAR,
    "erfc": _NONLINEAR,
    "erf_inv": _NONLINEAR,
    "lgamma": _NONLINEAR,
    "digamma": _NONLINEAR,
    "clamp": _NONLINEAR,
    "reduce_prod": _NONLINEAR,
    "reduce_max": _NONLINEAR,
    "reduce_min": _NONLINEAR,
    "cumprod": _NONLINEAR,
    "cummax": _NONLINEAR,
    "cummin": _NONLINEAR,
    "cumlogsumexp": _NONLINEAR,
    "sort": _NONLINEAR,
    "top_k": _NONLINEAR,
    "scatter-min": _NONLINEAR,
    "scatter-max": _NONLINEAR,
}

#: table name -> (table, {primitive name: reason it has no rule})
TABLES = {
    "impl": (impl_rules, {}),
    "abstract_eval": (abstract_eval_rules, {}),
    "jvp": (jvp_rules, {
        "nextafter": "not differentiable in JAX either (JAX 0.10.2 raises NotImplementedError)",
        "threefry2x32": "uint32 operands only: tangents are always symbolic zeros (no rule in JAX)",
    }),
    "batching": (batching_rules, {}),
    "transpose": (transpose_rules, _NOT_TRANSPOSABLE),
}


def _primitive_ids():
    return [p.name for p in all_primitives()]


def test_primitive_names_are_unique():
    names = _primitive_ids()
    dups = sorted({n for n in names if names.count(n) > 1})
    assert not dups, f"two primitives share a name: {dups}"


@pytest.mark.parametrize("table_name", list(TABLES))
def test_every_primitive_has_a_rule(table_name):
    table, exempt = TABLES[table_name]
    missing = [p.name for p in all_primitives() if p not in table and p.name not in exempt]
    assert not missing, f"primitives without a {table_name} rule: {missing}"


@pytest.mark.parametrize("table_name", list(TABLES))
def test_exemptions_name_real_primitives(table_name):
    _, exempt = TABLES[table_name]
    unknown = sorted(set(exempt) - set(_primitive_ids()))
    assert not unknown, f"{table_name} exempts unknown primitives: {unknown}"
    assert all(reason.strip() for reason in exempt.values())


# Higher-order primitives (a jaxpr among their params) need their own partial
# evaluation rule for reverse mode (chapter 07): the default rule would stage
# the whole call as unknown and lose the known/unknown split of its body.
from minijax.interpreters.linearize import custom_partial_eval_rules  # noqa: E402

HIGHER_ORDER = ["jit", "cond", "while", "scan", "remat2", "custom_jvp_call"]
# custom_vjp_call needs none: its jvp rule replaces it by fwd + custom_lin first.


def test_higher_order_primitives_have_partial_eval_rules():
    by_name = {p.name: p for p in all_primitives()}
    assert set(HIGHER_ORDER) <= set(by_name), "a higher-order primitive was renamed"
    missing = [n for n in HIGHER_ORDER if by_name[n] not in custom_partial_eval_rules]
    assert not missing, f"higher-order primitives without a partial-eval rule: {missing}"


# Chapter 09: every primitive has a CPU lowering rule (nested calls are inlined
# by the planner: their entry says so).
from minijax.backends.cpu.rules import LOWERINGS as CPU_LOWERINGS  # noqa: E402

#: primitive name -> why the CPU target hands jaxprs using it to the interpreter
CPU_EXEMPT: dict[str, str] = {
    "custom_lin": "only in linear jaxprs waiting to be transposed (chapter 07); never executed",
}


def test_every_primitive_has_a_cpu_lowering():
    missing = [p.name for p in all_primitives()
               if p not in CPU_LOWERINGS and p.name not in CPU_EXEMPT]
    assert not missing, f"primitives without a CPU lowering: {missing}"
    stale = sorted(p.name for p in CPU_LOWERINGS if p.name in CPU_EXEMPT)
    assert not stale, f"exempt from CPU lowering but lowered after all: {stale}"


def test_the_planner_fuses_exactly_the_scalar_rules():
    """A primitive the planner fuses into a loop nest (its kind says so) must have a
    scalar rule, a reduction a reduction rule; and no other primitive may."""
    from minijax.backends.plan import is_fused, is_reduction
    for p, rule in CPU_LOWERINGS.items():
        expected = "scalar" if is_fused(p) else "reduction" if is_reduction(p) else rule.form
        assert rule.form == expected or (rule.form == "inline" and p.kind == "call"), p.name
