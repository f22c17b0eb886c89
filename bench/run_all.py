"""Run every benchmark in bench/ (files named bench_*.py), one after another."""
import pathlib
import runpy

for path in sorted(pathlib.Path(__file__).parent.glob("bench_*.py")):
    print(f"\n## {path.name}")
    runpy.run_path(str(path), run_name="__main__")
