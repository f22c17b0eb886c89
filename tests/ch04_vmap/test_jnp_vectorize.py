"""``jnp.vectorize`` and ``jnp.apply_along_axis``: NumPy's loops as ``vmap`` (chapter 04).

Values against NumPy's ``np.vectorize``/``np.apply_along_axis``; errors, shapes and
jaxprs as JAX 0.10.2 gives them."""
from functools import partial

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


@partial(jnp.vectorize, signature="(k),(k)->(k)")
def cross_product(a, b):
    assert a.shape == b.shape and a.ndim == b.ndim == 1
    return jnp.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


@partial(jnp.vectorize, signature="(n,m),(m)->(n)")
def matrix_vector_product(matrix, vector):
    assert matrix.ndim == 2 and matrix.shape[1:] == vector.shape
    return matrix @ vector


def test_the_docstring_examples_of_jax():
    # from JAX 0.10.2's docstring
    assert cross_product(jnp.ones(3), jnp.ones(3)).shape == (3,)
    assert cross_product(jnp.ones((2, 3)), jnp.ones(3)).shape == (2, 3)
    assert cross_product(jnp.ones((1, 2, 3)), jnp.ones((2, 1, 3))).shape == (2, 2, 3)
    assert matrix_vector_product(jnp.ones((2, 3)), jnp.ones(3)).shape == (2,)
    assert matrix_vector_product(jnp.ones((2, 3)), jnp.ones((4, 3))).shape == (4, 2)


def test_signature_results_match_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 1, 3)).astype(np.float32), rng.normal(size=(5, 3)).astype(
        np.float32)
    np.testing.assert_allclose(cross_product(a, b), np.cross(a, b), rtol=1e-5, atol=1e-6)
    m, v = rng.normal(size=(2, 1, 4, 3)).astype(np.float32), rng.normal(size=(5, 3)).astype(
        np.float32)
    want = np.vectorize(lambda m, v: m @ v, signature="(n,m),(m)->(n)")(m, v)
    np.testing.assert_allclose(matrix_vector_product(m, v), want, rtol=1e-5, atol=1e-6)


def test_scalar_functions_broadcast_as_numpy():
    f = jnp.vectorize(lambda x, y: jnp.where(x > y, x - y, y * 2))
    x, y = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.array([1.0, 5.0, 0.5], np.float32)
    np.testing.assert_allclose(f(x, y), np.vectorize(lambda x, y: x - y if x > y else y * 2)(x, y))
    out = jnp.vectorize(lambda x: x)(3)
    assert out.dtype == np.int32 and out.weak_type  # from JAX 0.10.2


def test_excluded_and_none_arguments():
    power = jnp.vectorize(lambda x, n: x ** n, excluded={1})
    np.testing.assert_allclose(power(jnp.arange(3.0), 2), [0.0, 1.0, 4.0])
    by_name = jnp.vectorize(lambda x, *, scale: x * scale, excluded={"scale"})
    np.testing.assert_allclose(by_name(jnp.arange(3.0), scale=3.0), [0.0, 3.0, 6.0])
    # from JAX 0.10.2: keyword arguments that are not excluded are dropped
    dropped = jnp.vectorize(lambda x, y=1.0: x * y)
    np.testing.assert_allclose(dropped(jnp.arange(3.0), y=2.0), [0.0, 1.0, 2.0])
    with_none = jnp.vectorize(lambda a, b: a + (0 if b is None else b))
    np.testing.assert_allclose(with_none(jnp.ones(2), None), [1.0, 1.0])


def test_outputs_that_are_tuples():
    pair = jnp.vectorize(lambda x: (x, 2 * x), signature="()->(),()")
    a, b = pair(jnp.arange(3.0))
    np.testing.assert_allclose(a, [0, 1, 2])
    np.testing.assert_allclose(b, [0, 2, 4])


CONTEXT = "on vectorized function with excluded=frozenset() and signature="


@pytest.mark.parametrize("call, error, message", [
    (lambda: matrix_vector_product(jnp.ones(3), jnp.ones(3)), ValueError,
     "input with shape (3,) does not have enough dimensions for all core dimensions "
     f"('n', 'm') {CONTEXT}'(n,m),(m)->(n)'"),
    (lambda: matrix_vector_product(jnp.ones((2, 3)), jnp.ones(4)), ValueError,
     f"inconsistent size for core dimension 'm': 4 vs 3 {CONTEXT}'(n,m),(m)->(n)'"),
    (lambda: jnp.vectorize(lambda x: (x, x), signature="()->()")(jnp.ones(2)), TypeError,
     f"wrong number of output arguments: expected 1, got 2 {CONTEXT}'()->()'"),
    (lambda: jnp.vectorize(lambda x: x, signature="()->(n)")(jnp.ones(2)), ValueError,
     f"output shape () does not match core dimensions ('n',) {CONTEXT}'()->(n)'"),
    (lambda: jnp.vectorize(lambda x: x, signature="bad")(1.0), ValueError,
     "not a valid gufunc signature: bad"),
    (lambda: jnp.vectorize(lambda x: x, excluded={1.5}), TypeError,
     "jax.numpy.vectorize can only exclude integer or string arguments, but excluded={1.5}"),
    (lambda: jnp.vectorize(lambda x: x, excluded={-1}), ValueError,
     "excluded={-1} contains negative numbers"),
    (lambda: jnp.vectorize(lambda x, y: x, signature="(),()->()")(jnp.ones(2)), TypeError,
     f"wrong number of positional arguments: expected 2, got 1 {CONTEXT}'(),()->()'"),
    (lambda: jnp.vectorize(lambda x, y: x + y)(jnp.ones(2), jnp.ones(3)), ValueError,
     "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
])
def test_errors_are_jax(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_jaxpr_vmaps_instead_of_broadcasting():
    # from JAX 0.10.2
    f = jnp.vectorize(lambda x, y: x * y + 1)
    assert str(minijax.make_jaxpr(f)(jnp.ones((2, 1)), jnp.ones(3))) == """\
{ lambda ; a:f32[2,1] b:f32[3]. let
    c:f32[2] = squeeze[dimensions=(1,)] a
    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    e:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
    f:f32[2,3] = mul e d
    g:f32[2,3] = add f 1.0:f32[]
  in (g,) }"""


def test_vectorize_under_grad():
    h = jnp.vectorize(lambda x: jnp.sum(x ** 2), signature="(n)->()")
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(minijax.grad(lambda x: h(x).sum())(x), 2 * x)


def test_vectorize_under_jit(jit_backend):
    h = jnp.vectorize(lambda x: jnp.sum(x ** 2), signature="(n)->()")
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(minijax.jit(h)(x), (x ** 2).sum(1))
    np.testing.assert_allclose(minijax.jit(matrix_vector_product)(np.ones((2, 3), np.float32),
                                                                  np.ones((4, 3), np.float32)),
                               np.full((4, 2), 3.0))


# --- apply_along_axis ------------------------------------------------------------------

M = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("func1d, np_func1d", [
    (jnp.diff, np.diff), (jnp.sum, np.sum),
    (lambda x: jnp.stack([x.min(), x.max()]), lambda x: np.stack([x.min(), x.max()])),
])
def test_apply_along_axis_matches_numpy(func1d, np_func1d, axis):
    want = np.apply_along_axis(np_func1d, axis, M)
    np.testing.assert_allclose(jnp.apply_along_axis(func1d, axis, M), want)


def test_apply_along_axis_extra_arguments_and_jaxpr():
    np.testing.assert_allclose(jnp.apply_along_axis(jnp.roll, 1, M, 1), np.roll(M, 1, axis=1))
    # from JAX 0.10.2
    text = str(minijax.make_jaxpr(lambda x: jnp.apply_along_axis(jnp.sum, 1, x))(M))
    assert text == ("{ lambda ; a:f32[2,3,4]. let\n"
                    "    b:f32[2,4] = reduce_sum[axes=(np.int64(1),) out_sharding=None] a\n  in (b,) }")


def test_apply_along_axis_under_jit(jit_backend):
    f = minijax.jit(lambda x: jnp.apply_along_axis(lambda v: v * v.sum(), 2, x))
    np.testing.assert_allclose(f(M), M * M.sum(2, keepdims=True))
