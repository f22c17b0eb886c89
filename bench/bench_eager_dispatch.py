"""Chapter 00 benchmark: the cost of one eager (op-by-op) primitive.

Before ``jit`` (chapter 06) every ``jnp`` call is dispatched one primitive at
a time: abstract evaluation, NumPy impl, wrap in an Array. This measures that
overhead on a tiny array (where it dominates) and the throughput on a large
one (where NumPy's own speed dominates), beside NumPy and, when installed,
real JAX. Run with ``make bench`` or ``python bench/bench_eager_dispatch.py``.
"""
import timeit

import numpy as np


def _time(fn, number):
    fn()  # warm up
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number


def _cases(xp, asarray):
    small = asarray(np.arange(8, dtype=np.float32))
    large = asarray(np.linspace(-1, 1, 1_000_000, dtype=np.float32))
    return {
        "add, 8 elements": (lambda: xp.add(small, small), 2000),
        "sin * 2 + 1, 8 elements": (lambda: xp.sin(small) * 2 + 1, 1000),
        "sum, 8 elements": (lambda: xp.sum(small), 2000),
        "add, 1e6 elements": (lambda: xp.add(large, large), 20),
        "sin * 2 + 1, 1e6 elements": (lambda: xp.sin(large) * 2 + 1, 10),
    }


def main():
    import minijax.numpy as mjnp
    libs = {"numpy": (np, np.asarray), "minijax": (mjnp, mjnp.asarray)}
    try:
        import jax
        import jax.numpy as jjnp
        libs["jax"] = (jjnp, lambda a: jax.device_put(a))
    except ImportError:
        pass
    results = {}
    for name, (xp, asarray) in libs.items():
        for case, (fn, number) in _cases(xp, asarray).items():
            if name == "jax":
                inner = fn
                fn = lambda inner=inner: inner().block_until_ready()
            results.setdefault(case, {})[name] = _time(fn, number)
    print(f"{'case':<28}{'numpy':>12}{'minijax':>12}{'jax':>12}{'minijax/numpy':>15}{'minijax/jax':>13}")
    for case, r in results.items():
        jax_t = r.get("jax")
        print(f"{case:<28}{r['numpy'] * 1e6:>10.1f}us{r['minijax'] * 1e6:>10.1f}us"
              + (f"{jax_t * 1e6:>10.1f}us" if jax_t else f"{'-':>12}")
              + f"{r['minijax'] / r['numpy']:>15.1f}"
              + (f"{r['minijax'] / jax_t:>13.2f}" if jax_t else f"{'-':>13}"))


if __name__ == "__main__":
    main()
