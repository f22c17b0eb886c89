"""Exercise 2 of chapter 05, a solution: the inverse interpreter."""
from minijax import lax
from minijax.extend.core import Literal
from minijax.interpreters.partial_eval import make_jaxpr

#: primitive -> a function from the output's value to the input's value
inverse_rules = {
    lax.exp_p: lax.log,
    lax.log_p: lax.exp,
    lax.tanh_p: lax.atanh,
    lax.log1p_p: lax.expm1,
}


def inverse_jaxpr(jaxpr, consts, *args):
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.outvars, args))
    read = lambda v: v.val if isinstance(v, Literal) else env[v]  # noqa: E731
    for eqn in reversed(jaxpr.eqns):
        if len(eqn.invars) != 1 or isinstance(eqn.invars[0], Literal):
            raise NotImplementedError(f"inverse of {eqn.primitive}: one variable input only")
        if eqn.primitive not in inverse_rules:
            raise NotImplementedError(f"no inverse rule for {eqn.primitive}")
        (out,) = eqn.outvars
        env[eqn.invars[0]] = inverse_rules[eqn.primitive](read(out))
    return [read(v) for v in jaxpr.invars]


def inverse(fun):
    """``inverse(fun)(y)`` is the ``x`` with ``fun(x) == y`` (``fun``: one array in, one out)."""
    def wrapped(y):
        closed = make_jaxpr(fun)(y)          # trace fun on an argument of y's type
        (x,) = inverse_jaxpr(closed.jaxpr, closed.consts, y)
        return x
    return wrapped
