"""Which RocketMQ client a module builds with, read from its build file.

A module is a directory with a build file: Maven `pom.xml`, Gradle `build.gradle` / `build.gradle.kts`, or a
Python `pyproject.toml` / `requirements*.txt`. For each it finds the RocketMQ client dependencies:

- Java: `org.apache.rocketmq:rocketmq-client` (the remoting client whose version decides client ids),
  `rocketmq-spring-boot-starter` (which brings a known `rocketmq-client`, see `SPRING_STARTER_CLIENT`),
  `rocketmq-client-java` (the 5.x gRPC client);
- Python: `rocketmq-client-python` (2.x, over the C++ client) and `rocketmq-python-client` (5.x, gRPC).

Versions are resolved or unknown, never guessed:
- Maven: `${prop}` from `<properties>` of the pom and its parents (`<relativePath>`, default `../pom.xml`),
  `${project.version}` / `${project.parent.version}`, and a version-less dependency from the
  `<dependencyManagement>` of the pom or a parent. A BOM import or a property from a settings file is unknown.
- Gradle (parsed with tree-sitter's Groovy and Kotlin grammars): `"group:name:version"` strings (with `$var` /
  `${var}` interpolation), the `group:/name:/version:` map form and Kotlin's three-argument form; variables
  from `ext { }`, `ext.x =`, `def`/`val` locals, `extra["x"] =`, and `gradle.properties` of the module and the
  root; `libs.x.y` aliases from `gradle/libs.versions.toml`.
- Python: a `==` pin is the version; any other specifier is unknown (what pip picks depends on the day).
"""

from __future__ import annotations

import os
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from planner.sources.origin import Origin, SourceProblem

ROCKETMQ_GROUP = "org.apache.rocketmq"
JAVA_ARTIFACTS = ("rocketmq-client", "rocketmq-spring-boot-starter", "rocketmq-client-java")
PYTHON_PACKAGES = ("rocketmq-client-python", "rocketmq-python-client")
# rocketmq-spring-boot-starter release -> the rocketmq-client it depends on (rocketmq-spring-boot-parent's
# `rocketmq.version` at each release tag of apache/rocketmq-spring).
SPRING_STARTER_CLIENT = {
    "2.0.0": "4.3.2", "2.0.1": "4.3.2", "2.0.2": "4.4.0", "2.0.3": "4.5.1", "2.0.4": "4.5.2",
    "2.1.0": "4.6.0", "2.1.1": "4.7.1", "2.2.0": "4.8.0", "2.2.1": "4.9.1", "2.2.2": "4.9.3",
    "2.2.3": "5.0.0", "2.3.0": "5.2.0", "2.3.1": "5.3.0", "2.3.2": "5.3.1", "2.3.3": "5.3.1",
    "2.3.4": "5.3.2", "2.3.5": "5.3.2",
}
BUILD_FILES = ("pom.xml", "build.gradle", "build.gradle.kts", "pyproject.toml")
SKIPPED_DIRS = {".git", "node_modules", "target", "build", ".gradle", ".venv", "venv", "__pycache__", "dist"}
MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class ClientDependency:
    artifact: str  # one of JAVA_ARTIFACTS or PYTHON_PACKAGES
    version: Optional[str]  # as resolved; None when unknown
    unknown: str  # why the version is unknown ("" when it is known)
    origin: Origin  # the dependency's line

    @property
    def remoting_client_version(self) -> Optional[str]:
        """The `rocketmq-client` (remoting) version it runs, which decides the default instance name."""
        if self.version is None:
            return None
        if self.artifact == "rocketmq-client":
            return self.version
        if self.artifact == "rocketmq-spring-boot-starter":
            return SPRING_STARTER_CLIENT.get(self.version)
        return None


@dataclass
class Module:
    directory: str  # the build file's directory
    build_file: str
    name: str  # artifactId, Gradle project directory, Python project name, or the directory's name
    name_origin: Origin
    dependencies: list[ClientDependency] = field(default_factory=list)

    @property
    def client(self) -> Optional[ClientDependency]:
        """The dependency that decides the client's behaviour: the remoting client first."""
        for artifact in ("rocketmq-client", "rocketmq-spring-boot-starter", "rocketmq-client-java",
                         *PYTHON_PACKAGES):
            for dep in self.dependencies:
                if dep.artifact == artifact:
                    return dep
        return None


@dataclass
class BuildIndex:
    modules: list[Module] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)

    def module_of(self, path: str) -> Optional[Module]:
        """The module whose directory is the nearest ancestor of `path`."""
        best = None
        target = os.path.abspath(path)
        for module in self.modules:
            directory = os.path.abspath(module.directory)
            if target == directory or target.startswith(directory.rstrip(os.sep) + os.sep):
                if best is None or len(directory) > len(os.path.abspath(best.directory)):
                    best = module
        return best


def _read(path: Path, problems: list[SourceProblem]) -> Optional[str]:
    try:
        data = path.read_bytes()[:MAX_FILE_BYTES + 1]
    except OSError as err:
        problems.append(SourceProblem(Origin(str(path)), f"cannot read: {err.strerror or err}"))
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data:
        problems.append(SourceProblem(Origin(str(path)), "not a build file (binary or over 4 MB): not read"))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        problems.append(SourceProblem(Origin(str(path), line), f"not UTF-8 (byte 0x{data[err.start]:02x})"))
        return None


def _substitute(text: str, lookup) -> tuple[Optional[str], str]:
    """`${name}` and `$name` replaced by `lookup(name)`; (None, why) when a name has no value."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "$" and i + 1 < len(text):
            if text[i + 1] == "{":
                end = text.find("}", i + 2)
                if end < 0:
                    return None, f"unclosed ${{ in {text!r}"
                name = text[i + 2:end]
                i = end + 1
            else:
                j = i + 1
                while j < len(text) and (text[j].isalnum() or text[j] in "_."):
                    j += 1
                name = text[i + 1:j].rstrip(".")
                i = i + 1 + len(name)
                if not name:
                    out.append("$")
                    continue
            value = lookup(name)
            if value is None:
                return None, f"${{{name}}} is not set in the build files"
            out.append(value)
            continue
        out.append(ch)
        i += 1
    return "".join(out), ""


# --- Maven ----------------------------------------------------------------------------------------------------


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(elem: Optional[ET.Element], name: str) -> Optional[ET.Element]:
    if elem is None:
        return None
    for child in elem:
        if isinstance(child.tag, str) and _local(child.tag) == name:
            return child
    return None


def _text(elem: Optional[ET.Element], name: str) -> Optional[str]:
    child = _child(elem, name)
    return child.text.strip() if child is not None and child.text and child.text.strip() else None


class _Element(ET.Element):
    sourceline = 0  # set per instance by `_parse_xml` (the C Element has no room for it; a subclass has)


def _parse_xml(text: str) -> ET.Element:
    """ElementTree elements with each one's start line (`elem.sourceline`), from expat directly (the C
    XMLParser of ElementTree does not tell lines). Raises ET.ParseError."""
    from xml.parsers import expat

    builder = ET.TreeBuilder(element_factory=_Element)
    parser = expat.ParserCreate(namespace_separator="}")

    def start(tag, attrs):
        builder.start(tag, attrs).sourceline = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(text, True)
    except expat.ExpatError as err:
        error = ET.ParseError(f"{expat.errors.messages[err.code]}: line {err.lineno}, column {err.offset}")
        error.position = (err.lineno, err.offset)
        raise error from None
    return builder.close()


@dataclass
class _Pom:
    path: Path
    root: ET.Element
    parent: Optional["_Pom"]

    def properties(self) -> dict[str, str]:
        props = dict(self.parent.properties()) if self.parent else {}
        for elem in _child(self.root, "properties") or []:
            if isinstance(elem.tag, str) and elem.text is not None:
                props[_local(elem.tag)] = elem.text.strip()
        version = _text(self.root, "version") or _text(_child(self.root, "parent"), "version")
        if version:
            props["project.version"] = props["pom.version"] = version
        parent_version = _text(_child(self.root, "parent"), "version")
        if parent_version:
            props["project.parent.version"] = parent_version
        return props

    def managed(self) -> dict[str, tuple[str, "_Pom"]]:
        """artifactId -> (version text, the pom that manages it), the nearest pom winning."""
        managed = dict(self.parent.managed()) if self.parent else {}
        deps = _child(_child(self.root, "dependencyManagement"), "dependencies")
        for dep in deps or []:
            if isinstance(dep.tag, str) and _text(dep, "groupId") == ROCKETMQ_GROUP and _text(dep, "version"):
                managed[_text(dep, "artifactId") or ""] = (_text(dep, "version"), self)
        return managed


def _parse_pom(path: Path, problems: list[SourceProblem], seen: set) -> Optional[_Pom]:
    key = path.resolve()
    if key in seen:  # a parent cycle
        return None
    seen.add(key)
    text = _read(path, problems)
    if text is None:
        return None
    try:
        root = _parse_xml(text)
    except ET.ParseError as err:
        problems.append(SourceProblem(Origin(str(path), err.position[0]), f"not valid XML: {err}"))
        return None
    parent = None
    parent_elem = _child(root, "parent")
    if parent_elem is not None:
        relative = _text(parent_elem, "relativePath")
        candidate = path.parent / (relative if relative is not None else "../pom.xml")
        if candidate.is_dir():
            candidate = candidate / "pom.xml"
        if candidate.is_file():
            parsed = _parse_pom(candidate, problems, seen)
            # Maven takes the file only when it is the declared parent.
            if parsed is not None and _text(parsed.root, "artifactId") == _text(parent_elem, "artifactId"):
                parent = parsed
    return _Pom(path, root, parent)


def read_pom(path: Path, problems: list[SourceProblem]) -> Optional[Module]:
    pom = _parse_pom(path, problems, set())
    if pom is None:
        return None
    props = pom.properties()
    managed = pom.managed()
    artifact_elem = _child(pom.root, "artifactId")
    name = _text(pom.root, "artifactId") or path.parent.name
    module = Module(str(path.parent), str(path), name,
                    Origin(str(path), getattr(artifact_elem, "sourceline", 0)))
    for dep in _child(pom.root, "dependencies") or []:
        if not isinstance(dep.tag, str) or _text(dep, "groupId") != ROCKETMQ_GROUP:
            continue
        artifact = _text(dep, "artifactId")
        if artifact not in JAVA_ARTIFACTS:
            continue
        origin = Origin(str(path), getattr(dep, "sourceline", 0))
        raw = _text(dep, "version")
        source = pom
        if raw is None and artifact in managed:
            raw, source = managed[artifact]
        if raw is None:
            module.dependencies.append(ClientDependency(artifact, None, "no version here or in a parent's "
                                                        "dependencyManagement (a BOM import?)", origin))
            continue
        version, why = _substitute(raw, (source.properties() if source is not pom else props).get)
        module.dependencies.append(ClientDependency(artifact, version, why, origin))
    return module


# --- Gradle ---------------------------------------------------------------------------------------------------


def _gradle_language(kotlin: bool):
    import tree_sitter

    if kotlin:
        import tree_sitter_kotlin as grammar
    else:
        import tree_sitter_groovy as grammar
    return tree_sitter.Language(grammar.language())


def _string_value(node) -> Optional[str]:
    """The raw text inside a string literal node (interpolation left as `$x` / `${x}`), or None."""
    if node.type in ("string_literal", "character_literal", "string", "line_string_literal"):
        text = node.text.decode("utf-8", "replace")
        if text[:3] in ('"""', "'''"):
            return text[3:-3]
        if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
            return text[1:-1]
    return None


def _walk(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _properties_file(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    try:
        from jproperties import Properties

        props = Properties()
        with open(path, "rb") as fh:
            props.load(fh, "iso-8859-1")
        return {k: v.data for k, v in props.items()}
    except Exception:  # a broken gradle.properties gives no variables, not a crash
        return {}


def _version_catalog(root: Path) -> dict[str, tuple[str, str, Optional[str]]]:
    """`libs.<alias>` (dots) -> (group, name, version or None) from gradle/libs.versions.toml."""
    path = root / "gradle" / "libs.versions.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    versions = data.get("versions") if isinstance(data.get("versions"), dict) else {}
    out = {}
    for alias, spec in (data.get("libraries") or {}).items():
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) >= 2:
                out[alias.replace("-", ".").replace("_", ".")] = (parts[0], parts[1],
                                                                  parts[2] if len(parts) > 2 else None)
            continue
        if not isinstance(spec, dict):
            continue
        if "module" in spec:
            group, _, name = str(spec["module"]).partition(":")
        else:
            group, name = str(spec.get("group", "")), str(spec.get("name", ""))
        version = spec.get("version")
        if isinstance(version, dict):
            version = versions.get(version.get("ref")) if "ref" in version else version.get("strictly") \
                or version.get("require")
        out[alias.replace("-", ".").replace("_", ".")] = (group, name, version if isinstance(version, str) else None)
    return out


def read_gradle(path: Path, root: Path, problems: list[SourceProblem]) -> Optional[Module]:
    text = _read(path, problems)
    if text is None:
        return None
    kotlin = path.name.endswith(".kts")
    try:
        import tree_sitter

        tree = tree_sitter.Parser(_gradle_language(kotlin)).parse(text.encode("utf-8"))
    except ImportError:
        problems.append(SourceProblem(Origin(str(path)), "the Gradle grammar is not installed: not read"))
        return None
    variables: dict[str, str] = {}
    variables.update(_properties_file(root / "gradle.properties"))
    variables.update(_properties_file(path.parent / "gradle.properties"))
    calls = []
    for node in _walk(tree.root_node):
        _collect_variable(node, variables)
        if node.type in ("juxt_function_call", "method_invocation", "call_expression"):
            calls.append(node)
    catalog = _version_catalog(root)
    module = Module(str(path.parent), str(path), path.parent.name, Origin(str(path)))
    for node in calls:
        dep = _gradle_dependency(node, variables, catalog, str(path))
        if dep is not None:
            module.dependencies.append(dep)
    return module


def _collect_variable(node, variables: dict[str, str]) -> None:
    """`x = '1'` (in `ext {}` or a script), `ext.x = '1'`, `def x = '1'`, `val x = "1"`, `extra["x"] = "1"`."""
    name = value = None
    if node.type in ("assignment_expression", "assignment"):
        target, literal = node.children[0], node.children[-1]
        value = _string_value(literal)
        if target.type == "identifier":
            name = target.text.decode()
        elif target.type in ("field_access", "navigation_expression", "directly_assignable_expression"):
            name = target.text.decode().rsplit(".", 1)[-1]
        elif target.type == "index_expression" or target.type == "indexing_expression":
            strings = [c for c in _walk(target) if _string_value(c) is not None]
            name = _string_value(strings[0]) if strings else None
    elif node.type in ("variable_declarator",):
        ident = node.child_by_field_name("name") or (node.children[0] if node.children else None)
        if ident is not None and ident.type == "identifier" and node.children:
            name, value = ident.text.decode(), _string_value(node.children[-1])
    elif node.type == "property_declaration":
        decl = next((c for c in node.children if c.type == "variable_declaration"), None)
        literal = node.children[-1]
        if decl is not None and decl.children:
            name, value = decl.children[0].text.decode(), _string_value(literal)
    if name and value is not None and "$" not in value:
        variables[name] = value


def _arguments(node) -> list:
    for child in node.children:
        if child.type in ("argument_list", "value_arguments", "call_suffix"):
            if child.type == "call_suffix":
                return _arguments(child)
            return [c for c in child.children if c.type not in ("(", ")", ",")]
    return []


def _gradle_dependency(node, variables: dict[str, str], catalog: dict, path: str) -> Optional[ClientDependency]:
    args = _arguments(node)
    if not args:
        return None
    origin = Origin(path, node.start_point[0] + 1)
    named: dict[str, object] = {}
    positional = []
    for arg in args:
        inner = arg.children if arg.type == "value_argument" else [arg]
        if arg.type == "map_item" or (arg.type == "value_argument" and len(inner) >= 3 and inner[1].type == "="):
            key = inner[0].text.decode()
            named[key] = inner[-1]
        elif inner:
            positional.append(inner[-1] if arg.type == "value_argument" else arg)
    lookup = variables.get
    if "name" in named and "group" in named:
        group, name = _string_value(named["group"]), _string_value(named["name"])
        if group != ROCKETMQ_GROUP or name not in JAVA_ARTIFACTS:
            return None
        return _resolved_dep(name, named.get("version"), lookup, origin)
    if len(positional) == 3 and _string_value(positional[0]) == ROCKETMQ_GROUP:
        name = _string_value(positional[1])
        if name in JAVA_ARTIFACTS:
            return _resolved_dep(name, positional[2], lookup, origin)
        return None
    if len(positional) == 1:
        first = positional[0]
        raw = _string_value(first)
        if raw is not None:
            parts = raw.split(":")
            if len(parts) >= 2 and parts[0] == ROCKETMQ_GROUP and parts[1] in JAVA_ARTIFACTS:
                if len(parts) < 3 or not parts[2]:
                    return ClientDependency(parts[1], None, "no version (a platform or BOM decides it)", origin)
                version, why = _substitute(parts[2], lookup)
                return ClientDependency(parts[1], version, why, origin)
            return None
        text = first.text.decode("utf-8", "replace")
        if text.startswith("libs."):
            entry = catalog.get(text[len("libs."):])
            if entry and entry[0] == ROCKETMQ_GROUP and entry[1] in JAVA_ARTIFACTS:
                why = "" if entry[2] else "no version in gradle/libs.versions.toml"
                return ClientDependency(entry[1], entry[2], why, origin)
    return None


def _resolved_dep(name: str, node, lookup, origin: Origin) -> ClientDependency:
    if node is None:
        return ClientDependency(name, None, "no version (a platform or BOM decides it)", origin)
    raw = _string_value(node)
    if raw is None:
        ident = node.text.decode("utf-8", "replace")
        value = lookup(ident)
        return ClientDependency(name, value, "" if value else f"`{ident}` is not set in the build files", origin)
    version, why = _substitute(raw, lookup)
    return ClientDependency(name, version, why, origin)


# --- Python ---------------------------------------------------------------------------------------------------


def _python_dep(spec: str, origin: Origin) -> Optional[ClientDependency]:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return None
    name = canonicalize_name(req.name)
    if name not in PYTHON_PACKAGES:
        return None
    pins = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    if len(pins) == 1:
        return ClientDependency(name, pins[0], "", origin)
    why = f"the requirement {str(req.specifier) or 'has no version'}: pip decides" if not pins else "several pins"
    return ClientDependency(name, None, why, origin)


def read_requirements(path: Path, problems: list[SourceProblem]) -> list[ClientDependency]:
    text = _read(path, problems)
    if text is None:
        return []
    deps = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        dep = _python_dep(line, Origin(str(path), number))
        if dep is not None:
            deps.append(dep)
    return deps


def read_pyproject(path: Path, problems: list[SourceProblem]) -> Optional[Module]:
    text = _read(path, problems)
    if text is None:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        problems.append(SourceProblem(Origin(str(path)), f"invalid TOML: {err}"))
        return None
    lines = text.splitlines()

    def line_of(needle: str) -> int:
        return next((i for i, row in enumerate(lines, 1) if needle in row), 0)

    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    poetry = ((data.get("tool") or {}).get("poetry") or {}) if isinstance(data.get("tool"), dict) else {}
    name = project.get("name") or poetry.get("name") or path.parent.name
    module = Module(str(path.parent), str(path), str(name), Origin(str(path), line_of("name")))
    specs = [s for s in project.get("dependencies") or [] if isinstance(s, str)]
    for spec in specs:
        dep = _python_dep(spec, Origin(str(path), line_of(spec)))
        if dep is not None:
            module.dependencies.append(dep)
    for dep_name, constraint in (poetry.get("dependencies") or {}).items():
        version = constraint.get("version") if isinstance(constraint, dict) else constraint
        if isinstance(version, str):
            spec = f"{dep_name}=={version}" if version[:1].isdigit() else f"{dep_name}{version}"
            if version.startswith(("^", "~")):
                spec = f"{dep_name}~={version.lstrip('^~')}"
            dep = _python_dep(spec, Origin(str(path), line_of(dep_name)))
            if dep is not None:
                module.dependencies.append(dep)
    return module


# --- the tree -------------------------------------------------------------------------------------------------


def read_build_files(root: str | os.PathLike) -> BuildIndex:
    """Every module under `root` and the RocketMQ clients it builds with."""
    root = Path(root)
    index = BuildIndex()
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
        here = Path(directory)
        names = set(filenames)
        module: Optional[Module] = None
        if "pom.xml" in names:
            module = read_pom(here / "pom.xml", index.problems)
        elif "build.gradle.kts" in names or "build.gradle" in names:
            gradle = "build.gradle.kts" if "build.gradle.kts" in names else "build.gradle"
            module = read_gradle(here / gradle, root, index.problems)
        elif "pyproject.toml" in names:
            module = read_pyproject(here / "pyproject.toml", index.problems)
        requirements = sorted(f for f in names if f.startswith("requirements") and f.endswith(".txt"))
        if requirements:
            if module is None:
                module = Module(str(here), str(here / requirements[0]), here.name, Origin(str(here)))
            for req in requirements:
                module.dependencies.extend(read_requirements(here / req, index.problems))
        if module is not None:
            index.modules.append(module)
    return index


def modules_with_clients(index: BuildIndex) -> Iterable[Module]:
    return (m for m in index.modules if m.dependencies)
