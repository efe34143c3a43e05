"""The whole project as rules see it: every file's facts with values resolved by the linker.

In a `Project`, every `Value` inside clients, subscriptions, produced tags and connections is either `Lit` (known
exactly) or `Dynamic` (unknowable): the linker (`rmqlint.linker`) has replaced constant references, Spring
placeholders and concatenations. Rules iterate `clients()`, `produced()` and `connections()`; `config` is the merged
Spring configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from rmqlint.facts import ClientFact, Connection, FileFacts, IdentityUse, ProducedTag


@dataclass
class Project:
    root: str
    files: dict[str, FileFacts] = field(default_factory=dict)  # path -> resolved facts
    config: dict[str, str] = field(default_factory=dict)  # Spring keys (canonical form) -> resolved text

    def clients(self) -> Iterator[tuple[FileFacts, ClientFact]]:
        for path in sorted(self.files):
            facts = self.files[path]
            for client in facts.clients:
                yield facts, client

    def produced(self) -> Iterator[tuple[FileFacts, ProducedTag]]:
        for path in sorted(self.files):
            facts = self.files[path]
            for tag in facts.produced:
                yield facts, tag

    def connections(self) -> Iterator[tuple[FileFacts, Connection]]:
        for path in sorted(self.files):
            facts = self.files[path]
            for connection in facts.connections:
                yield facts, connection

    def identity_uses(self) -> Iterator[tuple[FileFacts, IdentityUse]]:
        for path in sorted(self.files):
            facts = self.files[path]
            for use in facts.identity_uses:
                yield facts, use
