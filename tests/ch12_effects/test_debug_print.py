"""``debug.print`` and ``debug.callback``: formatting, and where they run under transformations.

Expected lines come from Python's own ``str.format`` on NumPy values (what
JAX's ``debug.print`` does), or were recorded from JAX 0.10.2 where the
behaviour is JAX's choice (which values ``grad`` shows, the order under
``vmap``, the error messages).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

lax = jax.lax


# --- formatting -----------------------------------------------------------------------------
def test_eager_print_runs_at_once_and_formats_as_python(capsys):
    x = np.arange(3, dtype=np.float32)
    jax.debug.print("x = {} sum={s:.3f} s={t}", jnp.asarray(x), s=jnp.sum(jnp.asarray(x)), t="txt")
    # no barrier: eagerly, the line is written before print returns
    assert capsys.readouterr().out == "x = {} sum={:.3f} s=txt\n".format(x, np.float32(3.0))


def test_formats_of_every_kind(printed):
    jax.debug.print("{x:>8.2f}|{y:d}|{z}", x=jnp.float32(3.14159), y=jnp.int32(7), z="s")
    jax.debug.print("{0} {0}", 1.5)
    jax.debug.print("{} {}", True, jnp.array([True, False]))
    jax.debug.print("{}", jnp.arange(2000.0))
    jax.debug.print("value:", jnp.float32(2.5), skip_format_check=True)  # no placeholder
    big = np.arange(2000, dtype=np.float32)
    assert printed() == ["{:>8.2f}|{:d}|s".format(np.float32(3.14159), 7),
                         "1.5 1.5", "True [ True False]", str(big), "value: 2.5"]


def test_numpy_print_options_of_the_call_are_used(printed, jit_backend):
    g = jax.jit(lambda x: jax.debug.print("{}", x))
    x = np.array([1 / 3, 2 / 3], np.float32)
    with np.printoptions(precision=2):
        g(x)  # traced here: the options are recorded in the equation
        jax.debug.print("{}", x)
    g(x)  # same trace, same options (recorded from JAX 0.10.2: all three lines [0.33 0.67])
    assert printed() == ["[0.33 0.67]"] * 3


def test_format_errors_are_jaxs():
    # messages recorded from JAX 0.10.2
    with pytest.raises(ValueError, match=r"Unused positional arguments to `jax.debug.print`: "
                                         r"\[1\]"):
        jax.debug.print("a", 1, x=2)
    with pytest.raises(ValueError, match=r"Unused keyword arguments to `jax.debug.print`: "
                                         r"\['x'\]. You may be passing an f-string"):
        jax.debug.print(ordered=True)("a", x=2)
    with pytest.raises(IndexError):
        jax.debug.print("{} {}", 1)
    with pytest.raises(KeyError):
        jax.debug.print("{x}", 1)
    with pytest.raises(TypeError, match="debug_callback received unexpected arguments in the "
                                        r"two-call form: args=\(1,\) kwargs=\{\}"):
        jax.debug.callback(None, 1, ordered=True)
    with pytest.raises(TypeError, match="first argument to jax.debug.callback must be callable, "
                                        "but got an object of type <class 'int'>"):
        jax.debug.callback(3, 1.0)


def test_two_call_forms(printed):
    jax.debug.print(ordered=True)("two-call {}", 3)
    jax.debug.callback(ordered=True)(lambda v: print("cb", v), 4)
    assert printed() == ["two-call 3", "cb 4"]


def test_callback_gets_concrete_arrays_kwargs_and_static_values(jit_backend):
    seen = []

    def cb(a, s, *, k):
        seen.append((type(a).__name__, float(a), s, np.asarray(k).tolist()))

    jax.debug.callback(cb, 1.0, "s", k=jnp.arange(2))
    jax.jit(lambda x: jax.debug.callback(cb, x * 2, "s", k=jnp.arange(2)))(1.0)
    jax.effects_barrier()
    assert seen == [("Array", 1.0, "s", [0, 1]), ("Array", 2.0, "s", [0, 1])]


# --- under jit ------------------------------------------------------------------------------
def test_jitted_print_runs_at_every_call_with_the_values(printed, jit_backend):
    traced = []

    @jax.jit
    def f(x):
        traced.append(1)
        jax.debug.print("f x={x} sum={s:.3f}", x=x, s=x.sum())
        return x * 2
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(f(x), x * 2)
    f(x + 1)
    assert printed() == [f"f x={x} sum=3.000", f"f x={x + 1} sum=6.000"]
    assert len(traced) == 1


def test_a_jitted_function_whose_only_work_is_a_print_prints(printed, jit_backend):
    f = jax.jit(lambda x: jax.debug.print("only {}", x))
    assert f(1.5) is None
    assert f(2.5) is None
    assert printed() == ["only 1.5", "only 2.5"]


def test_prints_of_one_program_are_in_program_order(printed, jit_backend):
    @jax.jit
    def f(x):
        for i in range(5):
            jax.debug.print("step {} {}", i, x + i)
        return x
    f(10.0)
    assert printed() == [f"step {i} {10.0 + i}" for i in range(5)]


# --- under transformations -----------------------------------------------------------------
def _f(x):
    jax.debug.print("p {}", x)
    return jnp.sin(x) * x


def test_ad_prints_primal_values_once(printed):
    # recorded from JAX 0.10.2: each of these prints "p 1.0" once
    g = jax.grad(_f)(1.0)
    np.testing.assert_allclose(g, np.sin(1.0) + np.cos(1.0), rtol=1e-6)
    jax.jvp(_f, (1.0,), (2.0,))
    _, f_jvp = jax.linearize(_f, 1.0)
    assert printed() == ["p 1.0"] * 3
    np.testing.assert_allclose(f_jvp(2.0), 2 * (np.sin(1.0) + np.cos(1.0)), rtol=1e-6)
    assert printed() == []  # the linear function does not print
    _, f_vjp = jax.vjp(_f, 1.0)
    f_vjp(1.0)
    jax.hessian(_f)(1.0)
    assert printed() == ["p 1.0"] * 2


def test_ad_of_jit_and_jit_of_ad_print_primals(printed, jit_backend):
    jax.grad(jax.jit(_f))(1.0)
    jax.jit(jax.grad(_f))(1.0)
    jax.vmap(jax.grad(_f))(jnp.arange(2.0))
    assert printed() == ["p 1.0", "p 1.0", "p 0.0", "p 1.0"]


def test_checkpoint_prints_in_the_forward_and_the_recomputation(printed):
    # recorded from JAX 0.10.2: the rematerialized forward pass prints again
    jax.grad(jax.checkpoint(_f))(1.0)
    assert printed() == ["p 1.0", "p 1.0"]


def test_vmap_prints_once_per_example_in_order(printed, jit_backend):
    x = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    y = np.arange(3)
    pr = lambda a, b: jax.debug.print("{} {}", a, b)  # noqa: E731
    jax.vmap(pr, in_axes=(1, None))(x, y)
    jax.jit(jax.vmap(pr, in_axes=(1, None)))(x, y)
    expected = [f"{x[:, 0]} {y}", f"{x[:, 1]} {y}"]
    assert printed() == expected * 2
    jax.vmap(jax.vmap(lambda a: jax.debug.print("{}", a)))(x)  # (recorded from JAX 0.10.2)
    assert printed() == ["0.0", "2.0", "1.0", "3.0"]


# --- in control flow ------------------------------------------------------------------------
def _body(c, x):
    jax.debug.print("scan c={} x={}", c, x, ordered=True)
    return c + x, c


def _wbody(c):
    jax.debug.print("while c={}", c)
    return c + 1


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_prints_in_loops_and_branches_run_in_order(printed, jit_backend, jitted):
    wrap = jax.jit if jitted else (lambda f: f)
    xs = np.arange(3.0, dtype=np.float32)
    carry, ys = wrap(lambda xs: lax.scan(_body, 0.0, xs))(xs)
    assert float(carry) == 3.0 and ys.tolist() == [0.0, 0.0, 1.0]
    assert int(wrap(lambda c: lax.while_loop(lambda c: c < 3, _wbody, c))(0)) == 3
    fori = wrap(lambda x: lax.fori_loop(
        0, 3, lambda i, c: (jax.debug.print("fori {i} {c}", i=i, c=c), c * 2)[1], x))
    assert float(fori(1.0)) == 8.0
    branches = [lambda x, i=i: (jax.debug.print("b{} {}", i, x), x + i)[1] for i in range(3)]
    cond = wrap(lambda p, x: lax.cond(p, branches[1], branches[0], x))
    switch = wrap(lambda i, x: lax.switch(i, branches, x))
    assert float(cond(False, 2.0)) == 2.0 and float(cond(True, 2.0)) == 3.0
    assert float(switch(2, 5.0)) == 7.0
    assert printed() == [
        "scan c=0.0 x=0.0", "scan c=0.0 x=1.0", "scan c=1.0 x=2.0",
        "while c=0", "while c=1", "while c=2",
        "fori 0 1.0", "fori 1 2.0", "fori 2 4.0",
        "b0 2.0", "b1 2.0", "b2 5.0"]


def test_grad_of_scan_prints_the_forward_carries(printed):
    f = lambda xs: lax.scan(  # noqa: E731
        lambda c, x: (jax.debug.print("c {} x {}", c, x), (c * x, c))[1], 1.0, xs)[0]
    g = jax.grad(f)(np.arange(1.0, 4.0, dtype=np.float32))
    np.testing.assert_allclose(g, [6.0, 3.0, 2.0])
    # recorded from JAX 0.10.2
    assert printed() == ["c 1.0 x 1.0", "c 1.0 x 2.0", "c 2.0 x 3.0"]
