"""``lax.cond`` and ``lax.switch``: values, pytrees, dtypes and JAX's errors."""
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.cond, lax.switch...)
import minijax.numpy as jnp
from minijax import lax
from minijax.jit import jit


def _check(x, expected, dtype=None, weak=None):
    np.testing.assert_allclose(np.asarray(x), expected, rtol=1e-6)
    if dtype is not None:
        assert x.dtype == np.dtype(dtype)
    if weak is not None:
        assert x.weak_type == weak


@pytest.mark.usefixtures("jit_backend")  # (an argument would fail a Hypothesis health check)
@given(st.floats(-10, 10, width=32))
def test_cond_matches_python_if(x):
    f = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * 2, lambda x: jnp.cos(x) - 1, x)
    expected = np.sin(np.float32(x)) * 2 if x > 0 else np.cos(np.float32(x)) - 1
    _check(f(np.float32(x)), expected)
    _check(jit(f)(np.float32(x)), expected)


def test_cond_integer_and_float_predicates():
    # expected values from JAX 0.10.2: any nonzero number is true
    assert float(lax.cond(2, lambda x: x, lambda x: x + 1, 1.)) == 1.0
    assert float(lax.cond(0.5, lambda x: x, lambda x: x + 1, 1.)) == 1.0
    assert float(lax.cond(0, lambda x: x, lambda x: x + 1, 1.)) == 2.0
    assert float(lax.cond(np.bool_(False), lambda x: x, lambda x: x + 1, 1.)) == 2.0


def test_cond_pytrees_and_several_operands():
    def true_fun(p, x):
        return {"a": p["w"] * x, "b": (x, p["b"])}

    def false_fun(p, x):
        return {"a": p["w"] - x, "b": (-x, p["b"] + 1)}

    p = {"w": jnp.arange(3.), "b": jnp.int32(7)}
    out = lax.cond(True, true_fun, false_fun, p, 2.)
    _check(out["a"], [0., 2., 4.])
    _check(out["b"][0], 2.)
    assert int(out["b"][1]) == 7
    out = lax.cond(False, true_fun, false_fun, p, 2.)
    _check(out["a"], [-2., -1., 0.])
    assert int(out["b"][1]) == 8


def test_cond_output_types_follow_false_branch():
    # expected values from JAX 0.10.2: the primitive's output types are branch 0's
    # (false_fun's), so a weak Python float there gives a weak result.
    _check(lax.cond(True, lambda: 1., lambda: jnp.float32(2.)), 1., np.float32, weak=False)
    _check(lax.cond(True, lambda: jnp.float32(2.), lambda: 1.), 2., np.float32, weak=True)
    _check(lax.cond(True, lambda x: x, lambda x: x, 1.0), 1., np.float32, weak=True)
    _check(lax.cond(True, lambda x: x + 1, lambda x: x, 1.0), 2., np.float32, weak=True)
    out = lax.cond(True, lambda x: x, lambda x: x, np.arange(3.))
    assert isinstance(out, minijax.Array)
    _check(out, [0., 1., 2.], np.float32)


def test_cond_operand_keyword_and_old_signature():
    assert float(lax.cond(True, lambda x: x * 3, lambda x: x, operand=2.)) == 6.0
    # the 5-argument form: cond(pred, true_operand, true_fun, false_operand, false_fun)
    assert float(lax.cond(False, 1., lambda x: x + 1, 10., lambda x: x * 2)) == 20.0


def test_cond_runs_python_of_both_branches_once_each():
    calls = []
    lax.cond(True, lambda x: calls.append("t") or x, lambda x: calls.append("f") or x, 1.)
    assert calls == ["t", "f"]


@pytest.mark.parametrize("index,expected", [(-3, 2.), (0, 2.), (1, 3.), (2, 4.), (7, 4.)])
def test_switch_clamps_index(index, expected):
    # expected values from JAX 0.10.2
    branches = [lambda x: x + 1, lambda x: x + 2, lambda x: x + 3]
    assert float(lax.switch(index, branches, 1.)) == expected


def test_switch_with_one_branch_calls_it_directly():
    assert float(lax.switch(5, [lambda x: x + 1], 1.)) == 2.0


@pytest.mark.usefixtures("jit_backend")  # (an argument would fail a Hypothesis health check)
@given(st.integers(-2, 5), st.floats(-3, 3, width=32))
def test_switch_under_jit_matches_python(i, x):
    branches = [jnp.sin, jnp.cos, lambda x: x * x]
    f = jit(lambda i, x: lax.switch(i, branches, x))
    expected = [np.sin, np.cos, lambda x: x * x][min(max(i, 0), 2)](np.float32(x))
    _check(f(i, np.float32(x)), expected)


# --- errors (messages copied from JAX 0.10.2) -------------------------------------------
def tf(x):
    return x


def ff(x):
    return x.astype(jnp.int32)


def tf3(x):
    return {"a": x, "b": x}


def ff3(x):
    return {"a": x.astype(int), "b": jnp.stack([x, x])}


def _raises(exc, msg, f):
    with pytest.raises(exc) as info:
        f()
    assert str(info.value) == msg


def test_cond_predicate_errors():
    _raises(TypeError, "Pred must be a scalar, got [ True False] of shape (2,).",
            lambda: lax.cond(jnp.array([True, False]), tf, tf, 1.))
    _raises(TypeError, "Pred must be a scalar, got [True] of type <class 'list'>",
            lambda: lax.cond([True], tf, tf, 1.))
    _raises(TypeError, "cond predicate is None", lambda: lax.cond(None, tf, tf, 1.))
    _raises(TypeError, "Pred type must be either boolean or number, got complex64.",
            lambda: lax.cond(1j, tf, tf, 1.))
    _raises(TypeError, "lax.cond: true_fun and false_fun arguments should be callable.",
            lambda: lax.cond(True, 1, tf, 1.))
    _raises(TypeError, "if 'operand' keyword is passed then no positional operands can be "
                       "passed, got operand=1.0 and positional operands (2.0,)",
            lambda: lax.cond(True, tf, tf, 2., operand=1.))
    _raises(TypeError, "Argument 'a' of type <class 'str'> is not a valid JAX type",
            lambda: lax.cond(True, tf, tf, "a"))


def test_cond_branch_type_errors():
    here = __file__
    line = lambda f: f.__code__.co_firstlineno
    _raises(TypeError,
            "cond branches must have equal output types but they differ.\n\n"
            f"true_fun is tf at {here}:{line(tf)}\nfalse_fun is ff at {here}:{line(ff)}\n\n"
            "The output of true_fun has type float32[] but the corresponding output of "
            "false_fun has type int32[], so the dtypes do not match.\n\n"
            "Revise true_fun and/or false_fun so that all output types match.",
            lambda: lax.cond(True, tf, ff, 1.))
    _raises(TypeError,
            "cond branches must have equal output types but they differ.\n\n"
            f"true_fun is tf3 at {here}:{line(tf3)}\nfalse_fun is ff3 at {here}:{line(ff3)}\n\n"
            "  * the output of true_fun at path ['a'] has type float32[] but the "
            "corresponding output of false_fun has type int32[], so the dtypes do not match;\n"
            "  * the output of true_fun at path ['b'] has type float32[] but the "
            "corresponding output of false_fun has type float32[2], so the shapes do not "
            "match.\n\nRevise true_fun and/or false_fun so that all output types match.",
            lambda: lax.cond(True, tf3, ff3, 1.))


def test_cond_branch_structure_error():
    def t(x):
        return (x, x)

    def f(x):
        return [x, x]
    with pytest.raises(TypeError) as info:
        lax.cond(True, t, f, 1.)
    msg = str(info.value)
    assert msg.startswith("cond branch outputs must have the same pytree structure, but they "
                          "differ:\n\ntrue_fun is t at ")
    assert ("true_fun output is a <class 'tuple'> but false_fun output is a <class 'list'>, so "
            "their Python types differ.\n\nRevise true_fun and/or false_fun so that they have "
            "the same pytree structure.") in msg


def test_switch_errors():
    _raises(TypeError, "Index type must be an integer, got 1.0 as float32",
            lambda: lax.switch(1., [tf, tf], 1.))
    _raises(TypeError, "Branch index must be scalar, got [1 2] of shape (2,).",
            lambda: lax.switch(jnp.array([1, 2]), [tf, tf], 1.))
    _raises(ValueError, "Empty branch sequence", lambda: lax.switch(1, [], 1.))
    _raises(TypeError, "lax.switch: branches argument should be a sequence of callables.",
            lambda: lax.switch(1, [tf, 2], 1.))
    with pytest.raises(TypeError, match=re.escape(
            "switch branches must have equal output types but they differ.\n\nbranch 0 is tf")):
        lax.switch(1, [tf, ff, tf], 1.)


def test_tracer_error_names_the_branch():
    def branch(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(minijax.errors.TracerBoolConversionError,
                       match=r"while tracing the function branch at .* for cond\. This concrete "
                             r"value was not available in Python because it depends on the "
                             r"value of the argument x\."):
        lax.cond(True, branch, branch, 1.)
