"""Check of exercise 1 of chapter 13: a PRNG implementation of your own (``ex1_prng.py``).

Every expected value is JAX 0.10.2's, for the same seed with its default
(threefry2x32) implementation.
"""
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import random
from _load import load

ex = load(__file__, "ex1_prng")


def key(seed):
    return random.key(seed, impl="my_threefry")


def data(keys):
    return random.key_data(keys).tolist()


def test_keys_are_yours():
    k = key(0)
    assert str(k.dtype) == "key<myfry>" and random.key_impl(k) == "my_threefry"


def test_seed():
    assert data(key(42)) == [0, 42]                      # from JAX 0.10.2
    assert data(key(-1)) == [0, 4294967295]              # from JAX 0.10.2


def test_split():
    # from JAX 0.10.2
    assert data(random.split(key(0), 3)) == [[1797259609, 2579123966], [928981903, 3453687069],
                                             [4146024105, 2718843009]]
    assert data(random.split(key(7), (2, 2))) == [
        [[3625411723, 1954958720], [195045567, 4062205631]],
        [[966301609, 1948237315], [276534068, 1641862660]]]


def test_fold_in():
    assert data(random.fold_in(key(0), 5)) == [1524306142, 1887795613]          # from JAX 0.10.2
    assert data(random.fold_in(key(3), 2**31 + 7)) == [3805548525, 2372905038]   # from JAX 0.10.2


def test_bits():
    # from JAX 0.10.2
    assert random.bits(key(0), (5,)).tolist() == [4070199207, 4202968722, 1427181096,
                                                  2012915765, 2447653815]
    assert random.bits(key(1), (6,), jnp.uint8).tolist() == [183, 62, 122, 241, 164, 188]
    assert random.bits(key(1), (6,), jnp.uint16).tolist() == [14519, 2110, 46458, 49137,
                                                              37796, 5820]


def test_samplers_on_your_keys():
    bits = lambda x: np.asarray(x).view(np.uint32).tolist()   # noqa: E731
    # from JAX 0.10.2
    assert bits(random.uniform(key(42), (5,))) == [1056585764, 1059981104, 1058915320,
                                                   1057988288, 1055308516]
    assert bits(random.normal(key(42), (4,))) == [3169312533, 1055861736, 1050109537,
                                                  1042103076]
    assert random.randint(key(3), (6,), 0, 100).tolist() == [95, 39, 5, 54, 16, 72]
    assert random.permutation(key(3), 8).tolist() == [0, 5, 6, 7, 4, 2, 1, 3]
    keys = random.split(key(11), 3)
    assert bits(minijax.vmap(lambda k: random.uniform(k, (2,)))(keys)) == [
        [1052881964, 1049694264], [1058815530, 943456256], [1059330070, 1052509696]]


def test_under_jit():
    uniform = minijax.jit(lambda k: random.uniform(k, (5,)))
    # from JAX 0.10.2 (the same draws as eagerly)
    assert np.asarray(uniform(key(42))).view(np.uint32).tolist() == [
        1056585764, 1059981104, 1058915320, 1057988288, 1055308516]
