"""The threefry2x32 hash: known answers, an independent scalar version, the primitive's rules."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.numpy as jnp
from minijax import prng, random
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batching_rules
from minijax.primitives import abstract_eval_rules, impl_rules

M32 = 0xFFFFFFFF


def threefry_scalar(k1, k2, x1, x2):
    """Threefry-2x32, 20 rounds, on Python ints: the specification (Salmon et al. 2011)."""
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [k1, k2, k1 ^ k2 ^ 0x1BD11BDA]
    x1, x2 = (x1 + ks[0]) & M32, (x2 + ks[1]) & M32
    for i in range(20):
        r = rot[i % 8]
        x1 = (x1 + x2) & M32
        x2 = ((x2 << r) | (x2 >> (32 - r))) & M32
        x2 ^= x1
        if i % 4 == 3:
            s = i // 4 + 1
            x1 = (x1 + ks[s % 3]) & M32
            x2 = (x2 + ks[(s + 1) % 3] + s) & M32
    return x1, x2


# Random123's known-answer tests (threefry2x32_20), also in JAX's test suite.
KATS = [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((M32, M32), (M32, M32), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("key,count,expected", KATS)
def test_known_answers(key, count, expected):
    assert threefry_scalar(*key, *count) == expected
    out = prng.threefry2x32_numpy(np.uint32(key[0]), np.uint32(key[1]),
                                  np.uint32(count[0]), np.uint32(count[1]))
    assert tuple(int(o) for o in out) == expected
    np.testing.assert_array_equal(prng.threefry_2x32(np.uint32(key), np.uint32(count)),
                                  np.uint32(expected))


@given(st.lists(st.integers(0, M32), min_size=4, max_size=4))
def test_numpy_version_matches_the_scalar_one(words):
    out = prng.threefry2x32_numpy(*(np.uint32(w) for w in words))
    assert tuple(int(o) for o in out) == threefry_scalar(*words)


def test_numpy_version_broadcasts():
    k1, k2 = np.uint32(7), np.arange(3, dtype=np.uint32).reshape(3, 1)
    x1, x2 = np.zeros(4, np.uint32), np.arange(4, dtype=np.uint32)
    y1, y2 = prng.threefry2x32_numpy(k1, k2, x1, x2)
    assert y1.shape == y2.shape == (3, 4) and y1.dtype == np.uint32
    assert (int(y1[2, 3]), int(y2[2, 3])) == threefry_scalar(7, 2, 0, 3)


def test_threefry_2x32_reference_function():
    # expected values from JAX 0.10.2: threefry_2x32(uint32[1, 2], arange(5)) (odd size: padded)
    out = prng.threefry_2x32(np.uint32([1, 2]), np.arange(5, dtype=np.uint32))
    np.testing.assert_array_equal(
        out, np.array([2052595727, 3504730591, 2527474599, 1880214352, 1914734168], np.uint32))
    with pytest.raises(TypeError, match=r"threefry_2x32 requires uint32 arguments, got "
                       r"\[dtype\('int32'\), dtype\('int32'\), dtype\('uint32'\)\]"):
        prng.threefry_2x32(np.int32([1, 2]), np.uint32([3]))


def test_primitive_rules_registered():
    p = prng.threefry2x32_p
    assert p.name == "threefry2x32" and p.multiple_results
    assert p in impl_rules and p in abstract_eval_rules and p in batching_rules
    assert p not in jvp_rules  # as in JAX: uint32 operands only ever have zero tangents


def test_primitive_abstract_eval():
    u32 = lambda *s: np.zeros(s, np.uint32)  # noqa: E731
    jaxpr = minijax.make_jaxpr(lambda *a: prng.threefry2x32_p.bind(*a))(
        np.uint32(1), np.uint32(2), u32(3), u32(3))
    # expected values from JAX 0.10.2
    assert str(jaxpr) == ("{ lambda ; a:u32[] b:u32[] c:u32[3] d:u32[3]. let\n"
                          "    e:u32[3] f:u32[3] = threefry2x32 a b c d\n"
                          "  in (e, f) }")
    with pytest.raises(TypeError, match=r"Arguments to threefry2x32 must have uint32 type, got "
                       r"\(ShapedArray\(float32\[\]\), ShapedArray\(uint32\[\]\)"):
        prng.threefry2x32_p.bind(np.float32(1), np.uint32(2), np.uint32(3), np.uint32(4))


def test_primitive_under_vmap_equals_a_loop():
    k1 = np.arange(2, dtype=np.uint32)
    counts = np.arange(6, dtype=np.uint32).reshape(2, 3)
    x2 = np.arange(3, dtype=np.uint32)
    f = lambda a, c: prng.threefry2x32_p.bind(a, np.uint32(2), c, x2)  # noqa: E731
    y1, y2 = minijax.vmap(f)(k1, counts)
    for i in range(2):
        for j in range(3):
            assert (int(y1[i, j]), int(y2[i, j])) == threefry_scalar(i, 2, 3 * i + j, j)


def test_jvp_through_keys_is_zero(jit_backend):
    k = random.key(0)
    y, t = minijax.jvp(lambda x: x * random.normal(k), (1.,), (1.,))
    # expected values from JAX 0.10.2: normal(key(0)) = 1.6226422 (primal == tangent)
    np.testing.assert_allclose([y, t], [1.6226422, 1.6226422], rtol=1e-6)
    assert jnp.asarray(y).dtype == np.float32
