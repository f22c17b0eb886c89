"""The stax programs the chapter 14 tests compare with JAX, written once for both libraries.

Each case is a function of ``(jax, stax)`` that builds a layer, initialises it
from a fixed key and applies it to fixed inputs, returning named results:
``shape`` (what ``init_fun`` says comes out), ``params`` (every parameter leaf)
and ``out`` (the forward pass, equal to JAX's within float32 rounding).

The same key gives the same random bits, so parameters drawn by ``normal``
(biases, ``randn``) and constants (``zeros``, ``ones``) equal JAX's bit for bit
(``exact``). Glorot weights are *truncated* normals, which go through ``erf``
and ``erf_inv``, whose float32 polynomials round differently from XLA's in the
last bit or two: those equal JAX's within a few ulps (``params``).

Run this file under a Python with JAX (``python stax_cases.py``) to print
``jax_stax_values.py``; the tests run the same cases under ``import minijax``.
"""
import hashlib

import numpy as np


def digest(a) -> str:
    """A short fingerprint of an array's dtype, shape and bytes (for exact checks)."""
    a = np.ascontiguousarray(np.asarray(a))
    return f"{a.dtype.str}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:20]


def ramp(*shape):
    """Fixed inputs: ``sin`` of 0, 1, 2, ... in float32, so every entry differs."""
    return np.sin(np.arange(np.prod(shape), dtype=np.float32)).reshape(shape)


def small(a, limit=48):
    """An array as it is when it has at most ``limit`` entries, else a summary
    (its first 8 entries, its sum and the sum of its absolute values) that
    keeps the expected-values file short."""
    a = np.asarray(a)
    if a.size <= limit:
        return a
    flat = a.ravel().astype(np.float64)
    return {"shape": a.shape, "head": a.ravel()[:8],
            "sum": float(flat.sum()), "abs_sum": float(np.abs(flat).sum())}


def _shape(s):
    """A shape (or nested list/tuple of shapes) as plain Python ints."""
    if isinstance(s, (list, tuple)) and s and isinstance(s[0], (list, tuple)):
        return [_shape(x) for x in s]
    return tuple(int(d) for d in s)


def _layer(jax, layer, input_shape, x, key=0, **apply_kwargs):
    """Initialise ``layer`` for ``input_shape`` with ``PRNGKey(key)``, apply it to ``x``."""
    init_fun, apply_fun = layer
    out_shape, params = init_fun(jax.random.PRNGKey(key), input_shape)
    out = apply_fun(params, x, **apply_kwargs)
    leaves = jax.tree_util.tree_leaves(params)
    result = {"shape": _shape(out_shape),
              "params": [small(p) for p in leaves]}
    if isinstance(out, (list, tuple)):
        result["out"] = [small(o) for o in out]
    else:
        result["out"] = small(out)
    return result


# --- layers with parameters -----------------------------------------------------------

def dense(jax, stax):
    return _layer(jax, stax.Dense(3), (2, 4), ramp(2, 4))


def dense_batch_dims(jax, stax):
    return _layer(jax, stax.Dense(2), (2, 3, 4), ramp(2, 3, 4), key=5)


def dense_custom_init(jax, stax):
    result = _layer(jax, stax.Dense(3, W_init=stax.randn(0.5), b_init=stax.zeros), (2, 4),
                    ramp(2, 4))
    result["exact"] = [digest(p) for p in result.pop("params")]  # no truncated normal
    return result


def conv_valid(jax, stax):
    return _layer(jax, stax.Conv(2, (2, 2)), (1, 4, 4, 1), ramp(1, 4, 4, 1))


def conv_same_strided(jax, stax):
    return _layer(jax, stax.Conv(3, (3, 3), strides=(2, 2), padding='SAME'),
                  (2, 5, 5, 2), ramp(2, 5, 5, 2))


def conv_explicit_padding(jax, stax):
    return _layer(jax, stax.Conv(2, (2, 3), padding=((1, 0), (0, 2))),
                  (1, 4, 3, 1), ramp(1, 4, 3, 1))


def general_conv_nchw(jax, stax):
    return _layer(jax, stax.GeneralConv(('NCHW', 'OIHW', 'NCHW'), 2, (3, 3), padding='SAME'),
                  (1, 2, 4, 4), ramp(1, 2, 4, 4))


def conv1d_transpose(jax, stax):
    return _layer(jax, stax.Conv1DTranspose(2, (3,), strides=(2,)), (1, 4, 1), ramp(1, 4, 1))


def conv_transpose_same(jax, stax):
    return _layer(jax, stax.ConvTranspose(2, (2, 2), strides=(2, 2), padding='SAME'),
                  (1, 3, 3, 1), ramp(1, 3, 3, 1))


def general_conv_transpose(jax, stax):
    return _layer(jax, stax.GeneralConvTranspose(('NCHW', 'IOHW', 'NCHW'), 3, (3, 3)),
                  (1, 2, 3, 3), ramp(1, 2, 3, 3))


def batchnorm(jax, stax):
    return _layer(jax, stax.BatchNorm(), (2, 3, 3, 2), ramp(2, 3, 3, 2))


def batchnorm_scalar_axis(jax, stax):
    init_fun, apply_fun = stax.BatchNorm(axis=0)
    _, params = init_fun(jax.random.PRNGKey(0), (4, 3))
    params = (params[0] + 0.5, params[1] * 2.0)  # not the identity, so both are used
    return {"out": np.asarray(apply_fun(params, ramp(4, 3)))}


def batchnorm_no_center(jax, stax):
    return _layer(jax, stax.BatchNorm(axis=(0,), center=False), (4, 3), ramp(4, 3))


def batchnorm_no_scale(jax, stax):
    return _layer(jax, stax.BatchNorm(axis=(0, 1), scale=False, epsilon=0.1),
                  (2, 3, 2), ramp(2, 3, 2))


def batchnorm_neither(jax, stax):
    return _layer(jax, stax.BatchNorm(axis=(0,), center=False, scale=False), (4, 3),
                  ramp(4, 3))


# --- elementwise layers ----------------------------------------------------------------

ELEMENTWISE = ["Tanh", "Relu", "Exp", "LogSoftmax", "Softmax", "Softplus", "Sigmoid",
               "Elu", "LeakyRelu", "Selu", "Gelu"]


def elementwise_layers(jax, stax):
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    return {name: _layer(jax, getattr(stax, name), (2, 4), x)["out"] for name in ELEMENTWISE}


def elementwise_with_kwargs(jax, stax):
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    layer = stax.elementwise(jax.nn.leaky_relu, negative_slope=0.25)
    return _layer(jax, layer, (2, 4), x)


# --- pooling ---------------------------------------------------------------------------

def maxpool(jax, stax):
    return _layer(jax, stax.MaxPool((2, 2)), (2, 4, 5, 3), ramp(2, 4, 5, 3))


def maxpool_same_strided(jax, stax):
    return _layer(jax, stax.MaxPool((3, 3), strides=(2, 2), padding='SAME'),
                  (1, 5, 5, 2), ramp(1, 5, 5, 2))


def sumpool_same(jax, stax):
    return _layer(jax, stax.SumPool((2, 2), strides=(1, 1), padding='SAME'),
                  (1, 3, 3, 1), ramp(1, 3, 3, 1))


def avgpool_valid(jax, stax):
    return _layer(jax, stax.AvgPool((2, 2), strides=(2, 2)), (1, 4, 4, 2), ramp(1, 4, 4, 2))


def avgpool_same(jax, stax):
    # the edge windows hang over the padding: each is divided by how many it holds
    return _layer(jax, stax.AvgPool((3, 3), strides=(1, 1), padding='SAME'),
                  (1, 4, 4, 1), ramp(1, 4, 4, 1))


def avgpool_spec_nchw(jax, stax):
    return _layer(jax, stax.AvgPool((2, 2), padding='SAME', spec='NCHW'),
                  (1, 2, 3, 3), ramp(1, 2, 3, 3))


def maxpool_1d(jax, stax):
    return _layer(jax, stax.MaxPool((2,), strides=(2,)), (2, 5, 3), ramp(2, 5, 3))


# --- layers that move data around ------------------------------------------------------

def flatten(jax, stax):
    return _layer(jax, stax.Flatten, (2, 3, 2), ramp(2, 3, 2))


def identity(jax, stax):
    return _layer(jax, stax.Identity, (2, 3), ramp(2, 3))


def fanout_parallel_faninsum(jax, stax):
    # a residual block: x + Dense(x)
    layer = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(4), stax.Identity),
                        stax.FanInSum)
    return _layer(jax, layer, (3, 4), ramp(3, 4), key=3)


def fanout_faninconcat(jax, stax):
    layer = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(2), stax.Tanh),
                        stax.FanInConcat())
    return _layer(jax, layer, (3, 4), ramp(3, 4), key=4)


def faninconcat_axis0(jax, stax):
    init_fun, apply_fun = stax.FanInConcat(axis=0)
    out_shape, params = init_fun(None, [(2, 3), (1, 3)])
    return {"shape": _shape(out_shape), "params": list(params),
            "out": np.asarray(apply_fun(params, [ramp(2, 3), ramp(1, 3)]))}


def parallel_shapes(jax, stax):
    init_fun, apply_fun = stax.parallel(stax.Dense(3), stax.Flatten)
    out_shapes, params = init_fun(jax.random.PRNGKey(1), [(2, 4), (2, 2, 2)])
    outs = apply_fun(params, [ramp(2, 4), ramp(2, 2, 2)])
    return {"shape": _shape(list(out_shapes)),
            "params": [small(p) for p in jax.tree_util.tree_leaves(params)],
            "out": [small(o) for o in outs]}


def shape_dependent(jax, stax):
    layer = stax.shape_dependent(lambda shape: stax.Dense(shape[-1] + 1))
    return _layer(jax, layer, (2, 3), ramp(2, 3), key=2)


def serial_mlp(jax, stax):
    layer = stax.serial(stax.Dense(5), stax.Relu, stax.Dense(3), stax.LogSoftmax)
    return _layer(jax, layer, (4, 6), ramp(4, 6), key=7)


# --- dropout: the mask comes from the rng keyword --------------------------------------

def dropout_train(jax, stax):
    return _layer(jax, stax.Dropout(0.5), (4, 5), ramp(4, 5), rng=jax.random.PRNGKey(9))


def dropout_test_mode(jax, stax):
    return _layer(jax, stax.Dropout(0.5, mode='test'), (4, 5), ramp(4, 5),
                  rng=jax.random.PRNGKey(9))


def dropout_in_serial(jax, stax):
    # serial splits the rng into one key per layer
    layer = stax.serial(stax.Dense(6), stax.Dropout(0.8), stax.Dense(2))
    return _layer(jax, layer, (3, 4), ramp(3, 4), key=11, rng=jax.random.PRNGKey(12))


def dropout_typed_key(jax, stax):
    return _layer(jax, stax.Dropout(0.3), (3, 4), ramp(3, 4), rng=jax.random.key(5))


# --- the initializers stax re-exports --------------------------------------------------

def initializers(jax, stax):
    key = jax.random.PRNGKey(3)
    return {"exact": [digest(stax.randn()(key, (2, 3))), digest(stax.randn(2.0)(key, (4,))),
                      digest(stax.zeros(key, (2,))), digest(stax.ones(key, (3,)))],
            "params": [small(stax.glorot()(key, (3, 4))), small(stax.glorot(0, 1)(key, (5, 2)))]}


# --- a small CNN, trained for one step -------------------------------------------------

def cnn(jax, stax):
    """Init, apply, and one jitted ``value_and_grad`` SGD step of a small CNN."""
    jnp = jax.numpy
    init_fun, apply_fun = stax.serial(stax.Conv(8, (3, 3), padding='SAME'), stax.Relu,
                                      stax.MaxPool((2, 2)), stax.Flatten, stax.Dense(10),
                                      stax.LogSoftmax)
    out_shape, params = init_fun(jax.random.PRNGKey(0), (4, 8, 8, 1))
    images = ramp(4, 8, 8, 1)
    labels = np.eye(10, dtype=np.float32)[[1, 3, 5, 7]]

    def loss(params, images, labels):
        return -jnp.mean(jnp.sum(apply_fun(params, images) * labels, axis=1))

    @jax.jit
    def step(params, images, labels):
        value, grads = jax.value_and_grad(loss)(params, images, labels)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), grads

    value, new_params, grads = step(params, images, labels)
    return {"shape": _shape(out_shape),
            "params": [small(p) for p in jax.tree_util.tree_leaves(params)],
            "exact": [digest(params[0][1]), digest(params[4][1])],  # the biases
            "out": small(apply_fun(params, images)),
            "loss": np.asarray(value),
            "grads": [small(g) for g in jax.tree_util.tree_leaves(grads)],
            "loss_after": np.asarray(loss(new_params, images, labels))}


CASES = {name: f for name, f in list(globals().items())
         if callable(f) and getattr(f, "__module__", None) == __name__
         and not name.startswith("_")
         and name not in ("digest", "ramp", "small", "print_expected")}


def _literal(v):
    """``v`` as Python source: arrays as ``np.array([...], dtype)`` with every
    float32 written so that it reads back to the same bits."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return f"np.{v.dtype.name}({v.item()!r})"
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, {v.dtype.name!r})"
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_literal(x)}" for k, x in v.items()) + "}"
    return repr(v)


def print_expected(cases_file: str, cases: dict, jax, module) -> None:
    """Print the values file of ``cases`` run under real JAX (``module``: its
    ``stax`` or ``optimizers``), as the tests read it back."""
    print(f'"""What ``{cases_file}`` returns under real JAX 0.10.2 (CPU, x64 disabled):')
    print('expected values from JAX 0.10.2 (float32 written so they read back bit for bit)."""')
    print("import numpy as np\n")
    print("# from JAX 0.10.2")
    print("EXPECTED = {")
    for name, case in cases.items():
        print(f"    {name!r}: {{")
        for k, v in case(jax, module).items():
            print(f"        {k!r}: {_literal(v)},")
        print("    },")
    print("}")


if __name__ == "__main__":  # pragma: no cover - run under real JAX to regenerate
    import jax
    from jax.example_libraries import stax
    print_expected("stax_cases.py", CASES, jax, stax)
