"""Chapter 10: what a user of the GPU sees — devices, placement, transfers,
the AOT stages, and errors — on the CUDA simulator or a GPU (and, without
either, the errors and stages that need no GPU)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

from tests.ch10_cuda.conftest import (REAL_GPU, cuda_jit, gpu_only, needs_extra, no_gpu_only,
                                      ptx_only, runs_kernels, simulator_only)

pytestmark = needs_extra


@simulator_only
def test_the_simulator_gives_one_gpu_but_the_default_stays_the_cpu():
    gpus = jax.devices("gpu")
    assert repr(gpus) == "[CudaDevice(id=0)]" and jax.devices("cuda") == gpus
    assert gpus[0].platform == "gpu" and str(gpus[0]) == "gpu:0"
    assert jax.default_backend() == "cpu" and jax.devices()[0].platform == "cpu"
    assert jax.device_count("gpu") == 1


@gpu_only
def test_a_real_gpu_is_the_default():
    gpus = jax.devices("gpu")
    assert jax.default_backend() == "gpu" and jax.devices()[0] == gpus[0]
    y = jax.jit(lambda x: x + 1)(np.ones(3, np.float32))
    assert y.device == gpus[0]
    np.testing.assert_array_equal(np.asarray(y), np.full(3, 2, np.float32))


@runs_kernels
def test_device_put_copies_to_the_gpu_and_back():
    gpu = jax.devices("gpu")[0]
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jax.device_put(host, gpu)
    assert x.device == gpu and x.devices() == {gpu}
    x.copy_to_host_async()
    assert x.block_until_ready() is x and x.is_ready()
    np.testing.assert_array_equal(np.asarray(x), host)
    back = jax.device_put(x, jax.devices("cpu")[0])
    assert back.device.platform == "cpu"
    np.testing.assert_array_equal(np.asarray(back), host)
    assert jax.device_put(3.0, gpu).dtype == np.float32  # canonicalized, weak as on the CPU


@runs_kernels
def test_computations_on_gpu_arrays_run_there():
    gpu = jax.devices("gpu")[0]
    x = jax.device_put(np.linspace(-1, 1, 10, dtype=np.float32), gpu)
    f = jax.jit(lambda x: jnp.tanh(x) * 2)
    y = f(x)
    assert y.device == gpu and type(y._buffer).__name__ == "CudaBuffer"
    np.testing.assert_allclose(np.asarray(y), np.tanh(np.asarray(x)) * 2, rtol=1e-6)
    z = f(y)  # a GPU result feeds the next kernel with no copy to the host
    assert z.device == gpu
    np.testing.assert_allclose(np.asarray(z), np.tanh(np.asarray(y)) * 2, rtol=1e-6)


@runs_kernels
def test_jit_device_runs_host_inputs_on_the_gpu():
    gpu = jax.devices("gpu")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        f = jax.jit(lambda a, b: a @ b + 1, device=gpu)
    a, b = np.ones((3, 4), np.float32), np.full((4, 2), 2, np.float32)
    out = f(a, b)
    assert out.device == gpu
    np.testing.assert_array_equal(np.asarray(out), np.full((3, 2), 9, np.float32))


@runs_kernels
def test_outputs_that_are_inputs_or_literals():
    x = np.arange(3, dtype=np.float32)
    a, two, double = cuda_jit(lambda x: (x, 2.0, x * 2))(x)
    np.testing.assert_array_equal(np.asarray(a), x)
    assert float(two) == 2.0
    np.testing.assert_array_equal(np.asarray(double), x * 2)


@runs_kernels
def test_an_integer_program_matches_the_cpu_bit_for_bit():
    i = np.array([2**31 - 1, -5, 17, 0], dtype=np.int32)
    f = lambda i: (i * 3 + 7, i >> 2, lax_shift(i))  # noqa: E731
    got = cuda_jit(f)(i)
    want = jax.jit(f, backend="cpu")(i)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def lax_shift(i):
    return jax.lax.shift_right_logical(i, np.int32(1))


def test_a_primitive_without_a_cuda_lowering_is_an_error_at_lowering_time():
    with pytest.raises(NotImplementedError, match="no CUDA lowering for reduce_precision"):
        cuda_jit(lambda x: jax.lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
                 ).lower(np.ones(4, np.float32))


def test_a_rule_not_written_for_complex_numbers_says_so():
    with pytest.raises(NotImplementedError, match="no CUDA lowering for cumsum on complex"):
        cuda_jit(lambda x: jnp.cumsum(x)).lower(np.ones(4, np.complex64))


def test_the_lowered_text_is_the_kernels_and_the_host_driver():
    text = cuda_jit(lambda x: jnp.sum(jnp.exp(x), axis=1)).lower(
        np.ones((3, 4), np.float32)).as_text()
    assert "@cuda.jit(cache=True)\ndef jit_lambda_k0(a, c):" in text
    assert "cuda.shared.array" in text and "cuda.syncthreads()" in text
    assert "# b:f32[3,4] = exp a" in text.replace("  #", " #")
    assert "def jit_lambda(stream, host, a):" in text  # the driver, named after the function
    assert "jit_lambda_k0[" in text and ", stream](a, c)" in text


def test_cost_analysis_counts_what_the_fused_kernels_move():
    lowered = cuda_jit(lambda x: jnp.sin(x) * 2 + 1).lower(np.ones(100, np.float32))
    cost = lowered.cost_analysis()
    assert cost["bytes accessed"] == 800.0  # read x once, write the result once


@ptx_only
def test_compiled_text_is_ptx():
    text = cuda_jit(lambda x: x * 2).lower(np.ones(8, np.float32)).compile().as_text()
    assert ".visible .entry" in text
    if REAL_GPU:  # the GPU's own compute capability
        from minijax.backends.cuda.platform import numba_cuda
        cc = numba_cuda().gpus[0].compute_capability
    else:
        cc = (8, 0)
    assert f".target sm_{cc[0]}{cc[1]}" in text


@ptx_only
@no_gpu_only
def test_without_a_gpu_there_is_none_to_list():
    """A machine with neither a driver nor the simulator has no GPU platform (a
    fresh process: the platforms are fixed at first use)."""
    code = ("import minijax as jax\n"
            "try:\n    jax.devices('gpu')\nexcept RuntimeError as e:\n    print(e)\n"
            "print(jax.default_backend())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "Unknown backend: 'gpu' requested" in out and out.strip().endswith("cpu")


@simulator_only
def test_jax_platforms_cuda_makes_the_simulator_the_default():
    code = ("import minijax as jax, numpy as np\n"
            "print(jax.default_backend(), jax.devices())\n"
            "y = jax.jit(lambda x: x + 1)(np.ones(3, np.float32))\n"
            "print(y.device, np.asarray(y))")
    env = {**__import__("os").environ, "JAX_PLATFORMS": "cuda"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.splitlines()
    assert out[0] == "gpu [CudaDevice(id=0)]"
    assert out[1] == "gpu:0 [2. 2. 2.]"


@runs_kernels
def test_an_error_of_the_run_surfaces_where_the_value_is_read():
    """A failed input fails the GPU program's outputs, raised when read (not at the call)."""
    gpu = jax.devices("gpu")[0]
    f = jax.jit(lambda x: x * 2)
    x = jax.device_put(np.ones(3, np.float32), gpu)
    x._buffer._error = ValueError("the copy failed")  # as a failed host-to-device copy
    y = f(x)  # returns
    with pytest.raises(ValueError, match="the copy failed"):
        np.asarray(y)
    with pytest.raises(ValueError, match="the copy failed"):
        y.block_until_ready()


@runs_kernels
def test_eager_operations_on_gpu_arrays_run_as_kernels_and_stay_there():
    gpu = jax.devices("gpu")[0]
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jax.device_put(host, gpu)
    for got, want in [(x + 1, host + 1), (jnp.sum(x, axis=1), host.sum(1)),
                      (jnp.exp(x)[1], np.exp(host)[1]), (x @ x.T, host @ host.T),
                      (jnp.sort(-x, axis=1), np.sort(-host, axis=1))]:  # sort: the host impl
        assert got.device == gpu and type(got._buffer).__name__ == "CudaBuffer"
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@runs_kernels
def test_debug_print_in_a_gpu_program_prints_what_the_cpu_prints(capfd):
    """Exact arithmetic, so a GPU (whose sin may differ from the CPU's in the last
    bit) must print the very same digits."""
    def f(x):
        y = x * x + 0.5
        jax.debug.print("y = {y}, total {t}", y=y, t=jnp.sum(y))
        return y * 2
    x = np.array([0.0, 0.25, 0.5, 0.75], np.float32)
    jax.jit(f, backend="cpu")(x)
    on_cpu = capfd.readouterr().out
    out = cuda_jit(f)(x)
    jax.effects_barrier()
    assert on_cpu == "y = [0.5    0.5625 0.75   1.0625], total 2.875\n"
    assert capfd.readouterr().out == on_cpu
    np.testing.assert_array_equal(np.asarray(out), 2 * (x * x + 0.5))


@runs_kernels
def test_callbacks_run_between_kernels_in_program_order():
    seen = []

    def log(x):
        seen.append(np.asarray(x).copy())
        return np.asarray(x).sum(dtype=np.float32)

    def f(x):
        a = jax.experimental.io_callback(log, jax.ShapeDtypeStruct((), jnp.float32), x * 2,
                                         ordered=True)
        b = jax.pure_callback(lambda v: np.asarray(v) * 10,
                              jax.ShapeDtypeStruct((3,), jnp.float32), x + a)
        jax.experimental.io_callback(log, jax.ShapeDtypeStruct((), jnp.float32), b,
                                     ordered=True)
        return b
    x = np.array([1.0, 2.0, 3.0], np.float32)
    out = cuda_jit(f)(x)
    np.testing.assert_array_equal(np.asarray(out), (x + 12) * 10)
    assert [s.tolist() for s in seen] == [[2.0, 4.0, 6.0], [130.0, 140.0, 150.0]]


@runs_kernels
def test_a_failing_callback_in_a_gpu_program_surfaces_at_the_barrier():
    def boom(x):
        raise ValueError("no such thing")
    cuda_jit(lambda x: jax.debug.callback(boom, x))(np.ones(2, np.float32))
    with pytest.raises(Exception, match="no such thing"):
        jax.effects_barrier()


@runs_kernels
def test_keys_put_on_the_gpu_draw_the_cpus_bits():
    gpu = jax.devices("gpu")[0]
    for key in (jax.random.key(0), jax.random.PRNGKey(1)):
        on_gpu = jax.device_put(key, gpu)
        assert on_gpu.device == gpu and on_gpu.dtype == key.dtype
        np.testing.assert_array_equal(np.asarray(jax.random.key_data(on_gpu)),
                                      np.asarray(jax.random.key_data(key)))
        draws = jax.random.normal(on_gpu, (4,))
        assert draws.device == gpu
        np.testing.assert_array_equal(np.asarray(draws), np.asarray(jax.random.normal(key, (4,))))
        subkeys = jax.random.split(on_gpu, 3)
        np.testing.assert_array_equal(np.asarray(jax.random.key_data(subkeys)),
                                      np.asarray(jax.random.key_data(jax.random.split(key, 3))))
