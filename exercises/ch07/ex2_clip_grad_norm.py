"""Exercise 2 of chapter 07: a backward pass of your own, with ``custom_vjp``.

Training a network, a large gradient can throw the parameters far away in
one step. *Gradient clipping* caps the size of the gradient: if the norm of
the cotangent ``g`` is more than ``max_norm``, scale it down to ``max_norm``;
otherwise leave it alone::

    clipped(g) = g * min(1, max_norm / ||g||)

``clip_grad_norm(x, max_norm)`` is the identity on the way forward and clips
the cotangent flowing back through it, so that in ``grad(loss)`` everything
*before* it in the computation sees a clipped gradient. No function has this
derivative; only a custom backward pass gives it. Section 7 of the chapter
clipped each element with ``custom_vjp``; here you clip the norm of the
whole cotangent.

Write :func:`clip_fwd` and :func:`clip_bwd`, for ``custom_vjp`` with
``nondiff_argnums=(1,)``: ``max_norm`` is a Python number, not
differentiated, and ``bwd`` receives it first:

- ``clip_fwd(x, max_norm) -> (output, residuals)``;
- ``clip_bwd(max_norm, residuals, g) -> (cotangent of x,)``.

Under ``grad``, ``custom_vjp``'s JVP rule runs your ``fwd`` and stages a
``custom_lin`` equation into the linear jaxpr; transposing it calls your
``bwd``. Write ``bwd`` with ``jnp`` functions: it runs under ``jit`` and
``vmap`` too (per-example clipping, in the check).

Check: ``make exercise-ch07`` (``pytest exercises/ch07``).
Hint: no residuals are needed (``None``); the norm of ``g`` is
``jnp.sqrt(jnp.sum(g * g))``. A zero ``g`` must stay zero (no ``nan``).
"""
from functools import partial

import minijax.numpy as jnp  # noqa: F401
from minijax.custom_derivatives import custom_vjp


@partial(custom_vjp, nondiff_argnums=(1,))
def clip_grad_norm(x, max_norm):
    """``x``; on the way back, the cotangent scaled down to norm ``max_norm`` at most."""
    return x


def clip_fwd(x, max_norm):
    raise NotImplementedError("exercise 2 of chapter 07: write clip_fwd")


def clip_bwd(max_norm, residuals, g):
    raise NotImplementedError("exercise 2 of chapter 07: write clip_bwd")


clip_grad_norm.defvjp(clip_fwd, clip_bwd)
