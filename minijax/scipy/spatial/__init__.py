"""``minijax.scipy.spatial``: rotations in 3-d (``transform.Rotation``, ``Slerp``)."""
from minijax.scipy.spatial import transform  # noqa: F401
