"""What rules share to build their fixes (`rmqlint.fixes`): the literal behind a value's text, with its place; the
`import` a Python fix needs for a module it names."""

from __future__ import annotations

from rmqlint.facts import FileFacts, Location, Setting
from rmqlint.fixes import SAFE, UNSAFE, Edit, in_slot
from rmqlint.project import Project
from rmqlint.spans import Span
from rmqlint.values import Lit, Value, alternatives

# Said of a fix that edits a value other code may read too.
READ_ELSEWHERE = "where the value is written (unsafe: other code may read it too)"


class Unfixable(Exception):
    """No fix can be offered; the message says why, in words that can end a finding's message."""


def written_literal(value: Value | None, text: str) -> Lit | None:
    """The literal alternative of `value` with this text, when its place is known (a fix can edit it there)."""
    if value is None:
        return None
    for alternative in alternatives(value):
        if isinstance(alternative, Lit) and alternative.text == text and alternative.origin is not None:
            return alternative
    return None


def applicability_at(project: Project, origin: Span, place: Location) -> str:
    """SAFE when the literal a fix edits is read only at the place the finding is about: it is written inside it
    (the setter's argument, the annotation attribute, the configuration entry), or it is the value of a
    configuration key of RocketMQ's own (`rocketmq.*`, read by the starter for this client). UNSAFE when it is
    written elsewhere, where code may read it under its name (a constant, a variable, a key a placeholder names):
    that code may depend on what it was (a list that it splits on ",")."""
    inside = origin.path == place.path and (place.line, place.column) <= (origin.line, origin.column) \
        and (origin.end_line, origin.end_column) <= (place.end_line, place.end_column)
    if inside:
        return SAFE
    facts = project.files.get(origin.path)
    for entry in facts.config if facts is not None else ():
        if entry.span is not None and entry.span.start <= origin.start and origin.end <= entry.span.end:
            return SAFE if entry.key.lower().startswith("rocketmq.") else UNSAFE
    return UNSAFE


def python_module(facts: FileFacts, setting: Setting, module: str) -> list[Edit]:
    """The edits that let a Python expression written at `setting` name the module `module` (a top-level name such
    as `uuid`): none when `import module` already binds it before the place; else `import module` at the last
    import place before the statement holding it (after an import rather than before the first statement), so
    the name is bound before that code runs. Raises Unfixable where the name is something else there: a
    parameter or local, a module name bound otherwise, or maybe by a star import."""
    at = setting.written.start
    bound = facts.module_names.get(module)
    if module in setting.local_names or (bound is not None and bound < 0) or "*" in facts.module_names:
        raise Unfixable(f'"{module}" is not the {module} module at this call')
    if bound is not None and bound <= at:
        return []
    places = [slot for slot in facts.import_slots if slot.span.path == setting.written.path
              and (slot.span.start if slot.before else slot.span.end) <= at]
    after_import = [slot for slot in places if not slot.before]
    if not places:
        raise Unfixable(f'no line of its own for "import {module}" before this call')
    return [in_slot((after_import or places)[-1], module)]


def go_packages(facts: FileFacts, setting: Setting, packages: tuple[str, ...]) -> list[Edit]:
    """The edits that let a Go expression written at `setting` use the standard packages `packages` (`os`,
    `strconv`...): none for one the file imports already; the others added after the file's last import (Go's
    imports are the whole file's). Raises Unfixable where a name is something else there (a local, another
    package imported under that name, a declaration of the package)."""
    needed = []
    for package in packages:
        bound = facts.module_names.get(package)
        if package in setting.local_names or bound == -1:
            raise Unfixable(f'"{package}" is not the {package} package at this call')
        if bound is None:
            needed.append(package)
    if not needed:
        return []
    slots = [slot for slot in facts.import_slots if slot.span.path == setting.written.path]
    if not slots:
        raise Unfixable(f'no place for the import of "{needed[0]}" in this file')
    slot = slots[-1]
    return [Edit(slot.span, slot.span.text + "".join(f'{slot.prefix}"{package}"' for package in needed))]
