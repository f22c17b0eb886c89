"""Exercise 1 of chapter 14, solved: two ``stax`` layers of your own."""
import minijax.numpy as jnp
from minijax.example_libraries import stax


def LayerNorm(epsilon=1e-5):
    """Layer normalization over the last axis, with a learned scale and bias."""
    def init_fun(rng, input_shape):
        features = input_shape[-1]
        return input_shape, (jnp.ones(features), jnp.zeros(features))

    def apply_fun(params, inputs, **kwargs):
        scale, bias = params
        mean = jnp.mean(inputs, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(inputs - mean), axis=-1, keepdims=True)
        return (inputs - mean) / jnp.sqrt(var + epsilon) * scale + bias
    return init_fun, apply_fun


def Residual(*layers):
    """``x + serial(*layers)(x)``: a residual connection around ``layers``."""
    inner_init, inner_apply = stax.serial(*layers)

    def init_fun(rng, input_shape):
        output_shape, params = inner_init(rng, input_shape)
        if tuple(output_shape) != tuple(input_shape):
            raise ValueError(f"Residual: the layers map shape {input_shape} to "
                             f"{output_shape}; x + F(x) needs the same shape")
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        return inputs + inner_apply(params, inputs, **kwargs)
    return init_fun, apply_fun
