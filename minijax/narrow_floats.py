"""Chapter 00 — bfloat16 and the 8-, 6- and 4-bit floats, from ``ml_dtypes``.

NumPy knows three binary float formats: float16, float32 and float64.
Machine learning added narrower ones, traded between range (exponent bits)
and precision (mantissa bits):

- ``bfloat16``: float32's 8 exponent bits with only 7 mantissa bits: the
  range of float32 in half the memory (float16 has 5 and 10);
- ``float8_e4m3fn``, ``float8_e5m2`` & co.: 8 bits. The suffixes say what
  the format gave up to gain a value: ``fn`` means *finite*, no infinities
  (the bit patterns go to larger numbers instead, and overflow gives NaN);
  ``uz`` means *unsigned zero*, no -0 (its pattern is the one NaN); ``b11``
  is an exponent bias of 11 instead of 7;
- ``float6_*`` and ``float4_e2m1fn``: six and four bits, no NaN at all.

The ``ml_dtypes`` package (the one JAX uses) registers each as a genuine
NumPy dtype: ``np.array([1.5], ml_dtypes.bfloat16)`` is a NumPy array whose
ufuncs compute in float32 and round the result, one operation at a time,
which is exactly what XLA's CPU backend does with these types. So minijax's
NumPy-based impl rules need nothing special to compute with them.

Two things are special, and ``dtypes`` deals with them: their NumPy *kind*
is ``'V'`` (not ``'f'``) and their scalar types do not subclass
``np.floating``, so "is this a float?" must be asked of
:func:`minijax.dtypes.issubdtype`, never of NumPy; and they have their own
places on JAX's promotion lattice.

``ml_dtypes`` is an optional dependency (``pip install minijax[dtypes]``).
Without it minijax imports and works with NumPy's own types, and asking for
``jnp.bfloat16`` raises an ``AttributeError`` (the module has no such name,
so ``hasattr(jnp, "bfloat16")`` is simply False) that says what to install. It is
imported here, once, when minijax is imported (not on first use) because
the promotion lattice is built at import time and these types are nodes of
it; the import is cheap next to NumPy's.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ml_dtypes", "available", "NAMES", "FLOAT8_NAMES", "FLOAT6_NAMES",
           "FLOAT4_NAMES", "DTYPES", "scalar_types", "missing_error", "supports_inf"]

try:
    import ml_dtypes
except ImportError:  # minijax works without it, with NumPy's types only
    ml_dtypes = None

available = ml_dtypes is not None

#: The narrow float types JAX 0.10.2 exports, in the order of its lattice.
FLOAT4_NAMES = ("float4_e2m1fn",)
FLOAT6_NAMES = ("float6_e2m3fn", "float6_e3m2fn")
FLOAT8_NAMES = ("float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz",
                "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")
NAMES = (*FLOAT4_NAMES, *FLOAT6_NAMES, *FLOAT8_NAMES, "bfloat16")

#: name -> np.dtype, for the types this ``ml_dtypes`` has (older releases lack some).
DTYPES: dict[str, np.dtype] = {
    name: np.dtype(getattr(ml_dtypes, name))
    for name in NAMES if available and hasattr(ml_dtypes, name)}

def scalar_types() -> dict[str, type]:
    """name -> ml_dtypes scalar type (``ml_dtypes.bfloat16``)."""
    return {name: dt.type for name, dt in DTYPES.items()}


def supports_inf(dtype) -> bool:
    """Can ``dtype`` hold infinity? Asked of the format itself: infinity converted
    to it and back is still infinity (the ``fn`` and ``fnuz`` formats give NaN)."""
    with np.errstate(all="ignore"):
        return bool(np.isinf(np.array(np.inf, np.dtype(dtype)).astype(np.float32)))


def missing_error(module: str, name: str) -> AttributeError:
    """The error raised when ``jnp.<name>`` is asked for without ``ml_dtypes``."""
    return AttributeError(
        f"module {module!r} has no attribute {name!r}: it needs the ml_dtypes package, "
        "which is not installed (pip install 'minijax[dtypes]', or pip install ml_dtypes).")
