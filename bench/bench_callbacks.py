"""What a host callback costs inside a compiled loop (chapter 12).

A ``fori_loop`` of ``N`` steps whose body calls ``debug.callback`` with a
no-op (and a float32 scalar), against the same loop without the callback.
The difference over ``N`` is the cost of one call back into Python from
compiled code: on minijax's CPU backend, the ctypes trampoline of
``backends/cpu/host_calls.py`` (take the GIL, wrap the buffers, run the impl
rule); in JAX, XLA's CPU callback. NumPy's column is a Python loop calling
the same no-op, for scale.
"""
import numpy as np

from harness import compare, library_of

N = 2000


def _noop(*_):
    return None


def loop(with_callback: bool):
    def program(jnp):
        lib = library_of(jnp)

        def f(x):
            def body(i, acc):
                acc = acc + x[i % x.shape[0]]
                if with_callback:
                    lib.debug.callback(_noop, acc)
                return acc
            return lib.lax.fori_loop(0, N, body, jnp.float32(0))
        return f
    return program


def python_loop(x):
    acc = np.float32(0)
    for i in range(N):
        acc = acc + x[i % x.shape[0]]
        _noop(acc)
    return acc


def main():
    x = np.arange(16, dtype=np.float32)
    plain = compare(f"fori_loop of {N} steps, no callback", loop(False), (x,), interpreter=False)
    called = compare(f"fori_loop of {N} steps, debug.callback(no-op, acc) each step",
                     loop(True), (x,), python_loop, interpreter=False)
    print("\nper callback (difference / steps):")
    for who in ("minijax", "jax"):
        if who in called:
            print(f"  {who:28s}{(called[who] - plain[who]) / N * 1e6:9.2f} us")
    print(f"  {'numpy (a Python call)':28s}{called['numpy'] / N * 1e6:9.2f} us per step")


if __name__ == "__main__":
    main()
