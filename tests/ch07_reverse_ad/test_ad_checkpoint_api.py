"""Chapter 07: ``jax.ad_checkpoint`` — ``print_saved_residuals``, ``checkpoint_name`` and
every policy of ``jax.checkpoint_policies``.

The printed residual lists were recorded with JAX 0.10.2 (the source locations are
compared by function name, and once exactly); gradients are checked against the
gradient without checkpointing, which no policy may change.
"""
import inspect
import re

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.ad_checkpoint import (Offloadable, Recompute, Saveable, checkpoint_name,
                                   print_saved_residuals)

policies = jax.checkpoint_policies


def g(W, x):
    y = jnp.dot(W, x)
    return jnp.sin(y)


def f(W1, W2, W3, x):
    x = g(W1, x)
    x = g(W2, x)
    x = g(W3, x)
    return x


W1, W2, W3, X = jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones((7, 6)), jnp.ones(4)


def printed(capsys, fun, *args):
    """The lines print_saved_residuals prints, with 'file:line:col (fn)' shortened to '(fn)'."""
    print_saved_residuals(fun, *args)
    out = capsys.readouterr().out
    return [re.sub(r"from \S+:\d+(:\d+)? \(", "from (", line) for line in out.splitlines()]


ARGS = ["f32[5,4] from the argument W1", "f32[6,5] from the argument W2",
        "f32[7,6] from the argument W3", "f32[4] from the argument x"]


def test_print_saved_residuals_without_checkpoint(capsys):
    # from JAX 0.10.2
    assert printed(capsys, f, W1, W2, W3, X) == ARGS + [
        "f32[5] output of sin from (g)", "f32[5] output of cos from (g)",
        "f32[6] output of sin from (g)", "f32[6] output of cos from (g)",
        "f32[7] output of cos from (g)"]


def test_print_saved_residuals_names_the_source_line(capsys):
    lines, first = inspect.getsourcelines(g)
    where = f"{__file__}:{first + 1}:{lines[1].index('jnp.dot')} (g)"
    print_saved_residuals(jax.checkpoint(f, policy=policies.dots_saveable), W1, W2, W3, X)
    out = capsys.readouterr().out.splitlines()
    assert out[4] == f"f32[5] output of dot_general from {where}"  # from JAX 0.10.2


@pytest.mark.parametrize("policy, expected", [
    (None, ARGS),
    (policies.nothing_saveable, ARGS),
    (policies.dots_saveable, ARGS + [f"f32[{n}] output of dot_general from (g)"
                                     for n in (5, 6, 7)]),
    (policies.checkpoint_dots, ARGS + [f"f32[{n}] output of dot_general from (g)"
                                       for n in (5, 6, 7)]),
    (policies.dots_with_no_batch_dims_saveable,
     ARGS + [f"f32[{n}] output of dot_general from (g)" for n in (5, 6, 7)]),
])
def test_dot_policies(capsys, policy, expected):
    fun = jax.checkpoint(f) if policy is None else jax.checkpoint(f, policy=policy)
    assert printed(capsys, fun, W1, W2, W3, X) == expected  # from JAX 0.10.2


def h(x):
    y = checkpoint_name(jnp.sin(x), "a")
    z = checkpoint_name(jnp.sin(y), "b")
    return jnp.sin(z)


COS3 = ["f32[4] output of cos from (h)"] * 3
NAME_CASES = [  # from JAX 0.10.2
    ("only_a", policies.save_only_these_names("a"),
     ["f32[4] from the argument x", "f32[4] named 'a' from (h)"]),
    ("any_but_a", policies.save_any_names_but_these("a"),
     ["f32[4] from the argument x", "f32[4] named 'b' from (h)"]),
    ("anything_except_a", policies.save_anything_except_these_names("a"), COS3),
    ("both", policies.save_from_both_policies(policies.save_only_these_names("a"),
                                              policies.save_only_these_names("b")),
     ["f32[4] from the argument x", "f32[4] named 'a' from (h)",
      "f32[4] named 'b' from (h)"]),
    ("everything", policies.everything_saveable, COS3),
]


@pytest.mark.parametrize("policy, expected", [c[1:] for c in NAME_CASES],
                         ids=[c[0] for c in NAME_CASES])
def test_name_policies(capsys, policy, expected):
    assert printed(capsys, jax.checkpoint(h, policy=policy), X) == expected
    # whatever is saved, the gradient is the one without checkpointing
    want = jax.grad(lambda a: h(a).sum())(X * 0.3)
    got = jax.grad(lambda a: jax.checkpoint(h, policy=policy)(a).sum())(X * 0.3)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_print_saved_residuals_of_constants_and_pytree_arguments(capsys):
    c = jnp.arange(4.0)
    assert printed(capsys, lambda a: a * c, X) == ["f32[4] from a constant"]  # from JAX 0.10.2
    # from JAX 0.10.2
    assert printed(capsys, lambda a, b: {"o": a["k"] * b}, {"k": X}, X) == [
        "f32[4] from the argument a['k']", "f32[4] from the argument b"]
    # from JAX 0.10.2 (which also lists the literal 2 as a residual; minijax inlines it)
    assert "f32[4] output of jitted function 'sin' from (test_print_saved_residuals_of_" \
        "constants_and_pytree_arguments.<locals>.<lambda>)" in printed(
            capsys, lambda a: jax.jit(jnp.sin)(a) * 2, X)


def test_offloading_policies_save_on_the_one_memory():
    p = policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"],
        offload_src="device", offload_dst="pinned_host")
    from minijax.checkpoint import name_p
    assert p(name_p, name="a") is Saveable
    assert p(name_p, name="b") == Offloadable(src="device", dst="pinned_host")
    assert p(name_p, name="c") is Recompute
    grad = jax.grad(lambda a: jax.checkpoint(h, policy=p)(a).sum())(X)
    np.testing.assert_allclose(grad, [0.26450825] * 4, rtol=1e-6)  # from JAX 0.10.2
    dots = policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    grad = jax.grad(lambda a: jax.checkpoint(f, policy=dots)(W1, W2, W3, a).sum())(X)
    np.testing.assert_allclose(grad, [-98.80593] * 4, rtol=1e-5)  # from JAX 0.10.2
    with pytest.raises(ValueError, match="intersection={'a'}"):  # from JAX 0.10.2
        policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host")


def test_policy_answers():
    assert repr(Offloadable("device", "pinned_host")) == \
        "Offloadable(src='device', dst='pinned_host')"  # from JAX 0.10.2
    bad = jax.checkpoint(jnp.sin, policy=lambda *_, **__: "yes")
    with pytest.raises(TypeError, match="Value returned by a remat policy should be a bool or "
                                        "`ad_checkpoint.Recompute`"):  # from JAX 0.10.2
        jax.grad(bad)(1.0)


def test_every_jax_policy_is_there():
    # from JAX 0.10.2: dir(jax.checkpoint_policies)
    names = ['checkpoint_dots', 'checkpoint_dots_with_no_batch_dims', 'dots_saveable',
             'dots_with_no_batch_dims_saveable', 'everything_saveable', 'nothing_saveable',
             'offload_dot_with_no_batch_dims', 'save_and_offload_only_these_names',
             'save_any_names_but_these', 'save_anything_except_these_names',
             'save_from_both_policies', 'save_only_these_names']
    assert sorted(n for n in vars(policies) if not n.startswith("_")) == names
    assert jax.ad_checkpoint.checkpoint_policies is policies
