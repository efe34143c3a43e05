"""What a language is to rmqlint: the `Frontend` interface, and `SourceFiles`, what a frontend may ask of the run.

A frontend says which files it claims, which of them are worth parsing (a byte prefilter), turns one file into
`FileFacts`, and answers the linker's on-demand questions about its language: which files declare a constant
another file refers to, and which file declares a listener class (or callback) a consumer registers by name.
Engine, discovery and linker only talk to frontends through this interface (`rmqlint.frontends.FRONTENDS`).

Frontend modules keep their heavy imports (tree-sitter, libcst, PyYAML) inside `parse` and the lookups, so that
a warm run, which parses nothing, never pays for them.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Optional, Protocol

from rmqlint.facts import ClientFact, FileFacts, Listener, Location, Problem, Template
from rmqlint.values import ConstRef, Property


class SourceFiles(Protocol):
    """The project's files as one run sees them (the engine's source index, or files given in memory)."""

    facts: dict[str, FileFacts]  # every file parsed so far, by path

    def paths(self, frontend: str) -> list[str]:
        """Every project file the named frontend claims, parsed or not, sorted."""

    def ensure_parsed(self, path: str) -> Optional[FileFacts]:
        """The file's facts, parsing it now when it was skipped by the prefilter."""

    def peek(self, path: str) -> Optional[bytes]:
        """The file's bytes, for a cheap search before parsing (read at most once per run)."""

    def mentions(self, path: str, words: tuple[bytes, ...]) -> frozenset[bytes]:
        """The `words` the file's bytes contain (a byte search that a cache may answer without reading)."""

    def build_file(self, path: str) -> Optional[bytes]:
        """A build file's bytes (a `go.mod`: which import paths are the project's packages), None when the
        project has none at that path or it is over 1 MB."""

    def memo(self, name: str) -> dict:
        """A dictionary that lives as long as the run, for a frontend's lookup indexes and memos."""


class ConstantMatch:
    """The files that declare the constant a reference names, and the key of that constant in each file's
    `FileFacts.constants`; `what` names it for messages."""

    __slots__ = ("declarations", "what")

    def __init__(self, declarations: list[tuple[FileFacts, str]], what: str) -> None:
        self.declarations = declarations
        self.what = what


class Frontend:
    name: ClassVar[str]  # "java", "python", "spring": the file kind
    languages: ClassVar[tuple[str, ...]]  # the `FileFacts.language` values of the facts it produces
    # Larger files are reported (RMQ900), not read: generated code and dumps. Set by what parsing one costs.
    max_bytes: ClassVar[int] = 8 * 1024 * 1024

    def claims(self, path: str) -> bool:
        """Whether this frontend reads the file (a relative, '/'-separated path). Cheap: no imports."""
        raise NotImplementedError

    def worth_parsing(self, data: bytes) -> bool:
        """The prefilter: False when parsing the file could yield no client, subscription or produced tag (its
        constants and listener classes are parsed on demand, when the linker asks). Default: always."""
        return True

    def language_of(self, path: str) -> str:
        return self.languages[0]

    def parse(self, path: str, data: bytes) -> FileFacts:
        """The file's facts. Never raises on bad input: problems go to `FileFacts.problems`."""
        raise NotImplementedError

    def problem(self, path: str, message: str, line: int = 1, column: int = 1) -> FileFacts:
        """Facts holding only a problem (RMQ900), for a file that could not be read or parsed."""
        location = Location(path, line, column, line, column + 1)
        return FileFacts(path=path, language=self.language_of(path), problems=[Problem(message, location)])

    # --- on-demand lookups for the linker --------------------------------------------------------------------

    def find_constant(self, ref: ConstRef, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        """The declarations of the constant `ref` (written in `ctx`) names; None when none is in the project."""
        return None

    def find_property(self, ref: Property, ctx: FileFacts, files: SourceFiles) -> Optional[ConstantMatch]:
        """The declarations of what Spring binds into the property `ref` (written in `ctx`) names: keys of the
        declaring files' `FileFacts.properties`; None when no class of the project binds it."""
        return None

    def find_listener(self, written: str, ctx: FileFacts, files: SourceFiles) -> Optional[tuple[FileFacts,
                                                                                                Listener]]:
        """The one file declaring the listener class or callback `written` (as the source of `ctx` writes it)
        and its listener facts; None when it is not in the project or not one file (never a guess)."""
        return None

    def find_calls(self, templates: list[tuple[Template, FileFacts]], files: SourceFiles,
                   callers: Callable[[str], bool]) -> list[tuple[int, str, Optional[ClientFact]]]:
        """The clients the calls of each template's method in other files make (`rmqlint.calls`), as (the
        template's index in `templates`, the caller's path, the client): its parameters bound to the call's
        arguments, configured further by the caller; None for a call whose caller never starts the consumer it gets
        (the call binds the template, and makes nothing that runs). Each template comes with the file declaring it,
        its own values resolved already; the arguments and the caller's settings are not. Only files `callers`
        accepts are read."""
        return []
