"""``jnp.ufunc`` objects (``jnp.add.reduce``, ``accumulate``, ``at``, ``reduceat``,
``outer``), ``jnp.frompyfunc`` and ``jnp.piecewise`` (chapter 08: their generic forms
are ``fori_loop`` s, ``scan`` s and ``vmap`` s). Values against NumPy's ufunc
methods; where JAX differs, as JAX 0.10.2 printed them."""
import operator

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes

X = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
F = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)


def check(got, want, dtype=None, rtol=1e-6, atol=0):
    want = np.asarray(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    assert np.shape(got) == want.shape
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), (got.dtype, dtype)


# (name, identity) as JAX 0.10.2 lists them: the fourteen ufuncs of jax.numpy
UFUNCS = [("add", 0), ("multiply", 1), ("subtract", None), ("maximum", None),
          ("minimum", None), ("bitwise_and", -1), ("bitwise_or", 0), ("bitwise_xor", 0),
          ("logical_and", True), ("logical_or", False), ("logical_xor", False),
          ("logaddexp", -np.inf), ("logaddexp2", -np.inf), ("negative", None)]


@pytest.mark.parametrize("name, identity", UFUNCS)
def test_the_ufuncs_and_their_attributes(name, identity):
    u = getattr(jnp, name)
    assert isinstance(u, jnp.ufunc)
    assert repr(u) == f"<jnp.ufunc '{name}'>" and u.__name__ == name
    assert u.identity == identity
    nin = 1 if name == "negative" else 2
    assert (u.nin, u.nout, u.nargs) == (nin, 1, nin)
    assert u == getattr(jnp, name) and hash(u) == hash(getattr(jnp, name))
    assert u != jnp.divide


def test_ufuncs_still_call_and_print_as_functions():
    # from JAX 0.10.2: calling the object binds the same primitives as before
    assert str(minijax.make_jaxpr(jnp.add)(1.0, 2.0)) == (
        "{ lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) }")
    assert str(minijax.make_jaxpr(jnp.negative)(1.0)) == (
        "{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }")
    assert float(minijax.jit(jnp.add)(1, 2)) == 3
    check(minijax.vmap(jnp.add)(np.arange(3.0), np.arange(3.0)), [0.0, 2.0, 4.0])
    assert float(minijax.grad(jnp.multiply)(2.0, 3.0)) == 3.0
    with pytest.raises(NotImplementedError, match="out argument of <jnp.ufunc 'add'>"):
        jnp.add(1, 2, out=3)
    with pytest.raises(NotImplementedError, match="where argument of <jnp.ufunc 'add'>"):
        jnp.add(1, 2, where=True)
    with pytest.raises(TypeError, match="add requires ndarray or scalar arguments"):
        jnp.add([1], 2)


# --- reduce ------------------------------------------------------------------------

REDUCE_CASES = [
    ("add", X, {}), ("add", X, dict(axis=None)), ("add", X, dict(axis=1, keepdims=True)),
    ("add", X, dict(axis=None, keepdims=True)), ("add", X, dict(initial=10)),
    ("add", X, dict(dtype=np.float32)), ("add", X, dict(where=X > 2)),
    ("add", X, dict(axis=(0, 1))), ("maximum", X, dict(where=X > 2, initial=0)),
    ("subtract", X, dict(axis=1)), ("subtract", F, dict(axis=0, initial=1.0)),
    ("multiply", X, dict(axis=1)), ("maximum", F, dict(axis=1)), ("minimum", F, {}),
    ("logical_and", X > 2, {}), ("logical_or", X > 2, dict(axis=1)),
    ("logical_xor", X > 2, {}), ("bitwise_or", X, dict(axis=1)), ("bitwise_and", X, {}),
    ("bitwise_xor", X, dict(axis=None)), ("logaddexp", F, dict(axis=1)),
    ("logaddexp2", F, {}), ("add", np.zeros((0, 3), np.float32), {}),
]


@pytest.mark.parametrize("name, x, kwargs", REDUCE_CASES)
def test_reduce_matches_numpy(name, x, kwargs):
    got = getattr(jnp, name).reduce(x, **kwargs)
    want = getattr(np, name).reduce(x, **kwargs)
    check(got, want, rtol=1e-6)
    assert got.dtype == np.dtype(kwargs.get("dtype", want.dtype if name.startswith(
        ("logical", "logaddexp")) or x.dtype == np.float32 else np.int32))


@pytest.mark.parametrize("call, error, message", [
    (lambda: jnp.maximum.reduce(X, where=X > 2), ValueError,
     "reduction operation 'maximum' does not have an identity, so to use a where mask one "
     "has to specify 'initial'."),
    (lambda: jnp.add.reduce(X, where=X), ValueError,
     "where argument must have dtype=bool; got dtype=int32"),
    (lambda: jnp.maximum.reduce(jnp.zeros((0, 3))), ValueError,
     "zero-size array to reduction operation max which has no identity"),
    (lambda: jnp.subtract.reduce(jnp.zeros((0, 3))), ValueError,
     "zero-size array to reduction operation subtract which has no identity"),
    (lambda: jnp.negative.reduce(X), ValueError, "reduce only supported for binary ufuncs"),
    (lambda: jnp.subtract.reduce(X, axis=(0, 1)), NotImplementedError, "tuple of axes"),
    (lambda: jnp.negative.outer(X, X), ValueError, "outer only supported for binary ufuncs"),
    (lambda: jnp.add.at(X, 0, 1), NotImplementedError, "cannot operate inplace"),
    (lambda: jnp.add.reduceat(X[0], jnp.array([[0, 2]])), ValueError,
     "reduceat: indices must be one-dimensional, got indices.shape=(1, 2)"),
    (lambda: jnp.add.reduceat(jnp.array(3), jnp.array([0])), ValueError,
     "reduceat: a must have 1 or more dimension, got a.shape=()"),
    (lambda: jnp.add.reduceat(X[0], [0, 2]), TypeError,
     "add.reduceat requires ndarray or scalar arguments"),
])
def test_method_errors_are_jax(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_bitwise_and_logical_reductions_are_one_primitive():
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(lambda x: jnp.bitwise_or.reduce(x, axis=1))(X)) == """\
{ lambda ; a:i32[2,3]. let
    b:i32[2] = jit[
      name=reduce
      jaxpr={ lambda ; a:i32[2,3]. let
          b:i32[2] = reduce_or[axes=(1,)] a
        in (b,) }
    ] a
  in (b,) }"""
    check(jnp.bitwise_and.reduce(np.array([3, 7], np.uint8)), 3, "uint8")
    check(jnp.logical_and.reduce(X, initial=False), [False] * 3, "bool")
    check(jnp.bitwise_or.reduce(X, where=X > 2), np.bitwise_or.reduce(X, where=X > 2), "int32")
    with pytest.raises(ValueError, match="integer argument required; got dtype=float32"):
        jnp.bitwise_xor.reduce(F)


def test_logaddexp_reduce_is_logsumexp():
    from scipy.special import logsumexp
    big = np.array([[1000.0, 1000.0, -np.inf], [1.0, 2.0, 3.0]], np.float32)
    check(jnp.logaddexp.reduce(big, axis=1), logsumexp(big, axis=1), "float32", rtol=1e-6)
    check(jnp.logaddexp.reduce(F, axis=None, keepdims=True),
          logsumexp(F, axis=None, keepdims=True), "float32", rtol=1e-6)
    check(jnp.logaddexp.reduce(F, where=F > 2, initial=0.0),
          np.logaddexp.reduce(F, where=F > 2, initial=0.0), "float32", rtol=1e-6)
    check(jnp.logaddexp2.reduce(F, axis=1), np.log2(np.exp2(F).sum(1)), "float32", rtol=1e-6)
    g = minijax.grad(lambda v: jnp.logaddexp.reduce(v))(np.array([0.0, 1.0, 2.0], np.float32))
    check(g, np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum(), rtol=1e-6)


def test_reduce_jaxprs_are_jax():
    # from JAX 0.10.2: a fast path is one primitive inside jit[name=reduce]
    assert str(minijax.make_jaxpr(jnp.add.reduce)(X)) == """\
{ lambda ; a:i32[2,3]. let
    b:i32[3] = jit[
      name=reduce
      jaxpr={ lambda ; a:i32[2,3]. let
          b:i32[3] = reduce_sum[axes=(0,) out_sharding=None] a
        in (b,) }
    ] a
  in (b,) }"""
    # the generic form is a loop over the slices
    text = str(minijax.make_jaxpr(lambda x: jnp.subtract.reduce(x, axis=1))(X))
    assert "name=reduce" in text and "scan[" in text


def test_reduce_under_transformations():
    check(minijax.vmap(jnp.add.reduce)(X), [6, 15])
    check(minijax.grad(lambda v: jnp.multiply.reduce(v))(np.array([1.0, 2.0, 3.0])),
          [6.0, 3.0, 2.0])
    check(minijax.grad(lambda v: jnp.subtract.reduce(v))(np.array([1.0, 2.0, 3.0])),
          [1.0, -1.0, -1.0])


def test_reduce_under_jit(jit_backend):
    check(minijax.jit(jnp.add.reduce, static_argnames="axis")(X, axis=1), [6, 15], "int32")
    check(minijax.jit(lambda x: jnp.subtract.reduce(x, axis=1))(X), [-4, -7], "int32")
    check(minijax.jit(lambda x: jnp.bitwise_xor.reduce(x, axis=0))(X),
          np.bitwise_xor.reduce(X, axis=0), "int32")


# --- accumulate -------------------------------------------------------------------------

@pytest.mark.parametrize("name, x, kwargs", [
    ("add", X, dict(axis=1)), ("multiply", X, dict(axis=1)), ("bitwise_or", X, dict(axis=1)),
    ("maximum", np.array([1, 3, 2, 5, 4], np.int32), {}), ("subtract", F, {}),
    ("add", X, dict(dtype=np.float32)), ("logaddexp", F, dict(axis=-1)),
    ("subtract", np.zeros((0,), np.float32), {}),
])
def test_accumulate_matches_numpy(name, x, kwargs):
    got = getattr(jnp, name).accumulate(x, **kwargs)
    want = getattr(np, name).accumulate(x, **kwargs)
    check(got, want, dtypes.canonicalize_dtype(want.dtype), rtol=1e-6)  # int64 -> int32


def test_accumulate_under_grad_and_jit(jit_backend):
    g = minijax.grad(lambda v: jnp.maximum.accumulate(v).sum())(np.array([1.0, 3.0, 2.0]))
    check(g, [1.0, 2.0, 0.0])  # from JAX 0.10.2
    f = minijax.jit(lambda x: jnp.maximum.accumulate(x, axis=1))
    check(f(F[:, ::-1]), np.maximum.accumulate(F[:, ::-1], axis=1), "float32")


# --- at ---------------------------------------------------------------------------------

ONES = np.ones(10, np.int32)


@pytest.mark.parametrize("name, idx, value", [
    ("add", np.array([2, 5, 7]), np.array([10, 20, 30])), ("add", np.array([2, 2, 3]), 5),
    ("multiply", np.array([2, 2]), 3), ("subtract", np.array([2, 5, 7]), np.array([10, 20, 30])),
    ("maximum", np.array([0, 0, 4]), np.array([5, 7, -1])),
    ("bitwise_xor", np.array([0, 0, 1]), 3),
])
def test_at_matches_numpy(name, idx, value):
    want = ONES.copy()
    getattr(np, name).at(want, idx, value)
    check(getattr(jnp, name).at(ONES, jnp.asarray(idx), value, inplace=False), want, "int32")


def test_at_other_forms():
    want = ONES.copy()
    np.negative.at(want, [0, 1])
    check(jnp.negative.at(ONES, jnp.array([0, 1]), inplace=False), want, "int32")
    want = np.zeros((2, 3), np.float32)
    np.add.at(want, (0, [0, 2]), 1.0)
    check(jnp.add.at(jnp.zeros((2, 3)), (0, jnp.array([0, 2])), 1.0, inplace=False), want)
    # bools compute in int32 and come back as bools (from JAX 0.10.2)
    check(jnp.add.at(jnp.zeros(4, bool), jnp.array([1, 1]), True, inplace=False),
          [False, True, False, False], "bool")


def test_at_keeps_the_array_dtype_for_python_scalars():
    # from JAX 0.10.2: a Python int is weak, so an int8 array stays int8
    x = jnp.ones(4, jnp.int8)
    check(jnp.maximum.at(x, jnp.array([1]), 4, inplace=False), [1, 4, 1, 1], "int8")
    check(jnp.subtract.reduce(x, initial=2), -2, "int8")


def test_at_under_jit(jit_backend):
    f = minijax.jit(lambda x, i: jnp.maximum.at(x, i, 4, inplace=False))
    check(f(ONES, jnp.array([1, 1, 3])), [1, 4, 1, 4, 1, 1, 1, 1, 1, 1], "int32")


# --- reduceat and outer --------------------------------------------------------------------

X8 = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.int32)


@pytest.mark.parametrize("name, idx", [("add", [0, 2, 5]), ("multiply", [0, 4, 6]),
                                       ("maximum", [3, 1, 6]), ("add", [0]),
                                       ("subtract", [1, 5])])
def test_reduceat_matches_numpy(name, idx):
    got = getattr(jnp, name).reduceat(X8, jnp.asarray(idx))
    check(got, getattr(np, name).reduceat(X8, idx), "int32")


def test_reduceat_axis_and_dtype(jit_backend):
    m = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    check(jnp.add.reduceat(m, jnp.array([0, 2]), axis=1), np.add.reduceat(m, [0, 2], axis=1),
          "float32")
    # from JAX 0.10.2: reduceat's dtype= does not change the int32 result
    check(jnp.add.reduceat(X8, jnp.array([0, 2]), dtype=jnp.float32), [3, 33], "int32")
    f = minijax.jit(lambda x, i: jnp.add.reduceat(x, i))
    check(f(X8, jnp.array([0, 2, 5])), np.add.reduceat(X8, [0, 2, 5]), "int32")


def test_outer_matches_numpy(jit_backend):
    a, b = np.arange(3, dtype=np.int32), np.arange(4.0, dtype=np.float32)
    check(jnp.add.outer(a, b), np.add.outer(a, b), "float32")
    check(jnp.subtract.outer(a, 2), np.subtract.outer(a, 2), "int32")
    assert jnp.add.outer(jnp.ones((1, 3, 5)), jnp.ones((2, 4))).shape == (1, 3, 5, 2, 4)
    x = np.arange(1, 11, dtype=np.int32)
    check(minijax.jit(jnp.multiply.outer)(x, x), np.multiply.outer(x, x), "int32")
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(jnp.add.outer)(jnp.ones(2), jnp.ones(3))) == """\
{ lambda ; a:f32[2] b:f32[3]. let
    c:f32[2,3] = jit[
      name=outer
      jaxpr={ lambda ; a:f32[2] b:f32[3]. let
          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
          e:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a
          c:f32[2,3] = add e d
        in (c,) }
    ] a b
  in (c,) }"""


# --- frompyfunc ------------------------------------------------------------------------

def test_frompyfunc_docstring_example_of_jax():
    add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
    x = jnp.arange(4)
    assert repr(add) == "<jnp.ufunc 'add'>" and add != jnp.add
    check(add(x, 10), [10, 11, 12, 13], "int32")
    check(add.outer(x, x), np.add.outer(np.arange(4), np.arange(4)), "int32")
    check(add.reduce(x), 6, "int32")
    check(add.accumulate(x), [0, 1, 3, 6], "int32")
    check(add.at(x, 1, 10, inplace=False), [0, 11, 2, 3], "int32")


def test_frompyfunc_vectorizes_scalar_functions(jit_backend):
    larger = jnp.frompyfunc(lambda x, y: jnp.where(x > y, x, y), 2, 1)
    a, b = np.arange(3, dtype=np.int32), np.array([[1], [2]], np.int32)
    check(larger(a, b), np.maximum(a, b), "int32")
    check(larger.reduce(jnp.array([3, 1, 4, 1, 5])), 5, "int32")
    check(minijax.jit(larger)(a, b), np.maximum(a, b), "int32")
    pair = jnp.frompyfunc(lambda x: (x, 2 * x), 1, 2)(jnp.arange(3))
    check(pair[0], [0, 1, 2])
    check(pair[1], [0, 2, 4])


# --- piecewise ----------------------------------------------------------------------------

PX = np.linspace(-2.5, 2.5, 6).astype(np.float32)


@pytest.mark.parametrize("conds, funcs, args", [
    (lambda x: [x < 0, x >= 0], [lambda x: -x, lambda x: x], ()),
    (lambda x: [x < -1, x > 1], [-1, 1, 0.5], ()),
    (lambda x: [x < 0], [lambda x, k: k * x, 7], (3.0,)),
])
def test_piecewise_matches_numpy(conds, funcs, args):
    got = jnp.piecewise(PX, conds(jnp.asarray(PX)), funcs, *args)
    check(got, np.piecewise(PX, conds(PX), funcs, *args), "float32", rtol=1e-6, atol=1e-7)


def test_piecewise_keeps_the_input_dtype_and_checks_lengths():
    x = np.arange(4, dtype=np.int32)
    check(jnp.piecewise(x, [x > 1], [lambda x: x * 2.5]), [0, 0, 5, 7], "int32")  # JAX 0.10.2
    with pytest.raises(ValueError, match="with 2 condition\\(s\\), either 2 or 3 functions "
                                         "are expected; got 1"):
        jnp.piecewise(PX, [PX < 0, PX > 0], [1])


def test_piecewise_jaxpr_is_jax():
    # from JAX 0.10.2
    text = str(minijax.make_jaxpr(
        lambda x: jnp.piecewise(x, [x < 0], [lambda x: -x, lambda x: x]))(jnp.ones(3)))
    assert text == """\
let _piecewise = { lambda ; a:f32[3] b:bool[1,3]. let
    c:bool[1,3] = broadcast_in_dim False:bool[]
    d:bool[2,3] = concatenate[dimension=0] c b
    e:i32[2,3] = jit[
      name=cumsum
      jaxpr={ lambda ; d:bool[2,3]. let
          f:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] d
          e:i32[2,3] = cumsum[axis=0 reverse=False] f
        in (e,) }
    ] d
    g:i32[3] = argmax[axes=(0,) index_dtype=int32] e
    h:i32[3] = clamp 0:i32[] g 1:i32[]
    i:bool[3] = eq h 0:i32[]
    j:f32[3] = stop_gradient a
    k:f32[3] = select_n i j a
    l:bool[3] = eq h 1:i32[]
    m:f32[3] = stop_gradient a
    n:f32[3] = select_n l m a
    o:f32[3] = neg n
    p:f32[3] = select_n h k o
  in (p,) } in
{ lambda ; q:f32[3]. let
    r:bool[3] = lt q 0.0:f32[]
    s:bool[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] r
    t:f32[3] = jit[name=_piecewise jaxpr=_piecewise] q s
  in (t,) }"""


def test_piecewise_under_grad_and_jit(jit_backend):
    f = lambda x: jnp.piecewise(x, [x < 0], [lambda x: -x ** 2, lambda x: x ** 3])
    g = minijax.grad(lambda x: f(x).sum())(PX)
    check(g, np.where(PX < 0, -2 * PX, 3 * PX ** 2), rtol=1e-5, atol=1e-6)
    check(minijax.jit(f)(PX), np.where(PX < 0, -PX ** 2, PX ** 3), "float32", rtol=1e-6)


def test_dtypes_module_still_sees_weak_results():
    # the ufunc object must not change dtypes: jnp.add(1, 2) is a weak int32
    out = jnp.add(1, 2)
    assert out.dtype == np.int32 and dtypes.is_weakly_typed(out)
