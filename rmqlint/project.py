"""The whole project as rules see it: every file's facts with values resolved by the linker.

In a `Project`, every `Value` inside clients, subscriptions, produced tags and connections is either `Lit` (known
exactly) or `Dynamic` (unknowable): the linker (`rmqlint.linker`) has replaced constant references, Spring
placeholders and concatenations. Rules iterate `clients()`, `produced()` and `connections()`; `config` is the merged
Spring configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from rmqlint.facts import ClientFact, Connection, FileFacts, IdentityUse, Location, ProducedTag


@dataclass(frozen=True)
class Release:
    """A RocketMQ client a module's build file names: the artifact, its release (None when not one known release),
    where that is written, and the remoting client it runs (`rocketmq-client`, also through a Spring starter)."""

    artifact: str
    version: Optional[str]
    location: Location
    client_version: Optional[str] = None


@dataclass(frozen=True)
class Placement:
    """A deployment of a module (a Kubernetes workload, a docker-compose service): how many of its processes may
    report one IP, at worst, as the manifests allow. Every process is a container's: pid 1 when it is the
    entrypoint."""

    service: str  # "Deployment orders", "compose worker"
    location: Location  # `hostNetwork: true` / `network_mode: host`, else the replicas line
    host_network: bool
    per_ip: int  # the most processes that may share one IP
    why: str  # the deployment's layout in words


@dataclass(frozen=True)
class Module:
    """A directory with a build file (`rmqplan.sources.buildfiles`) and where the project deploys it."""

    directory: str  # relative to the project root, "" for the root
    name: str
    releases: tuple[Release, ...] = ()
    placements: tuple[Placement, ...] = ()

    def release(self, *artifacts: str) -> Optional[Release]:
        """The first release the module names among `artifacts`, in that order."""
        for artifact in artifacts:
            for release in self.releases:
                if release.artifact == artifact:
                    return release
        return None


@dataclass
class Project:
    root: str
    files: dict[str, FileFacts] = field(default_factory=dict)  # path -> resolved facts
    config: dict[str, str] = field(default_factory=dict)  # Spring keys (canonical form) -> resolved text
    # The build modules and their deployments, read when a rule first asks (`rmqlint.modules`); whether the project
    # deploys anything at all is cheaper to know (its YAML files only).
    modules_loader: Optional[Callable[[], list[Module]]] = field(default=None, repr=False, compare=False)
    deploys_loader: Optional[Callable[[], bool]] = field(default=None, repr=False, compare=False)
    _modules: Optional[list[Module]] = field(default=None, repr=False, compare=False)
    _deploys: Optional[bool] = field(default=None, repr=False, compare=False)

    @property
    def deploys(self) -> bool:
        """Whether the project's files describe a deployment (a Kubernetes workload, a docker-compose service)."""
        if self._deploys is None:
            self._deploys = self.deploys_loader() if self.deploys_loader is not None else \
                any(m.placements for m in self.modules)
        return self._deploys

    @property
    def modules(self) -> list[Module]:
        if self._modules is None:
            self._modules = self.modules_loader() if self.modules_loader is not None else []
        return self._modules

    def configures(self, directory: str, *keys: str) -> bool:
        """Whether the Spring configuration files under `directory` set every one of `keys` (relaxed names), to
        anything but blank text."""
        from rmqlint.text import canonical_key
        from rmqlint.values import Lit

        prefix = directory + "/" if directory else ""
        present = {canonical_key(entry.key) for path, facts in self.files.items() if path.startswith(prefix)
                   for entry in facts.config if not (isinstance(entry.value, Lit) and not entry.value.text.strip())}
        return all(canonical_key(key) in present for key in keys)

    def config_keys(self, directory: str) -> set[str]:
        """The relaxed names of the keys the Spring configuration files under `directory` set."""
        from rmqlint.text import canonical_key

        prefix = directory + "/" if directory else ""
        return {canonical_key(entry.key) for path, facts in self.files.items() if path.startswith(prefix)
                for entry in facts.config}

    def module_of(self, path: str) -> Optional[Module]:
        """The module whose directory is the nearest one above `path`."""
        best = None
        for module in self.modules:
            prefix = module.directory + "/" if module.directory else ""
            if path.startswith(prefix) and (best is None or len(module.directory) > len(best.directory)):
                best = module
        return best

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
