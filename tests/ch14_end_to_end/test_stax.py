"""``minijax.example_libraries.stax`` (chapter 14): JAX's layers, with JAX's numbers.

Every case of ``stax_cases.py`` runs here under ``import minijax as jax`` and is
compared with what it returned under real JAX 0.10.2 (``jax_stax_values.py``):
the output shape ``init_fun`` reports, the parameters (bit for bit where they
are normals or constants, within a few ulps for glorot's truncated normals) and
the forward pass within float32 rounding.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.example_libraries import stax

import stax_cases
from ch14_compare import assert_matches
from jax_stax_values import EXPECTED


FAST_CASES = sorted(name for name in stax_cases.CASES if name != "cnn")


def test_every_case_has_jax_values():
    assert sorted(stax_cases.CASES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", FAST_CASES)
def test_layer_matches_jax(name, jit_backend):
    assert_matches(stax_cases.CASES[name](jax, stax), EXPECTED[name], name)


@pytest.mark.slow
def test_small_cnn_init_apply_and_one_step_match_jax(jit_backend):
    """Conv -> Relu -> MaxPool -> Flatten -> Dense -> LogSoftmax on 8x8x1 images,
    batch 4: the same weights, log-probabilities, loss and gradients as JAX, and
    a jitted ``value_and_grad`` SGD step that lowers the loss as JAX's does."""
    assert_matches(stax_cases.cnn(jax, stax), EXPECTED["cnn"], "cnn")


# --- behaviour that is not a number -----------------------------------------------------

def test_public_names_are_jaxs():
    # from JAX 0.10.2: the layer constructors, combinators and re-exported helpers
    jax_names = ['AvgPool', 'BatchNorm', 'Conv', 'Conv1DTranspose', 'ConvTranspose',
                 'Dense', 'Dropout', 'Elu', 'Exp', 'FanInConcat', 'FanInSum', 'FanOut',
                 'Flatten', 'Gelu', 'GeneralConv', 'GeneralConvTranspose', 'Identity',
                 'LeakyRelu', 'LogSoftmax', 'MaxPool', 'Relu', 'Selu', 'Sigmoid', 'Softmax',
                 'Softplus', 'SumPool', 'Tanh', 'elementwise', 'elu', 'gelu', 'glorot',
                 'glorot_normal', 'leaky_relu', 'log_softmax', 'logsoftmax', 'normal',
                 'ones', 'parallel', 'randn', 'relu', 'selu', 'serial', 'shape_dependent',
                 'sigmoid', 'softmax', 'softplus', 'standardize', 'zeros']
    for name in jax_names:
        assert hasattr(stax, name), name


def test_reachable_from_a_plain_import():
    import minijax
    assert minijax.example_libraries.stax is stax


@pytest.mark.parametrize("layer", [stax.Flatten, stax.Identity, stax.FanInSum, stax.Relu])
def test_argumentless_layers_are_already_pairs(layer):
    init_fun, apply_fun = layer
    assert callable(init_fun) and callable(apply_fun)


def test_dropout_without_rng_raises_jaxs_error():
    _, apply_fun = stax.Dropout(0.5)
    x = jnp.ones((2, 3))
    # from JAX 0.10.2: ValueError, with this message
    with pytest.raises(ValueError, match=r"Dropout layer requires apply_fun to be called "
                       r"with a PRNG key argument\. That is, instead of `apply_fun\(params, "
                       r"inputs\)`, call it like `apply_fun\(params, inputs, rng\)` where "
                       r"`rng` is a PRNG key \(e\.g\. from `jax\.random\.key`\)\."):
        apply_fun((), x)


def test_dropout_needs_rng_even_in_test_mode():
    _, apply_fun = stax.Dropout(0.5, mode='test')
    with pytest.raises(ValueError, match="requires apply_fun to be called with a PRNG key"):
        apply_fun((), jnp.ones(3))


def test_dropout_inside_serial_without_rng_raises():
    _, apply_fun = stax.serial(stax.Identity, stax.Dropout(0.9))
    with pytest.raises(ValueError, match="Dropout layer requires"):
        apply_fun([(), ()], jnp.ones(3))


def test_dropout_keeps_rate_and_scales_by_it(jit_backend):
    # JAX's rate is the keep probability: kept entries become x / rate, others 0
    x = np.full((200, 50), 3.0, np.float32)
    _, apply_fun = stax.Dropout(0.25)
    y = np.asarray(apply_fun((), x, rng=jax.random.PRNGKey(0)))
    assert set(np.unique(y)) <= {0.0, 12.0}
    assert abs((y != 0).mean() - 0.25) < 0.02


def test_serial_apply_jits_and_vmaps(jit_backend):
    init_fun, apply_fun = stax.serial(stax.Dense(4), stax.Tanh, stax.Dense(2))
    _, params = init_fun(jax.random.PRNGKey(0), (-1, 3))
    x = stax_cases.ramp(5, 3)
    eager = np.asarray(apply_fun(params, x))
    np.testing.assert_allclose(np.asarray(jax.jit(apply_fun)(params, x)), eager, rtol=1e-6)
    per_row = jax.vmap(apply_fun, in_axes=(None, 0))(params, x)
    np.testing.assert_allclose(np.asarray(per_row), eager, rtol=1e-6, atol=1e-7)


def test_batchnorm_standardizes_over_its_axes():
    # against NumPy: (x - mean) / sqrt(var + eps) over batch, height and width
    x = stax_cases.ramp(3, 2, 2, 4) * 5 + 1
    _, apply_fun = stax.BatchNorm()
    beta, gamma = jnp.zeros(4), jnp.ones(4)
    mean = x.mean(axis=(0, 1, 2), dtype=np.float64)
    var = x.var(axis=(0, 1, 2), dtype=np.float64)
    np.testing.assert_allclose(np.asarray(apply_fun((beta, gamma), x)),
                               (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-5)


def test_avgpool_same_divides_edges_by_the_count_of_real_inputs():
    # against NumPy: every 3x3 window's mean over the inputs that exist
    x = stax_cases.ramp(1, 4, 4, 1)
    _, apply_fun = stax.AvgPool((3, 3), strides=(1, 1), padding='SAME')
    expected = np.array([[x[0, max(i - 1, 0):i + 2, max(j - 1, 0):j + 2, 0].mean()
                          for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(np.asarray(apply_fun((), x))[0, :, :, 0], expected,
                               rtol=1e-5, atol=1e-6)


def test_init_shapes_need_no_arrays():
    # init_fun works on shapes alone, even with -1 for an unknown batch size (a pool
    # then computes (-1 - 2) // 2 + 1 = 0 for it, as JAX does)
    init_fun, _ = stax.serial(stax.Conv(4, (3, 3), padding='SAME'), stax.Relu,
                              stax.AvgPool((2, 2), strides=(2, 2)), stax.Flatten,
                              stax.Dense(3))
    out_shape, params = init_fun(jax.random.PRNGKey(0), (-1, 6, 6, 2))
    # from JAX 0.10.2
    assert tuple(int(d) for d in out_shape) == (0, 3)  # the pool shrinks the -1 to 0
    assert [tuple(p.shape) for p in jax.tree_util.tree_leaves(params)] == [
        (3, 3, 2, 4), (1, 1, 1, 4), (36, 3), (3,)]


def test_pool_padding_must_be_a_string():
    # from JAX 0.10.2: init_fun converts the padding with lax.padtype_to_pads, which
    # takes a padding type only: explicit pairs are a TypeError, a bad name a RuntimeError
    init_fun, _ = stax.MaxPool((2, 2), padding=((1, 0), (0, 1)))
    with pytest.raises(TypeError, match=r"Unknown padding type: \(\(1, 0\), \(0, 1\)\)\."):
        init_fun(None, (1, 4, 4, 1))
    init_fun, _ = stax.AvgPool((2, 2), padding='FOO')
    with pytest.raises(RuntimeError, match="Unrecognized padding type: expected 'VALID', "
                                           "'SAME', or 'SAME_LOWER', got FOO."):
        init_fun(None, (1, 4, 4, 1))
    # a lower-case name is accepted
    assert stax.SumPool((2, 2), padding='same')[0](None, (1, 3, 3, 1))[0] == (1, 3, 3, 1)
