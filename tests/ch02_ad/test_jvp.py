"""Chapter 02: ``jvp`` and ``jacfwd`` — the API, float0, pytrees, nesting, errors.

Derivatives are checked against closed forms computed with NumPy; dtypes,
weak types and error messages against JAX 0.10.2 (hard-coded).
"""
import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything, pytrees included)
import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.ad import JVPTracer, Zero, float0, jacfwd, jvp

F32 = np.float32


def _check(x, value, dtype="float32", weak=False, shape=None):
    np.testing.assert_allclose(np.asarray(x), value, rtol=1e-6, atol=1e-7)
    assert x.dtype == np.dtype(dtype)
    assert bool(x.weak_type) == weak
    if shape is not None:
        assert x.shape == shape


# --- basics ----------------------------------------------------------------------------
def test_jvp_of_sin():
    # expected values from JAX 0.10.2
    y, t = jvp(jnp.sin, (0.1,), (0.2,))
    _check(y, 0.09983342, weak=True)
    _check(t, 0.19900084, weak=True)


def test_jvp_is_linear_in_the_tangent():
    x = np.linspace(-1, 1, 5).astype(F32)
    f = lambda x: jnp.sin(x) * x ** 2
    _, t1 = jvp(f, (x,), (np.ones(5, F32),))
    _, t3 = jvp(f, (x,), (3 * np.ones(5, F32),))
    np.testing.assert_allclose(t3, 3 * np.asarray(t1), rtol=1e-6)
    np.testing.assert_allclose(t1, np.cos(x) * x ** 2 + 2 * x * np.sin(x), rtol=1e-5, atol=1e-7)


def test_several_arguments_and_outputs():
    x, y = np.float32(2.0), np.float32(3.0)
    (a, b), (ta, tb) = jvp(lambda x, y: (x * y, x + y), (x, y), (np.float32(1), np.float32(10)))
    assert (float(a), float(b), float(ta), float(tb)) == (6.0, 5.0, 23.0, 11.0)


def test_identity_returns_the_inputs_themselves():
    # expected values from JAX 0.10.2: a Python float in, the same float out
    y, t = jvp(lambda x: x, (1.0,), (2.0,))
    assert type(y) is float and type(t) is float and (y, t) == (1.0, 2.0)


def test_constant_output_has_instantiated_zero_tangent():
    # expected values from JAX 0.10.2
    y, t = jvp(lambda x: 3.0, (1.0,), (1.0,))
    assert y == 3.0
    _check(t, 0.0, weak=True)
    y, t = jvp(lambda x: jnp.ones(3), (jnp.ones(3),), (jnp.ones(3),))
    _check(t, np.zeros(3), shape=(3,))


def test_tracer_repr_and_concrete_primal():
    seen = []

    def f(x):
        seen.append(repr(x))
        if x > 0:  # a comparison has a zero tangent: a concrete boolean
            return x * int(x)
        return -x
    y, t = jvp(f, (2.0,), (1.0,))
    # expected values from JAX 0.10.2
    assert seen == ["JVPTracer(primal=2.0, tangent=1.0)"]
    assert (float(y), float(t)) == (4.0, 2.0)


def test_tracer_is_a_jvp_tracer_with_aval():
    def f(x):
        assert isinstance(x, JVPTracer)
        assert x.shape == (2,) and x.dtype == np.float32 and x.ndim == 2 - 1
        return x
    jvp(f, (jnp.ones(2),), (jnp.ones(2),))


# --- float0 and integers ---------------------------------------------------------------------
def test_float0_is_jaxs():
    assert float0 == np.dtype([("float0", "V")])
    assert float0.itemsize == 0


def test_integer_input_takes_float0_tangent():
    # expected values from JAX 0.10.2
    y, t = jvp(lambda x: x * 2, (jnp.ones(3, jnp.int32),), (np.zeros(3, float0),))
    np.testing.assert_array_equal(y, [2, 2, 2])
    assert y.dtype == np.int32
    assert isinstance(t, np.ndarray) and t.dtype == float0 and t.shape == (3,)


def test_integer_and_boolean_outputs_get_float0_tangents():
    (y, b), (t, tb) = jvp(lambda x: (jnp.round(x).astype(jnp.int32), x > 1),
                          (jnp.array([0.4, 1.6]),), (jnp.ones(2),))
    np.testing.assert_array_equal(y, [0, 2])
    assert t.dtype == float0 and t.shape == (2,)
    assert tb.dtype == float0 and tb.shape == (2,)


def test_integer_input_passes_through_unwrapped():
    # as in JAX, an input with a float0 tangent is not traced at all
    def f(x):
        assert type(x) is int
        return x
    y, t = jvp(f, (3,), (np.zeros((), float0),))
    assert y == 3 and t.dtype == float0


def test_mixed_float_and_integer_inputs():
    y, t = jvp(lambda x, n: x * n, (np.float32(1.5), 4), (np.float32(1.0), np.zeros((), float0)))
    _check(y, 6.0)
    _check(t, 4.0)


def test_unsigned_and_bool_inputs_take_float0():
    y, t = jvp(lambda x: x, (np.ones(2, np.uint8),), (np.zeros(2, float0),))
    assert t.dtype == float0
    y, t = jvp(lambda x: x, (True,), (np.zeros((), float0),))
    assert y is True and t.dtype == float0


# --- error messages (copied from JAX 0.10.2) ---------------------------------------------------
_DTYPE_MSG = ("primal and tangent arguments to jax.jvp do not match; dtypes must be equal, "
              "or in case of int/bool primal dtype the tangent dtype must be float0."
              "Got primal dtype {} and so expected tangent dtype {}, but got tangent dtype "
              "{} instead.")

ERRORS = [
    (lambda: jvp(jnp.sin, 1.0, 1.0), TypeError,
     "primal and tangent arguments to jax.jvp must be tuples or lists; found float and float."),
    (lambda: jvp(jnp.sin, (1.0,), [1.0]), TypeError,
     "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
     "tree structure PyTreeDef((*,)) whereas tangents have tree structure PyTreeDef([*])."),
    (lambda: jvp(lambda x, y: x, (1.0, 2.0), (1.0,)), TypeError,
     "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
     "tree structure PyTreeDef((*, *)) whereas tangents have tree structure PyTreeDef((*,))."),
    (lambda: jvp(lambda x: x, ({'a': 1.0},), ({'b': 1.0},)), TypeError,
     "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
     "tree structure PyTreeDef(({'a': *},)) whereas tangents have tree structure "
     "PyTreeDef(({'b': *},))."),
    (lambda: jvp(lambda x: x, (None,), (1.0,)), TypeError,
     "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
     "tree structure PyTreeDef((None,)) whereas tangents have tree structure PyTreeDef((*,))."),
    (lambda: jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),)), ValueError,
     "jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent "
     "shape as (2,)"),
    (lambda: jvp(lambda x: x, (jnp.ones((1,)),), (jnp.ones(()),)), ValueError,
     "jvp called with different primal and tangent shapes;Got primal shape (1,) and tangent "
     "shape as ()"),
    (lambda: jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(3, jnp.int32),)), TypeError,
     _DTYPE_MSG.format("float32", "float32", "int32")),
    (lambda: jvp(lambda x: x, (jnp.ones(3, jnp.int32),), (jnp.ones(3, jnp.int32),)), TypeError,
     _DTYPE_MSG.format("int32", "[('float0', 'V')]", "int32")),
    (lambda: jvp(lambda x: x, (1,), (1.0,)), TypeError,
     _DTYPE_MSG.format("int32", "[('float0', 'V')]", "float32")),
    (lambda: jvp(lambda x: x, (True,), (True,)), TypeError,
     _DTYPE_MSG.format("bool", "[('float0', 'V')]", "bool")),
    (lambda: jvp(lambda x: x, (jnp.ones(3),), (np.zeros(3, float0),)), TypeError,
     _DTYPE_MSG.format("float32", "float32", "[('float0', 'V')]")),
    (lambda: jvp(lambda x: x, (1.0,), (jnp.float16(1.0),)), TypeError,
     _DTYPE_MSG.format("float32", "float32", "float16")),
    (lambda: jvp(lambda x: x, ("a",), (1.0,)), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type"),
    (lambda: jvp(lambda x: "a", (1.0,), (1.0,)), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type"),
    (lambda: jvp(1, (1.0,), (1.0,)), TypeError, "Expected a callable value, got 1"),
    (lambda: jacfwd(1), TypeError, "Expected a callable value, got 1"),
    (lambda: jacfwd(lambda x: x)(1), TypeError,
     "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), "
     "but got int32. For holomorphic differentiation, pass holomorphic=True. For "
     "differentiation of non-holomorphic functions involving complex inputs or integer "
     "inputs, use jax.jvp directly."),
    (lambda: jacfwd(lambda x: x, holomorphic=True)(1.0), TypeError,
     "jacfwd with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: jacfwd(lambda x: x.real, holomorphic=True)(1.0j), TypeError,
     "jacfwd with holomorphic=True requires outputs with complex dtype, but got float32."),
    (lambda: jacfwd(lambda x: x, argnums=2)(1.0), ValueError,
     "Positional argument indices, e.g. for `static_argnums`, must have value greater than or "
     "equal to -len(args) and less than len(args), but got value 2 for len(args) == 1."),
    (lambda: jacfwd(lambda x: x, argnums=1.0), TypeError, "'float' object is not iterable"),
]


@pytest.mark.parametrize("fn,cls,msg", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_error_messages_are_jaxs(fn, cls, msg):
    with pytest.raises(cls) as info:
        fn()
    assert str(info.value) == msg


def test_missing_rule_message():
    with pytest.raises(NotImplementedError) as info:
        jvp(lambda x: lax.nextafter(x, 1.0), (0.5,), (1.0,))
    assert str(info.value) == "Differentiation rule for 'nextafter' not implemented"


# --- pytrees and has_aux ------------------------------------------------------------------------
def test_dict_and_list_arguments_and_outputs():
    def f(d):
        return {"prod": d["a"] * d["b"][0], "pair": [d["a"], 3.0]}
    y, t = jvp(f, ({"a": 2., "b": [3.]},), ({"a": 1., "b": [10.]},))
    assert set(y) == {"prod", "pair"} and isinstance(y["pair"], list)
    assert float(y["prod"]) == 6.0 and float(t["prod"]) == 23.0
    assert float(t["pair"][0]) == 1.0 and float(t["pair"][1]) == 0.0


def test_primals_may_be_a_list():
    y, t = jvp(lambda a, b: a * b, [2.0, 3.0], [1.0, 0.0])
    assert float(y) == 6.0 and float(t) == 3.0


def test_none_leaves_are_structure():
    y, t = jvp(lambda x, n: x, (1.0, None), (1.0, None))
    assert (y, t) == (1.0, 1.0)


def test_has_aux():
    # expected values from JAX 0.10.2
    y, t, aux = jvp(lambda x: (x * 2, {"x": x, "y": x * 3}), (1.0,), (1.0,), has_aux=True)
    _check(y, 2.0, weak=True)
    _check(t, 2.0, weak=True)
    assert aux["x"] == 1.0 and not isinstance(aux["y"], JVPTracer)
    _check(aux["y"], 3.0, weak=True)
    y, t, aux = jvp(lambda x: (x, 1), (1.0,), (1.0,), has_aux=True)
    assert (y, t, aux) == (1.0, 1.0, 1)


# --- nesting: higher derivatives and perturbation confusion --------------------------------------
def derivative(f):
    return lambda x: jvp(f, (x,), (jnp.ones_like(x),))[1]


def test_second_and_third_derivatives():
    x = np.linspace(-2, 2, 7).astype(F32)
    np.testing.assert_allclose(derivative(derivative(jnp.sin))(x), -np.sin(x), atol=1e-6)
    np.testing.assert_allclose(derivative(derivative(derivative(jnp.sin)))(x), -np.cos(x),
                               atol=1e-6)
    f = lambda x: jnp.exp(x) * x ** 3
    np.testing.assert_allclose(derivative(derivative(f))(x),
                               np.exp(x) * (x ** 3 + 6 * x ** 2 + 6 * x), rtol=1e-5, atol=1e-5)


def test_jvp_of_jvp_returns_all_four_parts():
    # d/dx of (sin x, cos x): the inner jvp's outputs are traced by the outer one
    (y, t), (ty, tt) = jvp(lambda x: jvp(jnp.sin, (x,), (1.0,)), (0.5,), (1.0,))
    np.testing.assert_allclose([y, t, ty, tt],
                               [np.sin(.5), np.cos(.5), np.cos(.5), -np.sin(.5)], rtol=1e-6)


def test_perturbation_confusion():
    # JAX's classic: d/dx [ d/dy (x * y) ] = d/dx x = 1; an untagged
    # implementation mixes the two tangents and finds 2.
    f = lambda x: jvp(lambda y: x * y, (2.,), (1.,))[1]  # = x
    y, t = jvp(f, (1.,), (1.,))
    assert (float(y), float(t)) == (1.0, 1.0)
    g = lambda x: jvp(lambda y: x * y + y * y, (x,), (1.,))[1]  # = x + 2x = 3x
    _, t = jvp(g, (2.,), (1.,))
    assert float(t) == 3.0


def test_closure_over_outer_tracer_is_a_constant_inside():
    def f(x):
        _, t_inner = jvp(lambda y: jnp.sin(x) * y, (3.0,), (1.0,))  # = sin(x)
        return t_inner
    y, t = jvp(f, (0.5,), (1.0,))
    np.testing.assert_allclose([y, t], [np.sin(0.5), np.cos(0.5)], rtol=1e-6)


def test_outer_output_from_inner_closure():
    # expected values from JAX 0.10.2: the inner jvp returns x itself (an outer tracer)
    primals, tangents = jvp(lambda x: jvp(lambda y: (x * y, x), (2.,), (1.,)), (1.,), (3.,))
    (xy, x), (dxy_dy, dx_dy) = primals
    (t_xy, t_x), (t_dxy_dy, t_dx_dy) = tangents
    assert [float(v) for v in (xy, x, dxy_dy, dx_dy)] == [2.0, 1.0, 1.0, 0.0]
    assert [float(v) for v in (t_xy, t_x, t_dxy_dy, t_dx_dy)] == [6.0, 3.0, 3.0, 0.0]
    assert type(x) is float and type(t_x) is float  # the outer input and tangent themselves


def test_leaked_tracer_is_an_error():
    leaked = []
    jvp(lambda x: leaked.append(x) or x, (1.0,), (1.0,))
    with pytest.raises(minijax.errors.UnexpectedTracerError):
        jnp.sin(leaked[0])


# --- symbolic zeros at the API ------------------------------------------------------------------
def test_zero_class():
    z = Zero.from_primal_value(jnp.ones((2, 3), jnp.int32))
    assert z.aval.shape == (2, 3) and z.aval.dtype == float0
    assert "Zero" in repr(z)


def test_unused_input_contributes_exact_zero():
    _, t = jvp(lambda x, y: x * 2.0, (np.float32(1.0), np.float32(2.0)),
               (np.float32(0.0), np.float32(np.nan)))
    assert float(t) == 0.0  # nan * 0 is never computed


# --- jacfwd ------------------------------------------------------------------------------------
def test_jacfwd_of_sin_of_matvec():
    rng = np.random.RandomState(0)
    A, x = rng.randn(4, 3).astype(F32), rng.randn(3).astype(F32)
    J = jacfwd(lambda x: jnp.sin(A @ x))(x)
    expected = np.cos(A.astype(float) @ x)[:, None] * A
    assert J.shape == (4, 3) and J.dtype == np.float32
    np.testing.assert_allclose(J, expected, rtol=1e-5, atol=1e-6)


def test_jacfwd_of_softmax():
    x = np.array([0.5, -1.0, 2.0, 0.0], F32)
    J = jacfwd(lambda x: jnp.exp(x) / jnp.exp(x).sum())(x)
    s = np.exp(x.astype(float)) / np.exp(x.astype(float)).sum()
    np.testing.assert_allclose(J, np.diag(s) - np.outer(s, s), rtol=1e-5, atol=1e-6)


def test_jacfwd_of_matrix_function_has_output_then_input_shape():
    X = np.arange(6, dtype=F32).reshape(2, 3)
    J = jacfwd(lambda X: X.T ** 2)(X)
    assert J.shape == (3, 2, 2, 3)
    expected = np.zeros((3, 2, 2, 3))
    for i in range(2):
        for j in range(3):
            expected[j, i, i, j] = 2 * X[i, j]
    np.testing.assert_allclose(J, expected)


def test_jacfwd_pytrees_and_argnums():
    # expected values from JAX 0.10.2: outer structure = output, inner = inputs
    J = jacfwd(lambda x, y: {"a": x * y, "b": (x,)}, argnums=(0, 1))(jnp.ones(2), 3.0)
    (daa_dx, daa_dy), = [J["a"]]
    np.testing.assert_allclose(daa_dx, 3 * np.eye(2))
    np.testing.assert_allclose(daa_dy, [1., 1.])
    (db_dx, db_dy), = J["b"]
    np.testing.assert_allclose(db_dx, np.eye(2))
    np.testing.assert_allclose(db_dy, [0., 0.])
    J = jacfwd(lambda d: d["a"] * d["b"])({"a": jnp.ones(2), "b": jnp.float16(2)})
    assert set(J) == {"a", "b"} and J["a"].dtype == np.float32 and J["a"].shape == (2, 2)
    np.testing.assert_allclose(J["b"], [1., 1.])


def test_jacfwd_argnums_kwargs_and_has_aux():
    J = jacfwd(lambda x, y: x * y, argnums=1)(jnp.ones(2), jnp.arange(2.))
    np.testing.assert_allclose(J, np.eye(2))
    J = jacfwd(lambda x, k: x * k)(jnp.ones(2), k=3.)
    np.testing.assert_allclose(J, 3 * np.eye(2))
    J, aux = jacfwd(lambda x: (x ** 2, x.sum()), has_aux=True)(jnp.array([1., 2.]))
    np.testing.assert_allclose(J, np.diag([2., 4.]))
    assert float(aux) == 3.0
    J = jacfwd(lambda x: x, argnums=[0])(1.0)
    assert isinstance(J, tuple) and len(J) == 1


def test_jacfwd_dtypes():
    # expected values from JAX 0.10.2
    assert jacfwd(lambda x: x * 2)(2.0).dtype == np.float32
    J = jacfwd(lambda x: (x * 2).astype(jnp.float16))(2.0)
    assert J.dtype == np.float16
    J = jacfwd(lambda x: jnp.round(x).astype(jnp.int32))(jnp.ones(2))
    assert J.dtype == np.int32 and J.shape == (2, 2) and not np.asarray(J).any()
    J = jacfwd(lambda x: x)(jnp.ones(0))
    assert J.shape == (0, 0)


def test_jacfwd_holomorphic():
    z = jnp.array([1 + 1j, 2j])
    J = jacfwd(lambda x: x * x, holomorphic=True)(z)
    np.testing.assert_allclose(J, np.diag(2 * np.asarray(z)))


def test_hessian_by_nested_jacfwd():
    x = np.array([0.3, -0.7, 1.1], F32)
    H = jacfwd(jacfwd(lambda x: jnp.sum(jnp.sin(x) * x[0])))(x)
    xd = x.astype(float)
    expected = np.diag(-np.sin(xd) * xd[0])
    expected[0, :] += np.cos(xd)
    expected[:, 0] += np.cos(xd)
    np.testing.assert_allclose(H, expected, rtol=1e-5, atol=1e-6)
