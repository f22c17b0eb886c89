"""Check of chapter 10, exercise 2: the CUDA index rule of ``roll``."""
import itertools
import warnings

import numpy as np
import pytest

import minijax
from minijax.backends.cuda.rules import IndexContext
from _cuda_check import needs_cuda_extra, needs_ptx, run_on_simulator
from _load import load

ex = load(__file__, "ex2_index_rule")

a = np.arange(15, dtype=np.float32).reshape(5, 3)


def cuda_lower(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(fn, backend="cuda").lower(*args)


@pytest.mark.parametrize("shift", [0, 1, 2, 5, 7, -1, -8])
def test_each_output_element_reads_the_right_input_element(shift):
    # the rule's expression, evaluated for every output index, as the kernel's threads do
    eqn = minijax.make_jaxpr(lambda x: ex.roll(x, shift))(a).jaxpr.eqns[0]
    read = lambda atom, index: f"x[{', '.join(index)}]"
    expr = ex.roll_cuda_rule(IndexContext(eqn, read), ["i0", "i1"])
    got = np.empty_like(a)
    for i0, i1 in itertools.product(*map(range, a.shape)):
        got[i0, i1] = eval(expr, {"x": a, "i0": i0, "i1": i1, "np": np})
    np.testing.assert_array_equal(got, np.roll(a, shift, axis=0))


@needs_cuda_extra
def test_lowers_to_a_grid_stride_kernel():
    src = cuda_lower(lambda x: ex.roll(x, 2) + 1.0, a).as_text()
    assert "roll: one output element per thread, grid-stride" in src, src
    assert "cuda.gridsize(1)" in src


@needs_ptx
def test_compiles_to_ptx():
    ptx = cuda_lower(lambda x: ex.roll(x, -1), a).compile().as_text()
    assert ".entry" in ptx and "ld.global.f32" in ptx and "st.global.f32" in ptx


@needs_cuda_extra
def test_runs_on_the_simulator():
    x = np.arange(40, dtype=np.float32).reshape(20, 2)   # more elements than the simulator's
    out = run_on_simulator(__file__, "ex2_index_rule", "roll_by_3", x)   # 16 threads
    np.testing.assert_array_equal(np.array(out["value"], np.float32), np.roll(x, 3, axis=0))
