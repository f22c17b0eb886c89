"""Keys: typed and legacy, splitting and folding as trees, key arrays, key errors.

Expected values and messages from JAX 0.10.2.
"""
import re

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import random
from minijax.abstract_arrays import ShapedArray
from minijax.prng import KeyTy, PRNGKeyArray, threefry_prng_impl

K0_SPLIT = np.array([[1797259609, 2579123966], [928981903, 3453687069]], np.uint32)
K0_SPLIT3 = np.array([[1797259609, 2579123966], [928981903, 3453687069],
                      [4146024105, 2718843009]], np.uint32)


def test_typed_key_prints_as_jax():
    k = random.key(0)
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert str(k) == repr(k)
    assert repr(random.split(k)) == ("Array((2,), dtype=key<fry>) overlaying:\n"
                                     "[[1797259609 2579123966]\n [ 928981903 3453687069]]")
    assert repr(random.split(k, 0)) == "Array((0,), dtype=key<fry>) overlaying:\n[]"


def test_key_dtype():
    k = random.key(0)
    assert isinstance(k, PRNGKeyArray)
    assert k.dtype == random.key_dtype() == KeyTy(threefry_prng_impl)
    assert k.dtype.name == str(k.dtype) == repr(k.dtype) == "key<fry>"
    assert k.dtype != np.dtype("uint32") and k.dtype != np.uint32
    assert (k.shape, k.ndim, k.size, k.itemsize, k.nbytes) == ((), 0, 1, 8, 8)
    ks = random.split(k, 3)
    assert (ks.shape, ks.ndim, ks.size, ks.itemsize, ks.nbytes, len(ks)) == ((3,), 1, 3, 8, 24, 3)
    assert repr(ShapedArray((), k.dtype)) == "ShapedArray(key<fry>[])"
    assert str(ShapedArray((2, 3), k.dtype)) == "key<fry>[2,3]"
    assert repr(k.aval) == "ShapedArray(key<fry>[])"
    assert random.key_impl(k) == random.key_impl(random.PRNGKey(0)) == "threefry2x32"


def test_legacy_key_is_uint32_data():
    k = random.PRNGKey(0)
    assert repr(k) == "Array([0, 0], dtype=uint32)"
    np.testing.assert_array_equal(random.split(k), K0_SPLIT)
    assert random.split(k).dtype == np.uint32
    assert random.fold_in(k, 1).dtype == np.uint32
    np.testing.assert_array_equal(random.key_data(k), [0, 0])


def test_key_data_and_wrap_round_trip():
    ks = random.split(random.key(0), 3)
    data = random.key_data(ks)
    assert data.dtype == np.uint32 and data.shape == (3, 2)
    np.testing.assert_array_equal(data, K0_SPLIT3)
    back = random.wrap_key_data(data)
    assert isinstance(back, PRNGKeyArray) and back.shape == (3,)
    np.testing.assert_array_equal(random.key_data(back), K0_SPLIT3)
    assert bool(jnp.all(random.wrap_key_data(data, impl="threefry2x32") == ks))
    four = random.wrap_key_data(jnp.zeros((4, 2), jnp.uint32))
    assert repr(four) == ("Array((4,), dtype=key<fry>) overlaying:\n"
                          "[[0 0]\n [0 0]\n [0 0]\n [0 0]]")


def test_split_shapes():
    k = random.key(0)
    assert random.split(k, (2, 3)).shape == (2, 3)
    assert random.split(random.PRNGKey(0), (2, 3)).shape == (2, 3, 2)
    # split(key, n) is a prefix of split(key, n + 1): key i hashes the counter i
    np.testing.assert_array_equal(random.key_data(random.split(k, 3))[:2], K0_SPLIT)
    np.testing.assert_array_equal(random.key_data(random.split(k, (2, 2))).reshape(4, 2)[:3],
                                  K0_SPLIT3)


def test_split_tree_is_deterministic_and_distinct():
    k = random.key(7)
    a, b = random.split(k)
    aa, ab = random.split(a)
    ba, bb = random.split(b)
    leaves = [tuple(np.asarray(random.key_data(x))) for x in (k, a, b, aa, ab, ba, bb)]
    assert len(set(leaves)) == len(leaves)
    np.testing.assert_array_equal(random.key_data(random.split(random.key(7))[0]),
                                  random.key_data(a))


def test_split_is_fold_in_of_the_counters():
    """Partitionable threefry: key i of split(k, n) hashes the counter i, as fold_in(k, i)."""
    # expected values from JAX 0.10.2: split(key(7), 3) and fold_in(key(7), i) agree
    k = random.key(7)
    for i, key_i in enumerate(random.split(k, 3)):
        assert key_i == random.fold_in(k, i)


def test_key_array_indexing_iteration_and_reshaping():
    ks = random.split(random.key(0), 3)
    first, second = random.split(random.key(0))
    assert isinstance(first, PRNGKeyArray) and first.shape == ()
    np.testing.assert_array_equal(random.key_data(second), K0_SPLIT[1])
    np.testing.assert_array_equal(random.key_data(ks[-1]), K0_SPLIT3[2])
    np.testing.assert_array_equal(random.key_data(ks[1:]), K0_SPLIT3[1:])
    np.testing.assert_array_equal(random.key_data(ks[::2]), K0_SPLIT3[::2])
    np.testing.assert_array_equal(random.key_data(ks[jnp.array([2, 0])]), K0_SPLIT3[[2, 0]])
    assert [x.shape for x in ks] == [(), (), ()]
    assert ks.reshape(3, 1).shape == (3, 1) and ks.reshape((1, 3)).shape == (1, 3)
    np.testing.assert_array_equal(random.key_data(ks.reshape(3, 1).squeeze()), K0_SPLIT3)
    np.testing.assert_array_equal(random.key_data(ks.reshape(1, 3).T.ravel()), K0_SPLIT3)
    grid = random.split(random.key(0), (2, 3))
    np.testing.assert_array_equal(random.key_data(grid.T),
                                  np.asarray(random.key_data(grid)).transpose(1, 0, 2))
    np.testing.assert_array_equal(random.key_data(grid.swapaxes(0, 1)),
                                  random.key_data(grid.T))


def test_key_equality():
    # expected values from JAX 0.10.2
    k = random.key(0)
    assert repr(k == k) == "Array(True, dtype=bool)"
    np.testing.assert_array_equal(random.split(k, 3) == random.split(k, 3), [True] * 3)
    np.testing.assert_array_equal(random.split(k) != random.split(k)[::-1], [True, True])
    assert random.wrap_key_data(random.key_data(k)) == k


@pytest.mark.parametrize("seed,data", [
    # expected values from JAX 0.10.2
    (True, [0, 1]), (np.uint32(4000000000), [0, 4000000000]), (np.int8(-1), [0, 4294967295]),
    (2**32 + 5, [0, 5]), (-(2**40), [0, 0]),
])
def test_seed_conversions(seed, data):
    np.testing.assert_array_equal(random.key_data(random.key(seed)), data)


# --- errors (messages from JAX 0.10.2) ------------------------------------------------------
def _impl_repr_pattern():
    return r"PRNGImpl\(key_shape=\(2,\), seed=<function threefry_seed at 0x[0-9a-f]+>"


@pytest.mark.parametrize("bad,error,message", [
    (lambda: jnp.zeros(3, jnp.uint32), TypeError,
     r"JAX encountered invalid PRNG key data: expected key_data.shape to end with \(2,\); "
     r"got shape=\(3,\) for impl=PRNGImpl\(key_shape=\(2,\), seed=<function threefry_seed "),
    (lambda: jnp.zeros(2, jnp.int32), TypeError,
     "JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=int32"),
    (lambda: jnp.zeros(2, jnp.float32), TypeError,
     "expected key_data.dtype = uint32; got dtype=float32"),
    (lambda: jnp.zeros((3, 2), jnp.uint32), ValueError,
     re.escape("uniform accepts a single key, but was given a key array of shape (3, 2) != (). "
               "Use jax.vmap for batching.")),
    (lambda: random.split(random.key(0)), ValueError,
     re.escape("uniform accepts a single key, but was given a key array of shape (2,) != ().")),
    (lambda: 5, TypeError,
     "JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype "
     "attributes. Got 5"),
    (lambda: [0, 0], TypeError, "unexpected PRNG key type <class 'list'>"),
])
def test_bad_keys(bad, error, message):
    with pytest.raises(error, match=message):
        random.uniform(bad())


@pytest.mark.parametrize("fn,error,message", [
    (lambda k: random.split(random.split(k)), ValueError,
     re.escape("split accepts a single key, but was given a key array of shape (2,) != ().")),
    (lambda k: random.fold_in(k, jnp.arange(3)), TypeError,
     re.escape("fold_in accepts a scalar, but was given an array ofshape (3,) != (). "
               "Use jax.vmap for batching.")),
    (lambda k: random.fold_in(k, 2**33), OverflowError,
     "Python integer 8589934592 out of bounds for uint32"),
    (lambda k: random.key(k), TypeError, "key accepts a scalar seed, but was given a PRNG key."),
    (lambda k: random.key(np.array([1, 2])), TypeError,
     re.escape("key accepts a scalar seed, but was given an array of shape (2,) != (). "
               "Use jax.vmap for batching")),
    (lambda k: random.key(1.0), TypeError,
     re.escape("PRNG key seed must be an integer; got JitTracer(~float32[])")),
    (lambda k: random.key(jnp.float32(1)), TypeError,
     re.escape("PRNG key seed must be an integer; got JitTracer(float32[])")),
    (lambda k: random.PRNGKey(2**64), OverflowError, "Python int too large to convert to C long"),
    (lambda k: random.key(0, impl="foo"), ValueError,
     'unrecognized PRNG implementation "foo". Did you mean one of: "threefry2x32"?'),
    (lambda k: random.key(0, impl=3), TypeError,
     "unrecognized type <class 'int'> for specifying PRNG implementation."),
    (lambda k: random.key_data(jnp.zeros(3, jnp.uint32)), TypeError,
     "expected key_data.shape to end with"),
    (lambda k: random.wrap_key_data(jnp.zeros((), jnp.uint32)), TypeError,
     "JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim=0"),
    (lambda k: random.wrap_key_data(jnp.zeros(2, jnp.int32)), TypeError,
     "expected key_data.dtype = uint32; got dtype=int32"),
    (lambda k: random.wrap_key_data(random.key_data(k), impl="threefry2x32", dtype=k.dtype),
     ValueError, "Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data"),
    (lambda k: np.asarray(k), TypeError,
     "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
     r"jax.random.key_data\(arr\) if you wish to extract the underlying integer array."),
    (lambda k: bool(k), TypeError, "key array cannot be converted to boolean."),
    (lambda k: list(k), TypeError, "iteration over a 0-d key array"),
    (lambda k: len(k), TypeError, r"len\(\) of unsized object"),
    (lambda k: k + 1, TypeError, "add does not accept dtypes key<fry>, int32."),
    (lambda k: 1 + k, TypeError, "add does not accept dtypes int32, key<fry>."),
    (lambda k: k * 2.5, TypeError, "multiply does not accept dtypes key<fry>, float32."),
])
def test_key_errors(fn, error, message):
    with pytest.raises(error, match=message):
        fn(random.key(0))


def test_config_options():
    from minijax.config import config
    # expected values from JAX 0.10.2: jax.config.jax_threefry_partitionable, jax_default_prng_impl
    assert config.jax_threefry_partitionable is True
    assert config.jax_default_prng_impl == "threefry2x32"
    with pytest.raises(NotImplementedError, match="only the partitionable threefry"):
        config.update("jax_threefry_partitionable", False)
    assert config.jax_threefry_partitionable is True
