"""The project's build modules for the rules: which RocketMQ client release each builds with, and where the project
deploys it (Kubernetes manifests and docker-compose files among its files).

The reading is the planner's (`rmqplan.sources`: the build files with their parent POMs, version catalogs and lock
files; the deployments; which workload runs which module; how its replicas share IPs); this module turns what it
reads into the rules' terms (`rmqlint.project.Module`), with paths relative to the project root. Files that are not
readable are left out silently: reporting on deployments is the planner's job.
"""

from __future__ import annotations

import os
from pathlib import Path

from rmqlint.facts import Location
from rmqlint.project import Module, Placement, Release

# File names that make a directory a build module (`rmqplan.sources.buildfiles`).
BUILD_FILES = frozenset({"pom.xml", "build.gradle", "build.gradle.kts", "pyproject.toml", "settings.gradle",
                         "settings.gradle.kts", "gradle.properties", "libs.versions.toml", "gradle.lockfile",
                         "go.mod"})


def is_build_file(rel: str) -> bool:
    name = rel.rpartition("/")[2]
    return name in BUILD_FILES or (name.startswith("requirements") and name.endswith(".txt"))


def is_deployment_file(rel: str) -> bool:
    """A YAML file that may hold Kubernetes manifests or a docker-compose file (Spring's are another frontend's)."""
    return rel.endswith((".yaml", ".yml"))


class ModuleReader:
    """Reads the deployments when first asked whether there are any, and the build files when first asked for the
    modules (a project with no workload in its YAML files needs the build files only for releases)."""

    def __init__(self, root: Path, deployment_files: list[str], nodes: int | None = None):
        self.root = root
        self.deployment_files = deployment_files
        self.nodes = nodes
        self._services: list | None = None

    def services(self) -> list:
        if self._services is None:
            files = [self.root / rel for rel in self.deployment_files if _may_deploy(self.root / rel)]
            self._services = []
            if files:  # the planner's readers are imported only for a project that may deploy something
                from rmqplan.sources.deploy import read_deployments

                self._services = read_deployments(*files).services
        return self._services

    def deploys(self) -> bool:
        return bool(self.services())

    def modules(self) -> list[Module]:
        return read_modules(self.root, self.services(), self.nodes)


# Bytes without which a YAML file holds no workload (a Kubernetes kind, a compose file's services): the others (CI
# workflows, configuration) are not parsed.
_WORKLOAD_MARKERS = (b"Deployment", b"StatefulSet", b"DaemonSet", b"ReplicaSet", b"Rollout", b"services:")


def _may_deploy(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            data = fh.read(8 * 1024 * 1024)
    except OSError:
        return False
    return any(marker in data for marker in _WORKLOAD_MARKERS)


def read_modules(root: Path, services: list, nodes: int | None = None) -> list[Module]:
    """The modules under `root` with their releases, and where the deployed `services` run them, spread over
    `nodes` (None: the project's [tool.rmqplan] nodes, else the worst case)."""
    from rmqplan.sources.buildfiles import read_build_files
    from rmqplan.sources.services import configured_nodes, explicit_services, match_services, process_layout

    index = read_build_files(root)
    if not index.modules:
        return []
    if nodes is None:
        nodes, _problems = configured_nodes(root / "pyproject.toml")
    explicit, _problems = explicit_services(root / "pyproject.toml")
    matching = match_services(services, index.modules, root, explicit) if services else None
    modules = []
    for module in index.modules:
        releases = tuple(Release(dep.artifact, dep.version, _location(root, dep.version_origin or dep.origin),
                                 dep.remoting_client_version) for dep in module.dependencies)
        placements = []
        for service in matching.services_of(module) if matching is not None else ():
            layout = process_layout(service, nodes)
            if layout is None or not layout.hosts:
                continue  # the number of replicas is not known
            where = service.host_network_origin if service.host_network and service.host_network_origin \
                else service.replicas_origin
            why = layout.why.replace("; --nodes N spreads them", "")  # the planner's option, not the linter's
            placements.append(Placement(f"{service.kind} {service.name}", _location(root, where),
                                        service.host_network, max(h.count for h in layout.hosts), why))
        modules.append(Module(_relative(root, module.directory), module.name, releases, tuple(placements)))
    return modules


def _relative(root: Path, path: str) -> str:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    return "" if rel == "." else rel


def _location(root: Path, origin) -> Location:
    """The line an origin names, from its first character to its end."""
    line = max(origin.line, 1)
    try:
        with open(origin.path, encoding="utf-8", errors="replace") as fh:
            text = next((t for n, t in enumerate(fh, 1) if n == line), "").rstrip("\r\n")
    except OSError:
        text = ""
    start = len(text) - len(text.lstrip()) + 1
    return Location(_relative(root, origin.path), line, start, line, max(len(text) + 1, start))
