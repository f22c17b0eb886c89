"""Exercise 1 of chapter 06, a solution: a jit cache with static arguments."""
from minijax import tree_util
from minijax.core import get_aval
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr


def cached_jit(fun, static_argnums=()):
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    cache = {}

    def wrapped(*args):
        static = tuple((i, type(args[i]), args[i]) for i in static_argnums)  # 1 and 1.0 differ
        dynamic = [a for i, a in enumerate(args) if i not in static_argnums]
        flat, in_tree = tree_util.tree_flatten(dynamic)
        in_avals = tuple(get_aval(x) for x in flat)
        key = (static, in_tree, in_avals)
        if key not in cache:
            out_tree = []

            def flat_fun(*leaves):
                it = iter(tree_util.tree_unflatten(in_tree, leaves))
                full = [args[i] if i in static_argnums else next(it) for i in range(len(args))]
                out_leaves, tree = tree_util.tree_flatten(fun(*full))
                out_tree.append(tree)
                return out_leaves

            jaxpr, _, consts = trace_to_jaxpr_dynamic(flat_fun, in_avals)
            cache[key] = ClosedJaxpr(jaxpr, consts), out_tree[0]
        closed, out_tree = cache[key]
        return tree_util.tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts, *flat))

    return wrapped
