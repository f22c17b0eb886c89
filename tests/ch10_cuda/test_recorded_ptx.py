"""Every CUDA module the simulator run lowered compiles to PTX and assembles.

``make test`` runs the simulator tests with ``MINIJAX_RECORD_CUDA=<dir>``
(see ``kernel_record.py``), then this test without the simulator and with the
same variable: each recorded kernel goes through NVVM to PTX (compute
capability 8.0) and through ``ptxas``. Skips when nothing was recorded."""
import glob
import json
import os

import pytest

from tests.ch10_cuda.conftest import needs_extra, ptx_only
from tests.ch10_cuda.kernel_record import ENV

pytestmark = [needs_extra, ptx_only]

DIRECTORY = os.environ.get(ENV)
RECORDED = sorted(glob.glob(os.path.join(DIRECTORY, "cuda_*.json"))) if DIRECTORY else []


@pytest.mark.skipif(not RECORDED, reason=f"nothing recorded ({ENV} unset or empty)")
def test_every_recorded_kernel_compiles_to_ptx_and_assembles():
    import importlib.util

    import numpy as np
    from numba import cuda, from_dtype, types

    from minijax.backends.cuda.compile import DEFAULT_CC, assemble
    failures = []
    count = 0
    for meta_path in RECORDED:
        with open(meta_path) as f:
            meta = json.load(f)
        source_path = meta_path[:-len(".json")] + ".py"
        spec = importlib.util.spec_from_file_location(os.path.basename(source_path)[:-3],
                                                      source_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for kernel in meta["kernels"]:
            count += 1
            sig = tuple(types.Array(from_dtype(np.dtype(dtype)), ndim, "C")
                        for dtype, ndim in kernel["signature"])
            try:
                ptx, _ = cuda.compile_ptx(getattr(module, kernel["name"]).py_func, sig,
                                          cc=DEFAULT_CC)
                assemble(ptx, DEFAULT_CC)
            except Exception as e:  # noqa: BLE001  (collected, reported together)
                failures.append(f"{meta['name']} / {kernel['name']}: "
                                f"{type(e).__name__}: {str(e)[:300]}")
    assert count > 0
    assert not failures, f"{len(failures)} of {count} kernels failed:\n" + "\n".join(failures)
