"""``minijax.scipy``: the parts of ``jax.scipy`` minijax provides."""
