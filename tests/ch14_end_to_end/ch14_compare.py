"""How the chapter 14 tests compare a case's results with JAX's recorded ones."""
import numpy as np

#: how close an array must be: outputs within float32 rounding of a few operations;
#: parameters within a few ulps of the array's largest entry (glorot's truncated
#: normals, see ``stax_cases``: ``erf_inv`` rounds near 0 as it does near the edges)
OUTPUT_TOL = dict(rtol=2e-5, atol=2e-6)
PARAM_TOL = dict(rtol=1e-6, atol=0.0, ulps_of_max=2)


def _close(actual, expected, where, rtol, atol, ulps_of_max=0):
    if ulps_of_max:
        atol = ulps_of_max * np.spacing(np.max(np.abs(expected), initial=0).astype(np.float32))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=where)


def assert_matches(actual, expected, where="result", tol=OUTPUT_TOL):
    """Compare a case's result with JAX's, recursing through lists and dicts.

    Digests (strings: exact bits) and shapes (tuples) must be equal; arrays
    must have JAX's dtype and shape and agree within ``tol`` (``PARAM_TOL``
    under a ``"params"`` key); a summary of a large array (``stax_cases.small``)
    is compared by its head and its sums.
    """
    if isinstance(expected, dict) and "head" in expected:
        assert isinstance(actual, dict), where
        assert actual["shape"] == expected["shape"], where
        _close(actual["head"], expected["head"], where, **tol)
        sum_tol = 1e-5 * expected["abs_sum"] + tol["atol"]
        assert abs(actual["sum"] - expected["sum"]) <= sum_tol, where
        assert abs(actual["abs_sum"] - expected["abs_sum"]) <= sum_tol, where
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), where
        for k in expected:
            assert_matches(actual[k], expected[k], f"{where}[{k!r}]",
                           PARAM_TOL if k == "params" else tol)
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_matches(a, e, f"{where}[{i}]", tol)
    elif isinstance(expected, (np.ndarray, np.generic)):
        actual = np.asarray(actual)
        assert actual.dtype == expected.dtype, f"{where}: {actual.dtype} != {expected.dtype}"
        assert actual.shape == np.shape(expected), where
        _close(actual, expected, where, **tol)
    else:  # a digest of exact bits, or a shape
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"
