"""The generated source, the compiled form, and the on-disk compile cache."""
import os
import textwrap

import numpy as np

import minijax
import minijax.numpy as jnp
import minijax.backends.cpu as numba_cpu
from tests.ch09_numba.conftest import kernel_source, cpu_jit, lowering_of, run_script

X = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)


def chain(x):
    return jnp.exp(jnp.sin(x) * 2.0 + 1.0) - x


def test_an_elementwise_chain_is_one_loop_nest_without_temporaries():
    source = kernel_source(cpu_jit(chain), X)
    code = source.split('"""')[-1]
    assert code.count("@njit(") == 1            # one entry function, no helpers needed
    assert code.count("for i0 in range(3):") == 1 and code.count("for i1 in range(4):") == 1
    assert code.count("np.empty(") == 1         # only the output is allocated
    assert "# b:f32[3,4] = sin a" in code       # each line says which equation it computes
    assert "np.float32(2.0)" in code            # float32 literals stay float32
    assert "nogil=True" in code


def test_plan_is_printable_and_counts_fused_bytes():
    lowered = cpu_jit(chain).lower(X)
    plan = lowering_of(cpu_jit(chain), X).plan
    assert str(plan).startswith("step 0: loop nest over [3, 4]: 5 fused equation(s), stores f")
    cost = lowered.cost_analysis()
    assert cost["flops"] == 5 * 12
    assert cost["bytes accessed"] == 2 * 12 * 4   # read x once, write the result once


def test_compiled_as_text_is_llvm_ir_of_the_entry_function():
    compiled = cpu_jit(chain).lower(X).compile()
    ir = compiled.as_text()
    assert ir.startswith("define ") and "jit_chain" in ir.splitlines()[0]
    np.testing.assert_allclose(np.asarray(compiled(X)), np.exp(np.sin(X) * 2 + 1) - X,
                               rtol=1e-6)


_SCRIPT = textwrap.dedent("""
    import sys, warnings, numpy as np
    warnings.simplefilter("ignore")
    import minijax, minijax.numpy as jnp
    import minijax.backends.cpu
    minijax.config.update("minijax_cache_dir", sys.argv[1])
    minijax.config.update("minijax_cpu_compiler", sys.argv[2])
    f = minijax.jit(lambda x: jnp.exp(jnp.cos(x) * 3.0) + 0.5, backend="cpu")
    compiled = f.lower(np.ones(5, np.float32)).compile()
    print(compiled._executable.cache_hit, float(compiled(np.ones(5, np.float32))[0]))
""")


def _run(cache: str, compiler: str = "numba") -> list[str]:
    return run_script(_SCRIPT, cache, compiler)


def test_a_second_process_loads_our_object_file_from_the_disk_cache(tmp_path):
    """minijax's own compiler: the object file LLVM wrote is loaded by the second process."""
    cache = str(tmp_path / "cache")
    first = _run(cache, "llvm")
    assert first[0] == "False"
    objects = os.listdir(os.path.join(cache, "llvm_objects"))
    assert len([f for f in objects if f.endswith(".o") and not f.startswith("small_gemm_")]) == 1
    second = _run(cache, "llvm")
    assert second == ["True", first[1]]
    np.testing.assert_allclose(float(second[1]), np.exp(np.cos(1.0) * 3) + 0.5, rtol=1e-6)


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run(cache)
    assert first[0] == "False"
    modules = [f for f in os.listdir(cache) if f.startswith("minijax_kernel_")]
    assert len(modules) == 1 and os.listdir(os.path.join(cache, "__pycache__"))
    second = _run(cache)
    assert second[0] == "True"          # numba found the machine code: nothing compiled
    assert second[1] == first[1]
    np.testing.assert_allclose(float(second[1]), np.exp(np.cos(1.0) * 3) + 0.5, rtol=1e-6)


def _corrupt(directory, select) -> int:
    count = 0
    for root, _, files in os.walk(directory):
        for name in files:
            if select(name):
                with open(os.path.join(root, name), "wb") as fh:
                    fh.write(b"\x00garbage")
                count += 1
    return count


def test_a_corrupt_cache_entry_is_recompiled(tmp_path, cache_dir):
    minijax.config.update("minijax_cache_dir", str(tmp_path))
    try:
        _corrupt_and_recompile(tmp_path)
    finally:
        minijax.config.update("minijax_cache_dir", str(cache_dir))


def _corrupt_and_recompile(tmp_path):
    f = lambda x: jnp.tanh(x) * 3.0  # noqa: E731
    cpu_jit(f)(X)
    # first numba's cached machine code, then the generated module itself
    for select in (lambda name: not name.endswith(".py"), lambda name: True):
        assert _corrupt(tmp_path, select) > 0
        numba_cpu.clear_cache()
        minijax.clear_caches()
        out = cpu_jit(f)(X)
        np.testing.assert_allclose(np.asarray(out), np.tanh(X) * 3, rtol=1e-6)
