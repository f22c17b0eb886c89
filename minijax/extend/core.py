"""Chapter 05 — ``minijax.extend.core``: the jaxpr IR under the names ``jax.extend.core`` uses.

Nothing is defined here; it only gathers the objects of chapters 00, 01 and
05 so that code written against ``jax.extend.core`` finds them.
"""
from minijax.core import find_cur_trace, set_current_trace, take_current_trace  # noqa: F401
from minijax.errors import JaxprTypeError  # noqa: F401
from minijax.interpreters.ad import primal_dtype_to_tangent_dtype  # noqa: F401
from minijax.interpreters.partial_eval import DebugInfo  # noqa: F401
from minijax.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var,  # noqa: F401
                           check_jaxpr, jaxpr_as_fun, jaxprs_in_params, new_jaxpr_eqn,
                           no_effects, subjaxprs)
from minijax.primitives import Primitive  # noqa: F401
