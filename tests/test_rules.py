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

# Transposition applies only to linear primitives (chapter 07). Which primitives
# are linear is stated once, where each is created (chapter 00's ``linear_in`` and
# ``bilinear``); calls and control flow (``jit``, ``cond``, ``scan``...) transpose
# their bodies. Every other primitive needs no transpose rule: the reasons below
# are derived from those attributes, with a more precise one for some.
_NOT_LINEAR = ("not linear (created without linear_in or bilinear): nonlinear, or with a "
               "zero derivative, so never applied to a linear (tangent) value")
_RANDOM = "random bits and keys: zero derivative, never linear"
_NONLINEAR_LINALG = "nonlinear factorization: its jvp rule uses triangular_solve and dot_general"
#: Reasons more precise than "not linear", or for a call that is not transposed.
_WHY_NOT_TRANSPOSABLE = {
    **{name: _NONLINEAR_LINALG for name in ("cholesky", "lu", "qr", "eigh", "svd")},
    "lu_pivots_to_permutation": "integer-valued: zero derivative",
    "custom_vjp_call": "its jvp rule runs fwd and stages custom_lin, whose transpose "
                       "calls bwd: a linear jaxpr never holds custom_vjp_call",
    **{name: _RANDOM for name in ("random_seed", "random_split", "random_fold_in",
                                  "random_bits", "random_wrap", "random_unwrap",
                                  "threefry2x32")},
}
#: Linear, but in positions that depend on its parameters, so created without
#: ``linear_in``: it has a transpose rule of its own.
_LINEAR_UNDECLARED = {
    "custom_lin": "linear in its operands after the num_res residuals (a parameter)",
}
_TRANSPOSES_ITS_BODY = ("call", "control_flow")


def _declared_transposable(p) -> bool:
    return (p.linear_in is not None or p.bilinear or p.kind in _TRANSPOSES_ITS_BODY
            or p.name in _LINEAR_UNDECLARED)


def _not_transposable() -> dict:
    """primitive name -> why it has no transpose rule, for every primitive that needs none."""
    return {p.name: _WHY_NOT_TRANSPOSABLE.get(p.name, _NOT_LINEAR) for p in all_primitives()
            if p.name in _WHY_NOT_TRANSPOSABLE or not _declared_transposable(p)}


_NOT_TRANSPOSABLE = _not_transposable()

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


def test_transpose_rules_are_for_declared_linear_primitives():
    """A transpose rule exists exactly where linearity was stated at creation: a
    primitive declared linear without a rule, or with a rule but not declared
    linear, means the two statements disagree."""
    by_name = {p.name: p for p in all_primitives()}
    assert set(_WHY_NOT_TRANSPOSABLE) | set(_LINEAR_UNDECLARED) <= set(by_name)
    undeclared = sorted(p.name for p in transpose_rules if not _declared_transposable(p))
    assert not undeclared, f"transpose rules for primitives not declared linear: {undeclared}"
    stale = sorted(n for n in _NOT_TRANSPOSABLE if by_name[n] in transpose_rules)
    assert not stale, f"exempt from transposition but transposed after all: {stale}"
    linear = [p for p in all_primitives() if p.linear_in is not None or p.bilinear]
    assert not [p.name for p in linear if p not in transpose_rules]
    assert {"neg", "reduce_sum", "reshape", "dynamic_slice", "mul", "dot_general"} <= {
        p.name for p in linear}


def test_linear_primitives_have_a_linear_jvp():
    """Chapter 02 gives every linear primitive a JVP rule without listing it: a linear
    map's tangent is the map itself applied to the tangents."""
    import numpy as np
    from minijax import lax
    from minijax.interpreters.ad import jvp

    x = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    t = np.array([[0.25, 1.0, -3.0], [2.0, 0.0, 1.5]], np.float32)
    for fn in (lambda v: lax.reduce_sum(v, (0,)), lambda v: lax.reshape(v, (3, 2)),
               lambda v: lax.rev(v, (1,)), lambda v: lax.neg(v),
               lambda v: lax.dynamic_slice(v, (np.int32(1), np.int32(1)), (1, 2)),
               lambda v: lax.concatenate([v, v], 0), lambda v: lax.cumsum(v, 1)):
        primal_out, tangent_out = jvp(fn, (x,), (t,))
        np.testing.assert_array_equal(np.asarray(primal_out), np.asarray(fn(x)))
        np.testing.assert_array_equal(np.asarray(tangent_out), np.asarray(fn(t)))


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


# Chapter 10: every primitive the CPU target lowers has a CUDA lowering, or is
# listed here with the reason; lowering a jaxpr that uses one for CUDA raises
# at lowering time, naming it (tests/ch10_cuda/test_cuda_api.py).
from minijax.backends.cuda.rules import LOWERINGS as CUDA_LOWERINGS  # noqa: E402

_LINALG = "a LAPACK call on the CPU: no CUDA kernel yet"
#: primitive name -> why the CUDA target does not lower it (yet)
CUDA_NOT_YET: dict[str, str] = {
    **{n: _LINALG for n in ("eigh", "svd")},
    **{n: "its CPU helper calls NumPy on scalars, which CUDA cannot compile: no CUDA "
          "helper yet" for n in ("reduce_precision",)},
}


def test_every_cpu_lowering_has_a_cuda_lowering_or_a_reason():
    missing = sorted(p.name for p in CPU_LOWERINGS
                     if p not in CUDA_LOWERINGS and p.name not in CUDA_NOT_YET)
    assert not missing, f"primitives without a CUDA lowering (and no reason): {missing}"
    stale = sorted(p.name for p in CUDA_LOWERINGS if p.name in CUDA_NOT_YET)
    assert not stale, f"listed as not lowered for CUDA, but lowered after all: {stale}"
    extra = sorted(p.name for p in CUDA_LOWERINGS if p not in CPU_LOWERINGS)
    assert not extra, f"lowered for CUDA but not for the CPU: {extra}"


# --- schur, hessenberg, householder_product (jax.scipy.linalg, issue 19) ------------------
_NO_RULE_IN_JAX = "JAX 0.10.2 has no differentiation rule for it either"
TABLES["jvp"][1].update({n: _NO_RULE_IN_JAX
                         for n in ("schur", "hessenberg", "householder_product")})
CPU_EXEMPT.update({n: "a LAPACK routine (?gees, ?gehrd, ?orgqr) Numba cannot call: the "
                      "interpreter runs it" for n in ("schur", "hessenberg",
                                                      "householder_product")})

# --- random_clone (docstring-examples work): a key primitive like random_wrap -----------------
_WHY_NOT_TRANSPOSABLE["random_clone"] = _RANDOM
# --- eig (docstring-examples work): a nonlinear factorization, as eigh ------------------------
_WHY_NOT_TRANSPOSABLE["eig"] = _NONLINEAR_LINALG
