"""Check of chapter 10, exercise 1: the CUDA lowering rule of ``squareplus``."""
import math
import warnings

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax.backends.cuda.rules import CudaScalarContext
from _cuda_check import needs_cuda_extra, needs_ptx, run_on_simulator
from _load import load

ex = load(__file__, "ex1_cuda_rule")

x = np.linspace(-6, 6, 50, dtype=np.float32)


def numpy_squareplus(x):
    return (x + np.sqrt(x * x + np.float32(4))) / np.float32(2)


def f(x):
    return ex.squareplus(x) * 2.0


def cuda_lower(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(fn, backend="cuda").lower(*args)


def test_the_expression_computes_squareplus_in_float32():
    # what the simulator does with the kernel's line: Python, on NumPy scalars
    eqn = minijax.make_jaxpr(ex.squareplus)(x).jaxpr.eqns[0]
    expr = ex.squareplus_cuda_rule(CudaScalarContext(eqn, set()), "a[i0]")
    assert "np.sqrt" not in expr, "NumPy's functions do not compile for CUDA: use math"
    got = [eval(expr, {"math": math, "np": np, "a": x, "i0": i}) for i in range(len(x))]
    assert all(type(g) is np.float32 for g in got), {type(g).__name__ for g in got}
    np.testing.assert_allclose(np.array(got), numpy_squareplus(x), rtol=1e-6)


@needs_cuda_extra
def test_lowers_to_one_fused_kernel():
    src = cuda_lower(f, x).as_text()
    assert src.count("@cuda.jit") == 1, src
    assert any("= squareplus a" in line and "_i = " in line for line in src.splitlines()), src


@needs_ptx
def test_ptx_takes_a_float32_square_root():
    ptx = cuda_lower(f, x).compile().as_text()
    assert "sqrt.rn.f32" in ptx or "sqrt.approx.f32" in ptx or "sqrt.approx.ftz.f32" in ptx
    assert ".f64" not in ptx, "float64 arithmetic in a float32 kernel"


@needs_cuda_extra
def test_runs_on_the_simulator():
    out = run_on_simulator(__file__, "ex1_cuda_rule", "squareplus", x)
    assert out["dtype"] == "float32"
    np.testing.assert_allclose(np.array(out["value"], np.float32), numpy_squareplus(x), rtol=1e-6)
