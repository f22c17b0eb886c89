"""Chapter 00 — ``minijax.scipy.spatial.transform``: 3-d rotations as unit quaternions.

A rotation by ``angle`` about the unit axis ``n`` is the quaternion
``q = (sin(angle/2) n, cos(angle/2))``, stored ``[x, y, z, w]`` (scalar last,
as SciPy). Composing rotations multiplies quaternions; ``q`` and ``-q`` are
the same rotation. Every function here works on the last axis, so a stack of
rotations (``quat`` of shape ``(..., 4)``) is handled by the same code.
"""
from __future__ import annotations

import re
import typing

import numpy as np

import minijax.numpy as jnp
from minijax.numpy import linalg as jnp_linalg

__all__ = ["Rotation", "Slerp"]


def _norm(v):
    return jnp.sqrt(jnp.sum(v * v, axis=-1))


def _normalize(quat):
    return quat / _norm(quat)[..., None]


def _compose(p, q):
    """The quaternion product ``p q``: rotate by ``q``, then by ``p``."""
    px, py, pz, pw = (p[..., i] for i in range(4))
    qx, qy, qz, qw = (q[..., i] for i in range(4))
    cross = jnp.cross(p[..., :3], q[..., :3])
    return jnp.stack([pw * qx + qw * px + cross[..., 0], pw * qy + qw * py + cross[..., 1],
                      pw * qz + qw * pz + cross[..., 2], pw * qw - px * qx - py * qy - pz * qz],
                     axis=-1)


def _elementary(axis: int, angle):
    """The rotation by ``angle`` about coordinate axis ``axis``."""
    zero = jnp.zeros_like(angle)
    half_sin, half_cos = jnp.sin(angle / 2.0), jnp.cos(angle / 2.0)
    parts = [half_sin if i == axis else zero for i in range(3)] + [half_cos]
    return jnp.stack(parts, axis=-1)


def _axis_index(axis: str) -> int:
    if axis not in "xyz":
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


def _check_seq(seq: str, max_axes: int = 3):
    if not 1 <= len(seq) <= max_axes:
        raise ValueError(f"Expected axis specification to be a non-empty string of upto 3 "
                         f"characters, got {seq}")
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic, [_axis_index(a) for a in seq.lower()]


def _as_rotvec(quat, degrees: bool):
    quat = jnp.where(quat[..., 3:] < 0, -quat, quat)  # w >= 0: 0 <= angle <= pi
    angle = 2.0 * jnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
    angle2 = angle * angle
    small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880  # angle / sin(angle/2), Taylor
    scale = jnp.where(angle <= 1e-3, small, angle / jnp.sin(angle / 2))
    if degrees:
        scale = jnp.rad2deg(scale)
    return scale[..., None] * quat[..., :3]


def _from_rotvec(rotvec, degrees: bool):
    if degrees:
        rotvec = jnp.deg2rad(rotvec)
    angle = _norm(rotvec)
    angle2 = angle * angle
    small = 0.5 - angle2 / 48 + angle2 * angle2 / 3840  # sin(angle/2) / angle, Taylor
    scale = jnp.where(angle <= 1e-3, small, jnp.sin(angle / 2) / angle)
    return jnp.concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], axis=-1)


def _as_matrix(quat):
    x, y, z, w = (quat[..., i] for i in range(4))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
    return jnp.stack([jnp.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
    """Shepperd's method: build the quaternion from the largest of ``m``'s diagonal
    entries and its trace, the best-conditioned of four formulas."""
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    decision = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
    choice = jnp.argmax(decision, axis=-1)
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m[..., i, i]
        q[j] = m[..., j, i] + m[..., i, j]
        q[k] = m[..., k, i] + m[..., i, k]
        q[3] = m[..., k, j] - m[..., j, k]
        candidates.append(jnp.stack(q, axis=-1))
    candidates.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                                 m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1))
    quat = jnp.take_along_axis(jnp.stack(candidates, axis=-2), choice[..., None, None],
                               axis=-2)[..., 0, :]
    return _normalize(quat)


def _euler_from_quat(quat, axes, extrinsic: bool, degrees: bool):
    """Euler angles from a quaternion (Bernardes & Viollet 2022), for one fixed axis
    sequence: ``i, j, k`` are Python ints, so each branch below is static."""
    first, third = (0, 2) if extrinsic else (2, 0)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k  # "zxz"-like: the third axis is the first again
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2  # +1 for an even permutation of xyz
    q = [quat[..., n] for n in range(4)]
    if symmetric:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
    eps = 1e-7
    middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    case = jnp.where(jnp.abs(middle - np.pi) <= eps, 2, 0)  # gimbal lock at pi ...
    case = jnp.where(jnp.abs(middle) <= eps, 1, case)      # ... or at 0
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    angles = [jnp.zeros_like(middle)] * 3
    angles[1] = middle
    angles[0] = jnp.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    angles[first] = jnp.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = jnp.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (jnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return jnp.rad2deg(out) if degrees else out


def _make_canonical(quat):
    """``quat`` or ``-quat``, whichever has its first nonzero entry of ``w, x, y, z``
    positive."""
    neg, zero = quat < 0, quat == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0]) | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return jnp.where(flip[..., None], -quat, quat)


class Rotation(typing.NamedTuple):
    """A rotation (or a stack of them), stored as unit quaternions ``quat[..., 4]``."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        """Rotations about the axes of ``seq`` in turn: lower case rotates about the
        fixed (extrinsic) axes, upper case about the moving (intrinsic) ones."""
        intrinsic, axes = _check_seq(seq)
        angles = jnp.atleast_1d(angles)
        if degrees:
            angles = jnp.deg2rad(angles)
        result = _elementary(axes[0], angles[..., 0])
        for n in range(1, len(axes)):
            q = _elementary(axes[n], angles[..., n])
            result = _compose(result, q) if intrinsic else _compose(q, result)
        return cls(result)

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_from_matrix(jnp.asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp):
        """From modified Rodrigues parameters ``n tan(angle / 4)``."""
        mrp = jnp.asarray(mrp)
        sq1 = jnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
        return cls(jnp.concatenate([2 * mrp[..., :3], 2 - sq1], axis=-1) / sq1)

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalize(jnp.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        """From rotation vectors ``angle * n``."""
        return cls(_from_rotvec(jnp.asarray(rotvec), degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        assert num is None
        return cls(jnp.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> "Rotation":
        """``self * other``: apply ``other`` first, then ``self``."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        """The rotated ``vectors`` (by the inverse rotation with ``inverse``)."""
        m = self.as_matrix()
        if inverse:
            m = jnp.swapaxes(m, -1, -2)
        return jnp.matmul(m, jnp.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq: str, degrees: bool = False):
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        intrinsic, axes = _check_seq(seq)
        return _euler_from_quat(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self):
        return _as_matrix(self.quat)

    def as_mrp(self):
        sign = jnp.where(self.quat[..., 3:] < 0, -1.0, 1.0)
        return sign * self.quat[..., :3] / (1.0 + sign * self.quat[..., 3:])

    def as_rotvec(self, degrees: bool = False):
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        quat = _make_canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self):
        """The rotation angle, in ``[0, pi]``."""
        return 2.0 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation: the top eigenvector of ``sum w q q^T``."""
        w = (jnp.ones(self.quat.shape[0], dtype=self.quat.dtype) if weights is None
             else jnp.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError(f"Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        k = jnp.dot(w[None, :] * self.quat.T, self.quat)
        _, v = jnp_linalg.eigh(k)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation between key rotations at key times: between
    two keys, a rotation at constant angular speed about a fixed axis."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations: Rotation):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(f"Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError(f"Expected number of rotations to be equal to number of "
                             f"timestamps given, got {len(rotations)} rotations and "
                             f"{times.shape[0]} timestamps.")
        starts = Rotation(rotations.as_quat()[:-1])
        # the rotation from each key to the next, as a rotation vector
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times):
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = t.ndim == 0
        t = jnp.atleast_1d(t)
        ind = jnp.maximum(jnp.searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single else result
