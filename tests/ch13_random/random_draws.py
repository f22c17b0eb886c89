"""The draws the chapter 13 tests compare with JAX, written once for both libraries.

Each draw is a function of ``(random, jnp, key)`` (and ``lax``, ``vmap`` for the
transformation draws), so the same code runs under ``import jax`` (to make
``jax_random_values.py``) and under ``import minijax`` (in the tests).
"""
import numpy as np

#: name -> function(random) -> key
KEYS = {
    "key0": lambda random: random.key(0),
    "key42": lambda random: random.key(42),
    "keyneg7": lambda random: random.key(-7),
    "legacy1": lambda random: random.PRNGKey(1),
    "keymax": lambda random: random.key(2**31 - 1),
}

SEEDS = [0, 1, -1, 2**31 - 1, 2**32 + 5, 2**40, 2**63 - 1]


def key_data(random, k):
    return np.asarray(random.key_data(k))


def _split_tree(random, jnp, k):
    a, b = random.split(k)
    return np.stack([key_data(random, random.split(a)), key_data(random, random.split(b))])


_P4 = [0.1, 0.2, 0.3, 0.4]

#: draws whose every bit must equal JAX's
EXACT = {
    "split": lambda random, jnp, k: key_data(random, random.split(k)),
    "split3": lambda random, jnp, k: key_data(random, random.split(k, 3)),
    "split2x2": lambda random, jnp, k: key_data(random, random.split(k, (2, 2))),
    "split_tree": _split_tree,
    "fold_in": lambda random, jnp, k: np.stack(
        [key_data(random, random.fold_in(k, d)) for d in (0, 1, 7, 2**32 - 1)]),
    "fold_split": lambda random, jnp, k: key_data(random, random.split(random.fold_in(k, 3))),
    "bits": lambda random, jnp, k: random.bits(k, (8,)),
    "bits_u8": lambda random, jnp, k: random.bits(k, (2, 3), jnp.uint8),
    "bits_u16": lambda random, jnp, k: random.bits(k, (5,), jnp.uint16),
    "bits_scalar": lambda random, jnp, k: random.bits(k),
    "uniform": lambda random, jnp, k: random.uniform(k, (8,)),
    "uniform_f16": lambda random, jnp, k: random.uniform(k, (8,), jnp.float16),
    "uniform_scalar": lambda random, jnp, k: random.uniform(k),
    "uniform_2x3": lambda random, jnp, k: random.uniform(k, (2, 3)),
    "randint": lambda random, jnp, k: random.randint(k, (8,), 0, 10),
    "randint_wide": lambda random, jnp, k: random.randint(k, (6,), -1000, 2**31 - 1),
    "randint_u8": lambda random, jnp, k: random.randint(k, (8,), 0, 256, jnp.uint8),
    "randint_i8": lambda random, jnp, k: random.randint(k, (8,), -100, 100, jnp.int8),
    "randint_u32": lambda random, jnp, k: random.randint(k, (6,), 3, jnp.uint32(2**32 - 1),
                                                         jnp.uint32),
    "randint_empty": lambda random, jnp, k: random.randint(k, (4,), 5, 2),
    "randint_arr": lambda random, jnp, k: random.randint(k, (2, 3), jnp.array([0, 10, 100]), 1000),
    "bernoulli": lambda random, jnp, k: random.bernoulli(k, 0.3, (16,)),
    "bernoulli_p": lambda random, jnp, k: random.bernoulli(k, jnp.array([0.1, 0.5, 0.9])),
    "bernoulli_high": lambda random, jnp, k: random.bernoulli(k, 0.3, (8,), mode="high"),
    "permutation": lambda random, jnp, k: random.permutation(k, 10),
    "permutation_axis1": lambda random, jnp, k: random.permutation(
        k, jnp.arange(12).reshape(3, 4), axis=1),
    "permutation_indep": lambda random, jnp, k: random.permutation(
        k, jnp.arange(12).reshape(3, 4), axis=1, independent=True),
    "choice": lambda random, jnp, k: random.choice(k, 10, (5,)),
    "choice_noreplace": lambda random, jnp, k: random.choice(k, 10, (5,), replace=False),
    "choice_p": lambda random, jnp, k: random.choice(k, jnp.arange(4) * 10, (6,),
                                                     p=jnp.array(_P4)),
    "choice_p_noreplace": lambda random, jnp, k: random.choice(k, 4, (3,), replace=False,
                                                               p=jnp.array(_P4)),
    "choice_axis1": lambda random, jnp, k: random.choice(k, jnp.arange(12).reshape(3, 4), (2,),
                                                         axis=1),
    "categorical": lambda random, jnp, k: random.categorical(k, jnp.array([0., 1., 2.]),
                                                             shape=(12,)),
    "categorical_2d": lambda random, jnp, k: random.categorical(
        k, jnp.log(jnp.array([[0.2, 0.8], [0.5, 0.5], [0.9, 0.1]]))),
    "categorical_axis0": lambda random, jnp, k: random.categorical(k, jnp.zeros((2, 5)), axis=0),
    "categorical_noreplace": lambda random, jnp, k: random.categorical(
        k, jnp.array([0., 1., 2., 3.]), shape=(2,), replace=False),
}

#: draws through transcendental functions (erf_inv, log, log1p) or a fused
#: multiply-add in XLA: equal to JAX's up to a few ulps
CLOSE = {
    "normal": lambda random, jnp, k: random.normal(k, (8,)),
    "normal_f16": lambda random, jnp, k: random.normal(k, (8,), jnp.float16),
    "normal_c64": lambda random, jnp, k: random.normal(k, (4,), jnp.complex64),
    "uniform_minmax": lambda random, jnp, k: random.uniform(k, (6,), minval=-2., maxval=5.),
    "truncated_normal": lambda random, jnp, k: random.truncated_normal(k, -1., 2., (8,)),
    "exponential": lambda random, jnp, k: random.exponential(k, (8,)),
    "gumbel": lambda random, jnp, k: random.gumbel(k, (8,)),
    "gumbel_high": lambda random, jnp, k: random.gumbel(k, (8,), mode="high"),
    "laplace": lambda random, jnp, k: random.laplace(k, (8,)),
    "logistic": lambda random, jnp, k: random.logistic(k, (8,)),
    "multivariate_normal": lambda random, jnp, k: random.multivariate_normal(
        k, jnp.array([1., 2.]), jnp.array([[4., 2.], [2., 3.]]), (3,)),
}

#: large draws, compared by a digest of their bytes
LARGE = {
    "bits": lambda random, jnp, k: random.bits(k, (10000,)),
    "uniform": lambda random, jnp, k: random.uniform(k, (100, 100)),
    "randint": lambda random, jnp, k: random.randint(k, (10000,), -5, 1234),
    "permutation": lambda random, jnp, k: random.permutation(k, 2000),
    "split": lambda random, jnp, k: key_data(random, random.split(k, 1000)),
}


def digest(a) -> str:
    import hashlib
    a = np.ascontiguousarray(np.asarray(a))
    return f"{a.dtype.str}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:20]


def _scan_split(random, lax, k):
    def body(c, _):
        c, sub = random.split(c)
        return c, random.uniform(sub, (2,))
    carry, ys = lax.scan(body, k, None, length=4)
    return key_data(random, carry), np.asarray(ys)


def _scan_fold_in(random, jnp, lax, k):
    def body(c, i):
        return c, random.bits(random.fold_in(c, i), (2,))
    return lax.scan(body, k, jnp.arange(3))[1]


#: draws under vmap, scan and fori_loop: function(random, jnp, lax, vmap) -> array
TRANSFORMS = {
    "vmap_bits": lambda random, jnp, lax, vmap: vmap(lambda k: random.bits(k, (3,)))(
        random.split(random.key(0), 4)),
    "vmap_uniform_legacy": lambda random, jnp, lax, vmap: vmap(lambda k: random.uniform(k, (3,)))(
        random.split(random.PRNGKey(0), 4)),
    "vmap_split": lambda random, jnp, lax, vmap: key_data(random, vmap(random.split)(
        random.split(random.key(0), 3))),
    "vmap_fold_in": lambda random, jnp, lax, vmap: key_data(
        random, vmap(random.fold_in, in_axes=(None, 0))(random.key(0), jnp.arange(4))),
    "vmap_key": lambda random, jnp, lax, vmap: key_data(random, vmap(random.key)(jnp.arange(3))),
    "vmap_randint": lambda random, jnp, lax, vmap: vmap(lambda k: random.randint(k, (3,), 0, 100))(
        random.split(random.key(0), 2)),
    "vmap_axis1": lambda random, jnp, lax, vmap: vmap(vmap(lambda k: random.bits(k, (2,))),
                                                      in_axes=1)(random.split(random.key(0), (2, 3))),
    "vmap_permutation": lambda random, jnp, lax, vmap: vmap(lambda k: random.permutation(k, 5))(
        random.split(random.key(0), 3)),
    "scan_carry": lambda random, jnp, lax, vmap: _scan_split(random, lax, random.key(0))[0],
    "scan_ys": lambda random, jnp, lax, vmap: _scan_split(random, lax, random.key(0))[1],
    "scan_fold_in": lambda random, jnp, lax, vmap: _scan_fold_in(random, jnp, lax, random.key(0)),
    "fori_split": lambda random, jnp, lax, vmap: key_data(random, lax.fori_loop(
        0, 3, lambda i, c: random.split(c)[0], random.key(0))),
}
