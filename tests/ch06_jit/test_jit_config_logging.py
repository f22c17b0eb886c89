"""Chapter 06 — configuration options, compile logging and leaked tracers (JAX 0.10.2's).

- ``config.update`` / attribute access / ``read`` / per-thread context managers,
  with the environment variable read at import;
- ``jax_log_compiles``: JAX's log lines on JAX's loggers (WARNING when the
  option is on, DEBUG otherwise);
- ``jax_check_tracer_leaks``: a tracer kept after its trace ended is
  reported when the trace ends; without the check, using it later raises
  ``UnexpectedTracerError``.
"""
import logging
import os
import re
import subprocess
import sys

import pytest

import minijax.numpy as jnp
from minijax import errors
from minijax.config import (bool_state, check_tracer_leaks, checking_leaks, config,
                            int_state, log_compiles)
from minijax.jit import jit


# --- config -------------------------------------------------------------------------------------
def test_update_and_read_back():
    assert config.jax_log_compiles is False
    config.update("jax_log_compiles", True)
    try:
        assert config.jax_log_compiles is True and config.values["jax_log_compiles"] is True
    finally:
        config.update("jax_log_compiles", False)


def test_context_managers_override_per_block():
    with log_compiles(True):
        assert config.jax_log_compiles is True
    assert config.jax_log_compiles is False
    with checking_leaks():
        assert config.jax_check_tracer_leaks is True
    with check_tracer_leaks():  # a boolean option's context manager defaults to True
        assert config.jax_check_tracer_leaks is True


# expected values from JAX 0.10.2
def test_config_errors():
    with pytest.raises(AttributeError, match="^Unrecognized config option: jax_nonexistent$"):
        config.update("jax_nonexistent", 1)
    with pytest.raises(AttributeError, match="'Config' object has no attribute 'jax_nonexistent'"):
        config.jax_nonexistent  # noqa: B018
    with pytest.raises(AttributeError, match=re.escape(
            "For flags with a corresponding contextmanager, read their value via e.g. "
            "`config.jax_disable_jit` rather than `config.FLAGS.jax_disable_jit`.")):
        config.read("jax_disable_jit")
    assert config.read("jax_enable_x64") is False
    with pytest.raises(TypeError, match="bool\\(\\) not supported"):
        bool(log_compiles)


def test_enable_x64_is_refused():
    with pytest.raises(NotImplementedError, match="minijax is 32-bit only"):
        config.update("jax_enable_x64", True)
    assert config.jax_enable_x64 is False
    config.update("jax_enable_x64", False)  # allowed: it is already off


def test_later_chapters_add_options():
    """How chapter 09 or 11 add theirs: a state object, read by attribute."""
    flag = bool_state("minijax_test_flag_ch06", False, "A test option.")
    count = int_state("minijax_test_count_ch06", 3, "A test count.")
    assert config.minijax_test_flag_ch06 is False and count.value == 3
    config.update("minijax_test_count_ch06", 4)
    assert config.read("minijax_test_count_ch06") == 4
    with flag(True):
        assert flag.value is True
    with pytest.raises(Exception, match="already defined"):
        bool_state("minijax_test_flag_ch06", False, "again")


def _run_with_env(env: dict, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


def test_environment_variables_are_read_at_import():
    code = ("from minijax.config import config; "
            "print(config.jax_log_compiles, config.jax_disable_jit)")
    out = _run_with_env({"JAX_LOG_COMPILES": "1", "JAX_DISABLE_JIT": "true"}, code)
    assert out.stdout.split() == ["True", "True"], out.stderr
    out = _run_with_env({"JAX_ENABLE_X64": "1"}, "import minijax.config")
    assert "NotImplementedError: minijax is 32-bit only" in out.stderr


# --- log_compiles -------------------------------------------------------------------------------
def _messages(caplog):
    return [(r.name, r.levelname, re.sub(r"in [0-9.]+ sec", "in T sec", r.getMessage()))
            for r in caplog.records if r.name.startswith("jax")]  # not Numba's own logs


def test_log_compiles_lines(caplog, jit_backend):
    def scale(x):
        return jnp.sin(x) * 2.0
    f = jit(scale)
    caplog.set_level(logging.DEBUG)
    with log_compiles(True):
        f(jnp.ones(3))
        f(jnp.ones(3))  # cached: nothing logged
    # expected values from JAX 0.10.2 (each backend names its own steps)
    ir, compiler = {"interpreter": ("interpreter program", "interpreter"),
                    "cpu": ("numba kernel source", "numba")}[jit_backend]
    assert _messages(caplog) == [
        ("jax._src.dispatch", "WARNING", "Finished tracing scale for jit in T sec"),
        ("jax._src.interpreters.pxla", "WARNING",
         "Compiling jit(scale) with global shapes and types (ShapedArray(float32[3]),). "
         "Argument mapping: (UnspecifiedValue,)."),
        ("jax._src.dispatch", "WARNING",
         f"Finished jaxpr to {ir} conversion jit(scale) in T sec"),
        ("jax._src.dispatch", "WARNING", f"Finished {compiler} compilation of jit(scale) in T sec"),
    ]


def test_without_log_compiles_the_lines_are_debug(caplog, jit_backend):
    caplog.set_level(logging.DEBUG)
    jit(lambda x, y: x * y)(1.0, jnp.ones(2))
    levels = {r.levelname for r in caplog.records}
    assert levels == {"DEBUG"}
    assert ("Compiling jit(<lambda>) with global shapes and types "
            "(ShapedArray(float32[], weak_type=True), ShapedArray(float32[2])). "
            "Argument mapping: (UnspecifiedValue, UnspecifiedValue).") in caplog.messages


def test_tracing_under_a_transformation_is_not_logged(caplog):
    from minijax.interpreters.partial_eval import make_jaxpr
    caplog.set_level(logging.DEBUG)
    make_jaxpr(jit(lambda x: x + 1))(1.0)
    assert not caplog.records


# --- leaked tracers -------------------------------------------------------------------------------
def test_check_tracer_leaks_reports_the_leak(jit_backend):
    store = []
    with checking_leaks():
        with pytest.raises(Exception) as info:
            jit(lambda x: store.append(x) or x)(1.0)
    msg = str(info.value)
    # expected values from JAX 0.10.2 (ids vary)
    assert msg.startswith("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\n"
                          "JitTracer(~float32[])\nThe error occurred while tracing the function "
                          "<lambda> at ")
    assert "depends on the value of the argument x.\n<DynamicJaxprTracer " in msg
    assert re.search(r"is referred to by <list \d+>\[0\]", msg)
    with checking_leaks():
        assert jit(lambda x: x * 3)(3.0) == 9.0  # no leak, no error


def test_leaked_tracer_used_later(jit_backend):
    store = []

    @jit
    def leak(x):
        store.append(x)
        return x * 2
    leak(1.0)
    assert repr(store[0]) == "JitTracer(~float32[])" and store[0].shape == ()
    with pytest.raises(errors.UnexpectedTracerError):
        store[0] + 1
    with pytest.raises(errors.UnexpectedTracerError) as info:
        jit(lambda y: y + store[0])(1.0)
    msg = str(info.value)
    # expected values from JAX 0.10.2
    assert msg.startswith(
        "Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
        "allowing for a reference to an intermediate value with type float32[] wrapped in a "
        "DynamicJaxprTracer to escape the scope of the transformation.\nJAX transformations "
        "require that functions explicitly return their outputs, and disallow saving "
        "intermediate values to global state.")
    assert msg.endswith(
        "To catch the leak earlier, try setting the environment variable "
        "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager.\n"
        "See https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError")
    with pytest.raises(errors.UnexpectedTracerError):
        jit(lambda y: y)(store[0])


def test_leaked_tracer_message_names_the_function(jit_backend):
    store = []

    def leak(x):
        store.append(x)
        return x
    jit(leak)(1.0)
    with pytest.raises(errors.UnexpectedTracerError) as info:
        jit(lambda y: y + store[0])(1.0)
    code = leak.__code__
    assert (f"The function being traced when the value leaked was leak at "
            f"{code.co_filename}:{code.co_firstlineno} traced for jit.\n"
            "------------------------------\n"
            "The leaked intermediate value was created on line . \n") in str(info.value)
