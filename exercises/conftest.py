"""The exercises' checks: ``exercises/`` on ``sys.path`` so a check can ``from _load import load``."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
