"""Check of exercise 2 of chapter 13: samplers from random bits (``ex2_samplers.py``)."""
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import random
from _load import load

ex = load(__file__, "ex2_samplers")


def bits(x, width=32):
    return np.asarray(x).view(f"uint{width}").tolist()


def test_uniform_is_jaxs():
    # from JAX 0.10.2
    assert bits(ex.uniform(random.key(42), (5,))) == [1056585764, 1059981104, 1058915320,
                                                      1057988288, 1055308516]
    assert bits(ex.uniform(random.key(5), (4,), jnp.float16), 16) == [14692, 15074, 11200, 13356]
    # With minval and maxval, XLA fuses ``u * (maxval - minval) + minval`` into one
    # fused multiply-add, which rounds once where two operations round twice: the
    # last bit may differ (chapter 13, section 6).
    scaled = np.array(bits(ex.uniform(random.key(5), (4,), minval=-2.0, maxval=3.0)), np.int64)
    jax_bits = np.array([1051324088, 1076276883, 1071049507, 3217237467], np.int64)
    assert np.abs(scaled - jax_bits).max() <= 1


def test_exponential_is_jaxs():
    # from JAX 0.10.2
    assert bits(ex.exponential(random.key(9), (6,))) == [1026197283, 1079733082, 1057710718,
                                                         1037855007, 1048689017, 1071590366]
    assert bits(ex.exponential(random.key(9), (4,), jnp.float16), 16) == [14466, 12609, 14400,
                                                                          16381]


def test_statistics():
    u = np.asarray(ex.uniform(random.key(1), (200_000,)), np.float64)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    e = np.asarray(ex.exponential(random.key(2), (200_000,)), np.float64)
    assert e.min() >= 0.0
    assert abs(e.mean() - 1.0) < 0.01 and abs(e.var() - 1.0) < 0.03   # Exp(1): mean 1, var 1
    assert abs(np.mean(e > 1.0) - np.exp(-1.0)) < 0.005                # P(X > 1) = 1/e


def test_under_jit_and_vmap():
    keys = random.split(random.key(11), 3)
    jitted = minijax.jit(lambda k: ex.uniform(k, (2,)))
    # from JAX 0.10.2: vmap(lambda k: random.uniform(k, (2,)))(split(key(11), 3))
    expected = [[1052881964, 1049694264], [1058815530, 943456256], [1059330070, 1052509696]]
    assert bits(minijax.vmap(jitted)(keys)) == expected
