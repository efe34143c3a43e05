"""The Python frontend: `.py` files, parsed with libcst (`rmqlint.frontends.python.parse`), and the lookups the
linker needs for Python: the module a constant or an imported callback comes from.

A module is found by its path (`pkg/settings.py` is `pkg.settings`), also under a source folder
(`src/pkg/settings.py`): a file whose dotted path ends with the module's. An exact path wins over such suffix
matches. Relative imports (`.settings`, `..conf`) are resolved against the referring file's package.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from rmqlint.facts import ClientFact, FileFacts, Listener, Template
from rmqlint.frontends.base import ConstantMatch, Frontend, SourceFiles
from rmqlint.text import module_of
from rmqlint.values import ConstRef


# An import statement of a RocketMQ client package, at the start of a line or after a `;` (a byte search, not a
# parse: a docstring that happens to read like one only costs a parse).
_IMPORTS_ROCKETMQ = re.compile(
    rb"(?m)(?:^(?:\xef\xbb\xbf)?|;)[ \t]*(?:from[ \t]+rocketmq\b|import[ \t]+(?:[\w.]+[ \t]*(?:as[ \t]+\w+[ \t]*)?,[ \t]*)*rocketmq\b)")


def imports_rocketmq(data: bytes) -> bool:
    """Cheap prefilter: every Python fact starts from a name imported from a RocketMQ client package, so a file
    that imports none (that only names RocketMQ in a string or a comment) is parsed only when another file asks
    for one of its constants or callbacks."""
    return b"rocketmq" in data and _IMPORTS_ROCKETMQ.search(data) is not None


class PythonFrontend(Frontend):
    name = "python"
    languages = ("python",)
    # The stdlib parser runs on all of it: about 60 bytes per byte of ordinary code at its peak, 600 for the densest
    # (250 KB of `x=1` lines: 163 MB for `ast.parse` alone, `rmqplan check` 255 MB; a one-line list of numbers 0.5
    # MB, 309 MB). At 192 KB the densest stays near 200 MB. What libcst is given after is bounded apart
    # (python.parse.MAX_NODES).
    max_bytes = 192 * 1024

    def claims(self, path: str) -> bool:
        return path.endswith(".py")

    def worth_parsing(self, data: bytes) -> bool:
        return imports_rocketmq(data)

    def parse(self, path: str, data: bytes) -> FileFacts:
        from rmqlint.frontends.python.parse import parse_python

        return parse_python(path, data)

    def find_constant(self, ref: ConstRef, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        for scope in ref.scopes:
            module = absolute_module(scope, ctx.path)
            if module is None:
                continue
            found = [(f, ref.name) for f in self.modules(module, files) if ref.name in f.constants]
            if found:
                return ConstantMatch(found, f"{module}.{ref.name}")
        return None

    def find_calls(self, templates: list[tuple[Template, FileFacts]], files: SourceFiles,
                   callers: Callable[[str], bool]) -> list[tuple[int, str, ClientFact]]:
        """Calls of the templates' functions in modules that name a template's module and function (a byte search
        first), through the module's imports; such a module is parsed whole (its calls need not touch RocketMQ)."""
        from rmqlint.frontends.python.parse import module_index
        from rmqlint.frontends.python.templates import calls_elsewhere

        wanted = []
        for template, _declaring in templates:
            module, _, name = template.method.rpartition(".")
            wanted.append((module.rpartition(".")[2].encode(), name.encode()))
        calls = tuple(sorted({pair[1] for pair in wanted}))  # searched first: the owners only where a call is
        found: list[tuple[int, str, ClientFact]] = []
        for path in files.paths(self.name):
            if not callers(path):
                continue
            named = files.mentions(path, calls)
            if named:
                named = named | files.mentions(path, tuple(sorted({module for module, name in wanted if name in named})))
            chosen = [i for i, (module, name) in enumerate(wanted) if name in named and module in named
                      and templates[i][1].path != path]
            data = files.peek(path) if chosen and files.ensure_parsed(path) is not None else None
            index = module_index(path, data) if data is not None else None
            if index is None:
                continue
            found.extend((chosen[number], path, client)
                         for number, client in calls_elsewhere(index, [templates[i][0] for i in chosen]))
        return found

    def find_listener(self, written: str, ctx: FileFacts, files: SourceFiles) -> Optional[tuple[FileFacts,
                                                                                                Listener]]:
        """The callback `module.function` of the one module of that name, when it publishes one."""
        module, _, name = written.rpartition(".")
        module = absolute_module(module, ctx.path) if module else None
        declaring = self.modules(module, files) if module else []
        if len(declaring) != 1:
            return None  # not in the project, or several modules of that name: which one runs is not known
        linked = declaring[0].listener_classes.get(name)
        return (declaring[0], linked) if linked is not None else None

    def modules(self, module: str, files: SourceFiles) -> list[FileFacts]:
        """The files that are `module`: the one at its exact path, else every file whose path ends with it."""
        memo = files.memo("python.modules")
        if module not in memo:
            found = []
            for path in files.paths(self.name):
                candidate = module_of(path)
                if candidate == module or candidate.endswith("." + module):
                    facts = files.ensure_parsed(path)
                    if facts is not None:
                        found.append(facts)
            memo[module] = [f for f in found if module_of(f.path) == module] or found
        return memo[module]


def absolute_module(scope: str, path: str) -> Optional[str]:
    """Resolve a relative import (`.settings`, `..conf`) against the referring file's package."""
    if not scope.startswith("."):
        return scope
    level = len(scope) - len(scope.lstrip("."))
    package = module_of(path).split(".")
    if not path.endswith("/__init__.py") and path != "__init__.py":
        package = package[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    tail = scope[level:]
    return ".".join([*base, tail] if tail else base) or None
