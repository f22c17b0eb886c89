"""Exercise 1 of chapter 13, solved: a PRNG implementation of your own."""
import math

import numpy as np

from minijax.prng import PRNGImpl, register_prng, threefry2x32_numpy


def _hash_counters(keys, shape):
    """The two hash words of the counters (0, i), i < prod(shape), under each key."""
    pad = (1,) * len(shape)
    k1 = keys[..., 0].reshape(keys.shape[:-1] + pad)
    k2 = keys[..., 1].reshape(keys.shape[:-1] + pad)
    counters = np.arange(math.prod(shape), dtype=np.uint32).reshape(shape)
    return threefry2x32_numpy(k1, k2, np.uint32(0), counters)


def seed(seeds):
    seeds = np.asarray(seeds)
    return np.stack([np.zeros(seeds.shape, np.uint32), seeds.astype(np.uint32)], axis=-1)


def split(keys, shape):
    return np.stack(_hash_counters(keys, tuple(shape)), axis=-1)


def fold_in(keys, msgs):
    y1, y2 = threefry2x32_numpy(keys[..., 0], keys[..., 1], np.uint32(0),
                                np.asarray(msgs, np.uint32))
    return np.stack([y1, y2], axis=-1)


def random_bits(keys, bit_width, shape):
    y1, y2 = _hash_counters(keys, tuple(shape))
    if bit_width == 64:
        return (y1.astype(np.uint64) << np.uint64(32)) | y2
    return (y1 ^ y2).astype(f"uint{bit_width}")


IMPL = PRNGImpl(key_shape=(2,), seed=seed, split=split, random_bits=random_bits,
                fold_in=fold_in, name="my_threefry", tag="myfry")
register_prng(IMPL)
