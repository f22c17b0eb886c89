"""``pure_callback`` and ``io_callback``: results, checks, errors, vmap, autodiff.

Results are checked against NumPy; errors (classes and messages) and what
a callback sees under ``vmap`` were recorded from JAX 0.10.2.
"""
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.errors import JaxRuntimeError
from minijax.experimental import io_callback

S = jax.ShapeDtypeStruct
X = np.arange(3, dtype=np.float32)


def _causes(e: BaseException) -> list:
    chain = []
    while e is not None:
        chain.append(e)
        e = e.__cause__
    return chain


# --- results --------------------------------------------------------------------------------
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_pure_callback_computes_with_numpy(jit_backend, jitted):
    wrap = jax.jit if jitted else (lambda f: f)
    f = wrap(lambda x: jax.pure_callback(np.sin, S((3,), jnp.float32), x) * 2)
    np.testing.assert_allclose(f(X), np.sin(X) * 2, rtol=1e-6)
    # pytrees in and out, keyword arguments, results converted (a float64 array and
    # a Python int are canonicalized to float32 and int32)
    g = wrap(lambda x, y: jax.pure_callback(
        lambda a, b: {"s": np.asarray(a, np.float64) + b, "n": 3},
        {"s": S((3,), jnp.float32), "n": S((), jnp.int32)}, x, b=y))
    out = g(X, 1.5)
    assert out["s"].dtype == np.float32 and out["n"].dtype == np.int32
    np.testing.assert_array_equal(out["s"], X + 1.5)
    assert int(out["n"]) == 3


@pytest.mark.parametrize("ordered", [False, True])
def test_io_callback_runs_each_call(jit_backend, ordered):
    calls = []

    def log(x):
        calls.append(np.asarray(x).tolist())
        return np.asarray(x) * 2

    f = jax.jit(lambda x: io_callback(log, S((3,), jnp.float32), x, ordered=ordered) + 1)
    np.testing.assert_array_equal(f(X), X * 2 + 1)
    np.testing.assert_array_equal(f(X + 1), (X + 1) * 2 + 1)
    jax.effects_barrier()
    assert calls == [X.tolist(), (X + 1).tolist()]
    # no result: the call is kept for its effect
    jax.jit(lambda x: io_callback(lambda v: calls.append("seen"), None, x))(X)
    jax.effects_barrier()
    assert calls[-1] == "seen"


def test_callbacks_receive_minijax_arrays():
    seen = []
    jax.pure_callback(lambda x: seen.append(type(x)) or x, S((3,), jnp.float32), X)
    io_callback(lambda x: seen.append(type(x)), None, X)
    assert seen == [jax.Array, jax.Array]


# --- checks and errors (recorded from JAX 0.10.2) ----------------------------------------
@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("result, message", [
    (np.ones(4, np.float32), "RuntimeError: Incorrect output shape for return value #0: "
                             "Expected: (3,), Actual: (4,)"),
    (np.ones(3, np.int32), "RuntimeError: Incorrect output dtype for return value #0: "
                           "Expected: float32, Actual: int32"),
    ((np.ones(3, np.float32),) * 2, "RuntimeError: Mismatched number of outputs from "
                                    "callback. Expected: 1, Actual: 2"),
], ids=["shape", "dtype", "count"])
def test_a_wrong_result_is_a_runtime_error(jit_backend, jitted, result, message):
    wrap = jax.jit if jitted else (lambda f: f)
    f = wrap(lambda x: jax.pure_callback(lambda _: result, S((3,), jnp.float32), x))
    with pytest.raises(JaxRuntimeError) as info:
        np.asarray(f(X))
    text = str(info.value)
    assert text.startswith("INTERNAL: CpuCallback error calling callback: Traceback "
                           "(most recent call last):")
    assert text.splitlines()[-1] == message
    assert isinstance(info.value, RuntimeError)
    assert any(type(e) is RuntimeError for e in _causes(info.value))


@pytest.mark.parametrize("callback", ["pure", "io"])
def test_an_exception_in_a_callback_is_chained(jit_backend, callback):
    def boom(x):
        raise ZeroDivisionError("division by zero")
    call = (jax.pure_callback if callback == "pure" else io_callback)
    with pytest.raises(JaxRuntimeError) as info:  # eagerly: at the call
        call(boom, S((), jnp.float32), 1.0)
    assert info.value.__cause__.__class__ is ZeroDivisionError
    y = jax.jit(lambda x: call(boom, S((), jnp.float32), x))(1.0)
    with pytest.raises(JaxRuntimeError) as info:  # jitted: where the result is read
        float(y)
    assert str(info.value).splitlines()[-1] == "ZeroDivisionError: division by zero"
    assert any(type(e) is ZeroDivisionError for e in _causes(info.value))
    if callback == "io":
        with pytest.raises(JaxRuntimeError):  # and at the barrier (an effect failed)
            jax.effects_barrier()
    jax.effects_barrier()  # reported once
    np.testing.assert_array_equal(jax.jit(lambda x: x + 1)(X), X + 1)  # still working


def test_argument_errors_are_jaxs():
    with pytest.raises(ValueError, match="result_shape_dtypes cannot specify 64-bit types "
                                         "when `jax_enable_x64` is disabled"):
        jax.pure_callback(lambda x: x, S((3,), np.float64), X)
    with pytest.raises(ValueError, match="result_shape_dtypes cannot specify 64-bit types"):
        io_callback(lambda x: x, S((), np.int64), 1)
    with pytest.raises(ValueError, match=r"vmap_method must be on of the allowed methods "
                                         r"\['sequential', 'sequential_unrolled', "
                                         r"'expand_dims', 'broadcast_all', "
                                         r"'legacy_vectorized', None\], but got: foo"):
        jax.pure_callback(lambda x: x, S((3,), jnp.float32), X, vmap_method="foo")
    with pytest.raises(AttributeError, match="'int' object has no attribute 'dtype'"):
        jax.pure_callback(lambda x: x, 3, 1.0)


def test_callbacks_are_not_differentiable():
    pure = lambda x: jax.pure_callback(lambda v: v, S((), jnp.float32), x)  # noqa: E731
    io = lambda x: io_callback(lambda v: v, S((), jnp.float32), x)  # noqa: E731
    pure_msg = ("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                "callbacks while taking gradients.")
    for transform in (lambda f: jax.grad(f)(1.0), lambda f: jax.jvp(f, (1.0,), (1.0,))):
        with pytest.raises(ValueError) as info:
            transform(pure)
        assert str(info.value) == pure_msg
        with pytest.raises(ValueError, match="IO callbacks do not support JVP."):
            transform(io)
    # a constant (zero-tangent) input is fine: nothing to differentiate
    assert float(jax.grad(lambda x: x * pure(2.0))(1.0)) == 2.0


def test_custom_jvp_makes_a_pure_callback_differentiable(jit_backend):
    @jax.custom_jvp
    def sin(x):
        return jax.pure_callback(np.sin, S((), jnp.float32), x)
    sin.defjvp(lambda p, t: (sin(p[0]), jnp.cos(p[0]) * t[0]))
    np.testing.assert_allclose(jax.grad(sin)(0.5), np.cos(np.float32(0.5)), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(sin))(0.5), np.cos(np.float32(0.5)), rtol=1e-6)


# --- vmap -----------------------------------------------------------------------------------
# recorded from JAX 0.10.2: the shapes the callback sees for x: f32[3] batched, y unbatched
SHAPES_SEEN = {
    "sequential": [((), ())] * 3,
    "sequential_unrolled": [((), ())] * 3,
    "expand_dims": [((3,), (1,))],
    "broadcast_all": [((3,), (3,))],
    "legacy_vectorized": [((3,), ())],
}


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("method", list(SHAPES_SEEN))
def test_vmap_of_pure_callback_per_method(jit_backend, method, jitted):
    seen = []

    def add(x, y):
        seen.append((np.shape(x), np.shape(y)))
        return np.asarray(x) + np.asarray(y)

    f = jax.vmap(lambda x, y: jax.pure_callback(add, S((), jnp.float32), x, y,
                                                vmap_method=method), in_axes=(0, None))
    f = jax.jit(f) if jitted else f
    np.testing.assert_array_equal(f(X, np.float32(1.0)), X + 1)
    assert seen == SHAPES_SEEN[method]


def test_vmap_of_pure_callback_without_a_method_is_jaxs_error():
    with pytest.raises(NotImplementedError) as info:
        jax.vmap(lambda x: jax.pure_callback(lambda v: v, S((), jnp.float32), x))(X)
    assert str(info.value) == (
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        "'legacy_vectorized'. Got vmap_method=None.")


def test_vmap_of_io_callback(jit_backend):
    calls = []
    f = jax.vmap(lambda x: io_callback(lambda v: calls.append(float(v)) or v * 2,
                                       S((), jnp.float32), x))
    np.testing.assert_array_equal(f(X), X * 2)
    np.testing.assert_array_equal(jax.jit(f)(X), X * 2)
    jax.effects_barrier()
    assert calls == X.tolist() * 2  # one call per example, in order
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback."):
        jax.vmap(lambda x: io_callback(lambda v: v, S((), jnp.float32), x, ordered=True))(X)


# --- dead code, logging, any exception (recorded from JAX 0.10.2) ----------------------------
def test_an_unused_pure_callback_is_never_called_under_jit(jit_backend):
    # recorded from JAX 0.10.2 (the "External callbacks" tutorial's f1/f2): a compiled
    # program drops a pure callback whose result nobody reads, also in a nested jit;
    # eagerly it runs, and an io_callback (an effect) always runs
    calls = []

    def tag(name):
        return lambda *args: calls.append(name) or np.float32(1)

    jax.pure_callback(tag("eager"), S((), jnp.float32))

    @jax.jit
    def g(x):
        jax.pure_callback(tag("jit-unused"), S((), jnp.float32), x)
        inner = jax.jit(lambda y: (jax.pure_callback(tag("inner-unused"), S((), jnp.float32), y),
                                   y * 2)[1])
        used = jax.pure_callback(tag("jit-used"), S((), jnp.float32), x)
        io_callback(tag("io-unused"), S((), jnp.float32), x)
        return inner(x) + used

    assert float(g(1.0)) == 3.0
    jax.effects_barrier()
    # (JAX 0.10.2 printed ['eager', 'io-unused', 'jit-used']: two unordered calls, which
    # XLA's scheduler put in that order; minijax runs them in program order)
    assert calls[0] == "eager" and sorted(calls[1:]) == ["io-unused", "jit-used"]


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("api, logger_name, message", [
    ("pure", "minijax.callback", "jax.pure_callback failed"),
    ("io", "minijax.callback", "jax.io_callback failed"),
    ("debug", "minijax.debugging", "jax.debug.callback failed"),
    ("print", "minijax.debugging", "jax.debug.callback failed"),
])
def test_a_failing_callback_is_logged(jit_backend, caplog, jitted, api, logger_name, message):
    # recorded from JAX 0.10.2: the callback's exception is logged (logger.exception, at
    # ERROR, with its traceback) by jax._src.callback / jax._src.debugging, then raised
    def boom(*args):
        raise ValueError("boom")

    call = {"pure": lambda x: jax.pure_callback(boom, S((), jnp.float32), x),
            "io": lambda x: io_callback(boom, S((), jnp.float32), x),
            "debug": lambda x: (jax.debug.callback(boom, x), x)[1],
            "print": lambda x: (jax.debug.print("{:d}", x), x)[1]}[api]
    f = jax.jit(call) if jitted else call
    with pytest.raises((JaxRuntimeError, ValueError)):
        float(f(1.0))
    try:
        jax.effects_barrier()
    except JaxRuntimeError:
        pass
    records = [r for r in caplog.records if r.name == logger_name]
    assert [(r.levelname, r.getMessage(), r.exc_info[0]) for r in records] == [
        ("ERROR", message, ValueError)]


def test_a_wrong_result_is_not_logged(caplog):
    # recorded from JAX 0.10.2: only the callback's own exception is logged
    with pytest.raises(JaxRuntimeError):
        jax.pure_callback(lambda: np.ones(3, np.float32), S((), jnp.float32))
    assert not [r for r in caplog.records if r.name.startswith("minijax")]


@pytest.mark.parametrize("api", ["pure", "io", "debug"])
def test_system_exit_in_a_jitted_callback_is_the_programs_error(jit_backend, api):
    # recorded from JAX 0.10.2: any exception, SystemExit too (the debugger's `q`), is
    # the running program's JaxRuntimeError; eagerly debug.callback raises it as it is
    def leave(*args):
        sys.exit(3)

    call = {"pure": lambda x: jax.pure_callback(leave, S((), jnp.float32), x),
            "io": lambda x: io_callback(leave, S((), jnp.float32), x),
            "debug": lambda x: (jax.debug.callback(leave, x), x + 1)[1]}[api]
    with pytest.raises(JaxRuntimeError) as info:
        float(jax.jit(call)(1.0))
    assert str(info.value).splitlines()[-1] == "SystemExit: 3"
    assert any(type(e) is SystemExit for e in _causes(info.value))
    try:
        jax.effects_barrier()
    except JaxRuntimeError:
        pass
    if api == "debug":
        with pytest.raises(SystemExit):
            jax.debug.callback(leave, 1.0)
