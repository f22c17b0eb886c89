"""minijax: JAX from scratch, on NumPy and Numba.

This file only assembles the public API; every name is defined in the module
of the chapter that builds it (see ``CHAPTERS.md`` and ``minijax/_chapters.py``).
"""
from minijax import dtypes  # noqa: F401  (ch00)
from minijax import numpy  # noqa: F401  (ch00)
from minijax import lax  # noqa: F401  (ch00)
from minijax import nn  # noqa: F401  (ch00)
from minijax import scipy  # noqa: F401  (ch00)
import minijax.scipy.special  # noqa: F401  (ch00)
from minijax.array import Array  # noqa: F401  (ch00)
from minijax.abstract_arrays import ShapedArray  # noqa: F401  (ch00)
from minijax.devices import (Device, block_until_ready, default_backend, device_count,  # noqa: F401  (ch00)
                             device_get, device_put, devices, local_device_count,
                             local_devices, process_count, process_index)
from minijax import core  # noqa: F401  (ch01)
from minijax import errors  # noqa: F401  (ch01)
from minijax.interpreters.ad import jacfwd, jvp  # noqa: F401  (ch02)
from minijax import tree_util  # noqa: F401  (ch03)
from minijax import tree  # noqa: F401  (ch03)
from minijax.interpreters.batching import vmap  # noqa: F401  (ch04)
from minijax.interpreters.partial_eval import ShapeDtypeStruct, make_jaxpr  # noqa: F401  (ch05)
from minijax import extend  # noqa: F401  (ch05)
import minijax.extend.core  # noqa: F401  (ch05)
from minijax.config import check_tracer_leaks, checking_leaks, config, log_compiles  # noqa: F401,E402  (ch06)
from minijax.jit import clear_caches, disable_jit, eval_shape, jit  # noqa: F401  (ch06)
from minijax import backends, stages  # noqa: F401  (ch06)
from minijax.autodiff import (grad, hessian, jacobian, jacrev, linear_transpose,  # noqa: F401  (ch07)
                              linearize, value_and_grad, vjp)
from minijax.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401,E402  (ch07)
from minijax.checkpoint import checkpoint, checkpoint_policies, remat  # noqa: F401,E402  (ch07)
import minijax.custom_derivatives  # noqa: F401,E402  (ch07: SymbolicZero)
import minijax.control_flow  # noqa: F401,E402  (ch08: registers lax.cond, lax.scan, ...)
import minijax.backends.cpu  # noqa: F401,E402  (ch09: registers the "cpu" backend)
import minijax.runtime  # noqa: F401,E402  (ch11: dispatch returns futures)
from minijax import profiler  # noqa: F401,E402  (ch11)
from minijax import random  # noqa: F401  (ch13)
import minijax.nn.initializers  # noqa: F401,E402  (ch13)

__version__ = "0.1.0"
