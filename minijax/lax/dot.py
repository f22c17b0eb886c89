"""Chapter 00 — lax dot primitives (to be written)."""
from __future__ import annotations

__all__: list[str] = []
