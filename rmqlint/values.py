"""Values as the frontends see them: resolved, dynamic, or a reference the project linker resolves later.

A frontend never guesses. It emits a `Lit` when the text is certain from the file alone, a `Dynamic` when it
cannot be known statically (environment, hostname, pid, a method call, an f-string with a dynamic part), and a
symbolic reference (`ConstRef`, `Placeholder`, `Concat` of parts) when another file or the Spring configuration
decides it. `rmqlint.linker` turns references into `Lit` or `Dynamic` once the whole project is known.

Values are plain frozen dataclasses so that per-file facts can be cached as JSON (see `to_json`/`from_json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Lit:
    """A value known exactly. Numbers and enum constants are kept as their text (`"16"`, `"BROADCASTING"`)."""

    text: str


@dataclass(frozen=True)
class Dynamic:
    """A value that cannot be known statically; `reason` says why (shown in debug output, never guessed past)."""

    reason: str


@dataclass(frozen=True)
class ConstRef:
    """A constant defined elsewhere.

    Java: `scopes` are the candidate classes in lookup order (the qualifier of `Class.CONST`, or for an unqualified
    name the static imports, implemented interfaces and superclasses), simple or fully qualified names.
    Python: `scopes` hold one dotted module path (`pkg.settings`), `name` the module-level name.
    """

    language: str  # "java" | "python"
    scopes: tuple[str, ...]
    name: str


@dataclass(frozen=True)
class Placeholder:
    """A Spring property placeholder `${key}` or `${key:default}`; `default` is None when there is none."""

    key: str
    default: "Value | None" = None


@dataclass(frozen=True)
class Concat:
    """String concatenation of parts (Java `+`, Python `+`, a Spring string mixing text and placeholders)."""

    parts: tuple["Value", ...]


Value = Union[Lit, Dynamic, ConstRef, Placeholder, Concat]

VALUE_KINDS = (Lit, Dynamic, ConstRef, Placeholder, Concat)
_KINDS = {cls.__name__: cls for cls in VALUE_KINDS}


def concat(parts: list[Value]) -> Value:
    """Concatenate, folding literals; any dynamic part makes the whole dynamic."""
    flat: list[Value] = []
    for part in parts:
        items = part.parts if isinstance(part, Concat) else (part,)
        for item in items:
            if isinstance(item, Dynamic):
                return item
            if flat and isinstance(item, Lit) and isinstance(flat[-1], Lit):
                flat[-1] = Lit(flat[-1].text + item.text)
            else:
                flat.append(item)
    if not flat:
        return Lit("")
    if len(flat) == 1:
        return flat[0]
    return Concat(tuple(flat))


# Placeholders nested deeper than this (`${a:${b:${c:...}}}`) are not followed: real configuration nests two or
# three; thousands would recurse through every step that reads a value.
MAX_PLACEHOLDER_DEPTH = 32
TOO_DEEP = f"placeholders nested more than {MAX_PLACEHOLDER_DEPTH} deep"


class _TooDeep(Exception):
    pass


def parse_spring_string(text: str) -> Value:
    """Split a Spring string into literal text and `${key:default}` placeholders (nested defaults allowed).

    `"${rocketmq.topic:orders}"` -> Placeholder("rocketmq.topic", Lit("orders")); plain text -> Lit.
    An unterminated `${` is kept as literal text, as Spring does with ignoreUnresolvablePlaceholders.
    Placeholders nested more than MAX_PLACEHOLDER_DEPTH deep give `Dynamic(TOO_DEEP)` (frontends report it).
    """
    try:
        return _spring_string(text, 0)
    except _TooDeep:
        return Dynamic(TOO_DEEP)


def _spring_string(text: str, depth: int) -> Value:
    if depth > MAX_PLACEHOLDER_DEPTH:
        raise _TooDeep
    parts: list[Value] = []
    i = 0
    buf = []
    while i < len(text):
        if text.startswith("${", i):
            end = _matching_brace(text, i + 2)
            if end < 0:
                buf.append(text[i:])
                break
            if buf:
                parts.append(Lit("".join(buf)))
                buf = []
            parts.append(_placeholder(text[i + 2 : end], depth))
            i = end + 1
        else:
            buf.append(text[i])
            i += 1
    if buf:
        parts.append(Lit("".join(buf)))
    return concat(parts)


def _matching_brace(text: str, start: int) -> int:
    depth = 1
    i = start
    while i < len(text):
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _placeholder(body: str, depth: int) -> Placeholder:
    """`key:default` inside `${...}` at nesting `depth`."""
    # The first ':' outside a nested placeholder separates key and default.
    open_braces = 0
    i = 0
    while i < len(body):
        if body.startswith("${", i):
            open_braces += 1
            i += 2
            continue
        if body[i] == "}":
            open_braces -= 1
        elif body[i] == ":" and open_braces == 0:
            return Placeholder(body[:i].strip(), _spring_string(body[i + 1 :], depth + 1))
        i += 1
    return Placeholder(body.strip(), None)


def to_json(value: "Value | None"):
    if value is None:
        return None
    if isinstance(value, Lit):
        return {"k": "Lit", "text": value.text}
    if isinstance(value, Dynamic):
        return {"k": "Dynamic", "reason": value.reason}
    if isinstance(value, ConstRef):
        return {"k": "ConstRef", "language": value.language, "scopes": list(value.scopes), "name": value.name}
    if isinstance(value, Placeholder):
        return {"k": "Placeholder", "key": value.key, "default": to_json(value.default)}
    if isinstance(value, Concat):
        return {"k": "Concat", "parts": [to_json(p) for p in value.parts]}
    raise TypeError(f"not a value: {value!r}")


def from_json(data) -> "Value | None":
    """The value `to_json` wrote; every field's type is checked (cached facts are input, not trusted memory)."""
    if data is None:
        return None
    kind = data["k"]
    if kind == "Lit":
        return Lit(_str(data["text"]))
    if kind == "Dynamic":
        return Dynamic(_str(data["reason"]))
    if kind == "ConstRef":
        return ConstRef(_str(data["language"]), tuple(_str(x) for x in data["scopes"]), _str(data["name"]))
    if kind == "Placeholder":
        return Placeholder(_str(data["key"]), from_json(data["default"]))
    if kind == "Concat":
        return Concat(tuple(from_json(p) for p in data["parts"]))
    raise ValueError(f"unknown value kind {kind!r}")


def _str(value) -> str:
    if type(value) is not str:
        raise TypeError("expected a string")
    return value


__all__ = [
    "Lit",
    "Dynamic",
    "ConstRef",
    "Placeholder",
    "Concat",
    "Value",
    "concat",
    "parse_spring_string",
    "to_json",
    "from_json",
]
assert set(_KINDS) == {"Lit", "Dynamic", "ConstRef", "Placeholder", "Concat"}
