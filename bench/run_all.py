"""Run every benchmark in bench/ (files named bench_*.py), one after another."""
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))  # the benchmarks import harness.py

for path in [*sorted(HERE.glob("bench_*.py")), HERE / "async_dispatch.py"]:
    print(f"\n## {path.name}")
    runpy.run_path(str(path), run_name="__main__")
