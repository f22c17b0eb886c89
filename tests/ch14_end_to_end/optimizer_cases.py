"""The optimizer programs the chapter 14 tests compare with JAX, written once for both libraries.

Each case is a function of ``(jax, optimizers)``: it minimises a small fixed
loss over a pytree of parameters (a matrix, a vector and a scalar) with one
optimizer, taking gradients with ``jax.grad``, and returns the parameters after
one and after three updates (eagerly, under ``jit``, and inside a jitted
``fori_loop``) and the whole optimizer state at the end. Schedules return their
values at a few steps, with Python ints and with traced ones.

Run this file under a Python with JAX (``python optimizer_cases.py``) to print
``jax_optimizer_values.py``; the tests run the same cases under ``import minijax``.
"""
import numpy as np

from stax_cases import print_expected, ramp


def params():
    """The starting parameters: a dict holding a matrix and a (vector, scalar) pair."""
    return {"w": ramp(2, 3), "b": (ramp(3) * 0.5 + 1, np.float32(0.7))}


def loss(jax, p):
    """A smooth, non-quadratic loss, so every optimizer's steps differ."""
    jnp = jax.numpy
    w, (v, s) = p["w"], p["b"]
    return jnp.sum(jnp.sin(w) * w) + jnp.sum((v - 1.0) ** 2 * v) + s ** 4 - s


#: name -> function(optimizers) -> (init_fun, update_fun, get_params)
OPTIMIZERS = {
    "sgd": lambda o: o.sgd(0.1),
    "sgd_exponential_decay": lambda o: o.sgd(o.exponential_decay(0.1, 2, 0.5)),
    "momentum": lambda o: o.momentum(0.1, 0.9),
    "nesterov": lambda o: o.nesterov(0.1, mass=0.8),
    "adagrad": lambda o: o.adagrad(0.1),
    "adagrad_no_momentum": lambda o: o.adagrad(0.2, momentum=0.0),
    "rmsprop": lambda o: o.rmsprop(0.05),
    "rmsprop_momentum": lambda o: o.rmsprop_momentum(0.05, gamma=0.8, momentum=0.5),
    "adam": lambda o: o.adam(0.1),
    "adam_piecewise": lambda o: o.adam(o.piecewise_constant([1], [0.1, 0.01]), b2=0.99),
    "adamax": lambda o: o.adamax(0.1),
    "sm3": lambda o: o.sm3(0.1),
    "sm3_no_momentum": lambda o: o.sm3(0.2, momentum=0.0),
}


def _leaves(jax, tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def run_optimizer(jax, optimizers, name, mode):
    """Three updates of optimizer ``name``: ``mode`` is ``"eager"``, ``"jit"``
    (a jitted ``update_fun``, so the step index is traced) or ``"fori_loop"``
    (the whole loop, gradients included, in one jitted ``fori_loop``)."""
    opt_init, opt_update, get_params = OPTIMIZERS[name](optimizers)
    grad = jax.grad(lambda p: loss(jax, p))
    state = opt_init(params())
    result = {}
    if mode == "fori_loop":
        def body(i, state):
            return opt_update(i, grad(get_params(state)), state)
        state = jax.jit(lambda s: jax.lax.fori_loop(0, 3, body, s))(state)
    else:
        update = jax.jit(opt_update) if mode == "jit" else opt_update
        for i in range(3):
            state = update(i, grad(get_params(state)), state)
            if i == 0:
                result["step1"] = _leaves(jax, get_params(state))
    result["step3"] = _leaves(jax, get_params(state))
    result["state"] = _leaves(jax, state)
    return result


def modes(name):
    """The ways ``name`` is run. Not sm3 inside a jitted loop: its state keeps the
    parameter's shape as a tuple of ints, which become traced leaves there, and
    ``get_params`` cannot reshape to a traced shape (a ``TypeError`` in JAX too)."""
    return ("eager", "jit") if name.startswith("sm3") else ("eager", "jit", "fori_loop")


def optimizer_results(jax, optimizers):
    return {f"{name}/{mode}": run_optimizer(jax, optimizers, name, mode)
            for name in OPTIMIZERS for mode in modes(name)}


#: name -> function(optimizers) -> schedule
SCHEDULES = {
    "constant": lambda o: o.constant(0.25),
    "exponential_decay": lambda o: o.exponential_decay(0.1, 5, 0.5),
    "inverse_time_decay": lambda o: o.inverse_time_decay(0.1, 5, 0.5),
    "inverse_time_decay_staircase": lambda o: o.inverse_time_decay(0.1, 5, 0.5, staircase=True),
    "polynomial_decay": lambda o: o.polynomial_decay(0.1, 10, 0.01),
    "polynomial_decay_power2": lambda o: o.polynomial_decay(0.1, 10, 0.01, power=2.0),
    "piecewise_constant": lambda o: o.piecewise_constant([2, 5], [1.0, 0.5, 0.1]),
    "make_schedule_scalar": lambda o: o.make_schedule(0.3),
}

STEPS = [0, 1, 2, 3, 5, 7, 10, 15, 30]


def schedule_values(jax, optimizers):
    """Each schedule at ``STEPS``: called with Python ints (each value with its
    dtype as NumPy sees it), and jitted (the step a traced int32)."""
    out = {}
    for name, make in SCHEDULES.items():
        schedule = make(optimizers)
        out[name] = [np.asarray(schedule(i)) for i in STEPS]
        jitted = jax.jit(schedule)
        out[name + "/jit"] = [np.asarray(jitted(i)) for i in STEPS]
    return out


def utilities(jax, optimizers):
    """``l2_norm`` of a pytree, and ``clip_grads`` below and above the norm."""
    tree = params()
    return {"l2_norm": np.asarray(optimizers.l2_norm(tree)),
            "clip_inactive": _leaves(jax, optimizers.clip_grads(tree, 100.0)),
            "clip_active": _leaves(jax, optimizers.clip_grads(tree, 1.0)),
            "clip_jit": _leaves(jax, jax.jit(optimizers.clip_grads)(tree, 1.5))}


def structures(jax, optimizers):
    """What ``jax.tree`` sees of an ``OptimizerState``, and the errors of ``update_fun``."""
    opt_init, opt_update, _ = optimizers.momentum(0.1, 0.9)
    state = opt_init(params())
    leaves, treedef = jax.tree.flatten(state)
    out = {"num_leaves": len(leaves), "treedef": str(treedef),
           "field_types": [type(state.packed_state).__name__,
                           type(state.packed_state[0]).__name__,
                           type(state.subtree_defs).__name__],
           "sm3_treedef": str(jax.tree.structure(optimizers.sm3(0.1)[0](params())))}
    try:
        opt_update(0, {"w": params()["w"], "b": params()["b"][0]}, state)
    except TypeError as e:
        out["grad_tree_error"] = str(e)

    @optimizers.optimizer
    def bad(step_size):
        return (lambda x: (x, x), lambda i, g, s: (s[0] - g,), lambda s: s[0])
    bad_init, bad_update, _ = bad(0.1)
    try:
        bad_update(0, np.float32(1.0), bad_init(np.float32(2.0)))
    except TypeError as e:
        out["subtree_error"] = str(e)
    return out


CASES = {"optimizer_results": optimizer_results, "schedule_values": schedule_values,
         "utilities": utilities, "structures": structures}


if __name__ == "__main__":  # pragma: no cover - run under real JAX to regenerate
    import jax
    from jax.example_libraries import optimizers
    print_expected("optimizer_cases.py", CASES, jax, optimizers)
