"""Chapter 00 — ``minijax.nn``: common activation functions and ``logsumexp``, as ``jax.nn``."""
