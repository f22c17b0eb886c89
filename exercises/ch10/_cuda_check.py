"""What chapter 10's checks share: the cuda extra, PTX, and a run on the simulator.

The simulator (``NUMBA_ENABLE_CUDASIM=1``) must be switched on before Numba is
imported, so a check runs its kernels in a fresh Python that loads the same
exercise module (the reader's, or the solution) with the simulator on.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
HAVE_CUDA_EXTRA = importlib.util.find_spec("numba_cuda") is not None
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

needs_cuda_extra = pytest.mark.skipif(
    not HAVE_CUDA_EXTRA, reason="needs the cuda extra (numba-cuda[cu12]): pip install -e '.[cuda]'")
needs_ptx = pytest.mark.skipif(
    not HAVE_CUDA_EXTRA or SIMULATOR,
    reason="PTX needs the cuda extra and no simulator (NUMBA_ENABLE_CUDASIM unset)")

_RUNNER = r"""
import json, sys, warnings
import numpy as np
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
from _load import load
import minijax
ex = load(sys.argv[2], sys.argv[3])
gpu = minijax.devices("gpu")[0]
args = [minijax.device_put(np.asarray(a["data"], np.float32).reshape(a["shape"]), gpu)
        for a in json.loads(sys.argv[4])]
out = minijax.jit(getattr(ex, sys.argv[5]))(*args)
assert out.device == gpu, out.device
print(json.dumps({"dtype": str(out.dtype), "value": np.asarray(out).tolist()}))
"""


def run_on_simulator(check_file: str, module: str, function: str, *args):
    """``jit(module.function)(*args)`` on the CUDA simulator, in a fresh Python:
    the result's dtype name and value (a nested list)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parents[1]), env.get("PYTHONPATH")]))
    run = subprocess.run([sys.executable, "-c", _RUNNER, str(HERE.parent), check_file, module,
                          json.dumps([{"shape": list(np.shape(a)), "data": np.ravel(a).tolist()} for a in args]),
                          function],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, "the simulator run failed:\n" + run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])
