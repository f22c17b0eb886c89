"""Printed jaxprs of random programs, character for character as JAX 0.10.2 prints them.

The samplers are jitted as in JAX (``jit[name=_uniform ...]``), key types print
as ``key<fry>[]``, and the key primitives show their parameters
(``random_bits[bit_width=32 shape=(3,)]``, ``random_wrap[impl=fry]``).
"""
import pytest

import minijax
import minijax.numpy as jnp
from minijax import random
from minijax.jit import jit

from jax_random_jaxprs import EXPECTED, XFAIL


def _programs():
    k, K = random.key(0), random.PRNGKey(0)
    ks = random.split(k, 4)
    return {
        "uniform_typed": (lambda k: random.uniform(k, (3,)), (k,)),
        "uniform_legacy": (lambda k: random.uniform(k, (3,)), (K,)),
        "uniform_scalar": (lambda k: random.uniform(k), (k,)),
        "uniform_mm": (lambda k: random.uniform(k, (2, 3), minval=-1., maxval=jnp.ones(3)), (k,)),
        "uniform_f16": (lambda k: random.uniform(k, (4,), jnp.float16), (k,)),
        "normal": (lambda k: random.normal(k, (3,)), (K,)),
        "split": (lambda k: random.split(k), (K,)),
        "split_typed": (lambda k: random.split(k, (2, 3)), (k,)),
        "fold_in": (lambda k: random.fold_in(k, 3), (k,)),
        "fold_in_traced": (lambda k, i: random.fold_in(k, i), (k, 3)),
        "seed": (lambda s: random.key(s), (0,)),
        "prngkey": (lambda s: random.PRNGKey(s), (0,)),
        "bits": (lambda k: random.bits(k, (2,)), (k,)),
        "bits8": (lambda k: random.bits(k, (2,), jnp.uint8), (k,)),
        "key_data": (lambda k: random.key_data(k), (k,)),
        "wrap": (lambda k: random.wrap_key_data(k), (K,)),
        "unpack": (lambda k: [random.uniform(a, (2,)) for a in random.split(k)], (k,)),
        "index": (lambda k: random.split(k, 3)[1], (k,)),
        "randint": (lambda k: random.randint(k, (3,), 0, 10), (k,)),
        "bernoulli": (lambda k: random.bernoulli(k, 0.3, (3,)), (k,)),
        "perm": (lambda k: random.permutation(k, 5), (k,)),
        "choice_nr": (lambda k: random.choice(k, 5, (3,), replace=False), (k,)),
        "cat": (lambda k, logits: random.categorical(k, logits), (k, jnp.zeros(3))),
        "exp": (lambda k: random.exponential(k, (3,)), (k,)),
        "gumbel": (lambda k: random.gumbel(k, (3,)), (k,)),
        "laplace": (lambda k: random.laplace(k, (3,)), (k,)),
        "logistic": (lambda k: random.logistic(k, (3,)), (k,)),
        "tn": (lambda k: random.truncated_normal(k, -1., 1., (3,)), (k,)),
        "vmap_bits": (minijax.vmap(lambda k: random.bits(k, (2,))), (ks,)),
        "vmap_normal": (minijax.vmap(lambda k: random.normal(k, (2,))), (ks,)),
        "vmap_split": (minijax.vmap(lambda k: random.split(k)), (ks,)),
        "vmap_fold": (minijax.vmap(lambda k, i: random.fold_in(k, i)), (ks, jnp.arange(4))),
        "vmap_seed": (minijax.vmap(random.key), (jnp.arange(3),)),
        "jit_split": (jit(lambda k: random.split(k)), (k,)),
    }


def _params():
    for name in EXPECTED:
        marks = [pytest.mark.xfail(reason=XFAIL[name], strict=False)] if name in XFAIL else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_printed_jaxpr(name):
    fn, args = _programs()[name]
    assert str(minijax.make_jaxpr(fn)(*args)) == EXPECTED[name]


def test_every_program_has_an_expectation():
    assert set(_programs()) == set(EXPECTED)
