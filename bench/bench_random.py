"""Chapter 13 benchmark: ``jit(lambda k: random.normal(k, (10**6,)))``.

minijax on the Numba backend (``backend="cpu"``, chapter 09) and on the
interpreter, beside NumPy's own generator (a different algorithm, for scale)
and real JAX when it is importable. Ratios > 1 mean minijax is slower.
"""
import timeit
import warnings

import numpy as np

N = 10**6


def _time(fn, number=5):
    fn()  # warm up (traces and compiles)
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    import minijax
    import minijax.random as mr
    warnings.simplefilter("ignore", DeprecationWarning)  # jit(backend=...) is deprecated in JAX
    key = mr.key(0)
    times = {}
    for backend in ("cpu", "interpreter"):
        f = minijax.jit(lambda k: mr.normal(k, (N,)), backend=backend)
        times[f"minijax ({backend})"] = _time(lambda: f(key).block_until_ready())
    rng = np.random.default_rng(0)
    times["numpy (default_rng)"] = _time(lambda: rng.standard_normal(N, dtype=np.float32))
    try:
        import jax
        import jax.random as jr
        g = jax.jit(lambda k: jr.normal(k, (N,)))
        jkey = jr.key(0)
        times["jax"] = _time(lambda: g(jkey).block_until_ready())
    except ImportError:
        pass
    ref = times.get("jax")
    for name, t in times.items():
        ratio = f"{times['minijax (cpu)'] / t:8.2f}" if name != "minijax (cpu)" else f"{'':8}"
        print(f"{name:<22}{t * 1e3:9.2f} ms   minijax(cpu)/this ={ratio}")
    if ref is None:
        print("(real JAX not importable: run with an environment that has it for the JAX column)")


if __name__ == "__main__":
    main()
