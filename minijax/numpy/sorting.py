"""Chapter 00 — jnp sorting (to be written)."""
from __future__ import annotations

__all__: list[str] = []
