"""Which deployed service runs which code module, and on which hosts its processes report their IP.

Matching (`match_services`): an explicit `[tool.rmqplan.services]` table in the project's `pyproject.toml`
(`deployment name = "module directory or name"`) first; otherwise a service matches a module when one of the
service's names (the workload's name, its containers' names, its images' repository names without registry and
tag) equals one of the module's names (its directory name, its artifactId or project name), compared without
case and without a trailing `-service`/`-svc`/`-app`/`-server`/`-worker`. A service whose names match several
modules is left unmatched and said to be ambiguous, never guessed.

Hosts (`process_layout`): every replica in its own network namespace reports its own IP. With host networking
every replica on one node reports the node's IP, and Kubernetes allows all of them on one node: that is the
layout unless `nodes` says how many nodes the replicas spread over (then as evenly as a scheduler spreads them).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from planner.sources.buildfiles import Module
from planner.sources.deploy import DeployedService
from planner.sources.origin import Origin, SourceProblem

SUFFIXES = ("-service", "-svc", "-app", "-server", "-worker", "_service", "_app")


@dataclass(frozen=True)
class ServiceMatch:
    service: DeployedService
    module: Module
    how: str  # "explicit (pyproject.toml:12)" | "name 'orders'" ...


@dataclass(frozen=True)
class HostSet:
    """`count` processes reporting the IP `host`."""

    host: str
    count: int


@dataclass(frozen=True)
class ProcessLayout:
    hosts: tuple[HostSet, ...]
    why: str  # one sentence for the fleet.toml comment and the check message


def normalise(name: str) -> str:
    name = name.strip().lower()
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def image_name(image: str) -> str:
    """`registry.example.com:5000/shop/orders-service:1.8@sha256:..` -> `orders-service`."""
    image = image.split("@", 1)[0]
    last = image.rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def service_names(service: DeployedService) -> set[str]:
    names = {service.name}
    names.update(c.name for c in service.containers if c.name)
    names.update(image_name(i) for i in service.images)
    return {normalise(n) for n in names if n}


def module_names(module: Module) -> set[str]:
    return {normalise(n) for n in (module.name, os.path.basename(os.path.normpath(module.directory))) if n}


def explicit_services(pyproject: Path) -> tuple[dict[str, tuple[str, Origin]], list[SourceProblem]]:
    """`[tool.rmqplan.services]`: deployment name -> (module directory or name, where it is said)."""
    if not pyproject.is_file():
        return {}, []
    try:
        text = pyproject.read_text("utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return {}, [SourceProblem(Origin(str(pyproject)), f"cannot read [tool.rmqplan.services]: {err}")]
    table = data.get("tool", {}).get("rmqplan", {}).get("services", {})
    if not isinstance(table, dict):
        return {}, [SourceProblem(Origin(str(pyproject)), "[tool.rmqplan.services] must be a table")]
    lines = text.splitlines()
    out, problems = {}, []
    for key, value in table.items():
        line = next((i for i, row in enumerate(lines, 1) if row.strip().startswith((key, f'"{key}"'))), 0)
        if not isinstance(value, str):
            problems.append(SourceProblem(Origin(str(pyproject), line),
                                          f"[tool.rmqplan.services] {key}: expected a module directory or name"))
            continue
        out[key] = (value, Origin(str(pyproject), line))
    return out, problems


def match_services(services: Iterable[DeployedService], modules: Iterable[Module], root: Path,
                   explicit: Optional[dict[str, tuple[str, Origin]]] = None,
                   ) -> tuple[list[ServiceMatch], list[SourceProblem]]:
    modules = list(modules)
    explicit = explicit or {}
    matches, problems = [], []
    for service in services:
        if service.name in explicit:
            target, origin = explicit[service.name]
            wanted = os.path.normpath(root / target)
            chosen = [m for m in modules if os.path.normpath(m.directory) == wanted or m.name == target]
            if len(chosen) == 1:
                matches.append(ServiceMatch(service, chosen[0], f"explicit ({origin})"))
            else:
                problems.append(SourceProblem(origin, f"[tool.rmqplan.services] {service.name} = {target!r}: "
                                                      f"{'no' if not chosen else 'more than one'} module has "
                                                      "that directory or name"))
            continue
        names = service_names(service)
        chosen = [m for m in modules if names & module_names(m)]
        if len(chosen) == 1:
            common = sorted(names & module_names(chosen[0]))[0]
            matches.append(ServiceMatch(service, chosen[0], f"name {common!r}"))
        elif len(chosen) > 1:
            listed = ", ".join(sorted(m.directory for m in chosen))
            problems.append(SourceProblem(service.origin,
                                          f"service {service.name} matches several modules ({listed}): map it in "
                                          "[tool.rmqplan.services]"))
    return matches, problems


def process_layout(service: DeployedService, nodes: Optional[int] = None) -> Optional[ProcessLayout]:
    """The hosts the service's processes report; None when the replica count is unknown."""
    replicas = service.replicas
    if replicas is None:
        return None
    if replicas == 0:
        return ProcessLayout((), f"{service.name} has 0 replicas")
    if not service.host_network:
        hosts = tuple(HostSet(f"{service.name}-pod-{i}", 1) for i in range(1, replicas + 1))
        return ProcessLayout(hosts, f"{replicas} replicas, each with its own pod IP")
    if nodes is None or nodes <= 1:
        why = (f"{replicas} replicas on host networking: all on one node, the worst case Kubernetes allows "
               "(set nodes = N to spread them)" if nodes is None else f"{replicas} replicas on one node")
        return ProcessLayout((HostSet(f"{service.name}-node-1", replicas),), why)
    used = min(nodes, replicas)
    base, extra = divmod(replicas, used)
    hosts = tuple(HostSet(f"{service.name}-node-{i}", base + (1 if i <= extra else 0)) for i in range(1, used + 1))
    return ProcessLayout(hosts, f"{replicas} replicas on host networking spread over {used} nodes")
