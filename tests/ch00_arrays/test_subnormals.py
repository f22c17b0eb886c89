"""Subnormal float32 values: minijax keeps IEEE gradual underflow everywhere,
as NumPy does (docs/design-notes.md, chapter 00, says why). XLA on the CPU
flushes them: JAX 0.10.2 gives ``jit(lambda x: x * 2)(1e-40) == 0.0`` and
``1e-40 == 0`` is True there; here both follow NumPy."""
import numpy as np

import minijax as jax
import minijax.numpy as jnp

TINY = np.array([1e-40, 1e-39, -3e-42], np.float32)


def test_subnormals_are_kept_by_kernels_and_eagerly(jit_backend):
    d, z, s, h = jax.jit(lambda x: (x * 2, x == 0, jnp.sum(x), x / 2))(TINY)
    np.testing.assert_array_equal(np.asarray(d), TINY * np.float32(2))
    np.testing.assert_array_equal(np.asarray(z), TINY == 0)
    np.testing.assert_allclose(float(s), float(TINY.astype(np.float64).sum()), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(h), TINY / np.float32(2))
    np.testing.assert_array_equal(np.asarray(jnp.asarray(TINY) * 2), TINY * np.float32(2))
