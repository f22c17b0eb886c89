"""``minijax.nn.initializers`` (chapter 13): the same weights as JAX for the same key."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import random
from minijax.nn import initializers as I

# expected values from JAX 0.10.2 (key = jax.random.key(42))
EXPECTED = {
    'zeros': ('float32', (2, 3),
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'ones': ('float32', (2,),
        [1.0, 1.0]),
    'constant': ('float32', (2, 2),
        [1.5, 1.5, 1.5, 1.5]),
    'uniform': ('float32', (2, 3),
        [0.004887095652520657, 0.006797971669584513, 0.006162714678794146, 0.005610160529613495, 0.0045064459554851055, 0.005858658347278833]),
    'normal': ('float32', (2, 3),
        [-0.014152307994663715, 0.23356592655181885, 0.14785148203372955, 0.07677295804023743, -0.062016408890485764, 0.10846157371997833]),
    'truncated_normal': ('float32', (2, 3),
        [-0.20434169471263885, 0.05230233445763588, -0.03256894648075104, -0.1065608561038971, -0.25655293464660645, -0.0732368528842926]),
    'glorot_uniform': ('float32', (3, 4),
        [-0.020905816927552223, 0.3329196870326996, 0.21529297530651093, 0.11297983676195145, -0.09138841927051544, 0.1589926779270172, -0.7872999310493469, 0.5094479918479919, 0.368400901556015, 0.5899949073791504, -0.27718091011047363, 0.6903285384178162]),
    'glorot_normal': ('float32', (3, 4),
        [-0.0164171252399683, 0.27003705501556396, 0.17128834128379822, 0.08902860432863235, -0.07192526012659073, 0.12573154270648956, -0.7994455695152283, 0.4343254864215851, 0.30115261673927307, 0.5204616785049438, -0.22251516580581665, 0.6452774405479431]),
    'lecun_uniform': ('float32', (4, 3),
        [-0.019555600360035896, 0.311417818069458, 0.2013881355524063, 0.10568295419216156, -0.08548603951931, 0.1487240195274353, -0.7364516258239746, 0.47654497623443604, 0.34460750222206116, 0.5518897175788879, -0.2592789828777313, 0.645743191242218]),
    'lecun_normal': ('float32', (4, 3),
        [-0.015356816351413727, 0.25259655714035034, 0.16022558510303497, 0.08327864110469818, -0.06727992743253708, 0.1176111027598381, -0.7478129267692566, 0.40627431869506836, 0.2817024886608124, 0.4868473708629608, -0.20814388990402222, 0.6036018133163452]),
    'he_uniform': ('float32', (2, 2, 3, 2),
        [-0.015967080369591713, 0.25427159667015076, 0.16443271934986115, 0.08628977090120316, -0.06979905813932419, 0.12143265455961227, -0.6013102531433105, 0.38909733295440674, 0.2813708484172821, 0.4506160616874695, -0.2117004096508026, 0.5272471308708191, 0.602287232875824, 0.5093016624450684, -0.03174332156777382, 0.45040127635002136, 0.29890039563179016, 0.12260838598012924, -0.6028263568878174, 0.3926171064376831, -0.13496465981006622, -0.538641095161438, -0.669975757598877, 0.1968284696340561]),
    'he_normal': ('float32', (2, 2, 3, 2),
        [-0.0125387879088521, 0.20624423027038574, 0.13082364201545715, 0.06799672544002533, -0.054933831095695496, 0.09602905809879303, -0.6105867028236389, 0.33172157406806946, 0.23000912368297577, 0.39750921726226807, -0.1699487715959549, 0.4928387999534607, 0.6124140620231628, 0.46874210238456726, -0.024936670437455177, 0.3972659111022949, 0.24570541083812714, 0.09697239845991135, -0.6134265661239624, 0.33529943227767944, -0.1069115400314331, -0.5088539123535156, -0.7734295725822449, 0.1575213372707367]),
    'vs_normal': ('float32', (3, 2),
        [-0.02830461598932743, 0.4671318531036377, 0.2957029640674591, 0.15354591608047485, -0.12403281778097153, 0.21692314743995667]),
    'vs_geo': ('float32', (2, 3, 4),
        [-0.021013859659433365, 0.3346402645111084, 0.21640564501285553, 0.11356373131275177, -0.09186072647571564, 0.15981437265872955, -0.791368842124939, 0.5120809078216553, 0.3703048527240753, 0.593044102191925, -0.278613418340683, 0.6938962340354919, 0.7926545739173889, 0.6702787280082703, -0.04177656024694443, 0.5927614569664001, 0.393375039100647, 0.1613617092370987, -0.7933641672134399, 0.5167132019996643, -0.17762348055839539, -0.7088915705680847, -0.8817377090454102, 0.25904086232185364]),
    'vs_f16': ('float16', (3, 2),
        [-0.84765625, -0.619140625, 0.951171875, 0.513671875, -0.1015625, -0.384765625]),
    'int_const': ('int32', (3,),
        [2, 2, 2]),
}

CASES = {
    "zeros": lambda: I.zeros, "ones": lambda: I.ones, "constant": lambda: I.constant(1.5),
    "uniform": lambda: I.uniform(), "normal": lambda: I.normal(0.5),
    "truncated_normal": lambda: I.truncated_normal(1.0, lower=-1., upper=0.5),
    "glorot_uniform": lambda: I.glorot_uniform(), "glorot_normal": lambda: I.glorot_normal(),
    "lecun_uniform": lambda: I.lecun_uniform(), "lecun_normal": lambda: I.lecun_normal(),
    "he_uniform": lambda: I.he_uniform(), "he_normal": lambda: I.he_normal(),
    "vs_normal": lambda: I.variance_scaling(2.0, "fan_out", "normal", in_axis=0, out_axis=1),
    "vs_geo": lambda: I.variance_scaling(1.0, "fan_geo_avg", "uniform", batch_axis=0),
    "vs_f16": lambda: I.variance_scaling(1.0, "fan_in", "uniform", dtype=jnp.float16),
    "int_const": lambda: I.constant(2, dtype=jnp.int32),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_values_as_jax(name, jit_backend):
    dtype, shape, values = EXPECTED[name]
    out = CASES[name]()(random.key(42), shape)
    assert out.dtype == np.dtype(dtype) and out.shape == shape
    if name in ("truncated_normal", "glorot_normal", "lecun_normal", "he_normal"):
        # truncated normals go through erf_inv: equal to JAX's up to float32 rounding
        np.testing.assert_allclose(np.asarray(out).ravel(), values, rtol=2e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(np.asarray(out).ravel(), np.array(values, dtype))


def test_aliases_and_legacy_keys(jit_backend):
    assert I.xavier_uniform is I.glorot_uniform and I.xavier_normal is I.glorot_normal
    assert I.kaiming_uniform is I.he_uniform and I.kaiming_normal is I.he_normal
    assert I.he_normal.__name__ == "he_normal"
    # expected values from JAX 0.10.2
    out = I.normal()(random.PRNGKey(0), (2,))
    np.testing.assert_array_equal(out, np.array([0.016226422041654587, 0.020252646878361702],
                                                np.float32))


def test_variance_scaling_statistics(jit_backend):
    w = I.he_uniform()(random.key(1), (400, 300))
    assert abs(float(jnp.std(w)) - np.sqrt(2 / 400)) < 2e-3
    w = I.glorot_normal()(random.key(2), (400, 300))
    assert abs(float(jnp.std(w)) - np.sqrt(2 / 700)) < 2e-3


def test_errors():
    key = random.key(0)
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a "
                                         "1-dimensional weights tensor with default in_axis"):
        I.glorot_uniform()(key, (3,))
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: foo"):
        I.variance_scaling(1., "foo", "normal")(key, (2, 2))
    with pytest.raises(ValueError, match="invalid distribution for variance scaling "
                                         "initializer: bar"):
        I.variance_scaling(1., "fan_in", "bar")(key, (2, 2))
