"""``minijax.extend``: the IR objects for people who build on minijax, as ``jax.extend``."""
