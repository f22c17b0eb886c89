"""Exercise 2 of chapter 13, solved: from random bits to floats."""
import numpy as np

import minijax.numpy as jnp
from minijax import lax, random


def uniform(key, shape=(), dtype=jnp.float32, minval=0.0, maxval=1.0):
    dtype = np.dtype(dtype)
    finfo = jnp.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    uint = np.dtype(f"uint{nbits}")
    minval, maxval = jnp.asarray(minval, dtype), jnp.asarray(maxval, dtype)
    bits = random.bits(key, shape, uint)
    one = np.array(1.0, dtype).view(uint)
    float_bits = lax.shift_right_logical(bits, jnp.asarray(nbits - nmant, uint)) | one
    floats = lax.bitcast_convert_type(float_bits, dtype) - jnp.asarray(1.0, dtype)
    return lax.max(minval, floats * (maxval - minval) + minval)


def exponential(key, shape=(), dtype=jnp.float32):
    u = uniform(key, shape, dtype)
    return -jnp.log1p(-u)
