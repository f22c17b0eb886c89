"""cauchy, rademacher, pareto, weibull_min, rayleigh, maxwell, double_sided_maxwell,
triangular, lognormal, geometric: JAX's samples for JAX's keys (the same draws and
the same arithmetic), under jit and on both CPU backends."""
import numpy as np
import pytest

import minijax
import minijax.random as r

# recorded from JAX 0.10.2: np.asarray(sampler(jax.random.key(seed))).tolist()
JAX = {
    ("cauchy", 0): [6.027494430541992, 14.837895393371582, -0.5817222595214844],
    ("cauchy", 42): [-0.03548463061451912, 0.6337261199951172, 0.38244056701660156],
    ("rademacher", 0): [-1, -1, 1, 1, -1],
    ("rademacher", 42): [1, -1, -1, -1, 1],
    ("pareto", 0): [7.147424221038818, 3.600747585296631],
    ("pareto", 42): [1.5639452934265137, 1.4617000818252563],
    ("weibull_min", 0): [4.113933563232422, 4.9072957038879395, 1.0928194522857666],
    ("weibull_min", 42): [1.5326144695281982, 2.181030750274658, 1.943356990814209],
    ("rayleigh", 0): [[0.32787832617759705, 0.20810027420520782],
                      [2.9688284397125244, 2.4622910022735596]],
    ("rayleigh", 42): [[1.1966511011123657, 0.8785907030105591],
                       [1.9678773880004883, 2.1503593921661377]],
    ("double_sided_maxwell", 0): [4.091442108154297, 4.148255348205566, -3.1650609970092773],
    ("double_sided_maxwell", 42): [-1.7620434761047363, -0.3513779640197754, 5.444042682647705],
    ("triangular", 0): [0.7953872084617615, 0.9345475435256958],
    ("triangular", 42): [0.360443651676178, 0.7374535202980042],
    ("lognormal", 0): [2.2508795261383057, 2.752837896347046, 0.8050932288169861],
    ("lognormal", 42): [0.9859473705291748, 1.2630960941314697, 1.159340739250183],
    ("geometric", 0): [1, 1, 1],
    ("geometric", 42): [7, 1, 1],
}

SAMPLERS = {
    "cauchy": lambda k: r.cauchy(k, (3,)),
    "rademacher": lambda k: r.rademacher(k, (5,)),
    "pareto": lambda k: r.pareto(k, np.array([1.5, 3.0], np.float32)),
    "weibull_min": lambda k: r.weibull_min(k, 2.0, 1.5, (3,)),
    "rayleigh": lambda k: r.rayleigh(k, np.array([[1.0], [2.0]], np.float32), (2, 2)),
    "double_sided_maxwell": lambda k: r.double_sided_maxwell(k, 1.0, 2.0, (3,)),
    "triangular": lambda k: r.triangular(k, 0., np.array([0.2, 0.8], np.float32), 1.),
    "lognormal": lambda k: r.lognormal(k, 0.5, (3,)),
    "geometric": lambda k: r.geometric(k, np.array([0.1, 0.5, 0.9], np.float32)),
}


@pytest.mark.parametrize("seed", [0, 42])
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jaxs_samples(jit_backend, name, seed):
    got = SAMPLERS[name](r.key(seed))
    want = np.asarray(JAX[(name, seed)])
    assert got.dtype == (np.int32 if name in ("rademacher", "geometric") else np.float32)
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-7)
    jitted = minijax.jit(SAMPLERS[name])(r.key(seed))
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=2e-7)


def test_maxwell_within_an_ulp_of_jax():
    # recorded from JAX 0.10.2; the norm rounds its sum of squares differently from XLA
    np.testing.assert_allclose(np.asarray(r.maxwell(r.key(0), (2,))),
                               [2.6310966, 0.99103284], rtol=3e-7)


def test_errors_as_jax():
    with pytest.raises(ValueError, match="dtype argument to `cauchy` must be a float dtype"):
        r.cauchy(r.key(0), (2,), dtype=np.int32)
    # (JAX 0.10.2's message)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"):
        r.pareto(r.key(0), np.ones(3, np.float32), shape=(2,))


def test_orthogonal_as_jax(jit_backend):
    # recorded from JAX 0.10.2
    want_square = [[0.9554101228713989, 0.2941357493400574, 0.02599557861685753],
                   [-0.04628981649875641, 0.2361408770084381, -0.9706156253814697],
                   [-0.2916313707828522, 0.9261326193809509, 0.23922686278820038]]
    want_wide = [[-0.12034642696380615, -0.10596386343240738, 0.9870604872703552],
                 [0.5959597826004028, -0.8029000759124756, -0.013531863689422607]]
    square = r.orthogonal(r.key(0), 3)
    np.testing.assert_allclose(np.asarray(square), want_square, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(square) @ np.asarray(square).T, np.eye(3), atol=1e-6)
    np.testing.assert_allclose(np.asarray(r.orthogonal(r.key(1), 2, m=3)), want_wide,
                               rtol=1e-6, atol=1e-7)
    assert r.orthogonal(r.key(0), 4, shape=(2,)).shape == (2, 4, 4)


def test_orthogonal_initializer_as_jax():
    # recorded from JAX 0.10.2 (rounded to 6 decimals)
    want = [[[-1.541939, 0.85533, 0.001758, 0.925015], [-0.626547, -0.0397, -1.293206, -1.011642],
             [-0.856396, -1.377999, -0.136036, -0.233806]],
            [[-0.556301, -0.815883, 1.16782, -0.055641], [0.03862, 0.218541, 0.677036, -0.496606],
             [0.430682, -0.80903, -0.697802, 1.347795]]]
    got = minijax.nn.initializers.orthogonal(2.0)(r.key(3), (2, 3, 4))
    assert got.shape == (2, 3, 4) and got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, atol=2e-6)
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D shape"):
        minijax.nn.initializers.orthogonal()(r.key(0), (3,))
