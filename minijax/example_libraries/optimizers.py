"""Optimizers written with minijax, as ``jax.example_libraries.optimizers``.

An optimizer is a triple of pure functions ``(init_fun, update_fun, get_params)``:

- ``init_fun(params) -> opt_state``: the state to start from, holding the
  parameters and whatever else the method keeps (a velocity, moment estimates);
- ``update_fun(step, grads, opt_state) -> opt_state``: one step, given the
  step index (for learning-rate schedules) and a pytree of gradients shaped
  like the parameters;
- ``get_params(opt_state) -> params``, with ``get_params(init_fun(p)) == p``.

Because the state is a pytree of arrays and the functions are pure, a whole
training step jits::

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)

    @jax.jit
    def step(i, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(get_params(opt_state), batch)
        return loss, opt_update(i, grads, opt_state)

Each method below is written for *one array* (``x - step_size(i) * g`` for
SGD); the ``@optimizer`` decorator lifts it to any pytree of parameters by
applying it leaf by leaf. The state it builds, an ``OptimizerState``, keeps the
per-leaf states flattened (a list of leaves per parameter) together with the
tree structures needed to rebuild them.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from minijax import tree as _tree
from minijax import tree_util as _tree_util
import minijax.numpy as jnp


def _map(f, *seqs):
    """``map`` to a list, refusing sequences of different lengths (JAX's safe_map)."""
    n = len(seqs[0])
    for s in seqs[1:]:
        if len(s) != n:
            raise ValueError(f"length mismatch: {[len(s) for s in seqs]}")
    return [f(*args) for args in zip(*seqs)]


def _unzip2(pairs):
    """``[(a0, b0), (a1, b1), ...] -> ((a0, a1, ...), (b0, b1, ...))``."""
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


# --- the optimizer state ---------------------------------------------------------------
# Two levels of pytrees meet here: the *outer* tree of parameters, and for each
# parameter leaf the *inner* tree its method keeps (for momentum: ``(x, v)``).
# The state stores the inner trees flattened, one list of leaves per parameter
# (``packed_state``), with the outer treedef (``tree_def``) and the inner
# treedefs (``subtree_defs``) needed to rebuild them.

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
OptimizerState.__doc__ = """The state of a pytree optimizer.

``packed_state``: one list of state leaves per parameter leaf; ``tree_def``:
the parameters' treedef; ``subtree_defs``: each parameter's state treedef.

Registered as a pytree node of its own (it would otherwise flatten as a
namedtuple of three fields): its only child is ``packed_state``, and the two
treedefs are static node data. So ``jit`` sees only arrays, and the treedefs
take part in the cache key, as a tuple's length does."""

_tree_util.register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda data, children: OptimizerState(children[0], data[0], data[1]))


Array = Any
Params = Any  # Parameters are arbitrary nests of `jnp.ndarrays`.
State = Any   # internal State
Updates = Params  # Gradient updates are of the same type as parameters.

InitFn = Callable[[Params], OptimizerState]
Step = int
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """The ``(init_fn, update_fn, params_fn)`` triple of an optimizer."""
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


Schedule = Callable[[Step], float]


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]
              ) -> Callable[..., Optimizer]:
    """Decorator to make an optimizer defined for arrays generalize to containers.

    With this decorator, you can write init, update, and get_params functions
    that each operate only on single arrays, and convert them to corresponding
    functions that operate on pytrees of parameters.

    Args:
      opt_maker: a function that returns an ``(init_fun, update_fun,
        get_params)`` triple of functions that might only work with ndarrays:
        ``init_fun: ndarray -> OptStatePytree``,
        ``update_fun: (step, ndarray, OptStatePytree) -> OptStatePytree``,
        ``get_params: OptStatePytree -> ndarray``.

    Returns:
      A function with ``opt_maker``'s signature that returns an ``Optimizer``
      triple working on arbitrary pytrees of parameters, with an
      ``OptimizerState`` as the state.
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = _tree.flatten(x0_tree)
            initial_states = [init(x0) for x0 in x0_flat]
            states_flat, subtrees = _unzip2(_map(_tree.flatten, initial_states))
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = _tree.flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did "
                    "not match the parameter tree structure with which it was "
                    f"initialized: parameter tree {tree} and grad tree {grad_tree_def}.")
            states = _map(_tree.unflatten, subtrees, states_flat)
            new_states = _map(functools.partial(update, i), grad_flat, states)
            new_states_flat, new_subtrees = _unzip2(_map(_tree.flatten, new_states))
            for subtree, new_subtree in zip(subtrees, new_subtrees):
                if new_subtree != subtree:
                    raise TypeError(
                        "optimizer update function produced an output structure that "
                        f"did not match its input structure: input {subtree} and "
                        f"output {new_subtree}.")
            return OptimizerState(new_states_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = _map(_tree.unflatten, subtrees, states_flat)
            return _tree.unflatten(tree, _map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# --- optimizers (each written for one array) --------------------------------------------

@optimizer
def sgd(step_size):
    """Construct optimizer triple for stochastic gradient descent.

    ``x <- x - step_size(i) * g``; the state is the parameter itself.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x
    return Optimizer(init, update, get_params)


@optimizer
def momentum(step_size: Schedule, mass: float):
    """Construct optimizer triple for SGD with momentum.

    ``v <- mass * v + g``, then ``x <- x - step_size(i) * v``: a velocity that
    remembers past gradients, so steps grow along directions that agree.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      mass: positive scalar representing the momentum coefficient.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """Construct optimizer triple for SGD with Nesterov momentum.

    As ``momentum``, but the step looks one velocity update ahead:
    ``x <- x - step_size(i) * (mass * v + g)`` with the new ``v``.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      mass: positive scalar representing the momentum coefficient.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def adagrad(step_size, momentum=0.9):
    """Construct optimizer triple for Adagrad.

    Adaptive Subgradient Methods for Online Learning and Stochastic
    Optimization (Duchi, Hazan and Singer, 2011). Each coordinate's step is
    divided by the root of its summed squared gradients (0 where that sum is
    still 0), then smoothed with ``momentum``.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      momentum: optional, a positive scalar value for momentum

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """Construct optimizer triple for RMSProp.

    Keeps a decaying average of squared gradients (decay ``gamma``) and divides
    each step by its root (plus ``eps`` under the root).

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      gamma: Decay parameter.
      eps: Epsilon parameter.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """Construct optimizer triple for RMSProp with momentum.

    This optimizer is separate from the rmsprop optimizer because it needs to
    keep track of additional parameters: the RMSProp step is accumulated in a
    momentum buffer, which is what is subtracted.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      gamma: Decay parameter.
      eps: Epsilon parameter.
      momentum: Momentum parameter.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    def get_params(state):
        return state[0]
    return init, update, get_params


def _bias_correction(beta, like, i):
    """``1 - beta ** (i + 1)``, with ``beta`` in the dtype of the state."""
    return 1 - jnp.asarray(beta, like.dtype) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Construct optimizer triple for Adam.

    Decaying averages of the gradient (``m``, decay ``b1``) and of its square
    (``v``, decay ``b2``), each divided by ``1 - b ** (i + 1)`` to undo their
    bias towards the zeros they start from; the step is
    ``step_size(i) * mhat / (sqrt(vhat) + eps)``.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      b1: optional, a positive scalar value for beta_1, the exponential decay
        rate for the first moment estimates (default 0.9).
      b2: optional, a positive scalar value for beta_2, the exponential decay
        rate for the second moment estimates (default 0.999).
      eps: optional, a positive scalar value for epsilon, a small constant for
        numerical stability (default 1e-8).

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        v = (1 - b2) * jnp.square(g) + b2 * v  # second moment estimate
        mhat = m / _bias_correction(b1, m, i)
        vhat = v / _bias_correction(b2, m, i)
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Construct optimizer triple for AdaMax (a variant of Adam based on infinity norm).

    The second moment is replaced by a decaying maximum of ``|g|``, which
    needs no bias correction.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      b1: optional, a positive scalar value for beta_1, the exponential decay
        rate for the first moment estimates (default 0.9).
      b2: optional, a positive scalar value for beta_2, the exponential decay
        rate for the second moment estimates (default 0.999).
      eps: optional, a positive scalar value for epsilon, a small constant for
        numerical stability (default 1e-8).

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        u = jnp.maximum(b2 * u, jnp.abs(g))  # decaying infinity norm
        x = x - (step_size(i) / _bias_correction(b1, m, i)) * m / (u + eps)
        return x, m, u

    def get_params(state):
        return state[0]
    return init, update, get_params


def _splice(seq, i, x):
    """``seq`` with its ``i``-th entry replaced by the entries of ``x``."""
    lst = list(seq)
    lst[i:i + 1] = x
    return lst


@optimizer
def sm3(step_size, momentum=0.9):
    """Construct optimizer triple for SM3.

    Memory-Efficient Adaptive Optimization for Large-Scale Learning (Anil,
    Gupta, Koren and Singer, 2019). Like Adagrad, but instead of one squared-
    gradient sum per entry it keeps one vector per axis (``vs``): an entry's
    sum is bounded by the minimum over the axes of its row/column maxima, so a
    ``(m, n)`` parameter needs ``m + n`` accumulators instead of ``m * n``.

    Args:
      step_size: positive scalar, or a callable representing a step size
        schedule that maps the iteration index to a positive scalar.
      momentum: optional, a positive scalar value for momentum

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    step_size = make_schedule(step_size)

    def broadcast_into(ndim, x, axis):
        """The vector ``x`` as an ``ndim``-dimensional array along ``axis``."""
        return x[tuple(_splice([None] * ndim, axis, [slice(None)]))]

    def init(x0):
        x_shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        vs = [jnp.zeros(sz, dtype=x0.dtype) for sz in x0.shape]
        return x0, jnp.zeros_like(x0), vs, x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        vs = [broadcast_into(g.ndim, v, axis) for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(_splice(range(x.ndim), j, [])) for j in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return x.reshape(x_shape)
    return init, update, get_params


# --- learning-rate schedules: step index -> step size ---------------------------------

def constant(step_size) -> Schedule:
    """The schedule that is ``step_size`` at every step."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``; with ``staircase``
    the ratio ``i / decay_steps`` is floored, so the size drops in steps."""
    if staircase:
        def schedule(i):
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    else:
        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` over ``decay_steps`` steps,
    along ``(1 - i / decay_steps) ** power``; constant afterwards."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` for steps ``i`` with ``k`` boundaries below ``i``:
    ``values[0]`` up to and including ``boundaries[0]``, and so on."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule stays as it is; a scalar becomes ``constant(scalar)``;
    anything else is a ``TypeError`` naming its type."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# --- utilities -------------------------------------------------------------------------

def l2_norm(tree):
    """Compute the l2 norm of a pytree of arrays. Useful for weight decay."""
    leaves, _ = _tree.flatten(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Clip gradients stored as a pytree of arrays to maximum norm `max_norm`.

    Every leaf is scaled by the same ``max_norm / norm`` when the norm of the
    whole tree is at least ``max_norm``, so the direction is kept.
    """
    norm = l2_norm(grad_tree)

    def normalize(g):
        return jnp.where(norm < max_norm, g, g * (max_norm / norm))
    return _tree.map(normalize, grad_tree)


# --- serialization ---------------------------------------------------------------------

class JoinPoint:
    """Marks the boundary between two joined (nested) pytrees.

    Not a pytree node, so it is a *leaf* of the outer tree that carries a whole
    inner tree: what ``unpack_optimizer_state`` puts where each parameter was.
    """
    def __init__(self, subtree):
        self.subtree = subtree

    # Since pytrees are containers of numpy arrays, look iterable.
    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """Converts an OptimizerState to a marked pytree.

    Converts an OptimizerState to a marked pytree with the leaves of the outer
    pytree represented as JoinPoints to avoid losing information. This function
    is intended to be useful when serializing optimizer states.

    Args:
      opt_state: An OptimizerState
    Returns:
      A pytree with JoinPoint leaves that contain a second level of pytrees.
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = _map(_tree.unflatten, subtree_defs, states_flat)
    return _tree.unflatten(tree_def, [JoinPoint(subtree) for subtree in subtrees])


def pack_optimizer_state(marked_pytree):
    """Converts a marked pytree to an OptimizerState.

    The inverse of unpack_optimizer_state. Converts a marked pytree with the
    leaves of the outer pytree represented as JoinPoints back into an
    OptimizerState. This function is intended to be useful when deserializing
    optimizer states.

    Args:
      marked_pytree: A pytree containing JoinPoint leaves that hold more pytrees.
    Returns:
      An equivalent OptimizerState to the input argument.
    """
    sentinels, tree_def = _tree.flatten(marked_pytree)
    assert all(isinstance(s, JoinPoint) for s in sentinels)
    subtrees = [s.subtree for s in sentinels]
    states_flat, subtree_defs = _unzip2(_map(_tree.flatten, subtrees))
    return OptimizerState(states_flat, tree_def, subtree_defs)
