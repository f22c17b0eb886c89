"""Chapter 09 — how much of the generated kernel source the LLVM translator covers.

Every kernel module chapter 09 ever wrote on this machine is still in the
compile cache (``minijax_kernel_<hash>.py``), with its jaxpr in its
docstring. This tool translates each one (:mod:`.llvm_translate`) for the
argument types the jaxpr gives, and counts what is left to Numba and why::

    python -m minijax.backends.cpu.llvm_translate_coverage          # coverage
    python -m minijax.backends.cpu.llvm_translate_coverage --bits   # and bits

With ``--bits`` each translated kernel also runs on random inputs through
both compilers (:mod:`.llvm_compile` and Numba, the reference) and the
results are compared bit for bit (NaN where Numba has NaN, any sign and
payload). Kernels written by older versions import helpers that no longer
exist, or with other arguments; they are counted apart ("stale").
"""
from __future__ import annotations

import ast
import collections
import glob
import os
import re
import sys

import numpy as np

__all__ = ["kernel_files", "kernel_arguments", "coverage", "main"]

_DTYPES = {"f32": "float32", "f64": "float64", "f16": "uint16", "bf16": "uint16", "bool": "bool",
           **{f"i{b}": f"int{b}" for b in (8, 16, 32, 64)},
           **{f"u{b}": f"uint{b}" for b in (8, 16, 32, 64)}}


def kernel_files() -> list[str]:
    from minijax.backends.cpu.compile import cache_dir
    return sorted(glob.glob(os.path.join(cache_dir(), "minijax_kernel_*.py")))


def kernel_arguments(docstring: str):
    """The entry's :class:`.llvm_translate.ArgSpec` list, read from the printed jaxpr's
    binders (constants, then inputs), or ``None`` for a type it cannot read."""
    from minijax.backends.cpu.llvm_translate import ArgSpec
    match = re.search(r"^    \{ lambda (.*?)\. let", docstring, re.S | re.M)
    if not match:
        return None
    consts, _, inputs = match.group(1).partition(";")
    specs = []
    for kind, dims in re.findall(r"\w+:([\w<>]+)\[([\d,]*)\]", consts + " " + inputs):
        shape = tuple(int(d) for d in dims.split(",") if d)
        if kind == "key<fry>":
            specs.append(ArgSpec(np.dtype(np.uint32), shape + (2,)))
        elif kind in _DTYPES:
            specs.append(ArgSpec(np.dtype(_DTYPES[kind]), shape))
        else:
            return None
    return specs


def _entry(source: str):
    """The ``@njit`` entry's name (``None`` for a CUDA module)."""
    for node in ast.parse(source).body:
        if (isinstance(node, ast.FunctionDef) and node.name.startswith("jit_")
                and any("njit" in ast.unparse(d) for d in node.decorator_list)):
            return node.name
    return None


def _stale(source: str) -> bool:
    """Written by an older version: imports a helper that no longer exists, or calls one
    with another number of arguments."""
    from minijax.backends.cpu.helpers import HELPERS
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minijax_helpers"):
            if any(a.name not in HELPERS for a in node.names):
                return True
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and any(
                a.name == "range" for a in node.names):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in HELPERS:
            params = ast.parse(HELPERS[node.func.id].source.strip()).body[0].args.args
            if len(node.args) != len(params):
                return True
    return False


def coverage(check_bits: bool = False):
    """Translate every cached kernel; returns counts and the reasons left, by frequency."""
    from minijax.backends.cpu.llvm_translate import NotTranslatable, translate_kernel
    counts = collections.Counter()
    reasons = collections.Counter()
    for path in kernel_files():
        with open(path) as f:
            source = f.read()
        name = _entry(source)
        specs = kernel_arguments(ast.get_docstring(ast.parse(source)) or "")
        if name is None or specs is None:
            continue
        group = "stale" if _stale(source) else "current"
        counts[group] += 1
        try:
            kernel = translate_kernel(source, name, specs)
        except NotTranslatable as e:
            if group == "current":
                reasons[re.sub(r" \(line .*", "", str(e))] += 1
            continue
        counts[group + " translated"] += 1
        if check_bits and group == "current":
            counts["bits " + _compare(source, name, specs, kernel)] += 1
    return counts, reasons


def _compare(source, name, specs, kernel) -> str:
    """Run both compilers on the same random inputs: 'same', 'differ' or 'skipped'."""
    from numba import from_dtype, types

    from minijax.backends.cpu import compile as compiler
    from minijax.backends.cpu.helpers import _library
    from minijax.backends.cpu.llvm_compile import load_kernel
    source = re.sub(r"from minijax_helpers_\w+ import", f"from {_library['module']} import", source)
    signature = tuple(types.Array(from_dtype(s.dtype), len(s.shape), "C", readonly=True)
                      if s.shape else from_dtype(s.dtype) for s in specs)
    rng = np.random.default_rng(0)
    inputs = [_random(rng, s) for s in specs]
    try:
        numba_kernel, _, _ = compiler.compile_kernel(source, name, signature)
        expected = numba_kernel(*inputs)
    except Exception:
        return "skipped"
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = load_kernel(kernel, specs)(*inputs)
    for g, e in zip(got, expected):
        e = e if isinstance(e, np.ndarray) else np.asarray(e, dtype=g.dtype)
        if g.shape != e.shape or g.dtype != e.dtype or not _same_bits(g, e):
            return "differ"
    return "same"


def _random(rng, spec):
    dtype = spec.dtype
    if dtype.kind == "f":
        x = (rng.standard_normal(spec.shape) * 2).astype(dtype)
        edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-42, 2.5], dtype)
        x.reshape(-1)[:min(edges.size, x.size)] = edges[:x.size]
    elif dtype == np.bool_:
        x = rng.random(spec.shape) < 0.5
    elif dtype == np.uint16:   # float16's bits
        x = rng.standard_normal(spec.shape).astype(np.float16).view(np.uint16)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -5), min(info.max, 6), size=spec.shape,
                         endpoint=True).astype(dtype)
    if not spec.shape:
        return x[()]
    x.flags.writeable = False
    return x


def _same_bits(got, expected) -> bool:
    def bits(x):
        return x.view(np.uint8) if x.dtype == np.bool_ else x.view(f"u{x.dtype.itemsize}")
    if got.dtype.kind == "f":
        nan_got, nan_expected = np.isnan(got), np.isnan(expected)
        if not np.array_equal(nan_got, nan_expected):
            return False
        got, expected = np.where(nan_got, 0, got), np.where(nan_expected, 0, expected)
    return np.array_equal(bits(got), bits(expected))


def main(argv=None) -> None:
    from minijax.backends.cpu import backend  # noqa: F401  (names the shared helper library)
    argv = sys.argv[1:] if argv is None else argv
    counts, reasons = coverage(check_bits="--bits" in argv)
    current, done = counts["current"], counts["current translated"]
    print(f"{done}/{current} current kernels translated ({100 * done / max(current, 1):.1f}%); "
          f"stale kernels: {counts['stale translated']}/{counts['stale']}")
    if "--bits" in argv:
        print(f"bits: {counts['bits same']} same, {counts['bits differ']} differ, "
              f"{counts['bits skipped']} not run by Numba")
    for reason, count in reasons.most_common(20):
        print(f"{count:6}  {reason}")


if __name__ == "__main__":
    main()
