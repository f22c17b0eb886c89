"""``debug.breakpoint`` (the ``(jdb)`` prompt) and ``debug.log``.

The debugger is driven as JAX's own tests drive it: ``stdin=``/``stdout=``
string streams passed through ``breakpoint``'s keyword arguments. Every
expected session was recorded from JAX 0.10.2 (the same commands on the same
functions; file names and line numbers are this file's).
"""
import inspect
import io
import logging

import pytest

import minijax as jax
import minijax.numpy as jnp

# A breakpoint flattens every local of every frame, pytest's generators too: JAX 0.10.2
# warns about them as well (generators are leaves, deprecated).
pytestmark = pytest.mark.filterwarnings(
    "ignore:Python iterable type 'generator':DeprecationWarning")


def session(commands: str, fn, *args):
    """Run ``fn(stdin, stdout, *args)``, typing ``commands``; (what the debugger wrote,
    the result, read)."""
    stdin, stdout = io.StringIO(commands), io.StringIO()
    out = fn(stdin, stdout, *args)
    if out is not None:
        out = jax.block_until_ready(out)
    jax.effects_barrier()
    return stdout.getvalue(), out


def inner(stdin, stdout, x):
    y = jnp.sin(x)
    jax.debug.breakpoint(stdin=stdin, stdout=stdout)
    return y


def outer(stdin, stdout, x):
    z = x + 1
    return inner(stdin, stdout, z) * 2


def inner2(stdin, stdout, x):
    y = jnp.sin(x)
    jax.debug.breakpoint(stdin=stdin, stdout=stdout, num_frames=2)
    return y


def outer2(stdin, stdout, x):
    z = x + 1
    return inner2(stdin, stdout, z) * 2


def jitted(fn):
    return lambda i, o, x: jax.jit(lambda x: fn(i, o, x))(x)


def test_signature_is_jaxs():
    assert str(inspect.signature(jax.debug.breakpoint)) == (
        "(*, backend: 'str | None' = None, filter_frames: 'bool' = True, "
        "num_frames: 'int | None' = None, ordered: 'bool' = False, token=None, **kwargs)")
    with pytest.raises(ValueError, match="`ordered` and `token` are mutually exclusive"):
        jax.debug.breakpoint(ordered=True, token=1.0)


def test_print_values_under_jit(jit_backend):
    text, out = session("p x\np y\nc\n", jitted(inner), 2.0)
    assert text == ("Entering jdb:\n(jdb) Array(2., dtype=float32)\n"
                    "(jdb) Array(0.9092974, dtype=float32)\n(jdb) ")
    assert float(out) == pytest.approx(0.9092974)


def test_eager_breakpoint_sees_python_values():
    text, _ = session("p x\npp {'a': y}\nc\n", inner, 2.0)
    assert text == ("Entering jdb:\n(jdb) 2.0\n"
                    "(jdb) {'a': Array(0.9092974, dtype=float32, weak_type=True)}\n(jdb) ")


def test_expressions_and_errors(jit_backend):
    text, _ = session("x + 1\ny.shape\nc\n", jitted(inner), jnp.arange(3.0))
    assert text == "Entering jdb:\n(jdb) Array([1., 2., 3.], dtype=float32)\n(jdb) (3,)\n(jdb) "
    text, _ = session("p undefined_name\nc\n", jitted(inner), 1.0)
    assert text == ("Entering jdb:\n(jdb) *** NameError: name 'undefined_name' is not "
                    "defined\n(jdb) ")


def _context(fn, offset: int) -> str:
    """What ``u``/``d`` print for ``fn`` stopped at its line ``offset`` (JAX's layout: the
    two lines before, the line, two after, ``->`` marking it)."""
    lines, start = inspect.getsourcelines(fn)
    source = "".join(lines).split("\n")
    shown = [("->  " if i == offset else "    ") + line for i, line in enumerate(source)
             if offset - 3 <= i <= offset + 2]
    return "\n".join([f"> {__file__}({start + offset})", *shown])


def test_up_down_where_list(jit_backend):
    text, out = session("u\np z\nd\nd\nc\n", jitted(outer), 1.0)
    assert text == ("Entering jdb:\n(jdb) " + _context(outer, 2) + "\n"
                    "(jdb) Array(2., dtype=float32)\n"
                    "(jdb) " + _context(inner, 2) + "\n"
                    "(jdb) At bottommost frame.\n" + _context(inner, 2) + "\n(jdb) ")
    assert float(out) == pytest.approx(1.8185948)
    line_inner = inspect.getsourcelines(inner2)[1] + 2
    line_outer = inspect.getsourcelines(outer2)[1] + 2
    text, _ = session("w\nl\nc\n", jitted(outer2), 1.0)
    assert text == (
        "Entering jdb:\n(jdb) Traceback:\n"
        f'  File "{__file__}", line {line_outer}\n'
        "    return inner2(stdin, stdout, z) * 2\n"
        f'  File "{__file__}", line {line_inner}\n'
        "    jax.debug.breakpoint(stdin=stdin, stdout=stdout, num_frames=2)\n"
        "(jdb) " + _context(inner2, 2) + "\n(jdb) ")


def test_under_vmap_grad_and_cond(jit_backend):
    # vmap: one session per example
    text, _ = session("p x\nc\np x\nc\n",
                      lambda i, o, x: jax.vmap(lambda x: inner(i, o, x))(x), jnp.arange(2.0))
    assert text == ("Entering jdb:\n(jdb) Array(0., dtype=float32)\n(jdb) "
                    "Entering jdb:\n(jdb) Array(1., dtype=float32)\n(jdb) ")
    # grad: the primal value
    text, out = session("p x\nc\n", lambda i, o, x: jax.jit(jax.grad(
        lambda x: inner(i, o, x)))(x), 1.0)
    assert text == "Entering jdb:\n(jdb) Array(1., dtype=float32)\n(jdb) "
    assert float(out) == pytest.approx(0.5403023)

    # cond: only when the branch runs (the "Introduction to debugging" tutorial's
    # breakpoint_if_nonfinite)
    def cond_case(i, o, x):
        def brk(x):
            jax.debug.breakpoint(stdin=i, stdout=o)
        jax.lax.cond(x > 0, lambda x: None, brk, x)
        return x
    assert session("p x\nc\n", jitted(cond_case), 1.0)[0] == ""
    assert session("p x\nc\n", jitted(cond_case), -1.0)[0] == (
        "Entering jdb:\n(jdb) Array(-1., dtype=float32)\n(jdb) ")


def test_token_form(jit_backend):
    def tok(i, o, x):
        y = x * 3
        y = jax.debug.breakpoint(stdin=i, stdout=o, token=y)
        return y + 1
    text, out = session("p y\nc\n", jitted(tok), 1.0)
    assert text == "Entering jdb:\n(jdb) Array(3., dtype=float32)\n(jdb) "
    assert float(out) == 4.0
    # the token unused: the breakpoint is dead code, as in JAX
    assert session("p y\nc\n", jitted(lambda i, o, x: (tok(i, o, x), x)[1]), 1.0)[0] == ""


def test_quit_in_a_jitted_breakpoint_is_the_programs_error(jit_backend):
    # recorded from JAX 0.10.2: `q` raises SystemExit in the callback, which the running
    # program reports as its JaxRuntimeError (the process goes on)
    with pytest.raises(jax.errors.JaxRuntimeError, match="SystemExit: 0"):
        session("q\n", jitted(inner), 1.0)
    try:
        jax.effects_barrier()
    except jax.errors.JaxRuntimeError:
        pass


def test_debug_log(jit_backend, caplog):
    # recorded from JAX 0.10.2: debug.print's formatting, logged at INFO at the user's
    # line (by jax._src.debugging; here minijax.debugging)
    f = jax.jit(lambda x: (jax.debug.log("x = {}", x), x * 2)[1])
    line = inspect.currentframe().f_lineno - 1
    with caplog.at_level(logging.INFO, logger="minijax.debugging"):
        f(jnp.arange(3.0))
        jax.debug.log("eager {y}", y=1.5)
        jax.effects_barrier()
    got = [(r.levelname, r.lineno, r.getMessage()) for r in caplog.records
           if r.name == "minijax.debugging"]
    assert sorted(got) == sorted([("INFO", line, "x = [0. 1. 2.]"),
                                  ("INFO", line + 4, "eager 1.5")])
    assert all(r.pathname == __file__ for r in caplog.records if r.name == "minijax.debugging")
