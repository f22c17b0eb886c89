"""Keys through jit, vmap (batching rules of every key primitive) and scan."""
import numpy as np
import pytest

import minijax
import minijax.control_flow  # noqa: F401  (chapter 08 adds lax.scan, lax.fori_loop)
import minijax.numpy as jnp
from minijax import lax, prng, random, vmap
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batching_rules
from minijax.jit import jit
from minijax.primitives import abstract_eval_rules, impl_rules

KEY_PRIMITIVES = [prng.random_seed_p, prng.random_split_p, prng.random_fold_in_p,
                  prng.random_bits_p, prng.random_wrap_p, prng.random_unwrap_p]


def data(keys):
    return np.asarray(random.key_data(keys))


@pytest.mark.parametrize("prim", KEY_PRIMITIVES, ids=lambda p: p.name)
def test_key_primitives_have_every_rule(prim):
    assert prim in impl_rules and prim in abstract_eval_rules
    assert prim in jvp_rules and prim in batching_rules


def test_jit_takes_and_returns_keys(jit_backend):
    @jit
    def step(key):
        key, sub = random.split(key)
        return key, random.uniform(sub, (2,))

    k = random.key(0)
    k1, x1 = step(k)
    k2, x2 = step(k1)
    e_key, e_sub = random.split(k)
    np.testing.assert_array_equal(data(k1), data(e_key))
    np.testing.assert_array_equal(x1, random.uniform(e_sub, (2,)))
    assert k2.dtype == k.dtype and not np.array_equal(x1, x2)
    legacy = jit(random.split)(random.PRNGKey(0))
    assert legacy.dtype == np.uint32 and legacy.shape == (2, 2)


def _loop(fn, *batched):
    """``stack([fn(*xs) for xs in zip(*batched)])`` on key data."""
    return np.stack([np.asarray(fn(*xs)) for xs in zip(*batched)])


def test_batching_rules_with_batch_axis_not_first():
    grid = random.split(random.key(3), (2, 3))       # batch along axis 1 below
    cols = [grid[:, j] for j in range(3)]
    np.testing.assert_array_equal(
        data(vmap(vmap(lambda k: random.split(k, 2)), in_axes=1)(grid)),
        _loop(lambda c: data(vmap(lambda k: random.split(k, 2))(c)), cols))
    np.testing.assert_array_equal(
        vmap(vmap(lambda k: random.bits(k, (2,))), in_axes=1)(grid),
        _loop(lambda c: vmap(lambda k: random.bits(k, (2,)))(c), cols))
    np.testing.assert_array_equal(
        vmap(vmap(random.key_data), in_axes=1)(grid), _loop(lambda c: data(c), cols))
    raw = data(grid)                                   # (2, 3, 2)
    np.testing.assert_array_equal(
        data(vmap(vmap(random.wrap_key_data), in_axes=1)(raw)), data(grid.T))


def test_fold_in_batching_broadcasts_keys_and_messages():
    keys = random.split(random.key(1), 3)
    msgs = jnp.arange(3)
    both = vmap(random.fold_in)(keys, msgs)
    np.testing.assert_array_equal(
        data(both), _loop(lambda k, m: data(random.fold_in(k, m)), keys, msgs))
    only_msgs = vmap(random.fold_in, in_axes=(None, 0))(keys[0], msgs)
    np.testing.assert_array_equal(
        data(only_msgs), _loop(lambda m: data(random.fold_in(keys[0], m)), msgs))


def test_vmap_of_seeding_and_legacy_keys(jit_backend):
    seeds = jnp.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(
        data(vmap(vmap(random.key), in_axes=1)(seeds)),
        np.stack([data(random.key(int(s))) for s in np.asarray(seeds).T.ravel()]).reshape(3, 2, 2))
    legacy = random.split(random.PRNGKey(0), 4)          # uint32[4, 2]
    np.testing.assert_array_equal(
        vmap(lambda k: random.uniform(k, (2,)), in_axes=1)(legacy.T),
        _loop(lambda k: random.uniform(k, (2,)), legacy))


def test_printed_batched_key_jaxprs():
    # expected values from JAX 0.10.2
    ks = random.split(random.key(0), 3)
    assert str(minijax.make_jaxpr(vmap(random.key_data))(ks)) == \
        "{ lambda ; a:key<fry>[3]. let b:u32[3,2] = random_unwrap a in (b,) }"
    assert str(minijax.make_jaxpr(vmap(random.wrap_key_data, in_axes=1))(data(ks).T)) == (
        "{ lambda ; a:u32[2,3]. let\n"
        "    b:u32[3,2] = transpose[permutation=(1, 0)] a\n"
        "    c:key<fry>[3] = random_wrap[impl=fry] b\n"
        "  in (c,) }")
    assert str(minijax.make_jaxpr(vmap(random.fold_in, in_axes=(0, None)))(ks, 3)) == (
        "{ lambda ; a:key<fry>[3] b:i32[]. let\n"
        "    c:u32[] = convert_element_type[new_dtype=uint32 weak_type=False] b\n"
        "    d:key<fry>[3] = random_fold_in a c\n"
        "  in (d,) }")


def test_scan_carries_a_key_and_matches_the_python_loop(jit_backend):
    def body(key, _):
        key, sub = random.split(key)
        return key, random.normal(sub, (2,))

    carry, ys = lax.scan(body, random.key(5), None, length=3)
    key, expected = random.key(5), []
    for _ in range(3):
        key, sub = random.split(key)
        expected.append(np.asarray(random.normal(sub, (2,))))
    np.testing.assert_array_equal(data(carry), data(key))
    np.testing.assert_array_equal(ys, np.stack(expected))


def test_vmap_of_jit_of_sampler(jit_backend):
    keys = random.split(random.key(9), 4)
    f = jit(lambda k: random.randint(k, (3,), 0, 100))
    np.testing.assert_array_equal(vmap(f)(keys), _loop(f, keys))


def test_jvp_of_a_program_with_keys(jit_backend):
    k = random.key(0)
    primal, tangent = minijax.jvp(lambda x: x * random.uniform(k, (3,)), (2.,), (1.,))
    u = np.asarray(random.uniform(k, (3,)))
    np.testing.assert_array_equal(primal, 2 * u)
    np.testing.assert_array_equal(tangent, u)
