"""Interpreters: one ``Trace`` subclass per transformation (printing, jvp, vmap, jaxpr)."""
