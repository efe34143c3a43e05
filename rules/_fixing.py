"""What rules share to build their fixes (`rmqlint.fixes`): the literal behind a value's text, with its place."""

from __future__ import annotations

from rmqlint.values import Lit, Value, alternatives


def written_literal(value: Value | None, text: str) -> Lit | None:
    """The literal alternative of `value` with this text, when its place is known (a fix can edit it there)."""
    if value is None:
        return None
    for alternative in alternatives(value):
        if isinstance(alternative, Lit) and alternative.text == text and alternative.origin is not None:
            return alternative
    return None
