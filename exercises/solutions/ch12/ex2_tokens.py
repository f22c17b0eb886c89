"""Exercise 2 of chapter 12, solved: runtime tokens of your own."""
from minijax.effects import ordered_effects_of
from minijax.runtime.futures import Completion, _raise_stored as raise_stored


class Tokens:
    """Runtime tokens (one per ordered effect) and output tokens (per device)."""

    def __init__(self):
        self.current_tokens: dict = {}
        self.output_tokens: dict = {}

    def token_inputs(self, effects) -> list:
        tokens = [self.current_tokens.get(e) for e in ordered_effects_of(effects)]
        return [t for t in tokens if t is not None and not t.done]

    def set_token_results(self, effects, device, completion: Completion) -> None:
        for e in ordered_effects_of(effects):
            self.current_tokens[e] = completion
        kept = [c for c in self.output_tokens.get(device, []) if not c.done or c.error]
        self.output_tokens[device] = kept + [completion]

    def wait_in_order(self, effects) -> None:
        for e in ordered_effects_of(effects):
            token = self.current_tokens.pop(e, None)
            if token is not None:
                token.wait()

    def block_until_ready(self) -> None:
        pending = [c for cs in self.output_tokens.values() for c in cs]
        pending += self.current_tokens.values()
        self.current_tokens, self.output_tokens = {}, {}
        errors = []
        for c in pending:
            c.wait()
            if c.error is not None:
                errors.append(c.error)
        if errors:
            raise_stored(errors[0])
