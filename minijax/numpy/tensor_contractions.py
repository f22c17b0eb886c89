"""Chapter 00 — jnp tensor_contractions (to be written)."""
from __future__ import annotations

__all__: list[str] = []
