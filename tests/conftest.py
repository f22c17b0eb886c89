"""Shared pytest set-up: one marker per chapter, taken from the test's folder.

A test in ``tests/ch04_vmap/`` is marked ``ch04``, so ``pytest -m ch04`` (or
``make test-ch04``) runs one chapter. Tests outside chapter folders (the
layering and rule-coverage checks) carry no chapter marker.
"""
import re

import pytest

_CHAPTER_DIR = re.compile(r"[/\\]tests[/\\]ch(\d\d)_")


def pytest_collection_modifyitems(config, items):
    for item in items:
        m = _CHAPTER_DIR.search(str(item.path))
        if m:
            item.add_marker(getattr(pytest.mark, f"ch{m.group(1)}"))


# Property tests stay small so the whole suite stays fast on two cores.
try:
    from hypothesis import settings

    # derandomize: the same examples every run, so CI never fails by chance
    settings.register_profile("minijax", max_examples=25, deadline=None, derandomize=True)
    settings.load_profile("minijax")
except ImportError:  # pragma: no cover
    pass
