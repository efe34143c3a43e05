"""How a rule decides on a value the program may pick from several (`c ? "a.b" : "ab"`, a local assigned in the
branches of an `if`): it judges every alternative known exactly, and on a value that is partly dynamic (some
branch unknown) it speaks only when every known alternative is wrong, since the unknown branch may be the one
that runs."""

from __future__ import annotations

from typing import Callable

from rmqlint.values import Lit, Value

try:  # value sets (`OneOf`) are being added to the value model; until then every value is its only alternative
    from rmqlint.values import alternatives
except ImportError:  # pragma: no cover - removed once value sets are in
    def alternatives(value: Value) -> tuple[Value, ...]:
        return (value,)


def known(value: Value | None) -> list[str]:
    """The texts of the alternatives known exactly (empty for an absent or wholly dynamic value)."""
    if value is None:
        return []
    return [a.text for a in alternatives(value) if isinstance(a, Lit)]


def fully_known(value: Value | None) -> list[str] | None:
    """The texts of every alternative when all of them are known exactly, else None."""
    if value is None:
        return None
    every = alternatives(value)
    texts = [a.text for a in every if isinstance(a, Lit)]
    return texts if len(texts) == len(every) else None


def wrong(value: Value | None, is_wrong: Callable[[str], bool]) -> list[str]:
    """The known alternatives a rule reports: each wrong one when the value is fully known; when it is partly
    dynamic, all of them only if every known alternative is wrong (else none)."""
    if value is None:
        return []
    texts = known(value)
    bad = [t for t in texts if is_wrong(t)]
    if fully_known(value) is None and len(bad) < len(texts):
        return []
    return bad
