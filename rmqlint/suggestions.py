""""Did you mean": the known words closest to a mistyped one (an option, a configuration key, a rule, a command),
by difflib's similarity, ignoring case and the dashes options start with."""

from __future__ import annotations

from typing import Iterable


def closest(word: str, known: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """Up to `n` words of `known` like `word`, the closest first; [] when none is close."""
    import difflib  # only a mistake pays for it

    by_key: dict[str, str] = {}
    for candidate in known:
        by_key.setdefault(_key(candidate), candidate)
    return [by_key[k] for k in difflib.get_close_matches(_key(word), list(by_key), n=n, cutoff=cutoff)]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`did you mean 'select'?` for the closest known word, or "" when none is close."""
    found = closest(word, known)
    return f"did you mean {found[0]!r}?" if found else ""


def _key(word: str) -> str:
    return word.lstrip("-").lower()
