"""Chapter 00 — ``minijax.scipy.special``: ``logsumexp``, ``erf``, ``erfinv``, ``expit``, ``logit``, as ``jax.scipy.special``."""
from __future__ import annotations
