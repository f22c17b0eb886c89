"""Chapter 11 test helpers.

Importing :mod:`minijax.runtime` installs the asynchronous executor (the lead's
``minijax/__init__`` does the same for every program). ``hold`` keeps a
device's queue from running anything inside a ``with`` block, which makes
"this is still pending" observable without relying on timing.

Two test-only primitives have NumPy impl rules the tests control:
``probe_p`` records the order in which impls run, ``fail_p`` raises
``ValueError`` on negative inputs (an error "inside a kernel").
"""
import numpy as np
import pytest

import minijax  # noqa: F401
import minijax.runtime as runtime
from minijax import primitives
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

class _Probes:
    """The test primitives, and the log of probe_p's impl runs."""

    def __init__(self):
        self.log = []
        self.probe_p = Primitive("test_probe")
        self.fail_p = Primitive("test_fail")
        impl_rules[self.probe_p] = self._probe_impl
        impl_rules[self.fail_p] = _fail_impl
        for p in (self.probe_p, self.fail_p):
            abstract_eval_rules[p] = lambda x, **_: ShapedArray(x.shape, x.dtype, x.weak_type)

    def _probe_impl(self, x, *, tag):
        self.log.append(tag)
        return x + 1

    def probe(self, x, tag):
        return self.probe_p.bind(x, tag=tag)

    def fail(self, x):
        return self.fail_p.bind(x)

    def remove(self):
        for p in (self.probe_p, self.fail_p):
            del impl_rules[p], abstract_eval_rules[p]
            primitives._registry.remove(p)  # keep tests/test_rules.py's lists clean


def _fail_impl(x):
    if np.any(x < 0):
        raise ValueError("test_fail: negative input")
    return x


@pytest.fixture(scope="module")
def probes():
    p = _Probes()
    yield p
    p.remove()


@pytest.fixture
def hold():
    """``with hold():`` — the default device runs nothing until the block ends."""
    return runtime.hold
