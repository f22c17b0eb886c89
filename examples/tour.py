"""A tour of minijax: chapters 00 to 08 (and 13) at work, one print each.

Run it with ``make tour``. ``make demo`` runs chapter 14's end-to-end
example instead (``examples/train_digits.py``: a small model trained with
jit + grad + asynchronous dispatch).
"""
import numpy as np

import minijax.numpy as jnp
from minijax.interpreters.printing import print_primitives


def section(title):
    print(f"\n=== {title} ===")


section("Arrays: JAX's defaults are 32-bit")
x = jnp.arange(3.) / 2
print("jnp.arange(3.) / 2      ->", repr(x))
print("from float64 NumPy data ->", repr(jnp.asarray(np.linspace(0, 1, 3))))

section("Dtype promotion: JAX's lattice, with weak Python scalars")
i8 = jnp.array([1, 2, 3], dtype=jnp.int8)
print("int8 array + 3          ->", repr(i8 + 3))
print("int8 array + 3.0        ->", repr(i8 + 3.0))
print("int8 + uint8            ->", jnp.promote_types(jnp.int8, jnp.uint8))
print("uint32 + int32          ->", jnp.promote_types(jnp.uint32, jnp.int32), "(x64 disabled)")
print("a Python scalar alone   ->", repr(jnp.array(2.0)))

section("Tracing: a trace that prints every primitive a function binds")


def selu(x, alpha=1.67, lmbda=1.05):
    print("  (Python runs this print once, while tracing; it is not a primitive)")
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


out = print_primitives(selu)(jnp.arange(-2., 3.))
print("result:", out)

section("Transformations (chapters 02-08): jvp, vmap, make_jaxpr, jit, grad, scan")
import minijax  # noqa: E402
from minijax import lax  # noqa: E402

print("jvp(sin, 1., 1.)        ->", minijax.jvp(jnp.sin, (1.0,), (1.0,)))
print("vmap(dot) over 4 rows   ->", minijax.vmap(jnp.dot)(jnp.ones((4, 3)), jnp.ones((4, 3))))
print("make_jaxpr(log2):")
print(minijax.make_jaxpr(lambda x: jnp.log(x) / jnp.log(2.0))(3.0))
selu_jit = minijax.jit(lambda x: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67))
print("jit(selu)               ->", selu_jit(jnp.arange(-2., 3.)))


def loop(y):
    for _ in range(10):
        y = jnp.sin(y) + 0.1 * jnp.cos(y * y) - jnp.tanh(y)
    return jnp.sum(y)


print("grad of the notes' loop ->", minijax.grad(loop)(jnp.arange(3.)))
print("scan prefix sums        ->", lax.scan(lambda c, x: (c + x, c + x), 0., jnp.arange(5.))[1])
print("random.normal (JAX bits)->", minijax.random.normal(minijax.random.key(0), (3,)))
