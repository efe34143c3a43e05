"""The Java frontend: `.java` files, parsed with tree-sitter (`rmqlint.frontends.java.parse`), and the project-wide
lookups the linker needs for Java: the class a constant reference or a listener class name denotes.

Lookups, as the compiler would resolve them:
- a name written in a file is first qualified through that file's single-type imports (`Names.X` with
  `import com.a.Names` means `com.a.Names`);
- candidate files are the ones named after a segment of the scope (public classes live in a file of their name;
  nested ones in the file of an enclosing class), else, for package-private classes, files in the referring
  file's directory (and the qualifier's package directory) that mention the name, parsed on demand;
- a candidate declares the class when the qualifier fits it (nothing, its enclosing classes, its package, or its
  package and enclosing classes); among several unqualified candidates the referring file's package wins.
"""

from __future__ import annotations

from typing import Callable, Optional

from rmqlint.facts import ClientFact, FileFacts, Listener, Template
from rmqlint.frontends.base import ConstantMatch, Frontend, SourceFiles
from rmqlint.frontends.java.prefilter import may_use_clients
from rmqlint.values import ConstRef, Property


class JavaFrontend(Frontend):
    name = "java"
    languages = ("java",)
    # tree-sitter's tree takes up to 250 bytes per byte of dense source (one-line array literals; many short
    # statements 170): peak RSS of `rmqplan check` on a file of one 0.5 MB array 170 MB, 0.75 MB 232 MB, 1 MB 295 MB
    # (`rmqlint` alone 20 MB less), and 30 MB of it crashed the process. 768 KB keeps a run under 300 MB; a
    # hand-written class is far smaller, a larger file is generated code (an RMQ900 note names it).
    max_bytes = 768 * 1024

    def claims(self, path: str) -> bool:
        return path.endswith(".java")

    def worth_parsing(self, data: bytes) -> bool:
        return may_use_clients(data)

    def parse(self, path: str, data: bytes) -> FileFacts:
        from rmqlint.frontends.java.parse import parse_java

        return parse_java(path, data)

    # --- lookups ----------------------------------------------------------------------------------------------

    def find_constant(self, ref: ConstRef, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        for written in ref.scopes:
            scope = imported(written, ctx)
            key = f"{last(scope)}.{ref.name}"
            found = [(f, key) for f in self.classes(scope, ctx, files) if key in f.constants]
            if found:
                return ConstantMatch(found, f"{scope}.{ref.name}")
        return None

    def find_property(self, ref: Property, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        for written in ref.scopes:
            scope = imported(written, ctx)
            key = ".".join((last(scope), *ref.path))
            found = [(f, key) for f in self.classes(scope, ctx, files) if key in f.properties]
            if found:
                return ConstantMatch(found, f"{scope}.{'.'.join(ref.path)}")
        return None

    def find_calls(self, templates: list[tuple[Template, FileFacts]], files: SourceFiles,
                   callers: Callable[[str], bool]) -> list[tuple[int, str, ClientFact]]:
        """Calls of the templates' methods in files that name a template's class and method (one byte search over
        the files for all templates), as `Class.method(..)` (static), `x.method(..)` on a variable or field of the
        class's type, or unqualified in a subclass; the names resolve through each caller's imports and package as
        the compiler would."""
        from rmqlint.frontends.java.parse import java_file
        from rmqlint.frontends.java.templates import calls_elsewhere

        wanted = []  # per template: (class simple name, the words a call is written with: `method(`)
        for template, _declaring in templates:
            if template.method.startswith("@"):  # an annotation's elements: bound at each use of the annotation
                owner = last(template.method[1:])
                words = (f"@{owner}",)
            else:
                qualified, _, name = template.method.rpartition("/")[0].rpartition(".")
                owner = last(qualified)
                # A constructor is called as `new Owner(..)` (`new Owner<>(..)`), or by a subclass's `super(..)`.
                words = (f"{owner}(", f"{owner}<", "super(") if name == "<init>" else (f"{name}(",)
            wanted.append((owner.encode(), tuple(w.encode() for w in words)))
        calls = tuple(sorted({w for _owner, words in wanted for w in words}))  # searched first: owners only where
        found: list[tuple[int, str, ClientFact]] = []  # a call is
        for path in files.paths(self.name):
            if not callers(path):
                continue
            named = files.mentions(path, calls)
            if named:
                named = named | files.mentions(path, tuple(sorted({owner for owner, words in wanted
                                                                   if any(w in named for w in words)})))
            chosen = [i for i, (owner, words) in enumerate(wanted) if any(w in named for w in words)
                      and owner in named and templates[i][1].path != path]
            caller = files.ensure_parsed(path) if chosen else None
            data = files.peek(path) if caller is not None else None
            java = java_file(path, data) if data is not None else None
            if java is None:
                continue
            for index in chosen:
                template, declaring = templates[index]

                def is_owner(written: str, _at, caller=caller, declaring=declaring, key=template.method) -> bool:
                    found = self.classes(imported(written, caller), caller, files)
                    if key.startswith("@"):  # the annotation is declared elsewhere than the code reading it
                        return any(f"{f.package}.{last(written)}".lstrip(".") == key[1:] for f in found)
                    return any(f.path == declaring.path for f in found)

                found.extend((index, path, client) for client in calls_elsewhere(java, template, is_owner))
        return found

    def find_listener(self, written: str, ctx: FileFacts, files: SourceFiles) -> Optional[tuple[FileFacts,
                                                                                                Listener]]:
        scope = imported(written, ctx)
        declaring = self.classes(scope, ctx, files)
        if len(declaring) != 1:
            return None  # not in the project, or several candidates: which one runs is not known
        linked = declaring[0].listener_classes.get(last(scope))
        return (declaring[0], linked) if linked is not None else None

    def classes(self, scope: str, ctx: FileFacts, files: SourceFiles) -> list[FileFacts]:
        """The files declaring the class `scope` names, as seen from `ctx`."""
        memo = files.memo("java.classes")
        memo_key = (scope, ctx.package, ctx.path.rpartition("/")[0])
        if memo_key not in memo:
            simple = last(scope)
            qualifier = scope.split(".")[:-1]
            matching = [f for f in self._candidates(scope, ctx.path, files)
                        if simple in f.classes and qualifies(qualifier, f)]
            if not qualifier and len(matching) > 1:
                # An unqualified name the frontend could not pin down: the referring file's own package first.
                matching = [f for f in matching if f.package == ctx.package] or matching
            memo[memo_key] = matching
        return memo[memo_key]

    def _candidates(self, scope: str, near: str, files: SourceFiles) -> list[FileFacts]:
        """Every Java file declaring the class named by the last segment of `scope`, parsing files on demand."""
        by_stem, by_dir = self._name_indexes(files)
        segments = scope.split(".")
        simple = segments[-1]
        for segment in segments:
            for path in by_stem.get(segment, ()):
                files.ensure_parsed(path)
        if not self._declaring(files).get(simple):
            # A package-private class in another file of the same package: look next to the referring file (and
            # in the directory of the qualifier's package), cheaply, before parsing.
            directories = {near.rpartition("/")[0]}
            if len(segments) > 1:
                suffix = "/".join(segments[:-1])
                directories.update(d for d in by_dir if d == suffix or d.endswith("/" + suffix))
            needles = tuple(f"{kw} {simple}".encode() for kw in ("class", "interface", "enum", "record"))
            for directory in sorted(directories):
                for path in by_dir.get(directory, ()):
                    if path in files.facts:
                        continue
                    data = files.peek(path)
                    if data is not None and any(n in data for n in needles):
                        files.ensure_parsed(path)
        return list(self._declaring(files).get(simple, ()))

    def _name_indexes(self, files: SourceFiles) -> tuple[dict, dict]:
        memo = files.memo("java.names")
        if not memo:
            by_stem: dict[str, list[str]] = {}
            by_dir: dict[str, list[str]] = {}
            for path in files.paths(self.name):
                directory, _, file_name = path.rpartition("/")
                by_stem.setdefault(file_name[:-5], []).append(path)
                by_dir.setdefault(directory, []).append(path)
            memo["stem"], memo["dir"] = by_stem, by_dir
        return memo["stem"], memo["dir"]

    def _declaring(self, files: SourceFiles) -> dict[str, list[FileFacts]]:
        """Simple class name -> the parsed Java files declaring it, kept up to date as files are parsed."""
        memo = files.memo("java.declaring")
        seen = memo.setdefault("seen", set())
        declaring = memo.setdefault("by_name", {})
        if len(seen) != len(files.facts):
            for path, facts in files.facts.items():
                if path not in seen:
                    seen.add(path)
                    if facts.language == "java":
                        for name in facts.classes:
                            declaring.setdefault(name, []).append(facts)
        return declaring


def imported(scope: str, ctx: FileFacts) -> str:
    """Qualify a scope through the referring file's single-type imports."""
    if not ctx.imports:
        return scope
    head, dot, rest = scope.partition(".")
    qualified = ctx.imports.get(head)
    return qualified + dot + rest if qualified else scope


def last(scope: str) -> str:
    return scope.rsplit(".", 1)[-1]


def qualifies(qualifier: list[str], facts: FileFacts) -> bool:
    """Does `qualifier` (the segments before the class name) fit this file: nothing, its enclosing classes,
    its package, or its package followed by enclosing classes?"""
    rest = list(qualifier)
    while rest and rest[-1] in facts.classes:
        rest.pop()
    return not rest or ".".join(rest) == facts.package
