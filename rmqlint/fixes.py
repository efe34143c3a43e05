"""Fixes: what a finding would change in the code to go away, as data (the ruff and Fixit model).

A `Fix` is a short message, an applicability and a list of `Edit`s; an edit replaces the bytes of one `Span` of
one file with new text. Rules build them from the spans the frontends recorded (a literal's content, a setter's
argument, a place for one more setter), with the helpers below; `rmqlint.apply` applies them, or prints them as
a diff. Applicability, as ruff has it:
- safe: the edit does what the finding's own message says is meant, and nothing else (a `,` between name servers
  becomes the `;` the client splits on);
- unsafe: the edit changes what the program does beyond the finding (a consumer's client id changes), so it is
  applied only with `--unsafe-fixes`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rmqlint.spans import Slot, Span

SAFE = "safe"
UNSAFE = "unsafe"
APPLICABILITIES = (SAFE, UNSAFE)


@dataclass(frozen=True)
class Edit:
    """Replace what `span` covers (its `text`, checked before writing) with `replacement`."""

    span: Span
    replacement: str

    @property
    def path(self) -> str:
        return self.span.path

    def moved(self, prefix: str) -> "Edit":
        return Edit(self.span.moved(prefix), self.replacement) if prefix else self


@dataclass(frozen=True)
class Fix:
    message: str  # what the fix does: 'separate the addresses with ";"'
    edits: tuple  # tuple[Edit, ...], in no particular order; never overlapping one another
    applicability: str = SAFE
    # (path, content hash) of each file it edits, as the run that found it read the file (set by the engine)
    digests: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "edits", tuple(sorted(self.edits, key=lambda e: (e.path, e.span.start))))
        if self.applicability not in APPLICABILITIES:
            raise ValueError(f"unknown applicability {self.applicability!r}")
        for a, b in zip(self.edits, self.edits[1:]):
            if a.path == b.path and b.span.start < a.span.end:
                raise ValueError("the edits of one fix overlap")

    @property
    def paths(self) -> set[str]:
        return {edit.path for edit in self.edits}

    def moved(self, prefix: str) -> "Fix":
        if not prefix:
            return self
        return Fix(self.message, tuple(e.moved(prefix) for e in self.edits), self.applicability,
                   tuple((f"{prefix}/{path}", digest) for path, digest in self.digests))

    def renamed(self, paths: dict[str, str]) -> "Fix":
        """The same fix with each file `path` named `paths[path]` (the file a symbolic link names)."""
        if all(paths.get(path, path) == path for path in self.paths):
            return self
        return Fix(self.message, tuple(Edit(dataclasses.replace(e.span, path=paths.get(e.path, e.path)), e.replacement)
                                       for e in self.edits), self.applicability,
                   tuple((paths.get(path, path), digest) for path, digest in self.digests))


# --- building edits -------------------------------------------------------------------------------------------


def replace(span: Span, text: str) -> Edit:
    return Edit(span, text)


def replace_parts(origin: Span, parts: list[tuple[int, int, str]]) -> list[Edit]:
    """Edits replacing `origin.text[first:last]` with each `text`, for text written exactly as it reads."""
    return [Edit(origin.sub(first, last), text) for first, last, text in parts]


def after(span: Span, text: str) -> Edit:
    """Write `text` right after `span` (the span stays, and is checked)."""
    return Edit(span, span.text + text)


def wrapped(span: Span, head: str, tail: str) -> Edit:
    """The expression at `span` with `head` before it and `tail` after it, in parentheses unless it is an operand
    that needs none (`"node" + "@" + pid`, but `(c ? "a" : "b") + "@" + pid`)."""
    inner = span.text if span.operand else f"({span.text})"
    return Edit(span, f"{head}{inner}{tail}")


def appended(span: Span, literal: Span | None, text: str, expression: str) -> Edit:
    """The expression at `span` followed by the literal `text` and then ` + expression`: inside the string's quotes
    when `span` is just a string literal whose content is `literal` (`"node@" + pid`), else concatenated
    (`name + "@" + pid`). `text` must need no escape in a string literal."""
    if literal is not None and literal.path == span.path and span.start < literal.start <= literal.end < span.end \
            and span.text.endswith(span.text[-1] * (span.end - literal.end)) and span.text[-1] in "'\"":
        closing = span.end - literal.end
        return Edit(span, f"{span.text[:-closing]}{text}{span.text[-closing:]} + {expression}")
    return wrapped(span, "", f' + "{text}" + {expression}')


def in_slot(slot: Slot, name: str, value: str = "") -> Edit:
    """Write one more setting (or an import) in `slot`: `consumer.setConsumeThreadMax(32);` on a line of its own
    after the existing setter, `, consumeThreadMax = 32` after the existing attribute, `import uuid`."""
    if slot.kind == "call":
        written = f"{slot.prefix}{name}({value}){slot.suffix}"
    elif slot.kind == "attribute":
        written = f"{slot.prefix}{name} = {value}{slot.suffix}"
    elif slot.kind == "import":
        written = f"{slot.prefix}import {name}{slot.suffix}"
    else:
        raise ValueError(f"unknown slot kind {slot.kind!r}")
    span = slot.span
    return Edit(span, written + span.text if slot.before else span.text + written)


def removal(span: Span) -> Edit:
    return Edit(span, "")
