"""Chapter 09 — which compiler turns a kernel's source into machine code.

Two compilers read the same kernel source (:mod:`.writer`):

- **ours** (``"llvm"``, the default): :mod:`.llvm_translate` turns the source
  into LLVM IR, :mod:`.llvm_compile` optimizes and loads it. It covers the
  constructs kernels are made of (loops, element reads and writes, scalar
  arithmetic, helper calls, BLAS products) and compiles a kernel in a
  fraction of the time Numba takes, because it skips what Numba must do for
  any Python function: type inference over Python's semantics, and the
  general, large IR that comes out of it;
- **Numba** (``"numba"``): compiles every kernel, and still compiles the ones
  ours does not cover (``NotTranslatable`` says what; the choice is logged).

``"check"`` compiles each kernel with both and runs both on every call,
raising ``AssertionError`` when an output's bits differ: the test suite runs
the chapter's kernels this way, because the translator's rule is to compute
exactly what Numba computes for the same source.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from minijax.backends.cpu import compile as numba_compiler
# our compiler's modules load with the backend, as Numba does, not in a first call
from minijax.backends.cpu import llvm_compile, llvm_translate
from minijax.config import string_state

__all__ = ["cpu_compiler_option", "CompiledKernel", "compile_kernel", "BitsDiffer", "translation",
           "needs_numba"]

logger = logging.getLogger(__name__)

COMPILERS = ("llvm", "numba", "check")


def _check_choice(value) -> None:
    if value not in COMPILERS:
        raise ValueError(f"minijax_cpu_compiler must be one of {COMPILERS}, got {value!r}")


cpu_compiler_option = string_state(
    "minijax_cpu_compiler", "llvm",
    "The compiler of the CPU backend's kernels: 'llvm' (minijax's own translation to LLVM "
    "IR; Numba for the kernels it does not cover), 'numba', or 'check' (both, comparing "
    "the bits of every output on every call).")
# the parser of string_state takes any string; the choice is checked where it is read


class BitsDiffer(AssertionError):
    """The two compilers' kernels computed different bits for the same call."""


@dataclass
class CompiledKernel:
    """A kernel ready to call: ``fn(*consts, *args) -> tuple of outputs``.

    ``compiler`` is ``"llvm"`` or ``"numba"`` (``"check"``: both);
    ``signature`` the Numba types of its parameters; ``cache_hit`` whether the
    machine code came from the disk cache; ``reason`` why Numba compiled it
    when ours was asked for (``None`` otherwise); ``llvm`` and ``numba`` the
    two compiled kernels when present.
    """
    fn: object
    compiler: str
    signature: tuple
    cache_hit: bool
    reason: str | None = None
    llvm: object = None
    numba: object = None


def _translate(lowering):
    """Our compiler's kernel for ``lowering``, or the reason it has none."""
    translated, args, reason = translation(lowering)
    if translated is None:
        return None, reason
    return llvm_compile.load_kernel(translated, args), None


def translation(lowering):
    """``(translated kernel, its parameters, None)``, or ``(None, None, reason)`` when
    the translator does not cover the kernel; found once per lowering."""
    found = getattr(lowering, "_translation", None)
    if found is None:
        args = llvm_translate.arg_specs(lowering.plan)
        try:
            found = (llvm_translate.translate_kernel(lowering.source, lowering.fn_name, args),
                     args, None)
        except llvm_translate.NotTranslatable as e:
            found = (None, None, str(e))
        lowering._translation = found
    return found


def needs_numba(lowering) -> bool:
    """Whether Numba compiles this kernel (the option says so, or ours does not cover it)."""
    choice = cpu_compiler_option.value
    _check_choice(choice)
    return choice == "numba" or translation(lowering)[0] is None


def compile_kernel(lowering) -> CompiledKernel:
    """Compile ``lowering``'s kernel with the compiler ``minijax_cpu_compiler`` names."""
    choice = cpu_compiler_option.value
    _check_choice(choice)
    signature = numba_compiler.kernel_signature(lowering.plan)
    ours, reason = (None, "minijax_cpu_compiler='numba'")
    if choice != "numba":
        ours, reason = _translate(lowering)
        if ours is not None and choice == "llvm":
            return CompiledKernel(ours, "llvm", signature, ours.cache_hit, llvm=ours)
        if ours is None:
            logger.info("minijax: jit(%s) compiled by Numba: the translator does not cover %s",
                        lowering.name, reason)
    dispatcher, signature, hit = numba_compiler.compile_kernel(
        lowering.source, lowering.fn_name, signature)
    if ours is None:
        return CompiledKernel(dispatcher, "numba", signature, hit, reason=reason,
                              numba=dispatcher)
    return CompiledKernel(_Checked(ours, dispatcher, lowering.name), "check", signature,
                          hit and ours.cache_hit, llvm=ours, numba=dispatcher)


class _Checked:
    """Both kernels, run one after the other; their outputs must be the same bits."""

    def __init__(self, ours, numba_kernel, name: str):
        self.ours, self.numba, self.name = ours, numba_kernel, name

    def __call__(self, *args) -> tuple:
        expected = self.numba(*args)
        got = self.ours(*args)
        for k, (a, b) in enumerate(zip(expected, got)):
            b = np.asarray(b)
            # Numba returns a 0-d output as a Python scalar (a float32 as a Python
            # float, exactly); the backend converts it to the output's dtype
            a = a if isinstance(a, np.ndarray) else np.asarray(a, dtype=b.dtype)
            if not _same_bits(a, b):
                raise BitsDiffer(
                    f"minijax: output {k} of jit({self.name}) differs between the LLVM "
                    f"translation and Numba: {b!r} against Numba's {a!r}")
        return got


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Same dtype, shape and bits, except that a NaN's sign and payload are not
    compared (NaNs only by position): LLVM does not keep them, nor does Numba
    between a loop's vector body and its remainder."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            return False
        a, b = a[~nan_a], b[~nan_b]
    return a.tobytes() == b.tobytes()

