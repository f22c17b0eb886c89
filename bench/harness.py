"""Shared timing and printing for the benchmarks in ``bench/``.

Every benchmark prints minijax beside NumPy and, when it can be imported,
real JAX (never a dependency of minijax: run a benchmark with an
interpreter that has JAX installed and ``PYTHONPATH=.`` to get its column).
Times are medians over repeated calls after a warm-up call (which traces and
compiles); minijax and JAX are timed in turns, a block of calls each
(``interleaved_medians``), so that the machine's drift does not fall on one
of them; ratios are minijax's time divided by the other's, so below 1
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


def interleaved_medians(fns: dict, *, rounds: int = 7, block_seconds: float = 0.15,
                        settle_seconds: float = 0.25) -> dict:
    """Median seconds of each of ``fns`` (name -> callable), timed in turns.

    Round after round, each contender runs a block of calls (about
    ``block_seconds``): a machine whose speed drifts (a neighbour's job, the
    clock) then slows every contender alike, and the ratios stay honest. The
    calls of the first ``settle_seconds`` of each block are not counted: the
    previous contender's worker threads (OpenMP, OpenBLAS's spin for up to a
    tenth of a second, XLA's pool) may still be spinning on the cores.
    Each is warmed up first.
    """
    for fn in fns.values():
        fn()
    times: dict = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            settle = time.perf_counter()
            while time.perf_counter() - settle < settle_seconds:
                fn()  # the hand-over, not counted
            start = time.perf_counter()
            while True:
                t0 = time.perf_counter()
                fn()
                t1 = time.perf_counter()
                times[name].append(t1 - t0)
                if t1 - start >= block_seconds:
                    break
    return {name: statistics.median(ts) for name, ts in times.items()}


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
    contenders = {"minijax": lambda: block(fast(*args))}
    jax = import_jax()
    if jax is not None:  # timed in turns with minijax: their ratio is the target
        jf = jax.jit(program(jax.numpy))
        jargs = [jax.device_put(a) for a in np_args]
        contenders["jax"] = lambda: jax.block_until_ready(jf(*jargs))
    paired = interleaved_medians(contenders)
    times = {"minijax": paired["minijax"]}
    if interpreter:
        slow = minijax_jit(program(mjnp), backend="interpreter")
        times["minijax interpreter"] = median_time(lambda: block(slow(*args)), min_runs=3)
    if numpy_fn is not None:
        times["numpy"] = median_time(lambda: numpy_fn(*np_args))
    if jax is not None:
        times["jax"] = paired["jax"]
    report(title, times)
    return times
