"""Which deployed service runs which code module, and which IP each of its processes reports.

Matching (`match_services`): an explicit `[tool.rmqplan.services]` table in the project's `pyproject.toml`
(`"deployment name" = "module directory or name"`) first. Otherwise a service matches a module when one of the
service's names (the workload's name, its containers' names, its images' repository names without registry and
tag, its `app` / `app.kubernetes.io/name` label) equals one of the module's names (its directory's name, its
artifactId or project name): exactly first, then compared without case and without a trailing
`-service`/`-svc`/`-app`/`-server`/`-worker`. A service whose names match several modules is left unmatched and
said to be ambiguous, never guessed; a service matching none (a name server, a database) is just unmatched.

Layout (`process_layout`): every replica in its own network namespace reports its own pod IP. With host
networking every replica on a node reports the node's IP, so the layout is the worst case the manifests allow:
- one replica per node when the scheduler must spread them (host ports, a required anti-affinity on the
  hostname, a DaemonSet): distinct IPs;
- otherwise all replicas on one node, which Kubernetes allows whatever `maxSkew` a spread constraint sets when
  only one node is eligible;
- `nodes = N` (the caller knows the cluster: `rmqplan fleet|check --nodes N`, or `nodes = N` in
  `[tool.rmqplan]`) spreads them as evenly as the scheduler does, and says which
  replicas cannot be scheduled when a one-per-node rule leaves fewer nodes than replicas.
docker compose runs every replica on one machine: with `network_mode: host` they share its IP for certain.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from rmqlint import bounded_toml
from rmqplan.sources.buildfiles import Module
from rmqplan.model import words
from rmqplan.sources.deploy import DeployedService
from rmqplan.sources.origin import Origin, SourceProblem

SUFFIXES = ("-service", "-svc", "-app", "-server", "-worker", "_service", "_app")
NAME_LABELS = ("app", "app.kubernetes.io/name")
RMQPLAN_KEYS = ("nodes", "services")  # the keys of [tool.rmqplan] in the code's pyproject.toml


@dataclass(frozen=True)
class ServiceMatch:
    service: DeployedService
    module: Module
    how: str  # "explicit (pyproject.toml:12)" | "name 'orders'" | "similar name 'orders'"


@dataclass
class ServiceMatching:
    matches: list[ServiceMatch] = field(default_factory=list)
    unmatched: list[DeployedService] = field(default_factory=list)  # no module, or ambiguous (see problems)
    ambiguous: list[DeployedService] = field(default_factory=list)  # of `unmatched`: several modules match
    problems: list[SourceProblem] = field(default_factory=list)

    def module_of(self, service: DeployedService) -> Optional[Module]:
        return next((m.module for m in self.matches if m.service is service), None)

    def services_of(self, module: Module) -> list[DeployedService]:
        return [m.service for m in self.matches if m.module is module]


@dataclass(frozen=True)
class HostSet:
    """`count` processes reporting the IP `host`."""

    host: str
    count: int


@dataclass(frozen=True)
class ProcessLayout:
    hosts: tuple[HostSet, ...]
    why: str  # one sentence for the fleet.toml comment and the check message
    worst_case: bool = False  # the layout is the worst case allowed, not what is known to run
    pending: int = 0  # replicas the scheduler cannot place (a one-per-node rule with too few nodes)

    @property
    def processes(self) -> int:
        return sum(h.count for h in self.hosts)


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
    names.update(service.labels[k] for k in NAME_LABELS if service.labels.get(k))
    return {n for n in names if n}


def module_names(module: Module) -> set[str]:
    return {n for n in (module.name, os.path.basename(os.path.normpath(module.directory))) if n}


def configured_nodes(pyproject: Path) -> tuple[Optional[int], list[SourceProblem]]:
    """`[tool.rmqplan] nodes = N`: how many nodes replicas on host networking may spread over."""
    try:
        data = bounded_toml.load(pyproject) if pyproject.is_file() else {}
    except bounded_toml.TomlRefused as err:
        return None, [SourceProblem(Origin(str(pyproject), err.line), f"cannot read [tool.rmqplan]: {err.reason}")]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return None, [SourceProblem(Origin(str(pyproject)), f"cannot read [tool.rmqplan]: {err}")]
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    rmqplan = tool.get("rmqplan") if isinstance(tool.get("rmqplan"), dict) else {}
    nodes = rmqplan.get("nodes")
    if nodes is None:
        return None, []
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        return None, [SourceProblem(Origin(str(pyproject)), f"[tool.rmqplan] nodes: expected a number of nodes (1 "
                                                             f"or more), got {nodes!r}")]
    return nodes, []


def explicit_services(pyproject: Path) -> tuple[dict[str, tuple[str, Origin]], list[SourceProblem]]:
    """`[tool.rmqplan.services]`: deployment name -> (module directory or name, where it is said)."""
    if not pyproject.is_file():
        return {}, []
    try:
        text = bounded_toml.read(pyproject).decode("utf-8")
        data = bounded_toml.loads(text)
    except bounded_toml.TomlRefused as err:
        return {}, [SourceProblem(Origin(str(pyproject), err.line),
                                  f"cannot read [tool.rmqplan.services]: {err.reason}")]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return {}, [SourceProblem(Origin(str(pyproject)), f"cannot read [tool.rmqplan.services]: {err}")]
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    rmqplan = tool.get("rmqplan") if isinstance(tool.get("rmqplan"), dict) else {}
    table = rmqplan.get("services", {})
    if not isinstance(table, dict):
        return {}, [SourceProblem(Origin(str(pyproject)), "[tool.rmqplan.services] must be a table")]
    rows = text.splitlines()
    start = next((i for i, row in enumerate(rows) if row.strip().replace(" ", "") == "[tool.rmqplan.services]"), 0)

    def line_of(key: str) -> int:
        for i in range(start, len(rows)):
            written = rows[i].split("=", 1)[0].strip()
            if "=" in rows[i] and written.strip("\"'") == key:
                return i + 1
        return 0

    out, problems = {}, []
    for key in rmqplan:
        if key not in RMQPLAN_KEYS:
            hint = difflib.get_close_matches(key, RMQPLAN_KEYS, n=1)
            problems.append(SourceProblem(Origin(str(pyproject)), f"[tool.rmqplan] {key}: unknown key "
                                          + (f"(did you mean {hint[0]!r}?)" if hint else
                                             f"(expected one of: {', '.join(RMQPLAN_KEYS)})")))
    for key, value in table.items():
        origin = Origin(str(pyproject), line_of(key))
        if not isinstance(value, str) or not value.strip():
            problems.append(SourceProblem(origin, f"[tool.rmqplan.services] {key}: expected a module directory "
                                                  "or name"))
            continue
        out[key] = (value, origin)
    return out, problems


def _by_name(names: set[str], modules: list[Module], exact: bool) -> list[Module]:
    if exact:
        return [m for m in modules if names & module_names(m)]
    wanted = {normalise(n) for n in names}
    return [m for m in modules if wanted & {normalise(n) for n in module_names(m)}]


def match_services(services: Iterable[DeployedService], modules: Iterable[Module], root: Path,
                   explicit: Optional[dict[str, tuple[str, Origin]]] = None) -> ServiceMatching:
    modules = list(modules)
    explicit = explicit or {}
    result = ServiceMatching()
    for service in services:
        if service.name in explicit:
            target, origin = explicit[service.name]
            wanted = os.path.normpath(root / target)
            chosen = [m for m in modules if os.path.normpath(m.directory) == wanted or m.name == target]
            if len(chosen) == 1:
                result.matches.append(ServiceMatch(service, chosen[0], f"explicit ({origin})"))
            else:
                result.unmatched.append(service)
                result.problems.append(SourceProblem(origin, f"[tool.rmqplan.services] {service.name} = "
                                                             f"{target!r}: {'no' if not chosen else 'more than one'} "
                                                             "module has that directory or name"))
            continue
        names = service_names(service)
        for exact in (True, False):
            chosen = _by_name(names, modules, exact)
            if chosen:
                break
        if len(chosen) == 1:
            common = sorted(names & module_names(chosen[0])) if exact else sorted(
                {normalise(n) for n in names} & {normalise(n) for n in module_names(chosen[0])})
            result.matches.append(ServiceMatch(service, chosen[0],
                                               f"{'name' if exact else 'similar name'} {common[0]!r}"))
            continue
        result.unmatched.append(service)
        if len(chosen) > 1:
            result.ambiguous.append(service)
            listed = ", ".join(sorted(m.directory for m in chosen))
            result.problems.append(SourceProblem(service.origin, f"{service.kind} {service.name} matches several "
                                                                 f"modules ({listed}): map it in "
                                                                 "[tool.rmqplan.services]"))
    return result


def _even(replicas: int, nodes: int) -> list[int]:
    base, extra = divmod(replicas, nodes)
    return [base + (1 if i < extra else 0) for i in range(nodes)]


def process_layout(service: DeployedService, nodes: Optional[int] = None,
                   replicas: Optional[int] = None) -> Optional[ProcessLayout]:
    """The IPs the service's processes report (placeholder names: only which processes share one matters).
    `replicas` overrides the manifest's count (e.g. an autoscaler's maximum); None when the count is unknown."""
    name = service.name
    count = replicas if replicas is not None else service.replicas
    if count is None and (service.kind == "DaemonSet" or service.replicas_note == "global: one per node") \
            and nodes:
        count = nodes  # one per node on every node
    if count is None:
        return None
    if count == 0:
        return ProcessLayout((), f"{name} has 0 replicas")
    if not service.host_network:
        labels = service.pod_names if service.pod_names and len(service.pod_names) == count else [
            f"{name}-pod-{i}" for i in range(1, count + 1)]
        return ProcessLayout(tuple(HostSet(label, 1) for label in labels),
                             f"{words.count(count, 'replica')}, each with its own "
                             f"{'pod ' if service.kind != 'compose' else ''}IP")
    if service.kind == "compose" and service.replicas_note != "global: one per node":
        return ProcessLayout((HostSet(f"{name}-host", count),),
                             f"{words.count(count, 'replica')} on network_mode: host: docker compose runs them on "
                             "one machine")
    one_per_node = service.one_per_node or service.replicas_note == "global: one per node"
    rule = service.max_per_node_why if service.max_per_node == 1 else (
        "a DaemonSet runs one per node" if service.kind == "DaemonSet" else "one per node")
    if one_per_node:
        placed = count if nodes is None else min(count, nodes)
        pending = count - placed
        why = f"{words.count(count, 'replica')} on host networking, one per node ({rule})"
        if pending:
            why += (f": only {placed} of {count} can be scheduled on {words.count(nodes, 'node')}, {pending} "
                    f"{words.noun(pending, 'stays', 'stay')} Pending")
        return ProcessLayout(tuple(HostSet(f"{name}-node-{i}", 1) for i in range(1, placed + 1)), why,
                             pending=pending)
    if nodes is None or nodes <= 1:
        if nodes is None:
            spread = (f" (the spread constraint's maxSkew {service.spread_max_skew} allows it when one node is "
                      "eligible)" if service.spread_max_skew else "")
            why = (f"{words.count(count, 'replica')} on host networking: all on one node, the worst case "
                   "Kubernetes allows"
                   f"{spread}; --nodes N spreads them")
        else:
            why = f"{words.count(count, 'replica')} on host networking on the one node"
        return ProcessLayout((HostSet(f"{name}-node-1", count),), why, worst_case=nodes is None)
    counts = [c for c in _even(count, nodes) if c]
    return ProcessLayout(tuple(HostSet(f"{name}-node-{i}", c) for i, c in enumerate(counts, 1)),
                         f"{words.count(count, 'replica')} on host networking spread over {len(counts)} of {nodes} "
                         "nodes")
