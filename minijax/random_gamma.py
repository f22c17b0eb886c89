"""Chapter 13 — the ``random_gamma`` primitive: gamma samples, JAX's bits and derivative.

``random.gamma(key, a)`` draws ``Gamma(a, 1)`` samples. Its heart is one
primitive, ``random_gamma[log_space]``, bound to a key array and a float array
``a`` of the same leading shape, as in JAX::

    { lambda ; a:key<fry>[]. let
        b:f32[] = jit[
          name=_gamma
          jaxpr={ lambda ; a:key<fry>[] c:f32[]. let
              d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
              b:f32[] = random_gamma[log_space=False] a d
            in (b,) }
        ] a 2.0:f32[]
      in (b,) }

Why a primitive, when the sampler is a program of other primitives? Because
of its derivative. The sampler (Marsaglia and Tsang's rejection method, below)
loops until a proposal is accepted; differentiating *through* the loop is
meaningless. A primitive can carry its own JVP rule instead: *implicit
reparameterization* (``lax.random_gamma_grad``, chapter 08's
:mod:`minijax.lax.special_loops`), which moves the sample with ``a`` while its
quantile stays fixed.

Its rules, one per table:

- **impl** and **lowering**: the function :func:`_gamma_impl`, whose jaxpr *is*
  the primitive's lowering, as JAX's ``mlir.lower_fun``: the CPU and CUDA
  planners trace it on the equation's avals and inline it
  (:func:`minijax.backends.plan.passes.register_lower_fun`), so the loop is
  compiled with the rest of the kernel. (minijax's targets had only rules
  written per primitive; a lowering function is what a primitive made of
  other primitives needs, so chapter 09's planner gained one registry.) The
  impl runs the same function on the interpreter backend. (JAX's eager impl
  maps ``_gamma_one`` with ``lax.map`` and its lowering with ``vmap``; both
  compute every sample the same way, so one function serves both here.)
- **abstract eval**: the samples have ``a``'s shape and dtype;
- **batching**: move both batch axes to the front and bind again (the impl
  handles leading key axes: each key is split for the ``a`` values under it);
- **jvp**: ``t * random_gamma_grad(a, sample)`` (the key has no tangent).
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from minijax import dtypes, lax, prng
from minijax import numpy as jnp
from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu import rules as _cpu_rules
from minijax.backends.cuda import rules as _cuda_rules
from minijax.backends.plan import passes as _plan_passes
from minijax.backends.registry import default_backend_option
from minijax.control_flow.loops import map as _lax_map
from minijax.control_flow.loops import while_loop
from minijax.core import get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.batching import vmap
from minijax.jit import jit
from minijax.lax.base import const as _const
from minijax.lax.special_loops import random_gamma_grad
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.random import _split, exponential, normal, uniform

__all__ = ["random_gamma_p"]


# =============================================================================
# One sample: Marsaglia and Tsang's method
# =============================================================================
def _gamma_one(key, alpha, log_space: bool):
    """One ``Gamma(alpha, 1)`` sample (its log if ``log_space``) from one key.

    Marsaglia and Tsang ("A simple method for generating gamma variables",
    2000): for ``alpha >= 1``, with ``d = alpha - 1/3`` and ``c = 1 / sqrt(9 d)``,
    propose ``d V`` with ``V = (1 + c x)^3``, ``x`` standard normal (redrawn
    while ``V <= 0``), and accept it when a uniform ``U`` passes the squeeze
    ``U < 1 - 0.0331 x^4`` or, failing that, ``log U < x^2/2 + d (1 - V + log V)``.
    For ``alpha < 1``, sample ``Gamma(alpha + 1)`` and multiply by
    ``U^(1/alpha)`` (in log space: add ``log U / alpha``, which keeps tiny
    samples from underflowing to 0).

    The keys are split exactly as JAX splits them, so the samples are JAX's.
    """
    zero, one, two = _const(alpha, 0), _const(alpha, 1), _const(alpha, 2)
    minus_one, one_over_two = _const(alpha, -1), _const(alpha, 0.5)
    one_over_three, squeeze_const = _const(alpha, 1. / 3.), _const(alpha, 0.0331)
    dtype = get_aval(alpha).dtype

    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_over_three)
    c = lax.div(one_over_three, lax.sqrt(d))

    def rejected(kXVU):
        """Keep looping while the proposal fails both tests (the initial state fails)."""
        _, X, V, U = kXVU
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(squeeze_const, lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, one_over_two),
                                       lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

    def propose(kXVU):
        def next_x(kxv):
            key, subkey = _split(kxv[0])
            x = normal(subkey, (), dtype=dtype)
            return key, x, lax.add(one, lax.mul(x, c))

        key, x_key, u_key = _split(kXVU[0], 3)
        _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_x, (x_key, zero, minus_one))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        U = uniform(u_key, (), dtype=dtype)
        return key, X, V, U

    key, subkey = _split(key)
    _, _, V, _ = while_loop(rejected, propose, (key, zero, one, two))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, log_samples == zero), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = 1 - uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


# =============================================================================
# The primitive's rules
# =============================================================================
def _gamma_impl(key, a, *, log_space: bool):
    """Samples for every element of ``a``: each key (``a``'s leading axes may be
    keys' axes, after batching) is split once per ``a`` value under it, and
    ``_gamma_one`` is vmapped over the flat keys and ``a`` values."""
    a_shape = np.shape(a)
    key_ndim = get_aval(key).ndim
    split_count = math.prod(a_shape[key_ndim:])
    keys = lax.reshape(key, (math.prod(np.shape(key)),))
    keys = vmap(_split, in_axes=(0, None))(keys, split_count)
    keys = lax.reshape(keys, (math.prod(np.shape(keys)),))
    alphas = lax.reshape(a, (math.prod(a_shape),))
    samples = vmap(partial(_gamma_one, log_space=log_space))(keys, alphas)
    return jnp.reshape(samples, a_shape)


def _gamma_abstract_eval(key, a, *, log_space):
    return ShapedArray(a.shape, a.dtype)


def _gamma_batching_rule(batched_args, batch_dims, *, log_space):
    """Both batch axes to the front; an unbatched key is repeated for every example.

    (JAX repeats the key itself with ``broadcast_in_dim``; here its *key data*
    is broadcast and wrapped again, because the CPU and CUDA kernels fuse
    ``broadcast_in_dim`` element by element, and a key is two words. Same keys,
    same samples.)
    """
    k, a = batched_args
    bk, ba = batch_dims
    size = batching.batch_size(batched_args, batch_dims)
    if bk is batching.not_mapped:
        impl = get_aval(k).dtype._impl
        k = prng.random_wrap(batching.bdim_at_front(prng.random_unwrap(k), bk, size), impl=impl)
    else:
        k = batching.bdim_at_front(k, bk, size)
    a = batching.bdim_at_front(a, ba, size)
    return random_gamma_p.bind(k, a, log_space=log_space), 0


def _gamma_grad(sample, a, *, log_space: bool):
    """``d sample / d a``, element by element (``lax.map``, as JAX does on the CPU);
    for log-space samples, ``d log(x) / d a = (dx/da) / x``, with ``x`` at least
    the smallest normal float where ``exp`` underflows."""
    samples = jnp.reshape(sample, -1)
    alphas = jnp.reshape(a, -1)
    if log_space:
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, dtypes.finfo(get_aval(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, _const(sample, 0)), tiny, samples)

        def gamma_grad(alpha, x):
            return random_gamma_grad(alpha, x) / x
    else:
        gamma_grad = random_gamma_grad
    grads = _lax_map(lambda args: gamma_grad(*args), (alphas, samples))
    return grads.reshape(np.shape(a))


random_gamma_p = Primitive("random_gamma")
_jitted_gamma_impl = jit(_gamma_impl, static_argnames=("log_space",))


def _gamma_impl_interpreted(key, a, *, log_space: bool):
    """The impl (eager binds, and chapter 06's interpreter backend, which evaluates
    every equation with its impl): the same function, run by the interpreter. (The
    worker thread that runs an impl does not see the caller's
    ``with default_backend_option(...)``: the backend is named here, not left to the
    default, Numba.)"""
    with default_backend_option("interpreter"):
        return _jitted_gamma_impl(key, a, log_space=log_space)


impl_rules[random_gamma_p] = _gamma_impl_interpreted
abstract_eval_rules[random_gamma_p] = _gamma_abstract_eval
batching.batching_rules[random_gamma_p] = _gamma_batching_rule
ad.defjvp2(random_gamma_p, None,
           lambda tangent, ans, key, a, **kw: tangent * _gamma_grad(ans, a, **kw))
_plan_passes.register_lower_fun(random_gamma_p, _gamma_impl)
for _rules in (_cpu_rules, _cuda_rules):
    _rules.register_lower_fun_lowering(random_gamma_p)
