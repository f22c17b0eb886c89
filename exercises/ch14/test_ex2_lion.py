"""Check of exercise 2 of chapter 14: the Lion optimizer (``ex2_lion.py``)."""
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax.example_libraries import optimizers
from _load import load

ex = load(__file__, "ex2_lion")


def np_lion(x, grads, lr, b1, b2, wd):
    """The update rule in NumPy, float64: one list of parameters per step."""
    m, xs = np.zeros_like(x), []
    for i, g in enumerate(grads):
        c = b1 * m + (1 - b1) * g
        x = x - lr(i) * (np.sign(c) + wd * x)
        m = b2 * m + (1 - b2) * g
        xs.append(x)
    return xs


def test_state_and_params():
    init, update, get_params = ex.lion(1e-3)
    params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}
    state = init(params)
    assert isinstance(state, optimizers.OptimizerState)
    got = get_params(state)
    assert sorted(got) == ["b", "w"] and got["w"].shape == (2, 3)
    leaves = [np.asarray(l) for l in minijax.tree_util.tree_leaves(state.packed_state)]
    assert len(leaves) == 4 and sum(np.count_nonzero(l) for l in leaves) == 6   # m starts at 0


def test_against_numpy():
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(4, 3)).astype(np.float32)
    grads = [rng.normal(size=(4, 3)).astype(np.float32) for _ in range(6)]
    for step_size, wd in ((0.01, 0.0), (optimizers.exponential_decay(0.05, 2, 0.5), 0.1)):
        init, update, get_params = ex.lion(step_size, b1=0.8, b2=0.95, weight_decay=wd)
        lr = optimizers.make_schedule(step_size)
        expected = np_lion(x0.astype(np.float64), [g.astype(np.float64) for g in grads],
                           lambda i: float(lr(i)), 0.8, 0.95, wd)
        state = init([x0])
        for i, g in enumerate(grads):
            state = update(i, [g], state)
            np.testing.assert_allclose(np.asarray(get_params(state)[0]), expected[i],
                                       rtol=1e-5, atol=1e-6)


def test_a_jitted_training_step():
    x = np.linspace(-1, 1, 20, dtype=np.float32)
    y = 3 * x - 1
    loss = lambda p: jnp.mean((p[0] * x + p[1] - y) ** 2)   # noqa: E731
    init, update, get_params = ex.lion(optimizers.exponential_decay(0.1, 50, 0.5))

    @minijax.jit
    def step(i, state):
        return update(i, minijax.grad(loss)(get_params(state)), state)
    state = init((jnp.zeros(()), jnp.zeros(())))
    first = float(loss(get_params(state)))
    for i in range(200):
        state = step(i, state)
    assert float(loss(get_params(state))) < 0.01 * first
