"""Exercise 1 of chapter 13: a PRNG implementation of your own.

``minijax.random`` never hashes anything itself. Each key knows its PRNG
implementation, a :class:`~minijax.prng.PRNGImpl`: four functions on raw
key data (NumPy ``uint32`` arrays whose last axis holds the two words of a
key) that the key primitives' impl rules call (``random_seed``,
``random_split``, ``random_fold_in``, ``random_bits``, in
``minijax/prng.py``). ``register_prng`` makes an implementation known by
name, and ``random.key(0, impl="my_threefry")`` then makes keys of it, whose
dtype is ``key<myfry>``. Every sampler (``uniform``, ``normal``, ``randint``,
``permutation``...) works on them unchanged.

Write the four functions of Threefry-2x32 as JAX 0.10.2 uses it, on top of
the hash ``threefry2x32_numpy(k1, k2, x1, x2) -> (y1, y2)`` (section 2 of
the chapter; every argument a uint32 array, broadcast together):

1. ``seed(seeds)``: key data from integer seeds, shape ``seeds.shape + (2,)``:
   the high word 0 and the low word the seed as uint32 (``-1`` wraps).
2. ``split(keys, shape)``: ``keys`` has shape ``(*batch, 2)``; return
   ``(*batch, *shape, 2)``: new key ``i`` (counting in row-major order over
   ``shape``) is the hash, under the key, of the counter ``(0, i)``; both
   output words are the new key.
3. ``fold_in(keys, msgs)``: the hash of the counter ``(0, msg)`` under each
   key (``msgs`` is uint32, broadcast against the keys' batch shape).
4. ``random_bits(keys, bit_width, shape)``: ``(*batch, *shape)`` unsigned
   integers: hash the counters ``(0, i)`` as in ``split``, then xor the two
   output words into one 32-bit number; for 8 and 16 bits keep the low
   bits (``astype(np.uint8)``); for 64 bits join them instead,
   ``(y1 << 32) | y2`` as uint64.

Check it: ``make exercise-ch13`` (or ``pytest exercises/ch13/test_ex1_prng.py``):
the key data and draws of your keys must be JAX 0.10.2's bits.

Hints: to broadcast each key against the counters, reshape its words to
``(*batch, 1, ..., 1)``; the counters are ``np.arange(n, dtype=np.uint32)``
reshaped to ``shape``.
"""
import numpy as np  # noqa: F401

from minijax.prng import PRNGImpl, register_prng, threefry2x32_numpy  # noqa: F401


def seed(seeds: np.ndarray) -> np.ndarray:
    raise NotImplementedError("exercise 1 of chapter 13: seed")


def split(keys: np.ndarray, shape: tuple) -> np.ndarray:
    raise NotImplementedError("exercise 1 of chapter 13: split")


def fold_in(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    raise NotImplementedError("exercise 1 of chapter 13: fold_in")


def random_bits(keys: np.ndarray, bit_width: int, shape: tuple) -> np.ndarray:
    raise NotImplementedError("exercise 1 of chapter 13: random_bits")


IMPL = PRNGImpl(key_shape=(2,), seed=seed, split=split, random_bits=random_bits,
                fold_in=fold_in, name="my_threefry", tag="myfry")
register_prng(IMPL)
