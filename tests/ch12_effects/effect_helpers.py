"""Helpers shared by the chapter 12 tests (imported by name: the test folders have no
``__init__``, so pytest puts this folder on ``sys.path``)."""
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def normalize_addresses(text: str) -> str:
    """``<function f at 0x7f3a...>`` -> ``<function f at 0x...>``."""
    return re.sub(r" at 0x[0-9a-fA-FX]+>", " at 0x...>", text)


def run_python(code: str, env=None, timeout=120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with ``minijax`` importable from this checkout
    (for several virtual CPU devices: the count is fixed at first use, as in JAX)."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)
