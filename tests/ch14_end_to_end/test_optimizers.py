"""``minijax.example_libraries.optimizers`` (chapter 14): JAX's optimizers, with JAX's numbers.

The cases of ``optimizer_cases.py`` run here under ``import minijax as jax`` and
are compared with what they returned under real JAX 0.10.2
(``jax_optimizer_values.py``): every optimizer's parameters after one and three
updates (eager, jitted, and in a jitted ``fori_loop``), its whole state, the
schedules' values and dtypes, the utilities, and how ``jax.tree`` sees an
``OptimizerState``.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.example_libraries import optimizers

import optimizer_cases as cases
from jax_optimizer_values import EXPECTED
from ch14_compare import assert_matches


def test_every_case_has_jax_values():
    assert sorted(cases.CASES) == sorted(EXPECTED)
    assert sorted(f"{n}/{m}" for n in cases.OPTIMIZERS for m in cases.modes(n)) == \
        sorted(EXPECTED["optimizer_results"])


@pytest.mark.parametrize("name", sorted(cases.OPTIMIZERS))
def test_optimizer_steps_match_jax(name, jit_backend):
    for mode in cases.modes(name):
        key = f"{name}/{mode}"
        assert_matches(cases.run_optimizer(jax, optimizers, name, mode),
                       EXPECTED["optimizer_results"][key], key)


def test_schedules_match_jax(jit_backend):
    # the values and their dtypes: float64 where a schedule computes with Python
    # numbers, float32 where it uses jnp or runs under jit
    assert_matches(cases.schedule_values(jax, optimizers), EXPECTED["schedule_values"],
                   "schedules")


def test_l2_norm_and_clip_grads_match_jax(jit_backend):
    assert_matches(cases.utilities(jax, optimizers), EXPECTED["utilities"], "utilities")


def test_optimizer_state_structure_and_errors_match_jax():
    # the treedefs print as JAX's, and the two TypeErrors say what JAX's say
    assert cases.structures(jax, optimizers) == EXPECTED["structures"]


def test_l2_norm_is_numpys():
    tree = cases.params()
    flat = np.concatenate([np.ravel(x) for x in jax.tree_util.tree_leaves(tree)])
    np.testing.assert_allclose(float(optimizers.l2_norm(tree)),
                               np.linalg.norm(flat.astype(np.float64)), rtol=1e-6)


# --- OptimizerState is a pytree node of its own ----------------------------------------

def _state():
    return optimizers.momentum(0.1, 0.9).init_fn(cases.params())


def test_optimizer_state_flattens_to_the_packed_leaves():
    state = _state()
    leaves, treedef = jax.tree.flatten(state)
    # the packed state holds (x, velocity) per parameter leaf, in the params' leaf order
    expected = [x for p in jax.tree_util.tree_leaves(cases.params()) for x in (p, 0 * p)]
    assert len(leaves) == len(expected)
    for a, e in zip(leaves, expected):
        np.testing.assert_array_equal(np.asarray(a), e)
    rebuilt = jax.tree.unflatten(treedef, leaves)
    assert isinstance(rebuilt, optimizers.OptimizerState)
    assert rebuilt.tree_def == state.tree_def and rebuilt.subtree_defs == state.subtree_defs
    # not flattened as a namedtuple of three fields: the treedefs are node data
    assert jax.tree.structure(state) != jax.tree.structure(tuple(state))


def test_optimizer_state_through_jit_keeps_its_type(jit_backend):
    state = _state()
    out = jax.jit(lambda s: jax.tree.map(lambda x: x * 2, s))(state)
    assert isinstance(out, optimizers.OptimizerState)
    assert out.tree_def == state.tree_def
    np.testing.assert_allclose(np.asarray(out.packed_state[2][0]), 2 * cases.params()["w"])


def test_pack_unpack_round_trip():
    state = optimizers.adam(0.1).init_fn(cases.params())
    marked = optimizers.unpack_optimizer_state(state)
    # the params' structure, with a JoinPoint holding each parameter's (x, m, v)
    assert set(marked) == {"w", "b"} and isinstance(marked["b"], tuple)
    assert isinstance(marked["w"], optimizers.JoinPoint)
    x, m, v = marked["w"].subtree
    np.testing.assert_array_equal(np.asarray(x), cases.params()["w"])
    assert list(marked["w"]) == [marked["w"].subtree]  # a JoinPoint iterates its subtree
    packed = optimizers.pack_optimizer_state(marked)
    assert isinstance(packed, optimizers.OptimizerState)
    assert packed.tree_def == state.tree_def and packed.subtree_defs == state.subtree_defs
    assert jax.tree.structure(packed) == jax.tree.structure(state)
    for a, b in zip(jax.tree.leaves(packed), jax.tree.leaves(state)):
        assert a is b


def test_pack_refuses_a_tree_without_join_points():
    with pytest.raises(AssertionError):
        optimizers.pack_optimizer_state({"w": jnp.ones(2)})


# --- the decorator, the triple and the errors ------------------------------------------

def test_optimizer_is_a_named_triple():
    opt = optimizers.sgd(0.1)
    assert isinstance(opt, optimizers.Optimizer) and len(opt) == 3
    assert optimizers.Optimizer._fields == ("init_fn", "update_fn", "params_fn")
    init_fun, update_fun, get_params = opt
    assert opt.init_fn is init_fun and opt.params_fn is get_params
    # functools.wraps keeps the names of what was decorated, as in JAX
    assert optimizers.adam.__name__ == "adam"
    assert (init_fun.__name__, update_fun.__name__, get_params.__name__) == \
        ("init", "update", "get_params")


def test_get_params_of_init_is_params():
    for name in cases.OPTIMIZERS:
        init_fun, _, get_params = cases.OPTIMIZERS[name](optimizers)
        out = get_params(init_fun(cases.params()))
        assert jax.tree.structure(out) == jax.tree.structure(cases.params()), name
        for a, b in zip(jax.tree.leaves(out), jax.tree.leaves(cases.params())):
            np.testing.assert_array_equal(np.asarray(a), b)


def test_sm3_in_a_jitted_loop_raises_as_in_jax():
    # its state keeps the shape as ints, traced inside jit: JAX raises a TypeError too
    init_fun, update_fun, get_params = optimizers.sm3(0.1)
    grad = jax.grad(lambda p: cases.loss(jax, p))

    def body(i, state):
        return update_fun(i, grad(get_params(state)), state)
    with pytest.raises(TypeError):
        jax.jit(lambda s: jax.lax.fori_loop(0, 2, body, s))(init_fun(cases.params()))


def test_make_schedule_errors():
    # from JAX 0.10.2: TypeError carrying the type, for anything not a scalar or callable
    with pytest.raises(TypeError, match="<class 'list'>"):
        optimizers.make_schedule([0.1, 0.2])
    with pytest.raises(TypeError):
        optimizers.sgd(jnp.ones(2))


def test_piecewise_constant_errors():
    # from JAX 0.10.2: the two ValueErrors and their messages
    with pytest.raises(ValueError, match="boundaries and values must be sequences"):
        optimizers.piecewise_constant(1, [0.1, 0.2])
    with pytest.raises(ValueError,
                       match="boundaries length must be one shorter than values length"):
        optimizers.piecewise_constant([1, 2], [0.1, 0.2])


def test_public_names_are_jaxs():
    # from JAX 0.10.2
    jax_names = ['Array', 'InitFn', 'JoinPoint', 'Optimizer', 'OptimizerState', 'Params',
                 'ParamsFn', 'Schedule', 'State', 'Step', 'UpdateFn', 'Updates', 'adagrad',
                 'adam', 'adamax', 'clip_grads', 'constant', 'exponential_decay',
                 'inverse_time_decay', 'l2_norm', 'make_schedule', 'momentum', 'nesterov',
                 'optimizer', 'pack_optimizer_state', 'piecewise_constant',
                 'polynomial_decay', 'rmsprop', 'rmsprop_momentum', 'sgd', 'sm3',
                 'unpack_optimizer_state']
    for name in jax_names:
        assert hasattr(optimizers, name), name
    import minijax
    assert minijax.example_libraries.optimizers is optimizers
