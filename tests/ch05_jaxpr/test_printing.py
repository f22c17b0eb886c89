"""Chapter 05 — printed jaxprs match JAX 0.10.2 character for character.

Each case traces a program with ``make_jaxpr`` and compares ``str(jaxpr)`` with
the text JAX 0.10.2 printed for the same program (the programs avoid the jnp
functions that JAX wraps in an inner ``jit``, which minijax has from chapter
06 on): one line when it fits in 80 columns, else one equation per line;
typed literals; params sorted, with JAX's per-primitive hiding rules; constants
as leading binders; names a..z, ba, bb...; ``_`` for unread outputs.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax, nn
from minijax.interpreters.partial_eval import make_jaxpr

C3 = jnp.array([1.0, 2.0, 3.0])
M = jnp.ones((3, 3))


def LONG(x):
    for _ in range(15):
        x = jnp.sin(x) * 2.0 + x
    return x


# expected values from JAX 0.10.2
CASES = [
    # --- elementwise chains
    ('readme_log2', lambda: make_jaxpr(lambda x: jnp.log(x) / jnp.log(2.0))(3.0),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = log a\n"
     "    c:f32[] = log 2.0:f32[]\n"
     "    d:f32[] = div b c\n"
     "  in (d,) }"),
    ('sin_cos', lambda: make_jaxpr(lambda x: jnp.sin(jnp.cos(x)))(3.0),
     "{ lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }"),
    ('exp_plus_tanh', lambda: make_jaxpr(lambda x: jnp.exp(x) + jnp.tanh(x))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = exp a\n"
     "    c:f32[3] = tanh a\n"
     "    d:f32[3] = add b c\n"
     "  in (d,) }"),
    ('sqrt_minus_abs', lambda: make_jaxpr(lambda x: jnp.sqrt(x) - jnp.abs(x))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = sqrt a\n"
     "    c:f32[3] = abs a\n"
     "    d:f32[3] = sub b c\n"
     "  in (d,) }"),
    ('neg', lambda: make_jaxpr(lambda x: -x)(1.0),
     "{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }"),
    ('compare', lambda: make_jaxpr(lambda x: x > 0)(1.0),
     "{ lambda ; a:f32[]. let b:bool[] = gt a 0.0:f32[] in (b,) }"),
    ('square_pow', lambda: make_jaxpr(lambda x: x ** 2)(1.0),
     "{ lambda ; a:f32[]. let b:f32[] = integer_pow[y=2] a in (b,) }"),
    ('float_pow', lambda: make_jaxpr(lambda x: x ** 2.5)(1.0),
     "{ lambda ; a:f32[]. let b:f32[] = pow a 2.5:f32[] in (b,) }"),
    ('sigmoid', lambda: make_jaxpr(lambda x: nn.sigmoid(x))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let b:f32[3] = logistic a in (b,) }"),
    ('lax_exp2_cos_tan', lambda: make_jaxpr(lambda x: lax.exp2(x) + lax.cos(x) * lax.tan(x))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = exp2 a\n"
     "    c:f32[3] = cos a\n"
     "    d:f32[3] = tan a\n"
     "    e:f32[3] = mul c d\n"
     "    f:f32[3] = add b e\n"
     "  in (f,) }"),
    # --- broadcasting and promotion
    ('broadcast_rank', lambda: make_jaxpr(lambda x, y: x + y)(jnp.ones((2, 3)), jnp.ones(3)),
     "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
     "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
     "    d:f32[2,3] = add a c\n"
     "  in (d,) }"),
    ('weak_scalar_arg', lambda: make_jaxpr(lambda x, y: x + y)(jnp.ones((2, 3)), 1.0),
     "{ lambda ; a:f32[2,3] b:f32[]. let\n"
     "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
     "    d:f32[2,3] = add a c\n"
     "  in (d,) }"),
    ('int_plus_float', lambda: make_jaxpr(lambda x, y: x + y)(jnp.ones((2, 3), jnp.int32), jnp.ones(3)),
     "{ lambda ; a:i32[2,3] b:f32[3]. let\n"
     "    c:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
     "    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
     "    e:f32[2,3] = add c d\n"
     "  in (e,) }"),
    ('f16_times_i32', lambda: make_jaxpr(lambda x, y: x * y)(jnp.ones(3, jnp.float16), jnp.ones(3, jnp.int32)),
     "{ lambda ; a:f16[3] b:i32[3]. let\n"
     "    c:f16[3] = convert_element_type[new_dtype=float16 weak_type=False] b\n"
     "    d:f16[3] = mul a c\n"
     "  in (d,) }"),
    ('int_times_weak_float', lambda: make_jaxpr(lambda x: x * 2.5)(jnp.arange(3)),
     "{ lambda ; a:i32[3]. let\n"
     "    b:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] a\n"
     "    c:f32[3] = mul b 2.5:f32[]\n"
     "  in (c,) }"),
    ('int_true_divide', lambda: make_jaxpr(lambda x: x / 2)(jnp.arange(3)),
     "{ lambda ; a:i32[3]. let\n"
     "    b:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
     "    c:f32[3] = div b 2.0:f32[]\n"
     "  in (c,) }"),
    ('astype', lambda: make_jaxpr(lambda x: x.astype(jnp.int32))(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
     "  in (b,) }"),
    ('ones_inside', lambda: make_jaxpr(lambda x: jnp.ones(3) + x)(1.0),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[3] = broadcast_in_dim 1.0:f32[]\n"
     "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
     "    d:f32[3] = add b c\n"
     "  in (d,) }"),
    ('arange_inside', lambda: make_jaxpr(lambda x: jnp.arange(3) + x)(1),
     "{ lambda ; a:i32[]. let\n"
     "    b:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n"
     "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
     "    d:i32[3] = add b c\n"
     "  in (d,) }"),
    # --- reductions
    ('sum_axis0', lambda: make_jaxpr(lambda x: jnp.sum(x, axis=0))(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n"
     "  in (b,) }"),
    ('max_axis1', lambda: make_jaxpr(lambda x: jnp.max(x, axis=1))(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let b:f32[2] = reduce_max[axes=(1,)] a in (b,) }"),
    ('mean', lambda: make_jaxpr(lambda x: jnp.mean(x, axis=1))(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n"
     "    c:f32[2] = div b 3.0:f32[]\n"
     "  in (c,) }"),
    ('sum_keepdims', lambda: make_jaxpr(lambda x: x.sum(axis=0, keepdims=True))(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n"
     "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
     "  in (c,) }"),
    ('argmax', lambda: make_jaxpr(lambda x: jnp.argmax(x))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:i32[] = argmax[axes=(0,) index_dtype=int32] a\n"
     "  in (b,) }"),
    ('any', lambda: make_jaxpr(lambda x: jnp.any(x > 0))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:bool[3] = gt a 0.0:f32[]\n"
     "    c:bool[] = reduce_or[axes=(0,)] b\n"
     "  in (c,) }"),
    # --- dot / matmul (long param lines break one per line)
    ('matmul', lambda: make_jaxpr(lambda x, y: x @ y)(jnp.ones((2, 3)), jnp.ones((3, 4))),
     "{ lambda ; a:f32[2,3] b:f32[3,4]. let\n"
     "    c:f32[2,4] = dot_general[\n"
     "      dimension_numbers=(([1], [0]), ([], []))\n"
     "      preferred_element_type=float32\n"
     "    ] a b\n"
     "  in (c,) }"),
    ('dot_vectors', lambda: make_jaxpr(lambda x, y: jnp.dot(x, y))(jnp.ones(3), jnp.ones(3)),
     "{ lambda ; a:f32[3] b:f32[3]. let\n"
     "    c:f32[] = dot_general[\n"
     "      dimension_numbers=(([0], [0]), ([], []))\n"
     "      preferred_element_type=float32\n"
     "    ] a b\n"
     "  in (c,) }"),
    ('batched_matmul', lambda: make_jaxpr(lambda x, y: jnp.matmul(x, y))(jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))),
     "{ lambda ; a:f32[5,2,3] b:f32[5,3,4]. let\n"
     "    c:f32[5,2,4] = dot_general[\n"
     "      dimension_numbers=(([2], [1]), ([0], [0]))\n"
     "      preferred_element_type=float32\n"
     "    ] a b\n"
     "  in (c,) }"),
    ('dot_general_one_line', lambda: make_jaxpr(lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))))(jnp.ones((2, 3)), jnp.ones((3, 4))),
     "{ lambda ; a:f32[2,3] b:f32[3,4]. let\n"
     "    c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n"
     "  in (c,) }"),
    ('dot_precision', lambda: make_jaxpr(lambda x: lax.dot(x, x, precision=lax.Precision.HIGHEST))(jnp.ones(5)),
     "{ lambda ; a:f32[5]. let\n"
     "    b:f32[] = dot_general[\n"
     "      dimension_numbers=(([0], [0]), ([], []))\n"
     "      precision=(Precision.HIGHEST, Precision.HIGHEST)\n"
     "    ] a a\n"
     "  in (b,) }"),
    ('einsum', lambda: make_jaxpr(lambda x, y: jnp.einsum('ij,j->i', x, y))(jnp.ones((2, 3)), jnp.ones(3)),
     "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
     "    c:f32[2] = dot_general[\n"
     "      dimension_numbers=(([1], [0]), ([], []))\n"
     "      preferred_element_type=float32\n"
     "    ] a b\n"
     "  in (c,) }"),
    # --- indexing: slice, gather, scatter
    ('slice', lambda: make_jaxpr(lambda x: x[1:])(jnp.ones(5)),
     "{ lambda ; a:f32[5]. let\n"
     "    b:f32[4] = slice[limit_indices=(5,) start_indices=(1,) strides=None] a\n"
     "  in (b,) }"),
    ('int_index', lambda: make_jaxpr(lambda x: x[1])(jnp.ones((5, 3))),
     "{ lambda ; a:f32[5,3]. let\n"
     "    b:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=None] a\n"
     "    c:f32[3] = squeeze[dimensions=(0,)] b\n"
     "  in (c,) }"),
    ('column', lambda: make_jaxpr(lambda x: x[:, 1])(jnp.ones((5, 3))),
     "{ lambda ; a:f32[5,3]. let\n"
     "    b:f32[5,1] = slice[limit_indices=(5, 2) start_indices=(0, 1) strides=None] a\n"
     "    c:f32[5] = squeeze[dimensions=(1,)] b\n"
     "  in (c,) }"),
    ('strided', lambda: make_jaxpr(lambda x: x[::2])(jnp.ones(6)),
     "{ lambda ; a:f32[6]. let\n"
     "    b:f32[3] = slice[limit_indices=(6,) start_indices=(0,) strides=(2,)] a\n"
     "  in (b,) }"),
    ('traced_index', lambda: make_jaxpr(lambda x, i: x[i])(jnp.ones(5), 1),
     "{ lambda ; a:f32[5] b:i32[]. let\n"
     "    c:bool[] = lt b 0:i32[]\n"
     "    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
     "    e:i32[] = add d 5:i32[]\n"
     "    f:i32[] = select_n c b e\n"
     "    g:f32[1] = dynamic_slice[slice_sizes=(1,)] a f\n"
     "    h:f32[] = squeeze[dimensions=(0,)] g\n"
     "  in (h,) }"),
    ('gather', lambda: make_jaxpr(lambda x: x[jnp.array([0, 2])])(jnp.ones(5)),
     "{ lambda a:i32[2]; b:f32[5]. let\n"
     "    c:bool[2] = lt a 0:i32[]\n"
     "    d:i32[2] = add a 5:i32[]\n"
     "    e:i32[2] = select_n c a d\n"
     "    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n"
     "    g:f32[2] = gather[\n"
     "      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n"
     "      fill_value=None\n"
     "      indices_are_sorted=False\n"
     "      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n"
     "      slice_sizes=(1,)\n"
     "      unique_indices=False\n"
     "    ] b f\n"
     "  in (g,) }"),
    ('scatter_set', lambda: make_jaxpr(lambda x: x.at[1].set(2.0))(jnp.ones(5)),
     "{ lambda ; a:f32[5]. let\n"
     "    b:i32[1] = broadcast_in_dim 1:i32[]\n"
     "    c:f32[5] = scatter[\n"
     "      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n"
     "      indices_are_sorted=True\n"
     "      mode=GatherScatterMode.FILL_OR_DROP\n"
     "      unique_indices=True\n"
     "      update_consts=()\n"
     "      update_jaxpr=None\n"
     "    ] a b 2.0:f32[]\n"
     "  in (c,) }"),
    ('scatter_add', lambda: make_jaxpr(lambda x: x.at[1].add(2.0))(jnp.ones(5)),
     "{ lambda ; a:f32[5]. let\n"
     "    b:i32[1] = broadcast_in_dim 1:i32[]\n"
     "    c:f32[5] = scatter-add[\n"
     "      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n"
     "      indices_are_sorted=True\n"
     "      mode=GatherScatterMode.FILL_OR_DROP\n"
     "      unique_indices=True\n"
     "      update_consts=()\n"
     "      update_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add d e in (f,) }\n"
     "    ] a b 2.0:f32[]\n"
     "  in (c,) }"),
    ('scatter_max_bool', lambda: make_jaxpr(lambda x: x.at[1].max(True))(jnp.ones(5, bool)),
     "{ lambda ; a:bool[5]. let\n"
     "    b:i32[1] = broadcast_in_dim 1:i32[]\n"
     "    c:bool[5] = scatter-max[\n"
     "      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n"
     "      indices_are_sorted=True\n"
     "      mode=GatherScatterMode.FILL_OR_DROP\n"
     "      unique_indices=True\n"
     "      update_consts=()\n"
     "      update_jaxpr={ lambda ; d:bool[] e:bool[]. let\n"
     "          f:bool[] = max d e\n"
     "        in (f,) }\n"
     "    ] a b True:bool[]\n"
     "  in (c,) }"),
    ('newaxis_ellipsis', lambda: make_jaxpr(lambda x: x[None, ..., 0])(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] a\n"
     "    c:f32[2] = squeeze[dimensions=(1,)] b\n"
     "    d:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n"
     "  in (d,) }"),
    # --- shapes
    ('reshape_transpose', lambda: make_jaxpr(lambda x: x.reshape(2, 3).T.reshape(6))(jnp.ones(6)),
     "{ lambda ; a:f32[6]. let\n"
     "    b:f32[2,3] = reshape[dimensions=None new_sizes=(2, 3) sharding=None] a\n"
     "    c:f32[3,2] = transpose[permutation=(1, 0)] b\n"
     "    d:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] c\n"
     "  in (d,) }"),
    ('concatenate', lambda: make_jaxpr(lambda x: jnp.concatenate([x, x]))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let b:f32[6] = concatenate[dimension=0] a a in (b,) }"),
    ('expand_broadcast', lambda: make_jaxpr(lambda x: jnp.broadcast_to(x[None], (2, 3)))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
     "    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0, 1)] b\n"
     "  in (c,) }"),
    ('iota', lambda: make_jaxpr(lambda x: lax.iota(jnp.int32, 4) + x)(1),
     "{ lambda ; a:i32[]. let\n"
     "    b:i32[4] = iota[dimension=0 dtype=int32 shape=(4,) sharding=None] \n"
     "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
     "    d:i32[4] = add b c\n"
     "  in (d,) }"),
    ('pad', lambda: make_jaxpr(lambda x: lax.pad(x, 0.0, [(1, 2, 1), (0, 0, 0)]))(jnp.ones((3, 2))),
     "{ lambda ; a:f32[3,2]. let\n"
     "    b:f32[8,2] = pad[padding_config=((1, 2, 1), (0, 0, 0))] a 0.0:f32[]\n"
     "  in (b,) }"),
    # --- literals of each dtype
    ('literal_f32_rounded', lambda: make_jaxpr(lambda x: jnp.sin(x) * 0.1)(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = sin a\n"
     "    c:f32[3] = mul b 0.10000000149011612:f32[]\n"
     "  in (c,) }"),
    ('literal_f16', lambda: make_jaxpr(lambda x: x.astype(jnp.float16) * 2)(jnp.ones((2, 3))),
     "{ lambda ; a:f32[2,3]. let\n"
     "    b:f16[2,3] = convert_element_type[new_dtype=float16 weak_type=False] a\n"
     "    c:f16[2,3] = mul b 2.0:f16[]\n"
     "  in (c,) }"),
    ('literal_i32', lambda: make_jaxpr(lambda x: -7 * x + 3)(jnp.ones(3, jnp.int32)),
     "{ lambda ; a:i32[3]. let\n"
     "    b:i32[3] = mul -7:i32[] a\n"
     "    c:i32[3] = add b 3:i32[]\n"
     "  in (c,) }"),
    ('literal_u8', lambda: make_jaxpr(lambda x: x * 3)(jnp.ones(3, jnp.uint8)),
     "{ lambda ; a:u8[3]. let b:u8[3] = mul a 3:u8[] in (b,) }"),
    ('literal_bool', lambda: make_jaxpr(lambda x: (x & True) | False)(jnp.ones(3, bool)),
     "{ lambda ; a:bool[3]. let\n"
     "    b:bool[3] = and a True:bool[]\n"
     "    c:bool[3] = or b False:bool[]\n"
     "  in (c,) }"),
    ('literal_complex', lambda: make_jaxpr(lambda x: x + 1j)(jnp.ones(2)),
     "{ lambda ; a:f32[2]. let\n"
     "    b:c64[2] = convert_element_type[new_dtype=complex64 weak_type=False] a\n"
     "    c:c64[2] = add b 1j:c64[]\n"
     "  in (c,) }"),
    ('literal_special_floats', lambda: make_jaxpr(lambda x: (x * float('inf'), x * float('nan'), x * -0.0, x * 1e-8))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = mul a inf:f32[]\n"
     "    c:f32[3] = mul a nan:f32[]\n"
     "    d:f32[3] = mul a -0.0:f32[]\n"
     "    e:f32[3] = mul a 9.99999993922529e-09:f32[]\n"
     "  in (b, c, d, e) }"),
    ('literal_numpy_scalar', lambda: make_jaxpr(lambda x: x * np.float32(2))(1.0),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
     "    c:f32[] = mul b 2.0:f32[]\n"
     "  in (c,) }"),
    # --- constants as leading binders
    ('const_binder', lambda: make_jaxpr(lambda x: x * C3)(1.0),
     "{ lambda a:f32[3]; b:f32[]. let\n"
     "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
     "    d:f32[3] = mul c a\n"
     "  in (d,) }"),
    ('consts_outputs', lambda: make_jaxpr(lambda x: (C3 + x, C3 * 2.0, C3))(1.0),
     "{ lambda a:f32[3]; b:f32[]. let\n"
     "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
     "    d:f32[3] = add a c\n"
     "    e:f32[3] = mul a 2.0:f32[]\n"
     "  in (d, e, a) }"),
    ('unused_const', lambda: make_jaxpr(lambda x: (C3 + 1.0, x)[1])(1.0),
     "{ lambda a:f32[3]; b:f32[]. let _:f32[3] = add a 1.0:f32[] in (b,) }"),
    ('two_consts', lambda: make_jaxpr(lambda x: x @ M + C3)(jnp.ones((2, 3))),
     "{ lambda a:f32[3,3] b:f32[3]; c:f32[2,3]. let\n"
     "    d:f32[2,3] = dot_general[\n"
     "      dimension_numbers=(([1], [0]), ([], []))\n"
     "      preferred_element_type=float32\n"
     "    ] c a\n"
     "    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
     "    f:f32[2,3] = add d e\n"
     "  in (f,) }"),
    ('const_only', lambda: make_jaxpr(lambda: C3)(),
     "{ lambda a:f32[3]; . let  in (a,) }"),
    # --- outputs
    ('multiple_outputs', lambda: make_jaxpr(lambda x: (x + 1.0, x * 2.0, jnp.sin(x)))(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    b:f32[3] = add a 1.0:f32[]\n"
     "    c:f32[3] = mul a 2.0:f32[]\n"
     "    d:f32[3] = sin a\n"
     "  in (b, c, d) }"),
    ('dict_output_sorted', lambda: make_jaxpr(lambda x: {'b': x, 'a': -x})(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let b:f32[3] = neg a in (b, a) }"),
    ('output_is_input_and_literals', lambda: make_jaxpr(lambda x: (x, 1.0, 2))(1.0),
     "{ lambda ; a:f32[]. let  in (a, 1.0:f32[], 2:i32[]) }"),
    ('identity', lambda: make_jaxpr(lambda x: x)(1.0),
     "{ lambda ; a:f32[]. let  in (a,) }"),
    ('no_outputs', lambda: make_jaxpr(lambda x: None)(1.0),
     "{ lambda ; a:f32[]. let  in () }"),
    ('dropvar_eqn', lambda: make_jaxpr(lambda x: (jnp.sin(x), x)[1])(1.0),
     "{ lambda ; a:f32[]. let _:f32[] = sin a in (a,) }"),
    ('dropvar_multi', lambda: make_jaxpr(lambda x, y: lax.sort((x, y), num_keys=1)[0])(jnp.ones(3), jnp.ones(3)),
     "{ lambda ; a:f32[3] b:f32[3]. let\n"
     "    c:f32[3] _:f32[3] = sort[dimension=0 is_stable=True num_keys=1] a b\n"
     "  in (c,) }"),
    ('split_multi', lambda: make_jaxpr(lambda x: lax.split(x, (1, 2))[1])(jnp.ones(3)),
     "{ lambda ; a:f32[3]. let\n"
     "    _:f32[1] b:f32[2] = split[axis=0 sizes=(1, 2)] a\n"
     "  in (b,) }"),
    # --- pytree inputs, kwargs, static arguments
    ('dict_input', lambda: make_jaxpr(lambda d: d['w'] @ d['x'] + d['b'])({'w': jnp.ones((2, 3)), 'x': jnp.ones(3), 'b': jnp.ones(2)}),
     "{ lambda ; a:f32[2] b:f32[2,3] c:f32[3]. let\n"
     "    d:f32[2] = dot_general[\n"
     "      dimension_numbers=(([1], [0]), ([], []))\n"
     "      preferred_element_type=float32\n"
     "    ] b c\n"
     "    e:f32[2] = add d a\n"
     "  in (e,) }"),
    ('nested_tuple_input', lambda: make_jaxpr(lambda t: t[0] * t[1][0] + t[1][1])((1.0, (2.0, 3.0))),
     "{ lambda ; a:f32[] b:f32[] c:f32[]. let\n"
     "    d:f32[] = mul a b\n"
     "    e:f32[] = add d c\n"
     "  in (e,) }"),
    ('kwargs_sorted', lambda: make_jaxpr(lambda x, **kw: x * kw['b'] + kw['a'])(1.0, b=2.0, a=jnp.ones(2)),
     "{ lambda ; a:f32[] b:f32[2] c:f32[]. let\n"
     "    d:f32[] = mul a c\n"
     "    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
     "    f:f32[2] = add e b\n"
     "  in (f,) }"),
    ('static_argnums', lambda: make_jaxpr(lambda n, x: x * n, static_argnums=(0,))(4, jnp.ones(2)),
     "{ lambda ; a:f32[2]. let b:f32[2] = mul a 4.0:f32[] in (b,) }"),
    ('varargs', lambda: make_jaxpr(lambda *xs: sum(xs))(1.0, 2.0, 3.0, 4.0),
     "{ lambda ; a:f32[] b:f32[] c:f32[] d:f32[]. let\n"
     "    e:f32[] = add 0.0:f32[] a\n"
     "    f:f32[] = add e b\n"
     "    g:f32[] = add f c\n"
     "    h:f32[] = add g d\n"
     "  in (h,) }"),
    # --- long jaxprs
    ('long_names_ba_bb', lambda: make_jaxpr(LONG)(1.0),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = sin a\n"
     "    c:f32[] = mul b 2.0:f32[]\n"
     "    d:f32[] = add c a\n"
     "    e:f32[] = sin d\n"
     "    f:f32[] = mul e 2.0:f32[]\n"
     "    g:f32[] = add f d\n"
     "    h:f32[] = sin g\n"
     "    i:f32[] = mul h 2.0:f32[]\n"
     "    j:f32[] = add i g\n"
     "    k:f32[] = sin j\n"
     "    l:f32[] = mul k 2.0:f32[]\n"
     "    m:f32[] = add l j\n"
     "    n:f32[] = sin m\n"
     "    o:f32[] = mul n 2.0:f32[]\n"
     "    p:f32[] = add o m\n"
     "    q:f32[] = sin p\n"
     "    r:f32[] = mul q 2.0:f32[]\n"
     "    s:f32[] = add r p\n"
     "    t:f32[] = sin s\n"
     "    u:f32[] = mul t 2.0:f32[]\n"
     "    v:f32[] = add u s\n"
     "    w:f32[] = sin v\n"
     "    x:f32[] = mul w 2.0:f32[]\n"
     "    y:f32[] = add x v\n"
     "    z:f32[] = sin y\n"
     "    ba:f32[] = mul z 2.0:f32[]\n"
     "    bb:f32[] = add ba y\n"
     "    bc:f32[] = sin bb\n"
     "    bd:f32[] = mul bc 2.0:f32[]\n"
     "    be:f32[] = add bd bb\n"
     "    bf:f32[] = sin be\n"
     "    bg:f32[] = mul bf 2.0:f32[]\n"
     "    bh:f32[] = add bg be\n"
     "    bi:f32[] = sin bh\n"
     "    bj:f32[] = mul bi 2.0:f32[]\n"
     "    bk:f32[] = add bj bh\n"
     "    bl:f32[] = sin bk\n"
     "    bm:f32[] = mul bl 2.0:f32[]\n"
     "    bn:f32[] = add bm bk\n"
     "    bo:f32[] = sin bn\n"
     "    bp:f32[] = mul bo 2.0:f32[]\n"
     "    bq:f32[] = add bp bn\n"
     "    br:f32[] = sin bq\n"
     "    bs:f32[] = mul br 2.0:f32[]\n"
     "    bt:f32[] = add bs bq\n"
     "  in (bt,) }"),
    ('many_invars_break', lambda: make_jaxpr(lambda *xs: xs[0])(*[jnp.ones(3)] * 12),
     "{ lambda ; a:f32[3] b:f32[3] c:f32[3] d:f32[3] e:f32[3] f:f32[3] g:f32[3] h:f32[3]\n"
     "    i:f32[3] j:f32[3] k:f32[3] l:f32[3]. let\n"
     "    \n"
     "  in (a,) }"),
]


@pytest.mark.parametrize("program, expected", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_printed_jaxpr_matches_jax(program, expected):
    assert str(program()) == expected


def test_pretty_print_without_shapes():
    jaxpr = make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
    # expected values from JAX 0.10.2 (jaxpr.pretty_print(print_shapes=False))
    assert jaxpr.pretty_print(print_shapes=False) == (
        "{ lambda ; a. let b = sin a; c = mul b 2.0:f32[] in (c,) }")


def test_repr_is_str_and_closed_jaxpr_prints_its_jaxpr():
    closed = make_jaxpr(lambda x: x + 1.0)(1.0)
    assert repr(closed) == str(closed) == str(closed.jaxpr)


def test_eqn_repr_names_from_scratch():
    eqn = make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0).eqns[0]
    # expected values from JAX 0.10.2: an equation alone names its vars afresh
    assert repr(eqn) == "a:f32[] = sin b"
