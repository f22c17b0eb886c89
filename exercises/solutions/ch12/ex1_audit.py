"""Exercise 1 of chapter 12, solved: an effect of your own, ``audit``."""
from minijax import numpy as jnp
from minijax.backends.cpu import rules as cpu_rules
from minijax.effects import Effect, ordered_effects
from minijax.interpreters.ad import jvp_rules
from minijax.jaxpr import effect_rules
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

AUDIT_LOG: list = []

audit_p = Primitive("audit", multiple_results=True, kind="other")


class AuditEffect(Effect):
    """The effect of ``audit``: never dropped, not sequenced."""
    name = "Audit"


class OrderedAuditEffect(Effect):
    """The effect of ``audit(..., ordered=True)``: in program order."""
    name = "OrderedAudit"


audit_effect, ordered_audit_effect = AuditEffect(), OrderedAuditEffect()


def _audit_impl(x, *, tag, ordered):
    AUDIT_LOG.append((tag, x.tolist()))
    return []


def _audit_abstract_eval(x, *, tag, ordered):
    return []


def _audit_effects(*, tag, ordered):
    return {ordered_audit_effect if ordered else audit_effect}


def _audit_jvp(primals, tangents, *, tag, ordered):
    return audit_p.bind(*primals, tag=tag, ordered=ordered), []


def register() -> None:
    impl_rules[audit_p] = _audit_impl
    abstract_eval_rules[audit_p] = _audit_abstract_eval
    effect_rules[audit_p] = _audit_effects
    jvp_rules[audit_p] = _audit_jvp
    ordered_effects.add_type(OrderedAuditEffect)
    cpu_rules.register_host_call_lowerings(audit_p)


def audit(tag: str, x, ordered: bool = False) -> None:
    audit_p.bind(jnp.asarray(x), tag=tag, ordered=ordered)
