"""Values as the frontends see them: resolved, dynamic, or a reference the project linker resolves later.

A frontend never guesses. It emits a `Lit` when the text is certain from the file alone, a `Dynamic` when it
cannot be known statically (environment, hostname, pid, a method call, an f-string with a dynamic part), a
`OneOf` when the program picks one of several values at run time (`c ? "A" : "B"`, a local assigned in the
branches of an `if`, a key that Spring profiles set differently), and a symbolic reference (`ConstRef`,
`Placeholder`, `Property` of an injected bean, `Concat` of parts) when another file or the Spring configuration
decides it, or `Param` when the callers of the method holding it do. `rmqlint.linker` turns references into `Lit`, `OneOf` or `Dynamic` once the
whole project is known.

Values are plain frozen dataclasses so that per-file facts can be cached as JSON (see `to_json`/`from_json`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Optional, Union

from rmqlint.spans import Span


@dataclass(frozen=True)
class Lit:
    """A value known exactly. Numbers and enum constants are kept as their text (`"16"`, `"BROADCASTING"`).

    `origin` is where the text is written, when it stands in one place of one file exactly as it reads (a string
    literal without escapes, a number, a configuration value): a fix may edit it there. It takes no part in
    comparisons: two equal texts are the same value wherever they are written."""

    text: str
    origin: Optional[Span] = field(default=None, compare=False, repr=False)
    # The configuration entries that gave this text (set by the linker where a placeholder or a bound property
    # resolves): what a finding names as where the value comes from, and under which profiles. No part in
    # comparisons either, and not cached (the linker sets it on every run).
    config: tuple["ConfigSource", ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class ConfigSource:
    """Where a Spring configuration value is written, and when it applies.

    `path`, `line`: the configuration file and the line of the value ("" and 0 for a default written in code, such
    as `${key:10}` or a bound field's initializer, that applies because no file sets the key). `profile`: the
    profile expression of the file or document (`prod` for `application-prod.yml`), "" for configuration that
    applies under every profile. `overridden`: for such configuration, the profiles whose files set the key to
    something else (so the value holds in every profile but these)."""

    key: str
    path: str = ""
    line: int = 0
    column: int = 1
    profile: str = ""
    overridden: tuple[str, ...] = ()

    def applies(self, profile: str) -> bool:
        """Whether this configuration gives the value when `profile` is active."""
        return self.profile == profile if self.profile else profile not in self.overridden

    def describe(self) -> str:
        """`svc/src/main/resources/application-prod.yml:4 (profile prod)`, `application.yml:3 (every profile but
        prod)`, `the default of rocketmq.consumer.thread-min (every profile but prod)`."""
        where = f"{self.path}:{self.line}" if self.path else f"the default of {self.key}"
        return f"{where} ({self.when()})" if self.when() else where

    def when(self) -> str:
        """"profile prod", "every profile but prod, staging", or "" (every profile)."""
        if self.profile:
            return f"profile {self.profile}"
        return f"every profile but {', '.join(self.overridden)}" if self.overridden else ""


@dataclass(frozen=True)
class Dynamic:
    """A value that cannot be known statically; `reason` says why (shown in debug output, never guessed past).

    `per` says what the value is unique per, when its source tells: "host" (the host's name or address: on host
    networking every replica on a node shares the node's), "pid" (a process id: unique on one host, but 1 in every
    container), "process" (a random number or a start time: unique per process), "none" (text not known here but
    the same in every process: a class's name, `handler.getClass().getSimpleName()`); "" when not known."""

    reason: str
    per: str = ""
    # As `Lit.config`: the configuration that leaves it unknown (a key a profile sets to `${random.uuid}`, or
    # leaves unset): under which profiles it is the value.
    config: tuple["ConfigSource", ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class ConstRef:
    """A constant defined elsewhere.

    Java: `scopes` are the candidate classes in lookup order (the qualifier of `Class.CONST`, or for an unqualified
    name the static imports, implemented interfaces and superclasses), simple or fully qualified names.
    Python: `scopes` hold one dotted module path (`pkg.settings`), `name` the module-level name.
    `spring`: the constant is used where Spring resolves `${...}` placeholders (an annotation attribute such as
    `topic = OrderMq.PAY_TOPIC`), so its text is read for placeholders once the linker knows it.
    """

    language: str  # "java" | "python"
    scopes: tuple[str, ...]
    name: str
    spring: bool = False


@dataclass(frozen=True)
class Param:
    """What a caller passes for a parameter of a method (Python: function): `index` counts the declared parameters
    from 0 (a Python method's `self` included), `name` is the parameter's, `function` names the method as the
    frontend does (Java `com.acme.Mq.start/2`, Python `pkg.mq.start`). An element of a Java annotation the project's
    code reads (`ann.threadMin()`) is bound by name at each use of the annotation: `index` -1, `function`
    `@com.acme.MqConsumer`, `default` the element's declared default.

    A client built from its method's parameters (`start(String group, String topic)`) is one client per call of
    that method: each call binds the parameters to its arguments (`rmqlint.calls`). Where no call of the project
    binds it, the linker makes it Dynamic: the value is whatever some caller passes."""

    index: int
    name: str
    function: str = ""
    default: "Value | None" = None  # Python: the parameter's default, for a call that passes nothing


@dataclass(frozen=True)
class Property:
    """A property of an object Spring injects, read through getters or fields: `props.getConsumer().getThreadMin()`
    where `props` is a field or parameter of class `scopes` (as `ConstRef.scopes`), `path` the property names
    (`("consumer", "threadMin")`). The linker asks the declaring file what its class binds there
    (`FileFacts.properties`: a `@ConfigurationProperties` prefix and the field's initializer, or a field's
    `@Value("${..}")`), and resolves that with the configuration of the referring file's application. A class
    that binds nothing there leaves the value Dynamic."""

    language: str
    scopes: tuple[str, ...]
    path: tuple[str, ...]


@dataclass(frozen=True)
class Placeholder:
    """A Spring property placeholder `${key}` or `${key:default}`; `default` is None when there is none."""

    key: str
    default: "Value | None" = None


@dataclass(frozen=True)
class Concat:
    """String concatenation of parts (Java `+`, Python `+`, a Spring string mixing text and placeholders)."""

    parts: tuple["Value", ...]


@dataclass(frozen=True)
class OneOf:
    """One of several values, whichever branch the program takes: `refund ? "Refunded" : "Settled"`, Python
    `"a" if x else "b"`, a local assigned different values in the branches of an `if`/`else` or a `switch`.

    Built with `one_of`: at least two alternatives, distinct, in source order, none of them a `OneOf`. A `Dynamic`
    alternative (a branch whose value is unknown) keeps the value partly dynamic: the other alternatives are still
    known values, but not the only ones."""

    alternatives: tuple["Value", ...]


Value = Union[Lit, Dynamic, ConstRef, Param, Property, Placeholder, Concat, OneOf]

PER = ("", "host", "pid", "process", "none")  # what a `Dynamic` value may be unique per

VALUE_KINDS = (Lit, Dynamic, ConstRef, Param, Property, Placeholder, Concat, OneOf)
_KINDS = {cls.__name__: cls for cls in VALUE_KINDS}

# More alternatives than this (long switches, or concatenations multiplying small sets) are not followed: Dynamic.
MAX_ALTERNATIVES = 32


def one_of(values) -> Value:
    """The value that is one of `values` (nested alternatives flattened, duplicates dropped, at most one Dynamic
    kept); a single distinct value is that value."""
    flat: list[Value] = []
    dynamic = False
    for value in values:
        for alternative in (value.alternatives if isinstance(value, OneOf) else (value,)):
            if isinstance(alternative, Dynamic):
                if dynamic:
                    continue
                dynamic = True
            if alternative not in flat:
                flat.append(alternative)
    if not flat:
        return Dynamic("no value")
    if len(flat) > MAX_ALTERNATIVES:
        return Dynamic(f"one of more than {MAX_ALTERNATIVES} values")
    return flat[0] if len(flat) == 1 else OneOf(tuple(flat))


def alternatives(value: Value) -> tuple[Value, ...]:
    """The values `value` may be at run time: a `OneOf`'s alternatives, else the value itself."""
    return value.alternatives if isinstance(value, OneOf) else (value,)


def literal_texts(value: "Value | None") -> list[str] | None:
    """The texts of every alternative when all are known exactly (a `Lit`, or a `OneOf` of `Lit`s), else None."""
    if value is None:
        return None
    texts = []
    for alternative in alternatives(value):
        if not isinstance(alternative, Lit):
            return None
        texts.append(alternative.text)
    return texts


def known_texts(value: "Value | None") -> list[str]:
    """The texts of the alternatives known exactly, also when others are not (a partly dynamic `OneOf`)."""
    if value is None:
        return []
    return [a.text for a in alternatives(value) if isinstance(a, Lit)]


def map_literals(value: Value, change) -> Value:
    """`value` with `change(text) -> Value` applied to each literal alternative (an enum number to its name, ...)."""
    return one_of(change(a.text) if isinstance(a, Lit) else a for a in alternatives(value))


def concat(parts: list[Value]) -> Value:
    """Concatenate, folding literals; any dynamic part makes the whole dynamic. A part that is one of several
    values makes the result one of the concatenations of each choice (`"order-" + (vip ? "a" : "b")` is one of
    `"order-a"`, `"order-b"`)."""
    if any(isinstance(part, OneOf) for part in parts):
        if any(isinstance(part, Dynamic) for part in parts):
            return next(part for part in parts if isinstance(part, Dynamic))
        combinations = 1
        for part in parts:
            combinations *= len(alternatives(part))
        if combinations > MAX_ALTERNATIVES:
            return Dynamic(f"one of more than {MAX_ALTERNATIVES} values")
        return one_of(concat(list(choice)) for choice in itertools.product(*(alternatives(p) for p in parts)))
    flat: list[Value] = []
    for part in parts:
        items = part.parts if isinstance(part, Concat) else (part,)
        for item in items:
            if isinstance(item, Dynamic):
                return _dynamic_whole(parts)
            if flat and isinstance(item, Lit) and isinstance(flat[-1], Lit):
                flat[-1] = Lit(flat[-1].text + item.text, config=flat[-1].config + item.config)
            else:
                flat.append(item)
    if not flat:
        return Lit("")
    if len(flat) == 1:
        return flat[0]
    return Concat(tuple(flat))


def _dynamic_whole(parts: list[Value]) -> Dynamic:
    """A concatenation with unknown parts: unknown, said as its first unknown part says it, and unique per what its
    most distinctive part is unique per (an unknown part may be as distinctive as any; parts that are the same in
    every process leave it as unique as the others)."""
    unknown = [item for part in parts for item in (part.parts if isinstance(part, Concat) else (part,))
               if isinstance(item, Dynamic)]
    pers = {item.per for item in unknown}
    per = "process" if "process" in pers else "" if "" in pers else "pid" if "pid" in pers else \
        "host" if "host" in pers else "none"
    return unknown[0] if unknown[0].per == per else Dynamic(unknown[0].reason, per)


# Placeholders nested deeper than this (`${a:${b:${c:...}}}`) are not followed: real configuration nests two or
# three; thousands would recurse through every step that reads a value.
MAX_PLACEHOLDER_DEPTH = 32
TOO_DEEP = f"placeholders nested more than {MAX_PLACEHOLDER_DEPTH} deep"


class _TooDeep(Exception):
    pass


def parse_spring_string(text: str, origin: Optional[Span] = None) -> Value:
    """Split a Spring string into literal text and `${key:default}` placeholders (nested defaults allowed).

    `"${rocketmq.topic:orders}"` -> Placeholder("rocketmq.topic", Lit("orders")); plain text -> Lit.
    An unterminated `${` is kept as literal text, as Spring does with ignoreUnresolvablePlaceholders.
    Placeholders nested more than MAX_PLACEHOLDER_DEPTH deep give `Dynamic(TOO_DEEP)` (frontends report it).
    `origin`: where `text` is written exactly as it reads, on one line; each literal part then has its own place.
    """
    if origin is not None and (origin.text != text or "\n" in text or "\r" in text):
        origin = None
    try:
        return _spring_string(text, 0, origin, 0)
    except _TooDeep:
        return Dynamic(TOO_DEEP)


def _spring_string(text: str, depth: int, origin: Optional[Span], base: int) -> Value:
    """`text` stands at `base` in `origin.text` (when there is an origin)."""
    if depth > MAX_PLACEHOLDER_DEPTH:
        raise _TooDeep
    parts: list[Value] = []
    i = 0
    start = 0  # where the literal text in `buf` starts
    buf = []

    def literal(first: int, last: int) -> Lit:
        chunk = text[first:last]
        return Lit(chunk, origin.sub(base + first, base + last) if origin is not None else None)

    while i < len(text):
        if text.startswith("${", i):
            end = _matching_brace(text, i + 2)
            if end < 0:
                buf.append(text[i:])
                i = len(text)
                break
            if buf:
                parts.append(literal(start, i))
                buf = []
            parts.append(_placeholder(text[i + 2 : end], depth, origin, base + i + 2))
            i = start = end + 1
        else:
            buf.append(text[i])
            i += 1
    if buf:
        parts.append(literal(start, i))
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


def _placeholder(body: str, depth: int, origin: Optional[Span], base: int) -> Placeholder:
    """`key:default` inside `${...}` at nesting `depth`; `body` stands at `base` in `origin.text`."""
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
            return Placeholder(body[:i].strip(), _spring_string(body[i + 1 :], depth + 1, origin, base + i + 1))
        i += 1
    return Placeholder(body.strip(), None)


def without_origins(value: "Value | None") -> "Value | None":
    """`value` with no literal claiming a place (a value agreed on by several declarations is written in each)."""
    if isinstance(value, Lit):
        return value if value.origin is None else Lit(value.text, config=value.config)
    if isinstance(value, Concat):
        return Concat(tuple(without_origins(p) for p in value.parts))
    if isinstance(value, OneOf):
        return OneOf(tuple(without_origins(a) for a in value.alternatives))
    if isinstance(value, Placeholder) and value.default is not None:
        return replace(value, default=without_origins(value.default))
    return value


def origins(value: "Value | None") -> list[Span]:
    """The places of every literal inside `value`."""
    if isinstance(value, Lit):
        return [value.origin] if value.origin is not None else []
    if isinstance(value, Concat):
        return [o for p in value.parts for o in origins(p)]
    if isinstance(value, OneOf):
        return [o for a in value.alternatives for o in origins(a)]
    if isinstance(value, Placeholder):
        return origins(value.default)
    return []


def _span_to_json(span: Span) -> list:
    # The text is the literal's own: not written twice.
    return [span.path, span.start, span.end, span.line, span.column, span.end_line, span.end_column, span.encoding]


def _span_from_json(data, text: str) -> Span:
    if not (isinstance(data, list) and len(data) == 8 and type(data[0]) is str and type(data[7]) is str
            and all(type(v) is int for v in data[1:7])):
        raise TypeError("malformed origin")
    return Span(*data, text=text)


def to_json(value: "Value | None"):
    if value is None:
        return None
    if isinstance(value, Lit):
        if value.origin is not None:
            return {"k": "Lit", "text": value.text, "at": _span_to_json(value.origin)}
        return {"k": "Lit", "text": value.text}
    if isinstance(value, Dynamic):
        return {"k": "Dynamic", "reason": value.reason, **({"per": value.per} if value.per else {})}
    if isinstance(value, ConstRef):
        return {"k": "ConstRef", "language": value.language, "scopes": list(value.scopes), "name": value.name,
                "spring": value.spring}
    if isinstance(value, Property):
        return {"k": "Property", "language": value.language, "scopes": list(value.scopes), "path": list(value.path)}
    if isinstance(value, Param):
        return {"k": "Param", "index": value.index, "name": value.name, "function": value.function,
                **({"default": to_json(value.default)} if value.default is not None else {})}
    if isinstance(value, Placeholder):
        return {"k": "Placeholder", "key": value.key, "default": to_json(value.default)}
    if isinstance(value, Concat):
        return {"k": "Concat", "parts": [to_json(p) for p in value.parts]}
    if isinstance(value, OneOf):
        return {"k": "OneOf", "alternatives": [to_json(a) for a in value.alternatives]}
    raise TypeError(f"not a value: {value!r}")


def from_json(data) -> "Value | None":
    """The value `to_json` wrote; every field's type is checked (cached facts are input, not trusted memory)."""
    if data is None:
        return None
    kind = data["k"]
    if kind == "Lit":
        text = _str(data["text"])
        return Lit(text, _span_from_json(data["at"], text) if "at" in data else None)
    if kind == "Dynamic":
        per = _str(data.get("per", ""))
        if per not in PER:
            raise ValueError(f"unknown uniqueness {per!r}")
        return Dynamic(_str(data["reason"]), per)
    if kind == "ConstRef":
        spring = data.get("spring", False)
        if type(spring) is not bool:
            raise TypeError("expected a boolean")
        return ConstRef(_str(data["language"]), tuple(_str(x) for x in data["scopes"]), _str(data["name"]), spring)
    if kind == "Property":
        path = tuple(_str(x) for x in data["path"])
        if not path:
            raise ValueError("a property without a path")
        return Property(_str(data["language"]), tuple(_str(x) for x in data["scopes"]), path)
    if kind == "Param":
        index = data["index"]
        if type(index) is not int or index < -1:
            raise TypeError("expected a parameter position")
        return Param(index, _str(data["name"]), _str(data["function"]), from_json(data.get("default")))
    if kind == "Placeholder":
        return Placeholder(_str(data["key"]), from_json(data["default"]))
    if kind == "Concat":
        return Concat(tuple(from_json(p) for p in data["parts"]))
    if kind == "OneOf":
        decoded = tuple(from_json(a) for a in data["alternatives"])
        if len(decoded) < 2 or any(a is None or isinstance(a, OneOf) for a in decoded):
            raise ValueError("malformed OneOf")
        return OneOf(decoded)
    raise ValueError(f"unknown value kind {kind!r}")


def _str(value) -> str:
    if type(value) is not str:
        raise TypeError("expected a string")
    return value


__all__ = [
    "Lit",
    "Dynamic",
    "ConstRef",
    "Param",
    "Property",
    "ConfigSource",
    "Placeholder",
    "Concat",
    "OneOf",
    "Value",
    "MAX_ALTERNATIVES",
    "alternatives",
    "concat",
    "known_texts",
    "literal_texts",
    "map_literals",
    "one_of",
    "origins",
    "parse_spring_string",
    "without_origins",
    "to_json",
    "from_json",
]
assert set(_KINDS) == {"Lit", "Dynamic", "ConstRef", "Param", "Property", "Placeholder", "Concat", "OneOf"}
