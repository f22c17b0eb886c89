"""Stax: a neural-network library in one file, as ``jax.example_libraries.stax``.

A *layer* is a pair of pure functions ``(init_fun, apply_fun)``:

- ``init_fun(rng, input_shape) -> (output_shape, params)`` draws the layer's
  parameters from a PRNG key and says what shape comes out, so the next layer
  can size its own parameters without running anything;
- ``apply_fun(params, inputs, **kwargs) -> outputs`` is the forward pass.
  ``kwargs`` carries ``rng`` (a key, for layers such as ``Dropout``) and any
  flag (``mode``) a layer wants; layers that need none ignore it.

Parameters are ordinary pytrees (tuples, lists, arrays), so ``grad`` of a loss
with respect to them is a pytree of the same shape, and an optimizer from
``optimizers`` can update it leaf by leaf. *Combinators* (``serial``,
``parallel``, ``shape_dependent``) build a layer out of layers; a whole
network is just one more ``(init_fun, apply_fun)`` pair::

    init, apply = serial(Conv(8, (3, 3), padding='SAME'), Relu,
                         MaxPool((2, 2)), Flatten, Dense(10), LogSoftmax)
    out_shape, params = init(random.key(0), (4, 8, 8, 1))
    logits = apply(params, images)

Constructors are CamelCase (``Conv``, ``Relu``), as in Keras; the functions
they wrap are snake_case (``lax.conv``, ``nn.relu``). A few layers need no
arguments and are *already* pairs: ``Flatten``, ``Identity``, ``FanInSum`` and
the elementwise layers (``Relu``, ``Tanh``...), so they are written without
parentheses.

Nothing here is new machinery: every layer is a few lines of ``jax.numpy``,
``lax`` and ``random`` from the earlier chapters, which is what makes a network
jittable, differentiable and vmappable for free.
"""
import functools
import math

from minijax import lax
from minijax import random
import minijax.numpy as jnp
from minijax.nn import (relu, log_softmax, softmax, softplus, sigmoid, elu,  # noqa: F401
                        leaky_relu, selu, gelu, standardize)
from minijax.nn.initializers import glorot_normal, normal, ones, zeros

# JAX keeps these older names for the same initializers and function.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


# --- layers with parameters ------------------------------------------------------------

def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """Layer constructor function for a dense (fully-connected) layer.

    ``inputs @ W + b`` with ``W`` of shape ``(in_dim, out_dim)``: the last axis
    of the input is contracted, any leading (batch) axes pass through. One key
    is split in two, the first for ``W`` and the second for ``b``.
    """
    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(rhs_spec, lhs_spec, out_chan, filter_shape, input_shape):
    """The kernel's shape, read off its spec letter by letter.

    ``'O'`` is the number of output channels, ``'I'`` the input's channel
    count (the ``'C'`` axis of the input), and each spatial letter takes the
    next entry of ``filter_shape`` in order.
    """
    spatial = iter(filter_shape)
    in_chan = input_shape[lhs_spec.index('C')]
    return [out_chan if c == 'O' else in_chan if c == 'I' else next(spatial)
            for c in rhs_spec]


def _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding,
                W_init, b_init, shape_rule, apply_conv):
    """What a convolution layer and a transposed one share; only the shape rule
    and the convolution applied differ.

    The kernel is initialised with Glorot (fan-in from its ``'I'`` axis,
    fan-out from its ``'O'`` axis) unless ``W_init`` is given; the bias has a
    1 on every output axis but the channel one, so it broadcasts.
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(rhs_spec, lhs_spec, out_chan, filter_shape,
                                     input_shape)
        output_shape = shape_rule(input_shape, kernel_shape, strides, padding,
                                  dimension_numbers)
        bias_shape = [out_chan if c == 'C' else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return apply_conv(inputs, W, strides, padding) + b
    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape,
                strides=None, padding='VALID', W_init=None,
                b_init=normal(1e-6)):
    """Layer construction function for a general convolution layer.

    ``dimension_numbers`` is a triple of specs such as ``('NHWC', 'HWIO',
    'NHWC')``: the input's, the kernel's and the output's axis order.
    ``padding`` is ``'VALID'``, ``'SAME'`` or explicit ``(lo, hi)`` pairs.
    """
    one = (1,) * len(filter_shape)

    def conv(inputs, W, strides, padding):
        return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                        dimension_numbers=dimension_numbers)
    return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding,
                       W_init, b_init, lax.conv_general_shape_tuple, conv)


#: A 2-D convolution on NHWC images with an HWIO kernel.
Conv = functools.partial(GeneralConv, ('NHWC', 'HWIO', 'NHWC'))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape,
                         strides=None, padding='VALID', W_init=None,
                         b_init=normal(1e-6)):
    """Layer construction function for a general transposed-convolution layer.

    The "deconvolution" of a decoder: ``lax.conv_transpose``, which grows the
    spatial axes by ``strides`` where a strided convolution shrinks them.
    """
    def conv(inputs, W, strides, padding):
        return lax.conv_transpose(inputs, W, strides, padding,
                                  dimension_numbers=dimension_numbers)
    return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding,
                       W_init, b_init, lax.conv_transpose_shape_tuple, conv)


#: A 1-D transposed convolution (NHC inputs, HIO kernel).
Conv1DTranspose = functools.partial(GeneralConvTranspose, ('NHC', 'HIO', 'NHC'))
#: A 2-D transposed convolution (NHWC inputs, HWIO kernel).
ConvTranspose = functools.partial(GeneralConvTranspose, ('NHWC', 'HWIO', 'NHWC'))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
              beta_init=zeros, gamma_init=ones):
    """Layer construction function for a batch normalization layer.

    Standardizes the inputs over ``axis`` (by default batch, height and width
    of NHWC images), then scales by ``gamma`` and shifts by ``beta``, one per
    position of the axes that remain. ``center=False`` or ``scale=False``
    drops ``beta`` or ``gamma`` (its parameter is then ``()``). The statistics
    are the batch's own: this example layer keeps no running averages.
    """
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        # index with None on the normalised axes, so beta and gamma broadcast
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[expand] * z + beta[expand]
        if center:
            return z + beta[expand]
        if scale:
            return gamma[expand] * z
        return z
    return init_fun, apply_fun


# --- elementwise layers ----------------------------------------------------------------

def elementwise(fun, **fun_kwargs):
    """Layer that applies a scalar function elementwise on its inputs.

    No parameters (``()``), and the shape passes through unchanged.
    """
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


# --- pooling ---------------------------------------------------------------------------

def _with_ones_at(axes, dims):
    """``dims`` (one per spatial axis) with a 1 inserted at each of ``axes``."""
    dims = tuple(dims)
    for i in sorted(axes):
        dims = dims[:i] + (1,) + dims[i:]
    return dims


def _non_spatial_axes(spec, ndim):
    """Where the batch and channel axes are: ``spec``'s ``'N'`` and ``'C'``, or,
    without a spec, the first and the last axis (NHWC)."""
    if spec is None:
        return 0, ndim - 1
    return spec.index('N'), spec.index('C')


def _pooling_layer(reducer, init_val, rescaler=None):
    """Make a pooling-layer constructor that reduces each window with ``reducer``.

    A pool is ``lax.reduce_window`` whose window covers ``window_shape`` on the
    spatial axes and one element on the batch and channel axes (so channels are
    pooled separately). ``rescaler``, if given, post-processes the result
    (``AvgPool`` divides the window sums by the window sizes).
    """
    def PoolingLayer(window_shape, strides=None, padding='VALID', spec=None):
        """Layer construction function for a pooling layer.

        ``window_shape`` and ``strides`` (default 1) are given for the spatial
        axes only; ``spec`` (like ``'NHWC'``) says where the batch and channel
        axes are, by default first and last.
        """
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        non_spatial = _non_spatial_axes(spec, len(window_shape) + 2)
        full_window = _with_ones_at(non_spatial, window_shape)
        full_strides = _with_ones_at(non_spatial, strides)

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, full_window, full_strides, padding)
            ones_ = (1,) * len(full_window)
            out_shape = lax.reduce_window_shape_tuple(
                input_shape, full_window, full_strides, pads, ones_, ones_)
            return out_shape, ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, full_window,
                                    full_strides, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)


def _normalize_by_window_size(dims, strides, padding):
    """AvgPool's rescaler: divide each window's sum by how many inputs it held.

    With ``'VALID'`` padding every window is full, but with ``'SAME'`` the
    windows at the edges hang over the padding; dividing by the full window
    size would pull the edges towards zero. So the sizes are counted the same
    way the sums were: a sum-pool of an array of ones over the spatial axes.
    """
    def rescale(outputs, inputs, spec):
        non_spatial = _non_spatial_axes(spec, inputs.ndim)
        spatial_shape = tuple(d for i, d in enumerate(inputs.shape) if i not in non_spatial)
        one = jnp.ones(spatial_shape, dtype=inputs.dtype)
        window_sizes = lax.reduce_window(one, 0., lax.add, dims, strides, padding)
        for i in sorted(non_spatial):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes
    return rescale


AvgPool = _pooling_layer(lax.add, 0., _normalize_by_window_size)


# --- layers that move data around ------------------------------------------------------

def _flatten():
    """Layer construction function for flattening all but the leading dim."""
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


#: ``(N, ...) -> (N, prod(...))``; already a layer (no parentheses).
Flatten = _flatten()


def _identity():
    """Layer construction function for an identity layer."""
    return (lambda rng, input_shape: (input_shape, ()),
            lambda params, inputs, **kwargs: inputs)


#: Passes its input through; already a layer (no parentheses).
Identity = _identity()


def FanOut(num):
    """Layer construction function for a fan-out layer: ``num`` copies of the
    input, as a list, to feed a ``parallel`` combinator."""
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num
    return init_fun, apply_fun


def _fan_in_sum():
    """Layer construction function for a fan-in sum layer: adds a list of
    inputs of one shape (a residual connection is ``FanOut``, ``parallel``,
    ``FanInSum``)."""
    return (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: sum(inputs))


#: Sums a list of inputs; already a layer (no parentheses).
FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):
    """Layer construction function for a fan-in concatenation layer: joins a
    list of inputs along ``axis``."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        first = input_shape[0]
        return first[:ax] + (concat_size,) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode='train'):
    """Layer construction function for a dropout layer with given rate.

    In ``mode='train'`` each input is kept with probability ``rate`` (note:
    JAX's ``rate`` is the *keep* rate) and scaled by ``1 / rate``, so the
    expected output equals the input; dropped ones become 0. In any other mode
    the layer is the identity. The mask is drawn from the ``rng`` keyword,
    which ``apply_fun`` must be given, even in test mode.
    """
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get('rng', None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key "
                "argument. That is, instead of `apply_fun(params, inputs)`, call "
                "it like `apply_fun(params, inputs, rng)` where `rng` is a "
                "PRNG key (e.g. from `jax.random.key`).")
        if mode == 'train':
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs
    return init_fun, apply_fun


# --- combinators -----------------------------------------------------------------------

def serial(*layers):
    """Combinator for composing layers in serial.

    Args:
      *layers: a sequence of layers, each an (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the
      serial composition of the given sequence of layers.

    ``init_fun`` threads the shape through the layers, splitting a fresh key
    off for each one; the parameters come back as a list, one entry per layer.
    ``apply_fun`` splits ``rng`` (when given) into one key per layer.
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop('rng', None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for apply, param, layer_rng in zip(apply_funs, params, rngs):
            inputs = apply(param, inputs, rng=layer_rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Combinator for composing layers in parallel.

    The layer resulting from this combinator is often used with the FanOut and
    FanInSum layers.

    Args:
      *layers: a sequence of layers, each an (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the
      parallel composition of the given sequence of layers. In particular, the
      returned layer takes a sequence of inputs and returns a sequence of
      outputs with the same length as the argument `layers`.
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        results = [init(k, shape) for init, k, shape in zip(init_funs, rngs, input_shape)]
        return tuple(zip(*results))  # (output shapes, params)

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop('rng', None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [apply(p, x, rng=r, **kwargs)
                for apply, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """Combinator to delay layer constructor pair until input shapes are known.

    Args:
      make_layer: a one-argument function that takes an input shape as an
        argument (a tuple of positive integers) and returns an
        (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the same
      layer as returned by `make_layer` but with its construction delayed until
      input shapes are known.
    """
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
