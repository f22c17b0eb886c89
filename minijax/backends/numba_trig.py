"""Chapter 09 — vectorizable float32 sin, cos and tan (placeholder, being written)."""
