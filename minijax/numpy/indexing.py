"""Chapter 00 — jnp indexing (to be written)."""
from __future__ import annotations

__all__: list[str] = []
