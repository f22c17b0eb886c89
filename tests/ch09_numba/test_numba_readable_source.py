"""The generated source reads like code a person wrote (the sixth session):
no copies for broadcasts that index arithmetic does, no loops over a size-1
dimension, constants folded, only the imports it uses, and ``as_text()``
shows the shared helpers the kernel calls. Results are checked against NumPy."""
import re

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from tests.ch09_numba.conftest import cpu_jit, is_fallback, kernel_source

rng = np.random.default_rng(16)
X = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal(4).astype(np.float32)


def _code(source: str) -> str:
    """The entry function and helpers, without the module docstring."""
    return source.split('"""', 2)[2]


def test_a_broadcast_row_is_read_by_index_not_copied():
    jitted = cpu_jit(lambda x, b: x * b[None, :] + 1.0)
    code = _code(kernel_source(jitted, X, B))
    assert code.count("np.empty(") == 1, code        # the output only: no broadcast buffer
    assert re.search(r"= b\[i1\]", code), code        # b read at the loop's index
    assert "[0, i1]" not in code
    np.testing.assert_allclose(np.asarray(jitted(X, B)), X * B[None, :] + 1, rtol=1e-6)


def test_keepdims_reductions_feed_the_next_loop_without_a_copy():
    def f(x):
        return x * jnp.sum(x, axis=0, keepdims=True)
    jitted = cpu_jit(f)
    code = _code(kernel_source(jitted, X))
    assert code.count("np.empty(") == 1, code
    np.testing.assert_allclose(np.asarray(jitted(X)), X * X.sum(0, keepdims=True), rtol=1e-5)


def test_dividing_by_a_reduction_takes_one_reciprocal_per_reduced_element():
    # XLA's rewrite x / broadcast(s) -> x * broadcast(1 / s): the divisions run over
    # the 4 sums, not over the 12 elements (passes.divide_by_reciprocal)
    jitted = cpu_jit(lambda x: x / jnp.sum(x, axis=0, keepdims=True))
    code = _code(kernel_source(jitted, X))
    assert code.count(" / ") == 1, code
    assert "fused loop nest over [4]: 1 equation(s)" in code, code
    np.testing.assert_allclose(np.asarray(jitted(X)), X / X.sum(0, keepdims=True), rtol=1e-5)


def test_no_loop_runs_over_a_dimension_of_size_one():
    x = rng.standard_normal((1, 5, 1)).astype(np.float32)
    jitted = cpu_jit(lambda x: (jnp.tanh(x) * 2.0, jnp.sum(x, axis=1)))
    code = _code(kernel_source(jitted, x))
    assert "range(1)" not in code, code
    y, s = jitted(x)
    np.testing.assert_allclose(np.asarray(y), np.tanh(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s), x.sum(axis=1), rtol=1e-6)


def test_conversions_of_literals_are_folded():
    jitted = cpu_jit(lambda x: jnp.where(x > 0, x, 0.0))
    code = _code(kernel_source(jitted, X))
    assert "convert_element_type" not in code, code   # 0.0 is a float32 literal already
    np.testing.assert_array_equal(np.asarray(jitted(X)), np.where(X > 0, X, 0))


def test_a_kernel_imports_only_what_it_uses():
    jitted = cpu_jit(lambda x: x * 2.0 + 1.0)
    source = kernel_source(jitted, X)
    assert "import math" not in source                # no math.* call in this kernel
    assert "import numpy as np" in source
    lgamma = cpu_jit(lambda x: lax.lgamma(jnp.abs(x) + 1.0))
    assert "import math" in kernel_source(lgamma, X)  # math.lgamma is called


def test_as_text_shows_the_shared_helpers_the_kernel_calls():
    jitted = cpu_jit(lambda x: jnp.exp(x) + jnp.sin(x))
    lowered = jitted.lower(X)
    text = lowered.as_text()
    imported = re.search(r"^from (minijax_helpers_\w+) import (.*)$", text, re.M)
    assert imported, text[:500]
    for name in imported.group(2).split(", "):
        assert re.search(rf"^def {name}\(", text, re.M), name  # each one's source follows
    assert not is_fallback(jitted, X)
    np.testing.assert_allclose(np.asarray(jitted(X)), np.exp(X) + np.sin(X), rtol=1e-6)
