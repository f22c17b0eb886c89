"""Exercise 2 of chapter 14, solved: an optimizer of your own, Lion."""
import minijax.numpy as jnp
from minijax.example_libraries.optimizers import make_schedule, optimizer


@optimizer
def lion(step_size, b1=0.9, b2=0.99, weight_decay=0.0):
    """Construct optimizer triple for Lion (see the exercise)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, m = state
        c = b1 * m + (1 - b1) * g
        x = x - step_size(i) * (jnp.sign(c) + weight_decay * x)
        return x, b2 * m + (1 - b2) * g

    def get_params(state):
        return state[0]
    return init, update, get_params
