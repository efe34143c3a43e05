"""Deployments (`rmqplan fleet --deploy DIR`): how many processes of each service run, and on which network.

Read from every `*.yaml`/`*.yml` under DIR (hidden directories and `node_modules` skipped):
- Kubernetes manifests, multi-document files and `kind: List` included: `Deployment`, `StatefulSet`,
  `ReplicaSet` (`spec.replicas`, 1 when absent, as Kubernetes defaults it), `DaemonSet` (one per node: the count
  is unknown here), the pod template's `hostNetwork`, its containers' names and images, the labels;
- docker-compose files (a top-level `services` mapping): `deploy.replicas` or `scale` (1 when absent),
  `network_mode: host`, `image`, `container_name`.
With host networking every replica on one node reports the node's IP: the planner models the worst case
Kubernetes allows (all on one node) unless told how many nodes there are (`planner.sources.services`).

Files that are not readable as YAML (Helm templates with `{{ }}`, Kustomize patches are fine) give one
`SourceProblem` each, with the line; other kinds and other YAML files are skipped silently.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

from planner.sources.origin import Origin, SourceProblem
from planner.sources.yaml_lines import LineMap, YamlTooLarge, load_all

WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")
MAX_FILE_BYTES = 8 * 1024 * 1024
SKIPPED_DIRS = {"node_modules", "target", "build", "dist", "__pycache__"}


@dataclass(frozen=True)
class Container:
    name: str
    image: str


@dataclass
class DeployedService:
    """One workload: a Kubernetes Deployment/StatefulSet/ReplicaSet/DaemonSet or a docker-compose service."""

    name: str
    kind: str  # a Kubernetes kind, or "compose"
    replicas: Optional[int]  # None: not known from the file (a DaemonSet, a templated value)
    replicas_origin: Origin  # the `replicas:` line, or the workload's first line when defaulted
    replicas_note: str  # "" when written; else why this number ("Kubernetes default", ...)
    host_network: bool
    host_network_origin: Optional[Origin]
    containers: list[Container]
    origin: Origin
    namespace: str = ""
    labels: dict = field(default_factory=dict)

    @property
    def images(self) -> list[str]:
        return [c.image for c in self.containers if c.image]


@dataclass
class Deployment:
    services: list[DeployedService] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)


def _get(mapping: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _line(mapping: Any, key: str, default: int) -> int:
    return mapping.lines.get(key, default) if isinstance(mapping, LineMap) else default


def _replicas(holder: Any, key: str, path: str, start: int, default_note: str,
              problems: list[SourceProblem]) -> tuple[Optional[int], Origin, str]:
    value = holder.get(key) if isinstance(holder, dict) else None
    if value is None:
        return 1, Origin(path, start), default_note
    origin = Origin(path, _line(holder, key, start))
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(SourceProblem(origin, f"`{key}` is {value!r}, not a number of replicas: count unknown"))
        return None, origin, "not a number"
    return value, origin, ""


def _containers(pod_spec: Any) -> list[Container]:
    out = []
    for item in _get(pod_spec, "containers") or []:
        if isinstance(item, dict):
            out.append(Container(str(item.get("name") or ""), str(item.get("image") or "")))
    return out


def _workload(doc: LineMap, path: str, problems: list[SourceProblem]) -> Optional[DeployedService]:
    kind = doc.get("kind")
    name = _get(doc, "metadata", "name")
    if not isinstance(name, str) or not name:
        problems.append(SourceProblem(Origin(path, doc.line), f"a {kind} without metadata.name: skipped"))
        return None
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    spec_line = _line(doc, "spec", doc.line)
    if kind == "DaemonSet":
        replicas, replicas_origin, note = None, Origin(path, doc.line), "a DaemonSet runs one per node"
    else:
        replicas, replicas_origin, note = _replicas(spec, "replicas", path, spec_line,
                                                    "Kubernetes default (no spec.replicas)", problems)
    pod_spec = _get(spec, "template", "spec")
    host_network = _get(pod_spec, "hostNetwork") is True
    host_origin = Origin(path, _line(pod_spec, "hostNetwork", doc.line)) if host_network else None
    labels = _get(spec, "template", "metadata", "labels") or _get(doc, "metadata", "labels") or {}
    namespace = _get(doc, "metadata", "namespace")
    return DeployedService(name, kind, replicas, replicas_origin, note, host_network, host_origin,
                           _containers(pod_spec), Origin(path, doc.line),
                           namespace if isinstance(namespace, str) else "",
                           {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {})


def _compose_services(doc: LineMap, path: str, problems: list[SourceProblem]) -> list[DeployedService]:
    out = []
    services = doc.get("services")
    for name, svc in services.items():
        start = _line(services, name, doc.line)
        if not isinstance(svc, dict):
            continue
        deploy = svc.get("deploy") if isinstance(svc.get("deploy"), dict) else None
        if deploy is not None and "replicas" in deploy:
            replicas, origin, note = _replicas(deploy, "replicas", path, start, "", problems)
        else:
            replicas, origin, note = _replicas(svc, "scale", path, start, "compose default (no deploy.replicas)",
                                               problems)
        host_network = svc.get("network_mode") == "host"
        host_origin = Origin(path, _line(svc, "network_mode", start)) if host_network else None
        image = svc.get("image")
        container = Container(str(svc.get("container_name") or name), image if isinstance(image, str) else "")
        labels = svc.get("labels")
        out.append(DeployedService(str(name), "compose", replicas, origin, note, host_network, host_origin,
                                   [container], Origin(path, start),
                                   labels={str(k): str(v) for k, v in labels.items()}
                                   if isinstance(labels, dict) else {}))
    return out


def _documents(doc: Any) -> list[LineMap]:
    """A manifest, or the items of a `kind: List`."""
    if isinstance(doc, LineMap) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        return [item for item in doc["items"] if isinstance(item, LineMap)]
    return [doc] if isinstance(doc, LineMap) else []


def read_manifest_text(text: str, path: str) -> Deployment:
    """The workloads of one YAML file's text."""
    result = Deployment()
    if "{{" in text and "}}" in text:
        line = next(i for i, row in enumerate(text.splitlines(), 1) if "{{" in row)
        result.problems.append(SourceProblem(Origin(path, line), "a Helm template: not read (render it first, "
                                                                 "`helm template ... > rendered.yaml`)"))
        return result
    try:
        for _start, doc in load_all(text):
            for item in _documents(doc):
                kind = item.get("kind")
                if kind in WORKLOAD_KINDS and isinstance(item.get("apiVersion"), str):
                    service = _workload(item, path, result.problems)
                    if service is not None:
                        result.services.append(service)
                elif kind is None and isinstance(item.get("services"), dict):
                    result.services.extend(_compose_services(item, path, result.problems))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else 1
        result.problems.append(SourceProblem(Origin(path, line), f"not valid YAML: {err.problem or err}"))
    except (yaml.YAMLError, YamlTooLarge, RecursionError) as err:
        result.problems.append(SourceProblem(Origin(path, 1), f"not readable as YAML: {err}"))
    return result


def _yaml_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
        found.extend(Path(directory, f) for f in sorted(filenames) if f.endswith((".yaml", ".yml")))
    return found


def read_deployments(*roots: str | os.PathLike) -> Deployment:
    """Every workload in the YAML files under `roots` (directories searched recursively, or single files)."""
    result = Deployment()
    for root in roots:
        root = Path(root)
        if not root.exists():
            result.problems.append(SourceProblem(Origin(str(root)), "no such file or directory"))
            continue
        for path in _yaml_files(root):
            label = str(path)
            try:
                data = path.read_bytes()[:MAX_FILE_BYTES + 1]
            except OSError as err:
                result.problems.append(SourceProblem(Origin(label), f"cannot read: {err.strerror or err}"))
                continue
            if len(data) > MAX_FILE_BYTES:
                result.problems.append(SourceProblem(Origin(label), "larger than 8 MB: not a manifest, not read"))
                continue
            if b"\0" in data:
                result.problems.append(SourceProblem(Origin(label), "binary file: not read"))
                continue
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as err:
                line = data.count(b"\n", 0, err.start) + 1
                result.problems.append(SourceProblem(Origin(label, line),
                                                     f"not UTF-8 (byte 0x{data[err.start]:02x}): not read"))
                continue
            one = read_manifest_text(text, label)
            result.services.extend(one.services)
            result.problems.extend(one.problems)
    return result
