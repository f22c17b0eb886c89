"""``minijax.scipy.spatial.transform.Rotation`` and ``Slerp`` against SciPy's."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SR
from scipy.spatial.transform import Slerp as SSlerp

import minijax.numpy as jnp
from minijax.scipy.spatial.transform import Rotation, Slerp

rng = np.random.default_rng(5)
QUATS = rng.normal(size=(6, 4)).astype(np.float32)
QUATS /= np.linalg.norm(QUATS, axis=-1, keepdims=True)


def close(got, want, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=atol)


def same_rotation(got_quat, want_quat):
    """Quaternions equal up to sign (q and -q are one rotation)."""
    got, want = np.asarray(got_quat), np.asarray(want_quat)
    sign = np.sign(np.sum(got * want, axis=-1, keepdims=True))
    close(got * sign, want)


@pytest.mark.parametrize("seq", ["xyz", "ZXY", "zxz", "YXY", "x", "yz"])
def test_from_euler_and_back_match_scipy(seq):
    angles = rng.uniform(-1.5, 1.5, size=(4, len(seq))).astype(np.float32)
    r = Rotation.from_euler(seq, angles)
    same_rotation(r.quat, SR.from_euler(seq, angles).as_quat())
    if len(seq) == 3:
        close(r.as_euler(seq), SR.from_euler(seq, angles).as_euler(seq), atol=1e-4)
        close(r.as_euler(seq, degrees=True),
              SR.from_euler(seq, angles).as_euler(seq, degrees=True), atol=5e-3)


def test_conversions_match_scipy():
    r, s = Rotation.from_quat(QUATS), SR.from_quat(QUATS)
    close(r.as_matrix(), s.as_matrix())
    close(r.as_rotvec(), s.as_rotvec(), atol=1e-4)
    close(r.as_rotvec(degrees=True), s.as_rotvec(degrees=True), atol=1e-2)
    close(r.as_mrp(), s.as_mrp())
    close(r.magnitude(), s.magnitude())
    close(r.as_quat(canonical=True), s.as_quat(canonical=True))
    close(r.as_quat(scalar_first=True), s.as_quat(scalar_first=True))
    same_rotation(Rotation.from_matrix(s.as_matrix()).quat, QUATS)
    same_rotation(Rotation.from_rotvec(s.as_rotvec()).quat, QUATS)
    same_rotation(Rotation.from_mrp(s.as_mrp()).quat, QUATS)
    same_rotation(Rotation.from_rotvec(np.array([1e-4, 0., 0.])).quat,  # the Taylor branch
                  SR.from_rotvec([1e-4, 0., 0.]).as_quat())


def test_composition_inverse_apply_mean_match_scipy():
    r, s = Rotation.from_quat(QUATS), SR.from_quat(QUATS)
    same_rotation((r[:3] * r[3:]).quat, (s[:3] * s[3:]).as_quat())
    same_rotation(r.inv().quat, s.inv().as_quat())
    v = rng.normal(size=(6, 3)).astype(np.float32)
    close(r.apply(v), s.apply(v))
    close(r.apply(v, inverse=True), s.apply(v, inverse=True))
    same_rotation(r.mean().quat, s.mean().as_quat())
    assert len(r) == 6 and Rotation.from_quat(QUATS[0]).single
    with pytest.raises(TypeError, match="not subscriptable"):
        Rotation.from_quat(QUATS[0])[0]


def test_jax_docstring_rotations():
    r = Rotation.from_euler("z", 90, degrees=True)
    close(r.as_rotvec(), [0., 0., 1.5707964])  # from JAX 0.10.2
    close((r * Rotation.from_euler("x", 90, degrees=True)).as_matrix(),
          [[0., 0., 1.], [1., 0., 0.], [0., 1., 0.]])


def test_slerp_matches_scipy():
    rots = np.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]])
    keys = SR.from_euler("zxy", rots, degrees=True)
    times = [0, 0.5, 1, 1.5, 2]
    got = Slerp.init([0, 1, 2], Rotation.from_euler("zxy", rots, degrees=True))(times)
    want = SSlerp([0, 1, 2], keys)(times)
    same_rotation(got.quat, want.as_quat())
    close(got.as_euler("zxy"), want.as_euler("zxy"), atol=1e-5)
    single = Slerp.init([0, 1, 2], Rotation.from_euler("zxy", rots, degrees=True))(0.25)
    assert single.single
    with pytest.raises(ValueError, match="at least 2 rotations"):
        Slerp.init([0], Rotation.from_euler("x", jnp.array([[1.0]])))
