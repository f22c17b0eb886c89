"""Chapter 09 — placeholder (being written)."""
