"""Deployments (`rmqplan fleet --deploy DIR`): how many processes of each service run, on which network, and
what may share a node.

Read from every `*.yaml`/`*.yml` under DIR (hidden directories and build outputs skipped):
- Kubernetes manifests, multi-document files and `kind: List` included: `Deployment`, `StatefulSet`,
  `ReplicaSet`, Argo `Rollout` and OpenShift `DeploymentConfig` (`spec.replicas`, 1 when absent, as the
  controllers default it), `DaemonSet` (one per node: the count is the number of nodes); from the pod template:
  `hostNetwork`, the containers (name, image, ports, env, command and args) and the labels. What limits the
  replicas one node can hold is read too: host ports (with `hostNetwork` every declared container port is one,
  as the API server defaults it, and the scheduler never puts two pods needing one host port on a node), a
  required pod anti-affinity on `kubernetes.io/hostname` selecting the pod's own labels, and a `DoNotSchedule`
  topology spread constraint on the hostname (`maxSkew`). A `HorizontalPodAutoscaler` or KEDA `ScaledObject`
  aimed at a workload gives its replica range;
- docker-compose files (a top-level `services` mapping of services with an image or a build): `deploy.replicas`
  or `scale` (1 when absent; `${VAR:-2}` is unknown: the environment decides), `deploy.mode: global` (one per
  node), `network_mode: host`, `image`, `container_name`, `environment`, `command`.
With host networking every replica on one node reports the node's IP: `rmqplan.sources.services` lays the
processes out on the worst case the constraints allow.

Real files are messy. A file that is not YAML because it is a Helm template (`{{ }}`), or any file of a chart's
`templates/` directory, is one `SourceProblem` (render it first); a value written as a template inside valid
YAML is unknown, with a problem at its line. Other kinds and other YAML files are skipped silently; a workload
defined twice (an overlay beside its base) is kept twice, with one problem naming both places.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

import yaml

from rmqplan.sources.origin import Origin, SourceProblem
from rmqplan.sources.yaml_lines import LineMap, YamlTooLarge, load_all

REPLICATED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "Rollout", "DeploymentConfig")
WORKLOAD_KINDS = (*REPLICATED_KINDS, "DaemonSet")
AUTOSCALER_KINDS = ("HorizontalPodAutoscaler", "ScaledObject")
HOSTNAME_KEY = "kubernetes.io/hostname"
MAX_FILE_BYTES = 8 * 1024 * 1024
SKIPPED_DIRS = {"node_modules", "target", "build", "dist", "__pycache__"}


@dataclass(frozen=True)
class EnvValue:
    """An environment variable of a container: its value, or None when Kubernetes fills it in (`valueFrom`,
    a Secret, the pod's name) or the shell does (`${VAR}` in compose); `source` then says what."""

    value: Optional[str]
    origin: Origin
    source: str = ""  # "" for a literal; "fieldRef metadata.name", "secretKeyRef", "environment", ...


@dataclass(frozen=True)
class Container:
    name: str
    image: str
    origin: Optional[Origin] = None
    env: dict = field(default_factory=dict, compare=False)  # name -> EnvValue
    command: tuple[str, ...] = ()  # command then args, as written
    command_origin: Optional[Origin] = None
    ports: tuple[int, ...] = ()  # ports that are host ports (hostPort, or every containerPort on hostNetwork)
    ports_origin: Optional[Origin] = None


@dataclass(frozen=True)
class Autoscale:
    """A HorizontalPodAutoscaler or KEDA ScaledObject: the replica count moves between these."""

    kind: str
    min_replicas: int
    max_replicas: int
    origin: Origin  # the autoscaler's `maxReplicas` (or its first line when defaulted)


@dataclass
class DeployedService:
    """One workload: a Kubernetes Deployment/StatefulSet/... or a docker-compose service."""

    name: str
    kind: str  # a Kubernetes kind, or "compose"
    replicas: Optional[int]  # None: not known from the files (a DaemonSet, a templated or environment value)
    replicas_origin: Origin  # the `replicas:` line, or the workload's spec when defaulted
    replicas_note: str  # "" when written; else why this number or why unknown
    host_network: bool
    host_network_origin: Optional[Origin]
    containers: list[Container]
    origin: Origin
    namespace: str = ""
    labels: dict = field(default_factory=dict)
    max_per_node: Optional[int] = None  # at most this many replicas on one node (1: host ports, anti-affinity)
    max_per_node_why: str = ""
    max_per_node_origin: Optional[Origin] = None
    spread_max_skew: Optional[int] = None  # a DoNotSchedule spread over hostnames with this maxSkew
    spread_origin: Optional[Origin] = None
    autoscale: Optional[Autoscale] = None

    @property
    def images(self) -> list[str]:
        return [c.image for c in self.containers if c.image]

    @property
    def pod_names(self) -> Optional[list[str]]:
        """A StatefulSet's pods are `<name>-0` .. `<name>-(n-1)` (their hostnames too); other pods' names are
        random."""
        if self.kind == "StatefulSet" and self.replicas is not None:
            return [f"{self.name}-{i}" for i in range(self.replicas)]
        return None

    @property
    def one_per_node(self) -> bool:
        return self.kind == "DaemonSet" or self.max_per_node == 1


@dataclass
class Deployment:
    services: list[DeployedService] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)
    files: int = 0  # manifests read that run a workload


def _get(mapping: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _line(mapping: Any, key: str, default: int) -> int:
    return mapping.lines.get(key, default) if isinstance(mapping, LineMap) else default


def _templated(value: Any) -> bool:
    """A Helm expression left in valid YAML: `"{{ .Values.x }}"`, or `{{ .Values.x }}` read as a flow mapping."""
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(isinstance(k, str) and k.startswith(("{", ".")) for k in value) or any(
            _templated(k) for k in value)
    return False


def _count(holder: Any, key: str, path: str, start: int, default_note: str, problems: list[SourceProblem],
           what: str = "replicas") -> tuple[Optional[int], Origin, str]:
    """A replica count: (count, where, note). Absent: 1 with `default_note`; not a count: None with the reason."""
    value = holder.get(key) if isinstance(holder, dict) else None
    if value is None:
        return 1, Origin(path, start), default_note
    origin = Origin(path, _line(holder, key, start))
    if isinstance(value, str) and value.strip().isdigit():
        return int(value), origin, ""
    if _templated(value):
        problems.append(SourceProblem(origin, f"`{key}` is a template expression: {what} unknown (render the "
                                              "chart first)"))
        return None, origin, "a template expression"
    if isinstance(value, str) and "$" in value:
        problems.append(SourceProblem(origin, f"`{key}` is {value!r}, set by the environment: {what} unknown"))
        return None, origin, f"set by the environment ({value})"
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(SourceProblem(origin, f"`{key}` is {value!r}, not a number of {what}: count unknown"))
        return None, origin, "not a number"
    return value, origin, ""


def _env(container: Any, path: str) -> dict[str, EnvValue]:
    out = {}
    items = container.get("env")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, LineMap) or not isinstance(item.get("name"), str):
            continue
        origin = Origin(path, item.line)
        if "value" in item:
            value = item.get("value")
            text = "" if value is None else str(value)
            # Kubernetes expands $(OTHER) from the container's own variables: not a literal
            out[item["name"]] = EnvValue(text, origin) if "$(" not in text else EnvValue(None, origin, text)
        elif isinstance(item.get("valueFrom"), dict):
            source = item["valueFrom"]
            field_path = _get(source, "fieldRef", "fieldPath")
            out[item["name"]] = EnvValue(None, origin, f"fieldRef {field_path}" if field_path
                                         else next(iter(source), "valueFrom"))
    return out


def _k8s_container(item: LineMap, path: str, host_network: bool) -> Container:
    ports, ports_origin = [], None
    declared = item.get("ports")
    for port in declared if isinstance(declared, list) else []:
        if not isinstance(port, LineMap):
            continue
        host_port = port.get("hostPort")
        number = host_port if isinstance(host_port, int) and host_port > 0 else (
            port.get("containerPort") if host_network else None)
        if isinstance(number, int) and not isinstance(number, bool) and number > 0:
            ports.append(number)
            ports_origin = ports_origin or Origin(path, port.line)
    command = [str(c) for key in ("command", "args") if isinstance(item.get(key), list)
               for c in item[key] if not isinstance(c, (dict, list))]
    command_line = _line(item, "command", 0) or _line(item, "args", 0)
    image = item.get("image")
    return Container(str(item.get("name") or ""), image if isinstance(image, str) else "", Origin(path, item.line),
                     _env(item, path), tuple(command),
                     Origin(path, command_line) if command_line else None, tuple(ports), ports_origin)


def _selects(selector: Any, labels: dict) -> bool:
    """Whether a label selector matches `labels` (matchLabels and matchExpressions, as Kubernetes evaluates)."""
    if not isinstance(selector, dict) or not selector:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(str(key)) != str(value):
            return False
    for expr in selector.get("matchExpressions") or []:
        if not isinstance(expr, dict):
            return False
        key, op = str(expr.get("key")), expr.get("operator")
        values = [str(v) for v in expr.get("values") or []]
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def _node_limits(service: DeployedService, pod_spec: Any, path: str) -> None:
    """What stops the scheduler putting several replicas on one node."""
    for container in service.containers:
        if container.ports:
            service.max_per_node, service.max_per_node_origin = 1, container.ports_origin
            service.max_per_node_why = (f"host port {container.ports[0]}: the scheduler puts at most one replica "
                                        "on a node")
            return
    affinity = _get(pod_spec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    for term in affinity if isinstance(affinity, list) else []:
        if isinstance(term, LineMap) and term.get("topologyKey") == HOSTNAME_KEY \
                and _selects(term.get("labelSelector"), service.labels):
            service.max_per_node, service.max_per_node_origin = 1, Origin(path, term.line)
            service.max_per_node_why = "a required pod anti-affinity on the hostname: one replica per node"
            return
    spread = _get(pod_spec, "topologySpreadConstraints")
    for constraint in spread if isinstance(spread, list) else []:
        if isinstance(constraint, LineMap) and constraint.get("topologyKey") == HOSTNAME_KEY \
                and constraint.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule" \
                and _selects(constraint.get("labelSelector"), service.labels) \
                and isinstance(constraint.get("maxSkew"), int) and constraint["maxSkew"] >= 1:
            service.spread_max_skew, service.spread_origin = constraint["maxSkew"], Origin(path, constraint.line)


def _workload(doc: LineMap, path: str, problems: list[SourceProblem]) -> Optional[DeployedService]:
    kind = doc.get("kind")
    name = _get(doc, "metadata", "name")
    if _templated(name):
        problems.append(SourceProblem(Origin(path, doc.line), f"a {kind} whose name is a template expression: "
                                                              "skipped (render the chart first)"))
        return None
    if not isinstance(name, str) or not name:
        problems.append(SourceProblem(Origin(path, doc.line), f"a {kind} without metadata.name: skipped"))
        return None
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    spec_line = _line(doc, "spec", doc.line)
    if kind == "DaemonSet":
        replicas, replicas_origin, note = None, Origin(path, doc.line), "a DaemonSet runs one per node"
    else:
        replicas, replicas_origin, note = _count(spec, "replicas", path, spec_line,
                                                 f"{kind} default (no spec.replicas)", problems)
    pod_spec = _get(spec, "template", "spec")
    host_value = _get(pod_spec, "hostNetwork")
    host_network = host_value is True
    host_origin = Origin(path, _line(pod_spec, "hostNetwork", doc.line)) if host_value is not None else None
    if _templated(host_value):
        problems.append(SourceProblem(host_origin, "`hostNetwork` is a template expression: read as false"))
    labels = _get(spec, "template", "metadata", "labels") or _get(doc, "metadata", "labels") or {}
    namespace = _get(doc, "metadata", "namespace")
    listed = _get(pod_spec, "containers")
    containers = []
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, LineMap):
            continue
        container = _k8s_container(item, path, host_network)
        if "{{" in container.image:
            problems.append(SourceProblem(container.origin, f"the image of container {container.name} is a "
                                                            "template expression: not used to match services"))
            container = replace(container, image="")
        containers.append(container)
    service = DeployedService(name, kind, replicas, replicas_origin, note, host_network,
                              host_origin if host_network else None, containers,
                              Origin(path, doc.line), namespace if isinstance(namespace, str) else "",
                              {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {})
    _node_limits(service, pod_spec, path)
    return service


def _autoscaler(doc: LineMap, path: str) -> Optional[tuple[str, str, str, Autoscale]]:
    """(namespace, target kind, target name, range) of a HorizontalPodAutoscaler or a KEDA ScaledObject."""
    spec = doc.get("spec") if isinstance(doc.get("spec"), LineMap) else None
    target = _get(spec, "scaleTargetRef")
    if spec is None or not isinstance(target, dict) or not isinstance(target.get("name"), str):
        return None
    namespace = _get(doc, "metadata", "namespace")
    if doc.get("kind") == "HorizontalPodAutoscaler":
        low, high, high_key = spec.get("minReplicas", 1), spec.get("maxReplicas"), "maxReplicas"
    else:  # KEDA: scales to zero and up to 100 unless told
        low, high, high_key = spec.get("minReplicaCount", 0), spec.get("maxReplicaCount", 100), "maxReplicaCount"
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)):
        return None
    origin = Origin(path, _line(spec, high_key, doc.line))
    return (namespace if isinstance(namespace, str) else "", str(target.get("kind") or "Deployment"),
            target["name"], Autoscale(doc["kind"], low, high, origin))


def _environment(svc: LineMap, path: str, start: int) -> dict[str, EnvValue]:
    """compose `environment:` as a list (`K=V`) or a mapping; `${VAR}` values come from the shell."""
    value = svc.get("environment")
    origin = Origin(path, _line(svc, "environment", start))
    pairs: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [tuple(str(item).split("=", 1)) if "=" in str(item) else (str(item), None) for item in value]
    out = {}
    for key, raw in pairs:
        text = None if raw is None else str(raw)
        if text is None or "$" in text:
            out[str(key)] = EnvValue(None, origin, "environment")
        else:
            out[str(key)] = EnvValue(text, origin)
    return out


def _compose_services(doc: LineMap, path: str, problems: list[SourceProblem]) -> list[DeployedService]:
    out = []
    services = doc.get("services")
    for name, svc in services.items():
        start = _line(services, name, doc.line)
        if not isinstance(svc, LineMap):
            continue
        deploy = svc.get("deploy") if isinstance(svc.get("deploy"), dict) else None
        if deploy is not None and deploy.get("mode") == "global":
            replicas, origin, note = None, Origin(path, _line(deploy, "mode", start)), "global: one per node"
        elif deploy is not None and "replicas" in deploy:
            replicas, origin, note = _count(deploy, "replicas", path, start, "", problems)
        else:
            replicas, origin, note = _count(svc, "scale", path, start, "compose default (no deploy.replicas)",
                                            problems)
        host_network = svc.get("network_mode") == "host"
        host_origin = Origin(path, _line(svc, "network_mode", start)) if host_network else None
        image = svc.get("image")
        command = svc.get("command")
        words = tuple(str(c) for c in command) if isinstance(command, list) else (
            tuple(command.split()) if isinstance(command, str) else ())
        container = Container(str(svc.get("container_name") or name), image if isinstance(image, str) else "",
                              Origin(path, start), _environment(svc, path, start), words,
                              Origin(path, _line(svc, "command", start)) if words else None)
        labels = svc.get("labels")
        out.append(DeployedService(str(name), "compose", replicas, origin, note, host_network, host_origin,
                                   [container], Origin(path, start),
                                   labels={str(k): str(v) for k, v in labels.items()}
                                   if isinstance(labels, dict) else {}))
    return out


def _is_compose(doc: LineMap, path: str) -> bool:
    services = doc.get("services")
    if doc.get("kind") is not None or not isinstance(services, dict) or not services:
        return False
    name = os.path.basename(path)
    if name.startswith(("docker-compose", "compose")):
        return True
    return any(isinstance(s, dict) and ("image" in s or "build" in s) for s in services.values())


def _documents(doc: Any) -> list[LineMap]:
    """A manifest, or the items of a `kind: List`."""
    if isinstance(doc, LineMap) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        return [item for item in doc["items"] if isinstance(item, LineMap)]
    return [doc] if isinstance(doc, LineMap) else []


def _helm_problem(text: str, path: str) -> Optional[SourceProblem]:
    line = next((i for i, row in enumerate(text.splitlines(), 1) if "{{" in row), 0)
    if not line:
        return None
    return SourceProblem(Origin(path, line), "a Helm template: not read (render it first, "
                                             "`helm template ... > rendered.yaml`)")


def read_manifest_text(text: str, path: str, autoscalers: Optional[list] = None) -> Deployment:
    """The workloads of one YAML file's text; its autoscalers are appended to `autoscalers` when given."""
    result = Deployment()
    try:
        for _start, doc in load_all(text):
            for item in _documents(doc):
                kind = item.get("kind")
                if kind in WORKLOAD_KINDS and isinstance(item.get("apiVersion"), str):
                    service = _workload(item, path, result.problems)
                    if service is not None:
                        result.services.append(service)
                elif kind in AUTOSCALER_KINDS and autoscalers is not None:
                    found = _autoscaler(item, path)
                    if found is not None:
                        autoscalers.append(found)
                elif _is_compose(item, path):
                    result.services.extend(_compose_services(item, path, result.problems))
    except yaml.MarkedYAMLError as err:
        helm = _helm_problem(text, path)
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else 1
        message = str(err.problem or err).splitlines()[0]
        result.problems.append(helm or SourceProblem(Origin(path, line), f"not valid YAML: {message}"))
    except (yaml.YAMLError, YamlTooLarge, RecursionError) as err:
        message = (str(err).splitlines() or [type(err).__name__])[0]  # one line: not libyaml's "in <string>"
        result.problems.append(SourceProblem(Origin(path, 1), f"not readable as YAML: {message}"))
    return result


def _yaml_files(root: Path) -> list[tuple[Path, bool]]:
    """(file, inside a Helm chart's templates/) for every YAML file under `root`."""
    if root.is_file():
        return [(root, False)]
    found = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
        here = Path(directory)
        in_chart = here.name == "templates" and (here.parent / "Chart.yaml").is_file()
        found.extend((here / f, in_chart) for f in sorted(filenames) if f.endswith((".yaml", ".yml")))
    return found


def _read_yaml_text(path: Path, problems: list[SourceProblem]) -> Optional[str]:
    label = str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        problems.append(SourceProblem(Origin(label), f"cannot read: {err.strerror or err}"))
        return None
    if len(data) > MAX_FILE_BYTES:
        problems.append(SourceProblem(Origin(label), "larger than 8 MB: not a manifest, not read"))
        return None
    if b"\0" in data:
        problems.append(SourceProblem(Origin(label), "binary file: not read"))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        problems.append(SourceProblem(Origin(label, line), f"not UTF-8 (byte 0x{data[err.start]:02x}): not read"))
        return None


def _attach_autoscalers(result: Deployment, autoscalers: list) -> None:
    for namespace, kind, name, scale in autoscalers:
        targets = [s for s in result.services if s.name == name and s.kind == kind
                   and (s.namespace == namespace or not s.namespace or not namespace)]
        for service in targets:
            service.autoscale = scale


def _report_duplicates(result: Deployment) -> None:
    seen: dict[tuple[str, str, str], DeployedService] = {}
    for service in result.services:
        key = (service.kind, service.namespace, service.name)
        if key in seen:
            first = seen[key]
            result.problems.append(SourceProblem(service.origin, f"{service.kind} {service.name} is also defined "
                                                                 f"at {first.origin} (an overlay and its base?): "
                                                                 "point --deploy at one environment"))
        else:
            seen[key] = service


def read_deployments(*roots: str | os.PathLike) -> Deployment:
    """Every workload in the YAML files under `roots` (directories searched recursively, or single files)."""
    result = Deployment()
    autoscalers: list = []
    for root in roots:
        root = Path(root)
        if not root.exists():
            result.problems.append(SourceProblem(Origin(str(root)), "no such file or directory"))
            continue
        for path, in_chart in _yaml_files(root):
            text = _read_yaml_text(path, result.problems)
            if text is None:
                continue
            if in_chart:
                result.problems.append(_helm_problem(text, str(path)) or SourceProblem(
                    Origin(str(path)), "a Helm chart template: not read (render it first, "
                                       "`helm template ... > rendered.yaml`)"))
                continue
            one = read_manifest_text(text, str(path), autoscalers)
            result.files += bool(one.services)
            result.services.extend(one.services)
            result.problems.extend(one.problems)
    _attach_autoscalers(result, autoscalers)
    _report_duplicates(result)
    return result

