"""Chapter 07: the functions ``vjp``, ``linearize`` and ``linear_transpose`` return are
pytrees, as JAX's are: their leaves are the residuals, the rest is static.

So a pull-back can be passed into ``jit`` as an argument, returned from a jitted
function, mapped over with ``vmap``, flattened and rebuilt. Expected values
are JAX 0.10.2's (or NumPy's where the value is plain arithmetic).
"""
import functools

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.tree_util import Partial

X = jnp.arange(2.0)


def test_vjp_returns_a_pytree_whose_leaves_are_the_residuals():
    y, f_vjp = jax.vjp(jnp.sin, X)
    assert type(f_vjp).__name__ == "VJP"  # from JAX 0.10.2 (not a functools.partial)
    assert not isinstance(f_vjp, functools.partial)
    leaves, treedef = jax.tree_util.tree_flatten(f_vjp)
    # from JAX 0.10.2: the one residual of sin is cos(x)
    assert len(leaves) == 1
    np.testing.assert_allclose(leaves[0], [1., 0.5403023], rtol=1e-6)
    rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
    np.testing.assert_allclose(rebuilt(jnp.ones(2))[0], np.cos([0., 1.]), rtol=1e-6)


def test_a_pull_back_with_new_leaves_uses_them():
    _, f_vjp = jax.vjp(jnp.sin, X)
    doubled = jax.tree_util.tree_map(lambda r: 2 * r, f_vjp)
    np.testing.assert_allclose(doubled(jnp.ones(2))[0], 2 * np.cos([0., 1.]), rtol=1e-6)


def f(x, y):
    return jnp.sin(x) * y


def test_vjp_pull_back_passes_through_jit_as_an_argument():
    _, f_vjp = jax.vjp(f, jnp.float32(1.0), jnp.arange(3.0))
    ct = jnp.ones(3)
    got = jax.jit(lambda p, c: p(c))(f_vjp, ct)
    # from JAX 0.10.2
    np.testing.assert_allclose(got[0], 1.6209068, rtol=1e-6)
    np.testing.assert_allclose(got[1], [0.84147096] * 3, rtol=1e-6)
    again = jax.jit(lambda p: p)(f_vjp)
    assert type(again).__name__ == "VJP"
    np.testing.assert_allclose(again(ct)[0], 1.6209068, rtol=1e-6)


def test_vjp_pull_back_returned_from_jit():
    f_vjp = jax.jit(lambda x: jax.vjp(jnp.sin, x)[1])(X)
    assert all(isinstance(leaf, jax.Array) for leaf in jax.tree_util.tree_leaves(f_vjp))
    np.testing.assert_allclose(f_vjp(jnp.ones(2))[0], np.cos([0., 1.]), rtol=1e-6)


def test_vjp_pull_back_under_vmap():
    _, f_vjp = jax.vjp(f, jnp.float32(1.0), jnp.arange(3.0))
    gx, gy = jax.vmap(f_vjp)(jnp.ones((2, 3)))
    # from JAX 0.10.2
    np.testing.assert_allclose(gx, [1.6209068, 1.6209068], rtol=1e-6)
    np.testing.assert_allclose(gy, [[0.84147096] * 3] * 2, rtol=1e-6)


def test_vjp_pull_back_keeps_its_checks_and_jaxpr():
    _, f_vjp = jax.vjp(jnp.sin, X)
    with pytest.raises(TypeError, match="called with 2 arguments"):
        f_vjp(X, X)
    with pytest.raises(ValueError, match="unexpected JAX type"):
        f_vjp(jnp.ones(3))
    assert len(f_vjp.jaxpr.invars) == 1


def test_linearize_returns_a_partial_whose_leaves_are_the_residuals():
    y, f_jvp = jax.linearize(jnp.sin, X)
    assert isinstance(f_jvp, Partial)  # from JAX 0.10.2
    leaves = jax.tree_util.tree_leaves(f_jvp)
    np.testing.assert_allclose(leaves[0], np.cos([0., 1.]), rtol=1e-6)  # from JAX 0.10.2
    got = jax.jit(lambda p, t: p(t))(f_jvp, jnp.full(2, 2.0))
    np.testing.assert_allclose(got, 2 * np.cos([0., 1.]), rtol=1e-6)


def test_linear_transpose_returns_a_partial():
    f_t = jax.linear_transpose(lambda x: 2 * x, 1.0)
    assert isinstance(f_t, Partial)  # from JAX 0.10.2
    assert float(jax.jit(lambda p, c: p(c)[0])(f_t, 3.0)) == 6.0


# --- Partial itself ----------------------------------------------------------------------
def test_partial_flattens_to_its_arguments_with_the_function_static():
    p = Partial(f, jnp.float32(2.0))
    leaves, treedef = jax.tree_util.tree_flatten(p)
    assert [float(x) for x in leaves] == [2.0]
    assert str(treedef).startswith("PyTreeDef(CustomNode(Partial[<function f at")
    assert str(treedef).endswith("[(*,), {}]))")  # from JAX 0.10.2
    assert p.func is f and p.keywords == {}
    # from JAX 0.10.2
    np.testing.assert_allclose(jax.jit(lambda p, y: p(y))(p, 3.0), 2.7278922, rtol=1e-6)


def test_partial_keywords_are_leaves_too():
    p = Partial(f, y=jnp.arange(3.0))
    assert jax.tree_util.tree_structure(p).num_leaves == 1
    np.testing.assert_allclose(jax.vmap(lambda q: q(1.0), in_axes=(Partial(f, y=0),))(p),
                               np.sin(1.0) * np.arange(3.0), rtol=1e-6)


def test_a_partial_of_a_partial_keeps_the_inner_arguments_static():
    # from JAX 0.10.2: the inner Partial's 1.0 is part of the static function
    pp = Partial(Partial(f, 1.0), y=2.0)
    assert type(pp.func).__name__ == "_HashableCallableShim"
    assert pp.args == () and pp.keywords == {"y": 2.0}
    assert jax.tree_util.tree_leaves(pp) == [2.0]
    np.testing.assert_allclose(pp(), np.sin(1.0) * 2.0, rtol=1e-6)
