"""The project linker: turns every symbolic value in clients, subscriptions and produced tags into `Lit` or
`Dynamic`, using the whole project.

- Java `ConstRef`: candidate classes in the order the frontend gave (qualifier, static imports, interfaces,
  superclasses), by simple, nested (`Outer.Inner`) or fully qualified name; among several classes of one simple
  name the qualification, then the referring file's package decides; if they still disagree, the value is Dynamic.
- Python `ConstRef`: the module (`pkg.settings`, relative `.settings`) by its path, also under a source folder
  (`src/pkg/settings.py`); chains of imports are followed.
- Spring `Placeholder`: the merged configuration of the Spring files of the referring file's module
  (`config_scope`: `svc/src/main/resources/application*.yml` configures `svc/`), keys compared in relaxed form
  (lowercase, without '-' and '_'). A key set to different values in different files (profiles) is Dynamic: which
  one applies depends on the deployment. Runtime-only keys (`random.*`, environment-style names such as
  `HOSTNAME`) are Dynamic; a key set nowhere takes its default, else is Dynamic.
- Java listener classes (`Listener.class_ref`, a class of another file): through the referring file's imports,
  else its package, else the simple name when one file of the project declares it; the placeholder listener is
  replaced by the declaring file's `listener_classes` entry (locations in that file). Anything else (not found,
  ambiguous, not a listener class) keeps the placeholder: kind "unknown", nothing a rule acts on.
  Python 2.x callbacks imported from another module (`Listener.class_ref` = "module.function") likewise, from the
  one module of that name.
- Cycles are Dynamic. Nothing is guessed.

Files that are not yet parsed are asked for through a `SourceLoader` (the engine parses them on demand).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Protocol

from rmqlint.facts import ClientFact, ConfigEntry, FileFacts, Listener, ProducedTag, Setting
from rmqlint.project import Project
from rmqlint.values import Concat, ConstRef, Dynamic, Lit, Placeholder, Value, concat

_ENV_STYLE = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Keys Spring (Cloud) fills in at run time: never a fixed value even though they look like configuration.
_RUNTIME_PREFIXES = ("random.", "spring.cloud.client.", "local.server.", "local.management.")
_RUNTIME_KEYS = frozenset({"pid", "hostname", "spring.application.instanceid", "vcap.application.instanceid"})


class SourceLoader(Protocol):
    def java_candidates(self, scope: str, near: str) -> list[FileFacts]:
        """Every Java file declaring the class named by the last segment of `scope`, parsing files on demand:
        files named after a segment of `scope` (`Outer.java` for `Outer.Inner`), else files next to `near`
        (package-private classes) that mention the name."""

    def python_modules(self, module: str) -> list[FileFacts]:
        """Every Python file whose dotted module path is `module` or ends with `.module`."""


def canonical_key(key: str) -> str:
    """Spring relaxed binding: `rocketmq.consumer.instance-name` == `rocketmq.consumer.instanceName`."""
    return key.lower().replace("-", "").replace("_", "")


class Linker:
    def __init__(self, files: dict[str, FileFacts], loader: SourceLoader | None = None, root: str = ""):
        self.files = files  # shared with the engine: files parsed on demand are added to it by the loader
        self.loader = loader
        self.root = root
        self._config: dict[str, list[tuple[ConfigEntry, str]]] = {}
        for path in sorted(files):
            self._add_config(files[path])
        self._const_memo: dict[tuple[str, str], Value] = {}
        self._java_memo: dict[tuple[str, str, str], list[FileFacts]] = {}
        self._python_memo: dict[str, list[FileFacts]] = {}
        self._active: set[tuple[str, str]] = set()  # constants and keys being resolved, to catch cycles
        self._config_memo: dict[tuple, Value] = {}

    def _add_config(self, facts: FileFacts) -> None:
        for entry in facts.config:
            self._config.setdefault(canonical_key(entry.key), []).append((entry, facts.path))

    # --- public ---------------------------------------------------------------------------------------------

    def link(self) -> Project:
        resolved: dict[str, FileFacts] = {}
        # Resolving may parse more files on demand (constants classes); they are linked too, for their problems.
        while pending := sorted(set(self.files) - set(resolved)):
            for path in pending:
                resolved[path] = self.resolve_file(self.files[path])
        config = {}
        for key in sorted(self._config):
            value = self.config_value(key)
            if isinstance(value, Lit):
                config[key] = value.text
        return Project(root=self.root, files=resolved, config=config)

    def resolve_file(self, facts: FileFacts) -> FileFacts:
        ctx = facts
        clients = [self._resolve_client(c, ctx) for c in facts.clients]
        produced = [self._resolve_produced(p, ctx) for p in facts.produced]
        return dataclasses.replace(facts, clients=clients, produced=produced)

    def resolve(self, value: Value | None, ctx: FileFacts) -> Value | None:
        if value is None or isinstance(value, (Lit, Dynamic)):
            return value
        if isinstance(value, Concat):
            return concat([self.resolve(part, ctx) for part in value.parts])
        if isinstance(value, Placeholder):
            return self._placeholder(value, ctx)
        if isinstance(value, ConstRef):
            if value.language == "python":
                return self._python_const(value, ctx)
            return self._java_const(value, ctx)
        return Dynamic(f"unsupported value {value!r}")

    # --- facts ----------------------------------------------------------------------------------------------

    def _setting(self, setting: Setting | None, ctx: FileFacts) -> Setting | None:
        if setting is None:
            return None
        return dataclasses.replace(setting, value=self.resolve(setting.value, ctx))

    def _resolve_client(self, client: ClientFact, ctx: FileFacts) -> ClientFact:
        names = ("group", "message_model", "consume_mode", "instance_name", "unit_name", "max_reconsume_times",
                 "delay_level")
        changes = {name: self._setting(getattr(client, name), ctx) for name in names}
        listeners = []
        for listener in client.listeners:
            linked = self._listener(listener, ctx)
            if linked is not listener and linked.delay_level is not None:
                changes["delay_level"] = linked.delay_level  # set by the listener's code, as in one file
            listeners.append(linked)
        changes["listeners"] = listeners
        changes["subscriptions"] = [
            dataclasses.replace(s, topic=self.resolve(s.topic, ctx), expression=self.resolve(s.expression, ctx))
            for s in client.subscriptions
        ]
        return dataclasses.replace(client, **changes)

    def _listener(self, listener: Listener, ctx: FileFacts) -> Listener:
        """The listener with its delay level resolved; a class of another file replaced by that class's facts."""
        if listener.class_ref:
            found = self._listener_class(listener.class_ref, ctx)
            if found is not None:
                declaring, linked = found
                return dataclasses.replace(linked, class_ref=listener.class_ref,
                                           delay_level=self._setting(linked.delay_level, declaring))
        if listener.delay_level is None:
            return listener
        return dataclasses.replace(listener, delay_level=self._setting(listener.delay_level, ctx))

    def _listener_class(self, written: str, ctx: FileFacts) -> tuple[FileFacts, Listener] | None:
        """The one file declaring the listener class `written` refers to from `ctx`, and its listener facts."""
        if ctx.language == "python":
            return self._python_callback(written, ctx)
        scope = _imported(written, ctx)
        declaring = self._java_classes(scope, ctx)
        if len(declaring) != 1:
            return None  # not in the project, or several candidates: which one runs is not known
        facts = declaring[0]
        linked = facts.listener_classes.get(_last(scope))
        return (facts, linked) if linked is not None else None

    def _python_callback(self, written: str, ctx: FileFacts) -> tuple[FileFacts, Listener] | None:
        """The callback `module.function` of the one module of that name, when it publishes one."""
        module, _, name = written.rpartition(".")
        module = _absolute_module(module, ctx.path) if module else None
        declaring = self._python_files(module) if module else []
        if len(declaring) != 1:
            return None  # not in the project, or several modules of that name: which one runs is not known
        linked = declaring[0].listener_classes.get(name)
        return (declaring[0], linked) if linked is not None else None

    def _resolve_produced(self, tag: ProducedTag, ctx: FileFacts) -> ProducedTag:
        destination = getattr(tag, "destination", None)
        if destination is not None:
            topic, tag_value = self._split_destination(destination, ctx)
            return dataclasses.replace(tag, topic=topic, tag=tag_value, destination=self.resolve(destination, ctx))
        return dataclasses.replace(tag, topic=self.resolve(tag.topic, ctx), tag=self.resolve(tag.tag, ctx))

    def _split_destination(self, destination: Value, ctx: FileFacts) -> tuple[Value, Value]:
        """`RocketMQTemplate` destinations are "topic:tags", split on the first ':'; no ':' means no tag.

        A destination whose topic part is known but whose tag part is not ("orders:" + tag) keeps the topic."""
        parts = destination.parts if isinstance(destination, Concat) else (destination,)
        resolved = [self.resolve(p, ctx) for p in parts]
        prefix = ""
        for index, part in enumerate(resolved):
            if isinstance(part, Lit):
                if ":" in part.text:
                    head, tail = part.text.split(":", 1)
                    return Lit(prefix + head), concat([Lit(tail), *resolved[index + 1 :]])
                prefix += part.text
                continue
            # A dynamic part before any ':': neither topic nor tag is known.
            reason = part.reason if isinstance(part, Dynamic) else "unresolved destination"
            return Dynamic(reason), Dynamic(reason)
        return Lit(prefix), Lit("")

    # --- Spring placeholders --------------------------------------------------------------------------------

    def _placeholder(self, ph: Placeholder, ctx: FileFacts) -> Value:
        key = canonical_key(ph.key)
        entries = self._applicable(key, ctx.path)
        if entries:
            return self._config_entries_value(key, entries)
        if _is_runtime_key(ph.key):
            return Dynamic(f"${{{ph.key}}} is set at run time")
        if _ENV_STYLE.match(ph.key):
            return Dynamic(f"${{{ph.key}}} comes from the environment")
        if ph.default is not None:
            return self.resolve(ph.default, ctx)
        return Dynamic(f"${{{ph.key}}} is not set in the project's configuration")

    def _applicable(self, key: str, path: str) -> list[tuple[ConfigEntry, str]]:
        """The entries of `key` that configure the application `path` belongs to (see `config_scope`)."""
        return [(entry, source) for entry, source in self._config.get(key, ()) if _in_scope(path, config_scope(source))]

    def config_value(self, key: str) -> Value:
        """The resolved value of a canonical configuration key over the whole project; Dynamic when files
        disagree."""
        return self._config_entries_value(key, self._config[key])

    def _config_entries_value(self, key: str, entries: list[tuple[ConfigEntry, str]]) -> Value:
        memo_key = (key, tuple(id(entry) for entry, _source in entries))
        if memo_key in self._config_memo:
            return self._config_memo[memo_key]
        marker = ("<config>", key)
        if marker in self._active:
            return Dynamic(f"placeholder cycle through {key}")
        self._active.add(marker)
        try:
            results = []
            for entry, path in entries:
                results.append((self.resolve(entry.value, self.files.get(path) or FileFacts(path, "")), path))
        finally:
            self._active.discard(marker)
        value = _agree(results, f"'{entries[0][0].key}'")
        self._config_memo[memo_key] = value
        return value

    # --- Java constants -------------------------------------------------------------------------------------

    def _java_const(self, ref: ConstRef, ctx: FileFacts) -> Value:
        for written in ref.scopes:
            scope = _imported(written, ctx)
            candidates = self._java_classes(scope, ctx)
            found = [(f, f.constants[f"{_last(scope)}.{ref.name}"]) for f in candidates
                     if f"{_last(scope)}.{ref.name}" in f.constants]
            if not found:
                continue
            results = [(self._constant(f, f"{_last(scope)}.{ref.name}", raw), f.path) for f, raw in found]
            return _agree(results, f"{scope}.{ref.name}")
        return Dynamic(f"constant {_display(ref)} not found in the project")

    def _java_classes(self, scope: str, ctx: FileFacts) -> list[FileFacts]:
        memo_key = (scope, ctx.package, ctx.path.rpartition("/")[0])
        if memo_key in self._java_memo:
            return self._java_memo[memo_key]
        simple = _last(scope)
        if self.loader is not None:
            declaring = self.loader.java_candidates(scope, ctx.path)
            for facts in declaring:
                self._adopt(facts)
        else:
            declaring = [f for f in self.files.values() if f.language == "java" and simple in f.classes]
        qualifier = scope.split(".")[:-1]
        matching = [f for f in declaring if simple in f.classes and _qualifies(qualifier, f)]
        if not qualifier and len(matching) > 1:
            # An unqualified name the frontend could not pin down: the referring file's own package first.
            same_package = [f for f in matching if f.package == ctx.package]
            matching = same_package or matching
        self._java_memo[memo_key] = matching
        return matching

    # --- Python constants -----------------------------------------------------------------------------------

    def _python_const(self, ref: ConstRef, ctx: FileFacts) -> Value:
        for scope in ref.scopes:
            module = _absolute_module(scope, ctx.path)
            if module is None:
                continue
            candidates = self._python_files(module)
            found = [(f, f.constants[ref.name]) for f in candidates if ref.name in f.constants]
            if found:
                results = [(self._constant(f, ref.name, raw), f.path) for f, raw in found]
                return _agree(results, f"{module}.{ref.name}")
        return Dynamic(f"constant {_display(ref)} not found in the project")

    def _python_files(self, module: str) -> list[FileFacts]:
        if module in self._python_memo:
            return self._python_memo[module]
        if self.loader is not None:
            found = self.loader.python_modules(module)
            for facts in found:
                self._adopt(facts)
        else:
            found = [f for f in self.files.values() if f.language == "python"
                     and _module_matches(module_of(f.path), module)]
        exact = [f for f in found if module_of(f.path) == module]
        result = exact or found
        self._python_memo[module] = result
        return result

    # --- shared ---------------------------------------------------------------------------------------------

    def _constant(self, facts: FileFacts, key: str, raw: Value) -> Value:
        """A constant's value, resolved in the context of the file that declares it."""
        memo_key = (facts.path, key)
        if memo_key in self._const_memo:
            return self._const_memo[memo_key]
        if memo_key in self._active:
            return Dynamic(f"constant cycle through {key}")
        self._active.add(memo_key)
        try:
            value = self.resolve(raw, facts)
        finally:
            self._active.discard(memo_key)
        self._const_memo[memo_key] = value
        return value

    def _adopt(self, facts: FileFacts) -> None:
        if facts.path not in self.files:
            self.files[facts.path] = facts
            if facts.config:
                self._add_config(facts)
                self._config_memo.clear()


def _agree(results: list[tuple[Value, str]], what: str) -> Value:
    """One value when every source agrees; Dynamic when any is dynamic or they differ."""
    texts = set()
    for value, _path in results:
        if not isinstance(value, Lit):
            return value if isinstance(value, Dynamic) else Dynamic(f"{what} is not resolvable")
        texts.add(value.text)
    if len(texts) == 1:
        return results[0][0]
    paths = ", ".join(sorted({p for _v, p in results}))
    return Dynamic(f"{what} has different values in {paths}")


def config_scope(config_path: str) -> str:
    """The part of the project a Spring configuration file configures, as a path prefix ("" for everything).

    `svc/src/main/resources/application.yml` configures module `svc/` (main and test code);
    `svc/src/test/resources/application.yml` only `svc/src/test/`; `svc/config/application.yml` and
    `svc/application.yml` the directory `svc/`. In a monorepo, one service's keys never resolve another's
    placeholders."""
    directory = config_path.rpartition("/")[0]
    for marker, keep in (("src/test/resources", "src/test"), ("src/main/resources", "")):
        if directory == marker or directory.startswith(marker + "/") or f"/{marker}" in f"/{directory}/":
            head = ("/" + directory).split("/" + marker, 1)[0].strip("/")
            return "/".join(p for p in (head, keep) if p)
    parts = directory.split("/") if directory else []
    if parts and parts[-1] == "config":
        parts.pop()
    return "/".join(parts)


def _in_scope(path: str, scope: str) -> bool:
    return not scope or path == scope or path.startswith(scope + "/")


def _is_runtime_key(key: str) -> bool:
    canon = canonical_key(key)
    return canon in _RUNTIME_KEYS or canon.startswith(tuple(canonical_key(p) for p in _RUNTIME_PREFIXES))


def _imported(scope: str, ctx: FileFacts) -> str:
    """Qualify a scope through the referring file's single-type imports: `Names.X` with `import com.a.Names`
    means `com.a.Names`, whatever other `Names` the project has."""
    imports = getattr(ctx, "imports", None)
    if not imports:
        return scope
    head, dot, rest = scope.partition(".")
    qualified = imports.get(head)
    return qualified + dot + rest if qualified else scope


def _last(scope: str) -> str:
    return scope.rsplit(".", 1)[-1]


def _qualifies(qualifier: list[str], facts: FileFacts) -> bool:
    """Does `qualifier` (the segments before the class name) fit this file: nothing, its enclosing classes,
    its package, or its package followed by enclosing classes?"""
    rest = list(qualifier)
    while rest and rest[-1] in facts.classes:
        rest.pop()
    return not rest or ".".join(rest) == facts.package


def _display(ref: ConstRef) -> str:
    return f"{ref.scopes[0]}.{ref.name}" if ref.scopes else ref.name


def module_of(path: str) -> str:
    """`pkg/settings.py` -> `pkg.settings`; `pkg/__init__.py` -> `pkg`."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_matches(candidate: str, module: str) -> bool:
    return candidate == module or candidate.endswith("." + module)


def _absolute_module(scope: str, path: str) -> str | None:
    """Resolve a relative import (`.settings`, `..conf`) against the referring file's package."""
    if not scope.startswith("."):
        return scope
    level = len(scope) - len(scope.lstrip("."))
    package = module_of(path).split(".")
    if not path.endswith("/__init__.py") and path != "__init__.py":
        package = package[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    tail = scope[level:]
    return ".".join([*base, tail] if tail else base) or None
