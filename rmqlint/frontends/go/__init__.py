"""The Go frontend: `.go` files (rocketmq-client-go v2), parsed with tree-sitter (`rmqlint.frontends.go.parse`),
and the project-wide lookups the linker needs for Go: the package a constant or a consume callback of another file
belongs to.

A Go package is a directory. A name of the file's own package that the file does not declare is looked for in the
other files of its directory (`dir:<directory>`); a name of an imported package (`orders/internal/mq.Group`) in the
directory the import path names under the module a go.mod of the project declares (`rmq/` for
`github.com/gowins/dionysus/rmq` where go.mod says `module github.com/gowins/dionysus`; a `replace` by a local
directory too), or else in the directory that shares the longest ending with the import path, at least two elements
(`internal/mq` for `github.com/acme/orders/internal/mq`), when one directory does. `_test.go` files declare nothing
other files use. `vendor/` (the dependencies' code, the client's own included) and `testdata/` are not read, as the
go tool leaves them out of the module's packages.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Optional

from rmqlint.facts import ClientFact, FileFacts, Listener, Template
from rmqlint.frontends.base import ConstantMatch, Frontend, SourceFiles
from rmqlint.frontends.go.prefilter import may_use_clients
from rmqlint.values import ConstRef

_SKIPPED = re.compile(r"(?:^|/)(?:vendor|testdata)/")


class GoFrontend(Frontend):
    name = "go"
    languages = ("go",)
    # tree-sitter's tree of Go takes about 190 bytes per byte of dense source (a one-line slice literal of small
    # numbers, as generated tables are written; a bare parse of 1 MB peaks at 210 MB), and the analysis holds little
    # beside it (walks by cursor, literals of slices never listed): peak RSS of `rmqlint FILE --no-cache` on such a
    # file of 0.5 MB 125 MB, of 0.74 MB 173 MB; a function of 0.5 MB of short statements 71 MB. 768 KB keeps a run
    # well under 300 MB, as Java's limit does; a hand-written file is far smaller, a larger one generated (RMQ900).
    max_bytes = 768 * 1024

    def claims(self, path: str) -> bool:
        return path.endswith(".go") and not _SKIPPED.search(path)

    def worth_parsing(self, data: bytes) -> bool:
        return may_use_clients(data)

    def parse(self, path: str, data: bytes) -> FileFacts:
        from rmqlint.frontends.go.parse import parse_go

        return parse_go(path, data)

    # --- lookups ----------------------------------------------------------------------------------------------

    def find_constant(self, ref: ConstRef, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        scope = ref.scopes[0] if ref.scopes else ""
        directory = self.package_directory(scope, files)
        if directory is None:
            return None
        declaring = [f for f in self._package_files(directory, files) if ref.name in f.constants]
        if not declaring:
            return None
        # A package-level variable another file of the package assigns is not a constant.
        variable = ref.name.partition(".")[0]
        assigns = re.compile(rb"(?<![\w.])" + re.escape(variable.encode()) + rb"(?:\.\w+)?\s*(?:[-+*/|&]?=)(?!=)")
        for path in files.paths(self.name):
            if path.rpartition("/")[0] == directory and all(path != f.path for f in declaring):
                data = files.peek(path)
                if data is not None and assigns.search(data):
                    return None
        return ConstantMatch([(f, ref.name) for f in declaring], f"{scope.removeprefix('dir:')}.{ref.name}")

    def find_listener(self, written: str, ctx: FileFacts, files: SourceFiles) -> Optional[tuple[FileFacts, Listener]]:
        scope, _, name = written.rpartition(":")
        directory = self.package_directory(scope, files)
        if directory is None:
            return None
        declaring = [f for f in self._package_files(directory, files) if name in f.listener_classes]
        return (declaring[0], declaring[0].listener_classes[name]) if len(declaring) == 1 else None

    def find_calls(self, templates: list[tuple[Template, FileFacts]], files: SourceFiles,
                   callers: Callable[[str], bool]) -> list[tuple[int, str, Optional[ClientFact]]]:
        """Calls of the templates' functions in other files: `NewConsumer(..)` in a file of the function's package,
        `mq.NewConsumer(..)` where `mq` imports it (one byte search over the files for every template's name
        first); each call makes a client with its arguments, subscribed as its caller subscribes the result (None
        when the caller never starts the consumer the function returns)."""
        from rmqlint.frontends.go.clients import PACKAGES, ClientExtractor
        from rmqlint.frontends.go.parse import go_file

        wanted = [template.method.rpartition(".") for template, _declaring in templates]  # (directory, ".", name)
        names = tuple(sorted({f"{name}(".encode() for _directory, _dot, name in wanted}))
        found: list[tuple[int, str, Optional[ClientFact]]] = []
        returned: dict[int, bool] = {}

        def returns(index: int) -> bool:
            """Whether the template's function returns its client (the declaring file read again, for callers
            that neither start nor hand on what they get only: a consumer they never start never runs)."""
            if index not in returned:
                template, declaring = templates[index]
                data = files.peek(declaring.path)
                go = go_file(declaring.path, data) if data is not None else None
                extractor = ClientExtractor(go) if go is not None else None
                if extractor is not None:
                    extractor.run()
                returned[index] = extractor is not None and extractor.returns(
                    template.method.rpartition(".")[2], template.client.location)
            return returned[index]

        for path in files.paths(self.name):
            if not callers(path):
                continue
            named = files.mentions(path, names)
            chosen = [i for i, (_d, _dot, name) in enumerate(wanted) if f"{name}(".encode() in named
                      and templates[i][1].path != path]  # a file's own calls are among its clients already
            caller = files.ensure_parsed(path) if chosen else None
            if caller is None:
                continue
            # Which of the names are the templates' here: the file's own package, or a package it imports. The
            # file is parsed again for its calls only when one is.
            seeds: dict[tuple[str, str], int] = {}
            for index in chosen:
                directory, _dot, name = wanted[index]
                if directory == path.rpartition("/")[0]:
                    seeds[("", name)] = index
                for imported in caller.imports.values():
                    # The client's own packages (its repository, or a fork a go.mod replaces it by) are the API the
                    # frontend reads, not the project's functions: `rocketmq.NewPushConsumer(..)` makes one client.
                    if imported not in PACKAGES and self.package_directory(imported, files) == directory:
                        seeds[(imported, name)] = index
            data = files.peek(path) if seeds else None
            go = go_file(path, data) if data is not None else None
            if go is None:
                continue
            extractor = ClientExtractor(go, {called: (templates[index][0].client, templates[index][0].method)
                                             for called, index in seeds.items()},
                                        lambda called, indices=seeds: returns(indices[called]))
            extractor.run()
            found += [(seeds[called], path, client) for called, client in extractor.seeded]
        return found

    def package_directory(self, scope: str, files: SourceFiles) -> Optional[str]:
        """The project directory a package scope names: `dir:<directory>` itself; an import path under a module a
        go.mod of the project declares (or replaces by a local directory), the directory it names there, as the go
        tool finds it; else the one directory whose path shares the longest ending with the import path, two
        elements at least (None when none does, or several do)."""
        if scope.startswith("dir:"):
            return scope[4:]
        memo = files.memo("go.directories")
        if "all" not in memo:
            memo["all"] = sorted({p.rpartition("/")[0] for p in files.paths(self.name)})
            memo["directories"] = set(memo["all"])
            memo["modules"] = _modules(memo["all"], files)
        for module, directory in memo["modules"]:
            if scope == module or scope.startswith(module + "/"):
                target = posixpath.join(directory, scope[len(module):].lstrip("/")).rstrip("/")
                return target if target in memo["directories"] else None
        parts = scope.split("/")
        best: list[str] = []
        length = 1  # one element in common (`config`) may be any package of that name: not enough
        for directory in memo["all"]:
            segments = directory.split("/") if directory else []
            matched = 0
            while matched < min(len(segments), len(parts)) and segments[-1 - matched] == parts[-1 - matched]:
                matched += 1
            if matched > length:
                best, length = [directory], matched
            elif matched == length and matched > 1:
                best.append(directory)
        return best[0] if len(best) == 1 else None

    def _package_files(self, directory: str, files: SourceFiles) -> list[FileFacts]:
        found = []
        for path in files.paths(self.name):
            if path.rpartition("/")[0] == directory and not path.endswith("_test.go"):
                facts = files.ensure_parsed(path)
                if facts is not None:
                    found.append(facts)
        return found


def _modules(directories: list[str], files: SourceFiles) -> list[tuple[str, str]]:
    """(module path, its directory) for the go.mod of each directory holding Go files and of each above them,
    longest module path first: an import path is looked for in the innermost module that may hold it."""
    from rmqplan.sources.buildfiles.gomod import module_directories

    above = {""}
    for directory in directories:
        while directory:
            above.add(directory)
            directory = directory.rpartition("/")[0]
    found: dict[str, str] = {}
    for directory in sorted(above):
        data = files.build_file(posixpath.join(directory, "go.mod"))
        if data is None:
            continue
        for module, target in module_directories(data.decode("utf-8", "replace")):
            located = posixpath.normpath(posixpath.join(directory, target)) if target else directory
            if located != ".." and not located.startswith("../"):  # a replacement outside the project: not read
                found.setdefault(module, "" if located == "." else located)
    return sorted(found.items(), key=lambda item: -len(item[0]))
