"""``while_loop``, ``fori_loop``, ``scan``, ``map``: values against Python loops, and errors."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.scan...)
import minijax.numpy as jnp
from minijax import lax
from minijax.jit import jit


def _check(x, expected, dtype=None, weak=None):
    np.testing.assert_allclose(np.asarray(x), expected, rtol=1e-6)
    if dtype is not None:
        assert x.dtype == np.dtype(dtype)
    if weak is not None:
        assert x.weak_type == weak


def _raises(exc, msg, f):
    with pytest.raises(exc) as info:
        f()
    assert str(info.value) == msg


# --- while_loop -----------------------------------------------------------------------------
@pytest.mark.usefixtures("jit_backend")  # (an argument would fail a Hypothesis health check)
@given(st.integers(-5, 30), st.integers(1, 4))
def test_while_loop_matches_python(start, step):
    def py(x):
        total = 0
        while x < 20:
            x, total = x + step, total + x
        return x, total
    f = lambda x: lax.while_loop(lambda c: c[0] < 20, lambda c: (c[0] + step, c[1] + c[0]),
                                 (x, 0))
    for g in (f, jit(f)):
        out = g(np.int32(start))
        assert tuple(int(v) for v in out) == py(start)


def test_while_loop_weak_init_is_promoted():
    # expected values from JAX 0.10.2: a weak int32 carry becomes float32
    _check(lax.while_loop(lambda c: c < 3, lambda c: c + 1., 0), 3., np.float32)
    _check(lax.while_loop(lambda c: c < 10, lambda c: c + 1, 1), 10, np.int32, weak=True)


def test_while_loop_zero_iterations_and_pytree_carry():
    out = lax.while_loop(lambda c: c["n"] > 100, lambda c: c, {"n": 1, "x": jnp.ones(2)})
    assert int(out["n"]) == 1
    _check(out["x"], [1., 1.])


def _sqrt_newton(a):
    """The tutorials' Newton iteration: the condition reads ``a`` from outside the loop."""
    return lax.while_loop(lambda c: jnp.abs(c[0] ** 2 - a) > 1e-5,
                          lambda c: ((c[0] + a / c[0]) / 2, c[1] + 1), (a, 0))


def test_jitted_while_loop_whose_condition_reads_outside_values(jit_backend):
    # expected values from JAX 0.10.2. The condition's constants come first among its
    # inputs: a compiled loop once bound the carry to them (wrong values, or no end).
    halve = jit(lambda a, x: lax.while_loop(lambda c: c > a, lambda c: c / 2, x))
    _check(halve(1.0, 100.0), 0.78125, np.float32)
    x, n = jit(lambda a: lax.while_loop(lambda c: c[0] > a, lambda c: (c[0] / 2, c[1] + 1),
                                        (100.0, 0)))(1.0)
    _check(x, 0.78125, np.float32), _check(n, 7, np.int32, weak=True)
    i, p = jit(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2),
                                        (0, 1)))(10)
    _check(i, 10, np.int32), _check(p, 1024, np.int32)
    root, steps = jit(_sqrt_newton)(2.0)
    _check(root, 1.4142157, np.float32), _check(steps, 3, np.int32)
    roots, steps = jit(minijax.vmap(_sqrt_newton))(jnp.array([2.0, 9.0, 0.25]))
    _check(roots, [1.4142157, 3.0, 0.5]), _check(steps, [3, 5, 4], np.int32)


def test_jitted_while_loops_nested_in_loops_with_outside_values(jit_backend):
    # expected values from JAX 0.10.2
    def nested(a, b):  # the inner condition reads the outer carry and an argument
        def outer_body(c):
            i, s = c
            j = lax.while_loop(lambda t: t * i < b, lambda t: t + 1.0, 1.0)
            return i + 1.0, s + j
        return lax.while_loop(lambda c: c[0] < a, outer_body, (1.0, 0.0))
    i, s = jit(nested)(4.0, 10.0)
    _check(i, 4.0), _check(s, 19.0)

    def in_scan(xs, lim):  # the condition reads the scanned x
        def step(carry, x):
            y = lax.while_loop(lambda v: v < x * lim, lambda v: v * 2.0, 1.0)
            return carry + y, y
        return lax.scan(step, 0.0, xs)
    total, ys = jit(in_scan)(jnp.array([1.0, 3.0, 10.0]), 2.0)
    _check(total, 42.0), _check(ys, [2.0, 8.0, 32.0])

    primal, tangent = jit(lambda a: minijax.jvp(
        lambda x: lax.while_loop(lambda c: c[0] < a, lambda c: (c[0] + 1., c[1] * x),
                                 (0., 1.))[1], (1.2,), (1.,)))(3.)
    np.testing.assert_allclose([float(primal), float(tangent)], [1.7280002, 4.32], rtol=1e-6)


def test_while_loop_errors():
    def body(carry):
        return (carry[0] + 1, carry[1].astype(jnp.float32))
    _raises(TypeError,
            "while_loop body function carry input and carry output must have equal types, "
            "but they differ:\n\nThe input carry component carry[1] has type int32[] but the "
            "corresponding output carry component has type float32[], so the dtypes do not "
            "match.\n\nRevise the function so that all output types match the corresponding "
            "input types.",
            lambda: lax.while_loop(lambda c: c[0] < 3, body, (0, jnp.int32(1))))

    def body3(carry):
        return [carry[0] + 1, carry[1]]
    _raises(TypeError,
            "while_loop body function carry input and carry output must have the same pytree "
            "structure, but they differ:\n\nThe input carry carry is a <class 'tuple'> but the "
            "corresponding component of the carry output is a <class 'list'>, so their Python "
            "types differ.\n\nRevise the function so that the carry output has the same "
            "pytree structure as the carry input.",
            lambda: lax.while_loop(lambda c: c[0] < 3, body3, (0, 1)))
    _raises(TypeError, "cond_fun must return a boolean scalar, but got output type(s) "
                       "[ShapedArray(int32[], weak_type=True)].",
            lambda: lax.while_loop(lambda c: c, lambda c: c + 1, 0))
    _raises(TypeError, "cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *)).",
            lambda: lax.while_loop(lambda c: (c < 3, c < 3), lambda c: c + 1, 0))
    _raises(TypeError, "cond_fun must return a boolean scalar, but got output type(s) "
                       "[ShapedArray(bool[2])].",
            lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(2)))
    _raises(TypeError, "lax.while_loop: body_fun and cond_fun arguments should be callable.",
            lambda: lax.while_loop(1, lambda c: c + 1, 0))


# --- fori_loop ------------------------------------------------------------------------------
@pytest.mark.usefixtures("jit_backend")  # (an argument would fail a Hypothesis health check)
@given(st.integers(-3, 8), st.integers(-3, 8))
def test_fori_loop_matches_python(lo, hi):
    def py(x):
        for i in range(lo, hi):
            x = x * 0.5 + i
        return x
    body = lambda i, x: x * 0.5 + i
    _check(lax.fori_loop(lo, hi, body, 1.), py(1.))  # static bounds: a scan
    _check(jit(lambda lo, hi: lax.fori_loop(lo, hi, body, 1.))(lo, hi), py(1.))  # a while


def test_fori_loop_becomes_scan_or_while():
    static = minijax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(1)
    dynamic = minijax.make_jaxpr(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x))(1, 3)
    assert [e.primitive.name for e in static.eqns] == ["scan"]
    assert static.eqns[0].params["length"] == 3
    assert [e.primitive.name for e in dynamic.eqns] == ["while"]


def test_fori_loop_bounds_types():
    # expected values from JAX 0.10.2
    _check(lax.fori_loop(0, jnp.int16(3), lambda i, c: c + i, 0.), 3.)  # a Python int adapts
    _check(lax.fori_loop(0., 3., lambda i, c: c + i, 0.), 3.)  # equal types, concrete: scan
    _check(lax.fori_loop(0, 3, lambda i, c: c + 1., 0), 3., np.float32)
    _raises(TypeError, "lower and upper arguments to fori_loop must have equal types, got "
                       "float32 and int32",
            lambda: lax.fori_loop(0., 3, lambda i, c: c + i, 0.))
    _raises(TypeError, "lower and upper arguments to fori_loop must have equal types, got "
                       "int32 and int16",
            lambda: lax.fori_loop(jnp.int32(0), jnp.int16(3), lambda i, c: c + i, 0.))
    _raises(TypeError, "lax.fori_loop: body_fun argument should be callable.",
            lambda: lax.fori_loop(0, 3, 5, 0.))
    _raises(ValueError, "Can only use `unroll` in `fori_loop` if the loop bounds are "
                        "statically known.",
            lambda: minijax.make_jaxpr(
                lambda n: lax.fori_loop(0, n, lambda i, c: c + 1., 0., unroll=2))(3))
    _raises(TypeError,
            "scan body function carry input and carry output must have equal types, but they "
            "differ:\n\nThe input carry component loop_carry[1] has type float32[] but the "
            "corresponding output carry component has type int32[], so the dtypes do not "
            "match.\n\nRevise the function so that all output types match the corresponding "
            "input types.",
            lambda: lax.fori_loop(0, 3, lambda i, c: c.astype(int), 0.))


# --- scan -----------------------------------------------------------------------------------
def _py_scan(f, init, xs, reverse=False):
    carry, ys = init, []
    for x in (xs[::-1] if reverse else xs):
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys[::-1] if reverse else ys)


@given(st.integers(1, 6), st.booleans())
def test_scan_matches_python_loop(n, reverse):
    xs = np.linspace(-1, 1, n * 2, dtype=np.float32).reshape(n, 2)
    f = lambda c, x: (c * 0.9 + x.sum(), c * x)
    carry, ys = lax.scan(f, np.float32(1.), xs, reverse=reverse)
    ec, eys = _py_scan(lambda c, x: (c * np.float32(0.9) + x.sum(), c * x), np.float32(1.),
                       xs, reverse)
    _check(carry, ec)
    _check(ys, eys)


def test_scan_pytrees_stacked_leaf_by_leaf():
    def step(carry, x):
        h = carry["h"] * 0.5 + x["u"]
        return {"h": h, "n": carry["n"] + 1}, (h, {"sq": x["v"] ** 2})
    xs = {"u": jnp.arange(3.), "v": jnp.arange(6.).reshape(3, 2)}
    carry, (hs, other) = lax.scan(step, {"h": 0., "n": 0}, xs)
    _check(hs, [0., 1., 2.5])
    _check(other["sq"], np.arange(6.).reshape(3, 2) ** 2)
    _check(carry["h"], 2.5)
    assert int(carry["n"]) == 3


def test_scan_length_without_xs_and_weak_types():
    # expected values from JAX 0.10.2
    carry, ys = lax.scan(lambda c, x: (c + 1, c), 0., None, length=3)
    _check(carry, 3., np.float32, weak=True)
    _check(ys, [0., 1., 2.], np.float32, weak=True)
    carry, ys = lax.scan(lambda c, x: (c + x, c * 2.), 0., jnp.arange(3.))
    _check(carry, 3., np.float32, weak=False)
    _check(ys, [0., 0., 2.], np.float32, weak=True)
    carry, ys = lax.scan(lambda c, x: (c, x), 0., jnp.zeros((0, 2)))
    assert ys.shape == (0, 2)
    out = lax.scan(lambda c, x: {"a": c, "b": x}, 0., jnp.arange(2.))  # any 2-child node
    assert set(out) == {"a", "b"}


def test_scan_errors():
    def sbody(c, x):
        return c + x, x
    _raises(TypeError,
            "scan body function carry input and carry output must have equal types, but they "
            "differ:\n\nThe input carry c has type int32[] but the corresponding output carry "
            "component has type float32[], so the dtypes do not match.\n\nRevise the function "
            "so that all output types match the corresponding input types.",
            lambda: lax.scan(sbody, jnp.int32(0), jnp.arange(3.)))

    def sbody4(carry, x):
        return {"a": (carry["a"] + x).astype(jnp.int32), "b": carry["b"].astype(jnp.int32)}, x
    _raises(TypeError,
            "scan body function carry input and carry output must have equal types, but they "
            "differ:\n\n  * the input carry component carry['a'] has type float32[] but the "
            "corresponding output carry component has type int32[], so the dtypes do not "
            "match;\n  * the input carry component carry['b'] has type float32[] but the "
            "corresponding output carry component has type int32[], so the dtypes do not "
            "match.\n\nRevise the function so that all output types match the corresponding "
            "input types.",
            lambda: lax.scan(sbody4, {"a": jnp.float32(0), "b": jnp.float32(1)}, jnp.arange(3.)))
    _raises(ValueError, "scan got values with different leading axis sizes: 3, 4.",
            lambda: lax.scan(lambda c, x: (c, x), 0., (jnp.arange(3.), jnp.arange(4.))))
    _raises(ValueError, "scan got `length` argument of 4 which disagrees with leading axis "
                        "sizes [3].",
            lambda: lax.scan(lambda c, x: (c, x), 0., jnp.arange(3.), length=4))
    _raises(ValueError, "scan got no values to scan over and `length` not provided.",
            lambda: lax.scan(lambda c, x: (c, x), 0.))
    _raises(ValueError, "scan got value with no leading axis to scan over: 1.0, 2.0.",
            lambda: lax.scan(lambda c, x: (c, x), 0., [1., 2.]))
    _raises(TypeError, "scan body output must be a pair, got ~float32[].",
            lambda: lax.scan(lambda c, x: c, 0., jnp.arange(3.)))
    _raises(TypeError, "scan body output must be a pair, got "
                       "(ShapedArray(float32[], weak_type=True),).",
            lambda: lax.scan(lambda c, x: (c,), 0., jnp.arange(2.)))
    _raises(TypeError, "lax.scan: f argument should be a callable.",
            lambda: lax.scan(1, 0., jnp.arange(3.)))
    _raises(ValueError, "`unroll` must be a `bool` or a non-negative `int`.",
            lambda: lax.scan(lambda c, x: (c, x), 0., jnp.arange(3.), unroll=-1))


# --- map ------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_size", [None, 0, 2, 3, 7, 10])
def test_map_matches_stack(batch_size):
    xs = {"a": jnp.arange(7.), "b": jnp.arange(14.).reshape(7, 2)}
    out = lax.map(lambda x: (x["a"] * 2, x["b"].sum()), xs, batch_size=batch_size)
    _check(out[0], np.arange(7.) * 2)
    _check(out[1], np.arange(14.).reshape(7, 2).sum(1))


def test_map_traces_once_per_chunk_shape():
    shapes = []
    lax.map(lambda x: shapes.append(x.shape) or x + 1, jnp.ones((10, 3, 4)), batch_size=3)
    assert shapes == [(3, 4), (3, 4)]  # the scanned chunks, then the remainder's vmap


def test_disable_jit_runs_plain_python():
    # expected values from JAX 0.10.2
    from minijax.jit import disable_jit
    calls = []
    with disable_jit():
        out = lax.cond(True, lambda x: calls.append("t") or x + 1,
                       lambda x: calls.append("f") or x, 1.)
        assert float(out) == 2.0 and calls == ["t"]  # only the chosen branch ran
        carry, ys = lax.scan(lambda c, x: (c + x, {"a": c * 2}), 0., jnp.arange(3.))
        _check(ys["a"], [0., 0., 2.])
        assert int(lax.while_loop(lambda c: c < 10, lambda c: c + 3, 1)) == 10
        assert float(lax.fori_loop(3, 3, lambda i, c: c + i, 1.)) == 1.0
        _raises(ValueError, "zero-length scan is not supported in disable_jit() mode because "
                            "the output type is unknown.",
                lambda: lax.scan(lambda c, x: (c + x, c), 0., jnp.zeros(0)))
        # a traced predicate (under vmap) falls back to the primitive
        out = minijax.vmap(lambda n: lax.while_loop(lambda c: c < n, lambda c: c + 1, 0))(
            jnp.arange(3))
        np.testing.assert_array_equal(np.asarray(out), [0, 1, 2])
