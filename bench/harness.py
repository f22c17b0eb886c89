"""Shared timing and printing for the benchmarks in ``bench/``.

Every benchmark prints minijax beside NumPy and, when it can be imported,
real JAX (never a dependency of minijax: run a benchmark with an
interpreter that has JAX installed and ``PYTHONPATH=.`` to get its column).
Times are medians over repeated calls after a warm-up call (which traces and
compiles); ratios are minijax's time divided by the other's, so below 1
means minijax is faster.
"""
from __future__ import annotations

import statistics
import time
import warnings


def median_time(fn, *, min_runs: int = 10, min_seconds: float = 0.5) -> float:
    """Median seconds of ``fn()`` over at least ``min_runs`` calls and ``min_seconds``."""
    fn()  # warm up: trace, compile, fill caches
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_seconds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 2000:
            break
    return statistics.median(times)


def import_jax():
    """Real JAX on the CPU, or ``None`` when it is not installed here."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_platforms", "cpu")
    return jax


def minijax_jit(f, backend: str | None = None, **kw):
    """``minijax.jit(f)`` on a named backend (``backend=`` is deprecated, as in JAX)."""
    import minijax
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend=backend, **kw) if backend else minijax.jit(f, **kw)


def library_of(jnp):
    """``jax`` or ``minijax``: the library whose ``numpy`` module ``jnp`` is."""
    import importlib
    return importlib.import_module(jnp.__name__.split(".")[0])


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms"


def report(title: str, times: dict[str, float], base: str = "minijax") -> None:
    """One block: each contender's median time and ``base``'s time over it."""
    print(f"\n{title}")
    ref = times[base]
    for who, t in times.items():
        ratio = "" if who == base else f"   {base}/{who} = {ref / t:6.2f}"
        print(f"  {who:28s}{fmt(t)}{ratio}")


def compare(title: str, program, np_args: tuple, numpy_fn=None, *,
            interpreter: bool = True) -> dict[str, float]:
    """Time ``jit(program(jnp))`` on minijax (Numba, and the interpreter) and JAX,
    and ``numpy_fn(*np_args)``; print the block and return the times.

    ``program(jnp)`` builds the function from a ``numpy``-like module, so one
    definition serves minijax and JAX.
    """
    import minijax
    import minijax.numpy as mjnp

    def block(out):
        return minijax.block_until_ready(out)

    args = [minijax.device_put(a) for a in np_args]
    fast = minijax_jit(program(mjnp))
    times = {"minijax": median_time(lambda: block(fast(*args)))}
    if interpreter:
        slow = minijax_jit(program(mjnp), backend="interpreter")
        times["minijax interpreter"] = median_time(lambda: block(slow(*args)), min_runs=3)
    if numpy_fn is not None:
        times["numpy"] = median_time(lambda: numpy_fn(*np_args))
    jax = import_jax()
    if jax is not None:
        jf = jax.jit(program(jax.numpy))
        jargs = [jax.device_put(a) for a in np_args]
        times["jax"] = median_time(lambda: jax.block_until_ready(jf(*jargs)))
    report(title, times)
    return times
