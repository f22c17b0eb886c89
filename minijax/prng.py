"""Chapter 13 — PRNG keys: the threefry2x32 hash and the key primitives.

JAX's random numbers are *counter-based*. There is no hidden generator state
that each draw advances; a draw is a pure function of a **key** (a pair of
uint32 words) and a **counter** (which element is being drawn)::

    bits[i] = hash(key, i)

The hash is Threefry-2x32 (Salmon et al., 2011, "Parallel random numbers: as
easy as 1, 2, 3"): 20 rounds of add, rotate and xor on two 32-bit words, with
the key mixed back in every four rounds. Because every element is hashed
independently, a million numbers are one vectorized NumPy expression, and the
same key always gives the same numbers, on any machine, in any order.

New keys come from old ones by hashing too: ``split(key, n)`` hashes the
counters ``0 .. n-1`` under ``key`` and reads each result as a new key;
``fold_in(key, d)`` hashes the one counter ``d``.

This module has three layers:

1. the hash and the PRNG operations in NumPy on *raw key data*, uint32 arrays
   of shape ``(..., 2)`` (:func:`threefry2x32_numpy`, :func:`threefry_seed`,
   :func:`threefry_split`, :func:`threefry_fold_in`, :func:`threefry_random_bits`),
   bundled as a :class:`PRNGImpl`;
2. **typed keys**: the dtype ``key<fry>`` (:class:`KeyTy`), whose arrays
   (:class:`PRNGKeyArray`) hide the two words behind one element per key;
3. the primitives of JAX 0.10: ``random_seed``, ``random_split``,
   ``random_fold_in``, ``random_bits``, ``random_wrap``, ``random_unwrap``
   (whose impl rules call layer 1) and ``threefry2x32`` itself.

:mod:`minijax.random` builds the public samplers on these.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.abstract_arrays import ShapedArray, extended_dtypes_by_storage
from minijax.array import Array
from minijax.backends.cpu import rules as _cpu_rules
from minijax.backends.cuda import rules as _cuda_rules
from minijax.config import bool_state, string_state
from minijax.core import Tracer, get_aval
from minijax.interpreters import ad, batching
from minijax.lax.base import broadcast_shapes_or_error, canonicalize_axis
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

__all__ = [
    "PRNGImpl", "prngs", "register_prng", "threefry_prng_impl", "KeyTy", "PRNGKeyArray",
    "is_key_dtype", "random_seed", "random_split", "random_fold_in", "random_bits",
    "random_wrap", "random_unwrap", "threefry2x32_p", "threefry_2x32", "threefry2x32_numpy",
    "random_seed_p", "random_split_p", "random_fold_in_p", "random_bits_p",
    "random_wrap_p", "random_unwrap_p", "random_clone", "random_clone_p", "UINT_DTYPES",
]

UINT_DTYPES = {8: np.dtype("uint8"), 16: np.dtype("uint16"),
               32: np.dtype("uint32"), 64: np.dtype("uint64")}


# =============================================================================
# 1. The Threefry-2x32 hash, in NumPy
# =============================================================================
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = np.uint32(0x1BD11BDA)  # Threefish's constant: makes the third key word


def _rotate_left(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def threefry2x32_numpy(k1, k2, x1, x2) -> tuple[np.ndarray, np.ndarray]:
    """Hash the counter words ``(x1, x2)`` under the key words ``(k1, k2)``.

    All four broadcast together (NumPy rules); the result is two uint32
    arrays of the broadcast shape. Five groups of four rounds; after each
    group one of the three key words (``k1``, ``k2``, ``k1 ^ k2 ^ parity``)
    is added back in, with the group number, exactly as JAX's reference
    ``_threefry2x32_lowering``.
    """
    k1, k2, x1, x2 = np.broadcast_arrays(*(np.asarray(a, np.uint32) for a in (k1, k2, x1, x2)))
    shape = x1.shape
    # 1-d arrays: NumPy wraps uint32 array arithmetic silently (scalars would warn).
    k1, k2, x1, x2 = (a.reshape(-1) for a in (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ _KEY_PARITY)
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x1 += x2
            x2 = _rotate_left(x2, r)
            x2 ^= x1
        x1 += ks[(group + 1) % 3]
        x2 += ks[(group + 2) % 3]
        x2 += np.uint32(group + 1)
    return x1.reshape(shape), x2.reshape(shape)


# =============================================================================
# 1b. The threefry PRNG on raw key data: uint32 arrays of shape (..., 2)
# =============================================================================
def _iota_2x32(shape) -> tuple[np.ndarray, np.ndarray]:
    """The counters ``0 .. prod(shape)-1`` laid out in ``shape``, as (high, low) uint32 words."""
    counts = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return (counts >> np.uint64(32)).astype(np.uint32), counts.astype(np.uint32)


def _key_words(keys: np.ndarray, ndim_after: int):
    """The two words of each key, with ``ndim_after`` trailing axes to broadcast against."""
    pad = (1,) * ndim_after
    return (keys[..., 0].reshape(keys.shape[:-1] + pad),
            keys[..., 1].reshape(keys.shape[:-1] + pad))


def threefry_seed(seeds: np.ndarray) -> np.ndarray:
    """Key data from integer seeds: the seed's 64 bits as (high word, low word).

    With 64-bit types disabled a seed has at most 32 bits, so the high word
    is 0 (a negative seed wraps: -1 gives ``[0, 4294967295]``).
    """
    seeds = np.asarray(seeds)
    high = np.zeros(seeds.shape, np.uint32)
    return np.stack([high, seeds.astype(np.uint32)], axis=-1)


def threefry_split(keys: np.ndarray, shape) -> np.ndarray:
    """New keys, ``shape`` of them per key: the hashes of the counters 0, 1, 2...

    Both output words become the new key (JAX's "partitionable" split, the
    default since JAX 0.5): key ``i`` is ``threefry(key, (hi(i), lo(i)))``.
    """
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = threefry2x32_numpy(*_key_words(keys, len(shape)), hi, lo)
    return np.stack([bits1, bits2], axis=-1)


def threefry_fold_in(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    """A new key from each key and a uint32 message: the hash of the counter ``(0, msg)``."""
    bits1, bits2 = threefry2x32_numpy(keys[..., 0], keys[..., 1], np.uint32(0), msgs)
    return np.stack([bits1, bits2], axis=-1)


def threefry_random_bits(keys: np.ndarray, bit_width: int, shape) -> np.ndarray:
    """``shape`` random unsigned integers of ``bit_width`` bits per key.

    Element ``i`` hashes the counter ``i``; the two output words are xor-ed
    into one 32-bit number (and truncated for 8 and 16 bits, or joined for 64).
    """
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = threefry2x32_numpy(*_key_words(keys, len(shape)), hi, lo)
    if bit_width == 64:
        return (bits1.astype(np.uint64) << np.uint64(32)) | bits2
    return (bits1 ^ bits2).astype(UINT_DTYPES[bit_width])


# =============================================================================
# The implementation registry
# =============================================================================
class PRNGImpl(NamedTuple):
    """A PRNG: the shape of its raw key data and its four operations on it.

    Each operation works on NumPy uint32 key data of shape ``(*batch,
    *key_shape)``. ``str(impl)`` is its short tag, as in the printed
    parameter ``impl=fry``.
    """
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        return self.tag


#: name -> PRNGImpl
prngs: dict[str, PRNGImpl] = {}


# =============================================================================
# 2. Typed keys: the key<fry> dtype and arrays of it
# =============================================================================
class KeyTy:
    """The dtype of typed key arrays: ``key<fry>``, one element per key.

    It is not a NumPy dtype (``ShapedArray`` keeps such "extended" dtypes as
    they are, and prints their ``name``), but it knows how its elements are
    *stored*: ``.dtype`` is a NumPy structured dtype holding the key data of
    one key, ``[('threefry2x32', '<u4', (2,))]``. NumPy accepts any object
    with a ``.dtype`` as that dtype, so ``np.dtype(key_dtype)`` is the storage
    dtype, and a key array's buffer is an ordinary NumPy array of the key
    array's own shape: slicing, reshaping, transposing, concatenating or
    selecting keys needs no special rule. The field is named after the
    implementation, so an impl rule, which sees only NumPy arrays, can tell
    which PRNG made a key.
    """
    extended = True  # what abstract_arrays checks to keep this dtype as it is

    def __init__(self, impl: PRNGImpl):
        self._impl = impl
        self.dtype = np.dtype([(impl.name, np.uint32, impl.key_shape)])

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        return math.prod(self._impl.key_shape) * 4

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        if type(other) is KeyTy:
            return self._impl == other._impl
        return NotImplemented  # NumPy then compares its storage dtype

    def __hash__(self) -> int:
        return hash((KeyTy, self._impl))


def register_prng(impl: PRNGImpl) -> None:
    """Make ``impl`` known by name, and its key dtype known to ``get_aval``."""
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl
    key_dtype = KeyTy(impl)
    extended_dtypes_by_storage[key_dtype.dtype] = key_dtype


threefry_prng_impl = PRNGImpl(key_shape=(2,), seed=threefry_seed, split=threefry_split,
                              random_bits=threefry_random_bits, fold_in=threefry_fold_in,
                              name="threefry2x32", tag="fry")
register_prng(threefry_prng_impl)


# --- the options of chapter 13 (JAX's names and defaults) ----------------------------------
def _only_partitionable(value) -> None:
    if not value:
        raise NotImplementedError(
            "minijax implements only the partitionable threefry (the default since JAX "
            "0.5): jax_threefry_partitionable cannot be disabled.")


default_prng_impl_name = string_state(
    "jax_default_prng_impl", "threefry2x32",
    "Select the default PRNG implementation, used when one is not explicitly provided at "
    "seeding time.")

threefry_partitionable = bool_state(
    "jax_threefry_partitionable", True,
    "Enables internal threefry PRNG implementation changes that render it automatically "
    "partitionable in some cases. Without this flag, using the standard jax.random pseudo-"
    "random number generation may result in extraneous communication and/or redundant "
    "distributed computation.", validator=_only_partitionable)


def is_key_dtype(dtype) -> bool:
    return isinstance(dtype, KeyTy)


def _impl_of_storage(keys: np.ndarray) -> PRNGImpl:
    """The PRNG that made the keys stored in a NumPy array (their field names it)."""
    return prngs[keys.dtype.names[0]]


def _storage_to_data(keys: np.ndarray) -> np.ndarray:
    """Stored keys ``(*shape,)`` -> raw key data ``(*shape, *key_shape)`` uint32."""
    return keys[keys.dtype.names[0]]


def _data_to_storage(data: np.ndarray, impl: PRNGImpl) -> np.ndarray:
    """Raw key data ``(*shape, *key_shape)`` -> stored keys ``(*shape,)``."""
    dtype = KeyTy(impl).dtype
    keys = np.empty(data.shape[:data.ndim - len(impl.key_shape)], dtype)
    keys[impl.name] = data
    return keys


def keys_shaped_array(impl: PRNGImpl, shape) -> ShapedArray:
    return ShapedArray(shape, KeyTy(impl))


class PRNGKeyArray(Array):
    """A concrete array of typed keys: ``Array((), dtype=key<fry>) overlaying: [0 0]``.

    An ``Array`` whose dtype is a :class:`KeyTy`; its buffer stores the keys
    (see ``KeyTy``). It prints its key data as JAX does, indexes, iterates and
    reshapes into key arrays, compares keys for equality, and refuses
    arithmetic and conversion to a NumPy array or a bool.
    """
    __slots__ = ()

    @property
    def _impl(self) -> PRNGImpl:
        return self.aval.dtype._impl

    @property
    def _base_array(self) -> np.ndarray:
        """The raw key data: uint32, shape ``(*self.shape, *key_shape)``."""
        return _storage_to_data(self._value)

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base_array}"

    __str__ = __repr__

    def __array__(self, dtype=None, context=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                        "Use jax.random.key_data(arr) if you wish to extract the underlying "
                        "integer array.")

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __eq__(self, other):
        """Two keys are equal when all their words are (key arrays only, as in JAX)."""
        if not is_key_dtype(getattr(other, "dtype", None)):
            return NotImplemented
        return jnp.all(random_unwrap(self) == random_unwrap(other), axis=-1)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq

    __hash__ = Array.__hash__

    # --- rearranging keys ------------------------------------------------------------
    def __getitem__(self, idx):
        """``keys[idx]``: jnp indexing (slice, squeeze, gather) works on stored keys as is."""
        return as_key_array(Array.__getitem__(self, idx))

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def _on_key_data(self, fn) -> "PRNGKeyArray":
        """Rearrange keys by rearranging their raw data (whose key axes come last)."""
        return random_wrap(fn(random_unwrap(self)), impl=self._impl)

    def reshape(self, *shape, order="C"):
        shape = tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return self._on_key_data(lambda d: d.reshape(*shape, *self._impl.key_shape, order=order))

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    flatten = ravel

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        axes = tuple(canonicalize_axis(a, self.ndim) for a in axes) if axes \
            else tuple(reversed(range(self.ndim)))
        return self._on_key_data(lambda d: d.transpose(*axes, *range(self.ndim, d.ndim)))

    T = property(transpose)

    def swapaxes(self, axis1, axis2):
        axes = list(range(self.ndim))
        a1, a2 = canonicalize_axis(axis1, self.ndim), canonicalize_axis(axis2, self.ndim)
        axes[a1], axes[a2] = axes[a2], axes[a1]
        return self.transpose(axes)

    def squeeze(self, axis=None):
        if axis is None:
            axis = tuple(i for i, s in enumerate(self.shape) if s == 1)
        axis = tuple(canonicalize_axis(a, self.ndim) for a in np.atleast_1d(axis))
        return self._on_key_data(lambda d: jnp.squeeze(d, axis))

    def copy(self) -> "PRNGKeyArray":
        return self  # arrays are immutable


#: Python operator -> the jnp function JAX names in its error
_ARITHMETIC = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
               "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
               "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
               "xor": "bitwise_xor", "lt": "less", "le": "less_equal", "gt": "greater",
               "ge": "greater_equal"}


def _no_arithmetic(name: str, reflected: bool):
    """Keys are not numbers: ``key + 1`` raises JAX's TypeError."""
    def op(self, other):
        other_dtype = get_aval(other).dtype if hasattr(other, "aval") else \
            jnp.asarray(other).dtype
        names = [self.dtype.name, getattr(other_dtype, "name", str(other_dtype))]
        a, b = reversed(names) if reflected else names
        raise TypeError(f"{name} does not accept dtypes {a}, {b}.")
    return op


for _op, _name in _ARITHMETIC.items():
    setattr(PRNGKeyArray, f"__{_op}__", _no_arithmetic(_name, False))
    if _op not in ("lt", "le", "gt", "ge"):
        setattr(PRNGKeyArray, f"__r{_op}__", _no_arithmetic(_name, True))


def as_key_array(x):
    """A concrete ``Array`` of key dtype as a :class:`PRNGKeyArray`; anything else unchanged.

    Chapter 00's eager dispatch wraps every result in a plain ``Array``; this
    gives a key-typed result its proper class.
    """
    if type(x) is Array and is_key_dtype(x.aval.dtype):
        return PRNGKeyArray(x.aval, x._buffer)
    return x


from minijax.stages import output_wrappers as _compiled_output_wrappers  # noqa: E402
_compiled_output_wrappers.append(as_key_array)  # jit's key-typed results: PRNGKeyArray too


def _check_prng_key_data(impl: PRNGImpl, key_data) -> None:
    """JAX's checks that ``key_data`` can be the raw data of keys of ``impl``."""
    ndim = len(impl.key_shape)
    if not all(hasattr(key_data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data "
                        f"to have ndim, shape, and dtype attributes. Got {key_data}")
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected "
                        f"key_data.ndim >= 1; got ndim={key_data.ndim}")
    if tuple(key_data.shape[-ndim:]) != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                        f"end with {impl.key_shape}; got shape={key_data.shape} for {impl=}")
    if key_data.dtype not in (np.uint32, ad.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={key_data.dtype}")


# =============================================================================
# 3. The key primitives
# =============================================================================
class KeyPrimitive(Primitive):
    """A primitive whose results may be key arrays: concrete ones become ``PRNGKeyArray``."""

    def bind(self, *args, **params):
        out = super().bind(*args, **params)
        return [as_key_array(o) for o in out] if self.multiple_results else as_key_array(out)


def _def_key_primitive(prim: Primitive, impl, abstract_eval) -> Primitive:
    """Register a key primitive's impl and abstract eval rules, and a zero JVP.

    Keys are not differentiable: every key primitive's JVP is zero (``float0``
    tangents). Most are batched by ``defvectorized``: a key array's own axes
    come first in each of their outputs, so the batch axis stays where it is.
    """
    impl_rules[prim] = impl
    abstract_eval_rules[prim] = abstract_eval
    ad.defjvp_zero(prim)
    return prim


def _check_integer_seed(aval: ShapedArray) -> None:
    if not np.issubdtype(aval.dtype, np.integer):
        weak = "~" if aval.weak_type else ""  # JAX raises while tracing: it names a tracer
        raise TypeError("PRNG key seed must be an integer; "
                        f"got JitTracer({weak}{aval.str_short()})")


# --- random_seed: integer seeds -> keys ----------------------------------------------
def _random_seed_impl(seeds, *, impl):
    _check_integer_seed(ShapedArray(seeds.shape, seeds.dtype))
    return _data_to_storage(impl.seed(seeds), impl)


random_seed_p = _def_key_primitive(
    KeyPrimitive("random_seed"), _random_seed_impl,
    lambda seeds, *, impl: keys_shaped_array(impl, seeds.shape))
batching.defvectorized(random_seed_p)


def random_seed(seeds, impl: PRNGImpl):
    """Keys from integer seeds (a Python int is first taken as a 64-bit integer, as in JAX)."""
    seeds_arr = jnp.asarray(np.int64(seeds)) if isinstance(seeds, int) else jnp.asarray(seeds)
    if not isinstance(seeds_arr, Tracer):
        _check_integer_seed(get_aval(seeds_arr))
    return random_seed_p.bind(seeds_arr, impl=impl)


# --- random_split: keys -> keys[..., *shape] --------------------------------------------
def _random_split_impl(keys, *, shape):
    impl = _impl_of_storage(keys)
    return _data_to_storage(impl.split(_storage_to_data(keys), shape), impl)


random_split_p = _def_key_primitive(
    KeyPrimitive("random_split"), _random_split_impl,
    lambda keys, *, shape: keys_shaped_array(keys.dtype._impl, (*keys.shape, *shape)))
batching.defvectorized(random_split_p)


def random_split(keys, shape):
    return random_split_p.bind(keys, shape=tuple(shape))


# --- random_fold_in: keys, uint32 messages -> keys ---------------------------------------
def _random_fold_in_impl(keys, msgs):
    impl = _impl_of_storage(keys)
    return _data_to_storage(impl.fold_in(_storage_to_data(keys), msgs.astype(np.uint32)), impl)


def _random_fold_in_abstract_eval(keys, msgs):
    shape = broadcast_shapes_or_error("random_fold_in", keys.shape, msgs.shape)
    return ShapedArray(shape, keys.dtype)


random_fold_in_p = _def_key_primitive(KeyPrimitive("random_fold_in"), _random_fold_in_impl,
                                      _random_fold_in_abstract_eval)
batching.defbroadcasting(random_fold_in_p)


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, jnp.asarray(msgs))


# --- random_bits: keys -> uint<bit_width>[..., *shape] ----------------------------------------
def _random_bits_impl(keys, *, bit_width, shape):
    impl = _impl_of_storage(keys)
    return impl.random_bits(_storage_to_data(keys), bit_width, shape)


def _random_bits_abstract_eval(keys, *, bit_width, shape):
    return ShapedArray((*keys.shape, *shape), UINT_DTYPES[bit_width])


random_bits_p = _def_key_primitive(Primitive("random_bits"), _random_bits_impl,
                                   _random_bits_abstract_eval)
batching.defvectorized(random_bits_p)


def random_bits(keys, bit_width: int, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


# --- random_wrap / random_unwrap: raw uint32 key data <-> typed keys -------------------------
def _random_wrap_abstract_eval(base, *, impl):
    return keys_shaped_array(impl, base.shape[:base.ndim - len(impl.key_shape)])


def _random_wrap_batching(args, dims, *, impl):
    (x,), (d,) = args, dims
    x = batching.bdim_at_front(x, d, 1)  # the key data's own axes must stay last
    return random_wrap_p.bind(x, impl=impl), 0


random_wrap_p = _def_key_primitive(
    KeyPrimitive("random_wrap"), lambda base, *, impl: _data_to_storage(base, impl),
    _random_wrap_abstract_eval)
batching.batching_rules[random_wrap_p] = _random_wrap_batching


def random_wrap(base_arr, *, impl: PRNGImpl):
    """Typed keys viewing raw uint32 key data ``(..., *key_shape)``."""
    _check_prng_key_data(impl, base_arr)
    return random_wrap_p.bind(base_arr, impl=impl)


def _random_unwrap_abstract_eval(keys):
    return ShapedArray((*keys.shape, *keys.dtype._impl.key_shape), np.uint32)


random_unwrap_p = _def_key_primitive(Primitive("random_unwrap"), _storage_to_data,
                                     _random_unwrap_abstract_eval)
batching.defvectorized(random_unwrap_p)


def random_unwrap(keys):
    """The raw uint32 key data of typed keys."""
    dtype = get_aval(keys).dtype
    if not is_key_dtype(dtype):
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype={dtype}")
    return random_unwrap_p.bind(keys)


# --- random_clone: the identity on keys (a fresh name for the key-reuse checker) ----------
random_clone_p = _def_key_primitive(KeyPrimitive("random_clone"), lambda keys: keys,
                                    lambda keys: keys)
batching.defvectorized(random_clone_p)


def random_clone(keys):
    """The same keys (or raw key data), as a new value.

    JAX's optional key-reuse checker treats the result as a fresh key, so
    one key may feed two draws on purpose; without that checker (minijax
    has none) it is the identity, but it stays one equation in a jaxpr.
    """
    return random_clone_p.bind(keys)


# =============================================================================
# 4. threefry2x32 as a primitive, and JAX's reference function on top of it
# =============================================================================
def _threefry2x32_abstract_eval(*args):
    if any(a.dtype != np.uint32 for a in args):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got {args}")
    aval = ShapedArray(broadcast_shapes_or_error("threefry2x32", *(a.shape for a in args)),
                       np.uint32)
    return [aval, aval]


def _both_outputs(rule):
    """A one-output batching rule made to report its batch axis for both outputs."""
    def rule2(args, dims, **params):
        outs, dim = rule(args, dims, **params)
        return outs, [dim] * len(outs)
    return rule2


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)
impl_rules[threefry2x32_p] = lambda *args: list(threefry2x32_numpy(*args))
abstract_eval_rules[threefry2x32_p] = _threefry2x32_abstract_eval
batching.defbroadcasting(threefry2x32_p)
batching.batching_rules[threefry2x32_p] = _both_outputs(batching.batching_rules[threefry2x32_p])
# No JVP rule, as in JAX: its operands are uint32, whose tangents are always
# symbolic zeros, so a JVP trace never needs one.


# Lowering: chapter 09's CPU target writes these primitives as loops over the
# key data (its rules are in minijax/backends/cpu/rules.py); it was built before
# this chapter, so this chapter hands it its primitives.
# Chapter 10's CUDA target writes them as kernels, one hash per thread.
for _rules in (_cpu_rules, _cuda_rules):
    _rules.register_key_lowerings(
        random_seed=random_seed_p, random_split=random_split_p,
        random_fold_in=random_fold_in_p, random_bits=random_bits_p,
        random_wrap=random_wrap_p, random_unwrap=random_unwrap_p, threefry2x32=threefry2x32_p)
# random_clone moves no data: each target's rule for random_wrap (keys are their data) serves
_cpu_rules.register(random_clone_p, _cpu_rules._key_data, "call", bits=True)
_cuda_rules.register(random_clone_p, _cuda_rules._key_data, "driver", bits=True, complex=True)

def threefry_2x32(keypair, count):
    """Apply the Threefry-2x32 hash to every element of ``count`` (JAX's reference).

    ``keypair`` is a pair of uint32 (a raw key); ``count`` a uint32 array of
    any shape. The counts are laid out as the two halves of one flat array
    (padded to an even size): element ``i`` of the first half is hashed
    together with element ``i`` of the second.
    """
    key1, key2 = keypair
    if not all(get_aval(x).dtype == np.uint32 for x in (key1, key2, count)):
        got = [get_aval(x).dtype for x in (key1, key2, count)]
        raise TypeError(f"threefry_2x32 requires uint32 arguments, got {got}")
    flat = jnp.ravel(count)
    odd = flat.shape[0] % 2
    if odd:
        flat = jnp.concatenate([flat, jnp.uint32([0])])
    x1, x2 = jnp.split(flat, 2)
    out = jnp.concatenate(threefry2x32_p.bind(key1, key2, x1, x2))
    return lax.reshape(out[:-1] if odd else out, get_aval(count).shape)
