"""Chapter 09 benchmark: jit on the Numba CPU backend vs NumPy vs real JAX.

Two programs:

- ``selu`` over 1e6 float32: a pure elementwise chain (six primitives). NumPy
  makes five temporaries; the fused kernel reads ``x`` once and writes once.
- ``sum(tanh(x @ W + b))`` for a (256, 512) @ (512, 256) float32 product: a BLAS
  call, then a fused elementwise chain that ends in a reduction.

Each is timed as the best of several repeats, after a warm-up call (which
compiles). Real JAX is timed only when it is importable (it never is a
dependency of minijax): run ``PYTHONPATH=. /path/to/env-with-jax/bin/python
bench/bench_jit_cpu.py``. Ratios > 1 mean minijax is slower.
"""
import time
import timeit
import warnings

import numpy as np


def _time(fn, number):
    fn()  # warm up (and compile)
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number


def selu_np(x, alpha=1.6732632, scale=1.0507010):
    return scale * np.where(x > 0, x, alpha * np.exp(x) - alpha)


def mlp_np(x, w, b):
    return np.sum(np.tanh(x @ w + b))


def _programs(jnp):
    def selu(x, alpha=1.6732632, scale=1.0507010):
        return scale * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    def mlp(x, w, b):
        return jnp.sum(jnp.tanh(x @ w + b))
    return selu, mlp


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1_000_000).astype(np.float32)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    w = (rng.standard_normal((512, 256)) / 20).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)

    import minijax
    import minijax.numpy as mjnp
    import minijax.backends.numba_cpu  # noqa: F401  (registers the "cpu" backend)
    selu, mlp = _programs(mjnp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mj_selu = minijax.jit(selu, backend="cpu")
        mj_mlp = minijax.jit(mlp, backend="cpu")
        interp_selu = minijax.jit(selu, backend="interpreter")
    xs, as_, ws, bs = (mjnp.asarray(v) for v in (x, a, w, b))
    start = time.perf_counter()
    mj_selu(xs).block_until_ready()
    print(f"first call of jit(selu) (trace + lower + compile or load): "
          f"{(time.perf_counter() - start) * 1e3:.0f} ms")

    rows = {
        "selu, 1e6 f32": {
            "minijax jit (numba)": _time(lambda: mj_selu(xs).block_until_ready(), 20),
            "minijax jit (interpreter)": _time(lambda: interp_selu(xs).block_until_ready(), 5),
            "numpy": _time(lambda: selu_np(x), 20),
        },
        "sum(tanh(x @ W + b)), 256x512x256": {
            "minijax jit (numba)": _time(lambda: mj_mlp(as_, ws, bs).block_until_ready(), 20),
            "numpy": _time(lambda: mlp_np(a, w, b), 20),
        },
    }
    try:
        import jax
        import jax.numpy as jjnp
        jselu, jmlp = (jax.jit(f) for f in _programs(jjnp))
        jx, ja, jw, jb = (jax.device_put(v) for v in (x, a, w, b))
        rows["selu, 1e6 f32"]["jax jit"] = _time(lambda: jselu(jx).block_until_ready(), 20)
        rows["sum(tanh(x @ W + b)), 256x512x256"]["jax jit"] = _time(
            lambda: jmlp(ja, jw, jb).block_until_ready(), 20)
    except ImportError:
        print("(real JAX is not importable here: no JAX column)")

    for program, times in rows.items():
        base = times["minijax jit (numba)"]
        print(f"\n{program}")
        for who, t in times.items():
            ratio = "" if who.startswith("minijax jit (numba)") else \
                f"   minijax/{who.split()[0] if 'interp' not in who else 'interpreter'} = " \
                f"{base / t:.2f}x"
            print(f"  {who:28s} {t * 1e3:8.3f} ms{ratio}")


if __name__ == "__main__":
    main()
