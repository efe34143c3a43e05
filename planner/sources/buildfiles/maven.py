"""Maven `pom.xml`: the module's artifactId and the RocketMQ clients it depends on, versions resolved the way
Maven builds the effective model.

- The parent is the pom at `<relativePath>` (default `../pom.xml`; an empty `<relativePath/>` means "from a
  repository", so not read) when its groupId and artifactId are the declared parent's. Parents found this way,
  up to the root, are one chain.
- Properties (`<properties>`, `project.version`, `project.parent.version`) are inherited and the module's own
  win, and `${...}` is interpolated in the module's effective model: a version written as `${rocketmq.version}`
  in a parent's `<dependencyManagement>` takes the module's value of `rocketmq.version` if it sets one.
  Properties may refer to properties.
- A dependency without `<version>` takes the nearest `<dependencyManagement>` entry; dependencies declared in a
  parent's `<dependencies>` are inherited. `test`-scoped ones do not run in production and are skipped.
- Management also applies to transitive dependencies: a module declaring only the Spring starter runs the
  `rocketmq-client` that its `<dependencyManagement>` pins, if it pins one.
- Spring Cloud Alibaba's RocketMQ binder (`com.alibaba.cloud:spring-cloud-starter-stream-rocketmq`) takes its
  version from the imported `spring-cloud-alibaba-dependencies` BOM when it writes none: the binder's release is
  the BOM's.
- Unknown, with the reason: a property nothing on disk sets (a parent from a repository, `-D` on the command
  line, an environment variable), a version range or LATEST/RELEASE, a version managed by an imported BOM.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from xml.parsers import expat

from rmqplan.sources.buildfiles.module import (
    CLOUD_BINDER,
    CLOUD_BOM,
    CLOUD_GROUP,
    GRPC_CLIENT,
    JAVA_ARTIFACTS,
    REMOTING_CLIENT,
    ROCKETMQ_GROUP,
    SPRING_STARTER,
    SPRING_V5_STARTER,
    ClientDependency,
    Module,
    concrete_version,
    directory_name,
    read_build_text,
)
from rmqplan.sources.origin import Origin, SourceProblem

MAX_PROPERTY_DEPTH = 32
MAX_PARENTS = 64


class _Element(ET.Element):
    sourceline = 0  # set per instance by `_parse_xml` (the C Element has no room for it; a subclass has)


class _DoctypeRefused(Exception):
    pass


def _parse_xml(text: str) -> ET.Element:
    """ElementTree elements with each one's start line (`elem.sourceline`), from expat directly (ElementTree's
    own parser does not tell lines). A DOCTYPE (never in a pom; the door to entity expansion) is refused.
    Raises ET.ParseError."""
    builder = ET.TreeBuilder(element_factory=_Element)
    parser = expat.ParserCreate(namespace_separator="}")

    def start(tag, attrs):
        builder.start(tag, attrs).sourceline = parser.CurrentLineNumber

    def doctype(*_args):
        raise _DoctypeRefused()

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = doctype
    try:
        parser.Parse(text, True)
    except _DoctypeRefused:
        error = ET.ParseError(f"a DOCTYPE declaration (not in a pom): line {parser.CurrentLineNumber}")
        error.position = (parser.CurrentLineNumber, 0)
        raise error from None
    except expat.ExpatError as err:
        error = ET.ParseError(f"{expat.errors.messages[err.code]}: line {err.lineno}, column {err.offset}")
        error.position = (err.lineno, err.offset)
        raise error from None
    return builder.close()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(elem: Optional[ET.Element], name: str) -> list[ET.Element]:
    if elem is None:
        return []
    return [c for c in elem if isinstance(c.tag, str) and _local(c.tag) == name]


def _child(elem: Optional[ET.Element], name: str) -> Optional[ET.Element]:
    found = _children(elem, name)
    return found[0] if found else None


def _text(elem: Optional[ET.Element], name: str) -> Optional[str]:
    child = _child(elem, name)
    return child.text.strip() if child is not None and child.text and child.text.strip() else None


def _line(elem: Optional[ET.Element]) -> int:
    return getattr(elem, "sourceline", 0) if elem is not None else 0


@dataclass
class _Pom:
    path: Path
    root: ET.Element
    parent: Optional["_Pom"] = None
    parent_note: str = ""  # why a declared parent was not read ("" when read or none declared)

    def chain(self) -> list["_Pom"]:
        """This pom and its parents, the root first."""
        out, pom = [], self
        while pom is not None:
            out.append(pom)
            pom = pom.parent
        return out[::-1]

    def origin(self, elem: Optional[ET.Element]) -> Origin:
        return Origin(str(self.path), _line(elem))

    @property
    def group_id(self) -> Optional[str]:
        return _text(self.root, "groupId") or _text(_child(self.root, "parent"), "groupId")


@dataclass
class _Effective:
    """What the module's effective model says: properties and managed versions, each with where it is written."""

    properties: dict[str, tuple[str, Origin]] = field(default_factory=dict)
    managed: dict[str, tuple[str, Origin, str]] = field(default_factory=dict)  # artifactId -> (raw, origin, pom)
    boms: list[str] = field(default_factory=list)  # imported BOMs, "groupId:artifactId"
    bom_versions: dict[str, tuple[str, Origin]] = field(default_factory=dict)  # imported BOM -> (raw version, where)
    missing_parent: str = ""  # the declared parent that is not on disk, if any


def _load(path: Path, problems: list[SourceProblem], seen: set[Path], depth: int = 0) -> Optional[_Pom]:
    text = read_build_text(path, problems)
    if text is None:
        return None
    try:
        root = _parse_xml(text)
    except ET.ParseError as err:
        problems.append(SourceProblem(Origin(str(path), err.position[0]), f"not valid XML: {err}"))
        return None
    pom = _Pom(path, root)
    declared = _child(root, "parent")
    if declared is None:
        return pom
    ref = ":".join(filter(None, (_text(declared, "groupId"), _text(declared, "artifactId"),
                                 _text(declared, "version"))))
    relative = _child(declared, "relativePath")
    if relative is not None and not (relative.text or "").strip():
        pom.parent_note = f"the parent {ref} comes from a repository (<relativePath/>)"
        return pom
    candidate = Path(os.path.normpath(path.parent / ((relative.text or "").strip() if relative is not None
                                                     else "../pom.xml")))
    if candidate.is_dir():
        candidate = candidate / "pom.xml"
    key = candidate.resolve() if candidate.is_file() else None
    if key is None or key in seen or depth >= MAX_PARENTS:
        pom.parent_note = f"the parent {ref} is not in this repository"
        return pom
    seen.add(key)
    parent = _load(candidate, problems, seen, depth + 1)
    # Maven takes the file only when it is the declared parent.
    if parent is not None and _text(parent.root, "artifactId") == _text(declared, "artifactId") \
            and (_text(declared, "groupId") is None or parent.group_id == _text(declared, "groupId")):
        pom.parent = parent
    else:
        pom.parent_note = f"the parent {ref} is not in this repository"
    return pom


def _effective(module: _Pom) -> _Effective:
    eff = _Effective()
    for pom in module.chain():
        if pom.parent_note and not eff.missing_parent:
            eff.missing_parent = pom.parent_note
        for elem in _child(pom.root, "properties") or []:
            if isinstance(elem.tag, str):
                eff.properties[_local(elem.tag)] = ((elem.text or "").strip(), pom.origin(elem))
        for dep in _children(_child(_child(pom.root, "dependencyManagement"), "dependencies"), "dependency"):
            group, artifact = _text(dep, "groupId"), _text(dep, "artifactId")
            if _text(dep, "scope") == "import":
                eff.boms.append(f"{group}:{artifact}")
                if _text(dep, "version"):
                    eff.bom_versions[f"{group}:{artifact}"] = (_text(dep, "version"), pom.origin(_child(dep, "version")))
            elif group == ROCKETMQ_GROUP and artifact and _text(dep, "version"):
                eff.managed[artifact] = (_text(dep, "version"), pom.origin(_child(dep, "version")), str(pom.path))
    parent_elem = _child(module.root, "parent")
    version_elem = _child(module.root, "version")
    if version_elem is None:  # an Element without children is false: no `or` here
        version_elem = _child(parent_elem, "version")
    version = _text(module.root, "version") or _text(parent_elem, "version")
    if version:
        for key in ("project.version", "pom.version", "version"):
            eff.properties[key] = (version, module.origin(version_elem))
    if _text(parent_elem, "version"):
        eff.properties["project.parent.version"] = (_text(parent_elem, "version"),
                                                    module.origin(_child(parent_elem, "version")))
    if _text(module.root, "artifactId"):
        eff.properties["project.artifactId"] = (_text(module.root, "artifactId"),
                                                module.origin(_child(module.root, "artifactId")))
    return eff


def _interpolate(text: str, eff: _Effective, stack: tuple[str, ...] = ()) -> tuple[Optional[str], str,
                                                                                   Optional[Origin]]:
    """`text` with every `${name}` replaced from the effective properties: (value, "", origin of the last
    property that gave text) or (None, why, None)."""
    out: list[str] = []
    origin: Optional[Origin] = None
    i = 0
    while True:
        start = text.find("${", i)
        if start < 0:
            out.append(text[i:])
            return "".join(out), "", origin
        end = text.find("}", start + 2)
        if end < 0:
            return None, f"an unclosed ${{ in {text!r}", None
        out.append(text[i:start])
        name = text[start + 2:end]
        if name in stack:
            return None, f"${{{name}}} refers to itself", None
        if len(stack) >= MAX_PROPERTY_DEPTH:
            return None, f"properties nested more than {MAX_PROPERTY_DEPTH} deep", None
        if name.startswith("env."):
            return None, f"${{{name}}} is an environment variable of the build", None
        if name not in eff.properties:
            where = f" ({eff.missing_parent})" if eff.missing_parent else ""
            return None, f"${{{name}}} is not set in this pom or its parents{where}: -D on the command line?", None
        raw, raw_origin = eff.properties[name]
        value, why, inner = _interpolate(raw, eff, stack + (name,))
        if value is None:
            return None, why, None
        out.append(value)
        origin = inner or raw_origin
        i = end + 1


def _resolve(raw: str, raw_origin: Origin, eff: _Effective) -> tuple[Optional[str], str, Origin]:
    value, why, origin = _interpolate(raw, eff)
    if value is None:
        return None, why, raw_origin
    version, why = concrete_version(value)
    return version, why, origin or raw_origin


def _cloud_binder(pom: _Pom, eff: _Effective) -> Optional[ClientDependency]:
    """Spring Cloud Alibaba's RocketMQ binder, with its version written, managed, or that of the imported Spring
    Cloud Alibaba BOM (the binder's release is the BOM's)."""
    for owner in pom.chain()[::-1]:
        for dep in _children(_child(owner.root, "dependencies"), "dependency"):
            if _text(dep, "groupId") != CLOUD_GROUP or _text(dep, "artifactId") != CLOUD_BINDER \
                    or _text(dep, "scope") == "test":
                continue
            raw = _text(dep, "version")
            via = "" if owner is pom else f"inherited from {owner.path}"
            if raw is not None:
                version, why, version_origin = _resolve(raw, owner.origin(_child(dep, "version")), eff)
            elif f"{CLOUD_GROUP}:{CLOUD_BOM}" in eff.bom_versions:
                raw, bom_origin = eff.bom_versions[f"{CLOUD_GROUP}:{CLOUD_BOM}"]
                version, why, version_origin = _resolve(raw, bom_origin, eff)
                via = f"the {CLOUD_BOM} BOM"
            else:
                version, why, version_origin = None, "no version here or in an imported Spring Cloud Alibaba BOM", None
            return ClientDependency(CLOUD_BINDER, version, why, owner.origin(dep), version_origin, via)
    return None


def read_pom(path: Path, problems: list[SourceProblem]) -> Optional[Module]:
    """The module of one pom.xml (its parents read from disk as Maven would), or None when it cannot be read."""
    pom = _load(path, problems, {path.resolve()})
    if pom is None:
        return None
    eff = _effective(pom)
    artifact_elem = _child(pom.root, "artifactId")
    module = Module(str(path.parent), str(path), _text(pom.root, "artifactId") or directory_name(path.parent),
                    pom.origin(artifact_elem), build_system="maven")
    declared: dict[str, tuple[ET.Element, _Pom]] = {}  # the module's own declaration of an artifact wins
    for owner in pom.chain():
        for dep in _children(_child(owner.root, "dependencies"), "dependency"):
            artifact = _text(dep, "artifactId")
            if _text(dep, "groupId") == ROCKETMQ_GROUP and artifact in JAVA_ARTIFACTS \
                    and _text(dep, "scope") != "test":
                declared[artifact] = (dep, owner)
    for artifact in JAVA_ARTIFACTS:
        if artifact not in declared:
            continue
        dep, owner = declared[artifact]
        origin = owner.origin(dep)
        via = "" if owner is pom else f"inherited from {owner.path}"
        raw = _text(dep, "version")
        if raw is not None:
            version, why, version_origin = _resolve(raw, owner.origin(_child(dep, "version")), eff)
        elif artifact in eff.managed:
            raw, managed_origin, managed_pom = eff.managed[artifact]
            version, why, version_origin = _resolve(raw, managed_origin, eff)
            via = f"dependencyManagement of {managed_pom}"
        else:
            version, version_origin = None, None
            why = ("managed by an imported BOM (" + ", ".join(eff.boms) + ")" if eff.boms
                   else "no version here or in a parent's dependencyManagement")
        module.dependencies.append(ClientDependency(artifact, version, why, origin, version_origin, via))
    binder = _cloud_binder(pom, eff)
    if binder is not None:
        module.dependencies.append(binder)
    # Management pins transitive dependencies too: the client a starter brings.
    for starter, client in ((SPRING_STARTER, REMOTING_CLIENT), (SPRING_V5_STARTER, GRPC_CLIENT)):
        if starter in declared and client not in declared and client in eff.managed:
            raw, managed_origin, managed_pom = eff.managed[client]
            version, why, version_origin = _resolve(raw, managed_origin, eff)
            starter_origin = next(d.origin for d in module.dependencies if d.artifact == starter)
            module.dependencies.insert(0, ClientDependency(
                client, version, why, starter_origin, version_origin,
                f"dependencyManagement of {managed_pom} pins the {client} that {starter} brings"))
    return module
