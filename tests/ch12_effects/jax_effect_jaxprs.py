"""Printed jaxprs of the effectful programs of ``test_effect_jaxprs.py``, recorded from JAX 0.10.2.

Recorded by running each program of ``test_effect_jaxprs.cases`` under ``jax``
(0.10.2, NumPy 2.4.6) and printing ``jax.make_jaxpr(f)(*args)``. Two
substitutions keep the text short and stable: a function's address
(``at 0x7f1f...``; JAX 0.10.2 itself prints ``0xXXXXXXXXXXXX``) is written
``at 0x...``, and ``<NP>`` stands for the NumPy print options JAX records in
every ``debug_print`` equation (:data:`NP_PRINTOPTIONS`, NumPy's defaults).
"""

#: ``tuple(np.get_printoptions().items())`` with NumPy's defaults, as JAX 0.10.2 prints it.
NP_PRINTOPTIONS = ("(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), "
                   "('precision', 8), ('suppress', False), ('linewidth', 75), "
                   "('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), "
                   "('legacy', False), ('override_repr', None))")

# recorded from JAX 0.10.2
JAXPRS = {
    "debug_print": """\
{ lambda ; a:f32[]. let
    debug_print[
      fmt=x = {}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=<NP>
      ordered=False
      partitioned=False
      static_args=()
    ] a
    b:f32[] = mul a 2.0:f32[]
  in (b,) }""",
    "debug_print_static_kwargs": """\
{ lambda ; a:f32[] b:i32[3]. let
    debug_print[
      fmt={x} {s} {}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {'s': *, 'x': *}))
      logging_record=None
      np_printoptions=<NP>
      ordered=True
      partitioned=False
      static_args=((1, 'str'),)
    ] b a
  in () }""",
    "debug_callback": """\
{ lambda ; a:f32[]. let
    debug_callback[
      callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0x...>
      effect=Debug
      partitioned=False
    ] a
  in (a,) }""",
    "debug_callback_ordered": """\
{ lambda ; a:f32[]. let
    debug_callback[
      callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0x...>
      effect=OrderedDebug
      partitioned=False
    ] a
  in (a,) }""",
    "pure_callback": """\
{ lambda ; a:f32[3]. let
    b:f32[3] = pure_callback[
      callback=_FlatCallback(callback_func=<ufunc 'sin'>, in_tree=PyTreeDef(((*,), {})))
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
      vmap_method=None
    ] a
  in (b,) }""",
    "pure_callback_tree": """\
{ lambda ; a:f32[3] b:f32[]. let
    c:f32[3] = pure_callback[
      callback=_FlatCallback(callback_func=<function host_add at 0x...>, in_tree=PyTreeDef(((*,), {'y': *})))
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
      vmap_method=expand_dims
    ] a b
  in (c,) }""",
    "io_callback_ordered": """\
{ lambda ; a:f32[3]. let
    b:f32[3] = io_callback[
      callback=_FlatCallback(callback_func=<ufunc 'sin'>, in_tree=PyTreeDef(((*,), {})))
      ordered=True
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
    ] a
  in (b,) }""",
    "io_callback_no_result": """\
{ lambda ; a:f32[3]. let
    io_callback[
      callback=_FlatCallback(callback_func=<function ignore at 0x...>, in_tree=PyTreeDef(((*,), {})))
      ordered=False
      result_avals=()
      sharding=None
    ] a
  in () }""",
    "jit_debug_print": """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          debug_print[
            fmt=x = {}
            has_placeholders=True
            in_tree=PyTreeDef(((*,), {}))
            logging_record=None
            np_printoptions=<NP>
            ordered=False
            partitioned=False
            static_args=()
          ] a
          b:f32[] = mul a 2.0:f32[]
        in (b,) }
    ] a
  in (b,) }""",
    "vmap_pure_sequential": """\
{ lambda ; a:f32[3] b:f32[]. let
    c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = pure_callback[
            callback=_FlatCallback(callback_func=<function host_add at 0x...>, in_tree=PyTreeDef(((*, *), {})))
            result_avals=(ShapedArray(float32[]),)
            sharding=None
            vmap_method=sequential
          ] e d
        in (f,) }
      length=3
      num_carry=0
      num_consts=1
      reverse=False
      unroll=1
    ] b a
  in (c,) }""",
    "vmap_pure_broadcast_all": """\
{ lambda ; a:f32[3] b:f32[]. let
    c:f32[3] = broadcast_in_dim b
    d:f32[3] = pure_callback[
      callback=_FlatCallback(callback_func=<function host_add at 0x...>, in_tree=PyTreeDef(((*, *), {})))
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
      vmap_method=broadcast_all
    ] a c
  in (d,) }""",
    "vmap_debug_print": """\
{ lambda ; a:f32[2]. let
    b:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] a
    c:f32[] = squeeze[dimensions=(0,)] b
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=<NP>
      ordered=False
      partitioned=False
      static_args=()
    ] c
    d:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] a
    e:f32[] = squeeze[dimensions=(0,)] d
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=<NP>
      ordered=False
      partitioned=False
      static_args=()
    ] e
  in () }""",
    "vmap_io_callback": """\
{ lambda ; a:f32[2]. let
    b:f32[2] = scan[
      jaxpr={ lambda ; c:f32[]. let
          d:f32[] = io_callback[
            callback=_FlatCallback(callback_func=<ufunc 'sin'>, in_tree=PyTreeDef(((*,), {})))
            ordered=False
            result_avals=(ShapedArray(float32[]),)
            sharding=None
          ] c
        in (d,) }
      length=2
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }""",
    "grad_debug_print": """\
{ lambda ; a:f32[]. let
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=<NP>
      ordered=False
      partitioned=False
      static_args=()
    ] a
    _:f32[] = sin a
    b:f32[] = cos a
    c:f32[] = mul 1.0:f32[] b
  in (c,) }""",
    "cond_debug_print": """\
{ lambda ; a:bool[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = mul e 2.0:f32[] in (f,) }
        { lambda ; g:f32[]. let
            debug_print[
              fmt=t {}
              has_placeholders=True
              in_tree=PyTreeDef(((*,), {}))
              logging_record=None
              np_printoptions=<NP>
              ordered=False
              partitioned=False
              static_args=()
            ] g
          in (g,) }
      )
    ] c b
  in (d,) }""",
    "scan_ordered_print": """\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          debug_print[
            fmt=c {}
            has_placeholders=True
            in_tree=PyTreeDef(((*,), {}))
            logging_record=None
            np_printoptions=<NP>
            ordered=True
            partitioned=False
            static_args=()
          ] d
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
        in (g, d) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }""",
    "while_debug_callback": """\
{ lambda ; a:i32[]. let
    b:i32[] = while[
      body_jaxpr={ lambda ; c:i32[]. let
          debug_callback[
            callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0x...>
            effect=Debug
            partitioned=False
          ] c
          d:i32[] = add c 1:i32[]
        in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:i32[]. let f:bool[] = lt e 3:i32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }""",
    "scan_only_effect": """\
{ lambda ; a:f32[3]. let
    scan[
      jaxpr={ lambda ; b:f32[] c:f32[]. let
          debug_print[
            fmt=x {}
            has_placeholders=True
            in_tree=PyTreeDef(((*,), {}))
            logging_record=None
            np_printoptions=<NP>
            ordered=False
            partitioned=False
            static_args=()
          ] c
        in () }
      length=3
      num_carry=0
      num_consts=1
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (0.0:f32[],) }""",
    "jit_unused_io_and_pure": """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = io_callback[
            callback=_FlatCallback(callback_func=<function host_add at 0x...>, in_tree=PyTreeDef(((*, *), {})))
            ordered=False
            result_avals=(ShapedArray(float32[]),)
            sharding=None
          ] a a
          d:f32[] = pure_callback[
            callback=_FlatCallback(callback_func=<function host_add at 0x...>, in_tree=PyTreeDef(((*, *), {})))
            result_avals=(ShapedArray(float32[]),)
            sharding=None
            vmap_method=None
          ] a a
          b:f32[] = add a 1.0:f32[]
        in (b,) }
    ] a
  in (b,) }""",
}
