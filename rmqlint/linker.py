"""The project linker: turns every symbolic value in clients, subscriptions and produced tags into `Lit` or
`Dynamic`, using the whole project.

- `ConstRef`: the frontend of its language finds the declaring files (`Frontend.find_constant`: Java classes by
  simple, nested or qualified name, Python modules by path); the value is resolved in the declaring file, chains
  are followed, and declarations that disagree make it Dynamic.
- Spring `Placeholder`: the merged configuration of the Spring files of the referring file's module
  (`config_scope`: `svc/src/main/resources/application*.yml` configures `svc/`), keys compared in relaxed form
  (lowercase, without '-' and '_'). A key that profiles set differently (`application-prod.yml`, a document of
  `spring.config.activate.on-profile`) is one of its values, each literal marked with the file, line and profile
  it comes from (`Lit.config`), so a finding can say in which profiles a value is wrong; files every profile reads
  that disagree make it Dynamic (which one wins is not followed). Runtime-only keys (`random.*`,
  environment-style names such as `HOSTNAME`) are Dynamic; a key set nowhere takes its default, else is Dynamic.
  A module with no configuration of its own (a library or starter module of a multi-module build) runs in the
  applications that use it: a key only one application's configuration sets is that application's value; one
  that several set is Dynamic (which application runs the code is not known).
- `Property` (`props.getConsumer().getThreadMin()` on an injected bean): the declaring file's binding
  (`FileFacts.properties`), its placeholder read with the configuration of the reading file's module (else the
  declaring file's), its default (the field's initializer) resolved where it is declared.
- Listener classes of another file (`Listener.class_ref`: a Java class, a Python callback `module.function`):
  the frontend of the referring file finds the one declaring file (`Frontend.find_listener`); the placeholder
  listener is replaced by that file's `listener_classes` entry (locations in that file). Anything else (not
  found, ambiguous, not a listener) keeps the placeholder: kind "unknown", nothing a rule acts on.
- `OneOf` (a value the program picks at run time among several) resolves alternative by alternative; a produced
  tag whose `topic:tags` destination is one of several becomes one produced tag per alternative (the topic and the
  tag of one alternative stay together).
- Cycles are Dynamic. Nothing is guessed.

Files that are not yet parsed are asked for through `SourceFiles` (the engine parses them on demand).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import typing
from typing import Callable

from rmqlint.calls import unbound
from rmqlint.facts import ClientFact, ConfigEntry, FileFacts, Listener, ProducedTag, Setting, Template
from rmqlint.frontends import SourceFiles, frontend_named, frontend_of
from rmqlint.project import Project
from rmqlint.text import canonical_key, split_destination
from rmqlint.values import (MAX_ALTERNATIVES, Concat, ConfigSource, ConstRef, Dynamic, Lit, OneOf, Param, Placeholder,
                            Property, Value, alternatives, concat, one_of, parse_spring_string, without_origins)

# Constants and placeholders that refer to one another are followed this many steps deep (real code: a few); a
# longer chain is unknown rather than a recursion as deep as the chain.
MAX_CHAIN = 64
_TOO_LONG = f"more than {MAX_CHAIN} constants or configuration keys refer to one another in a chain"
SETTING_FIELDS = tuple(name for name, hint in typing.get_type_hints(ClientFact).items()
                       if Setting in typing.get_args(hint))  # every `Setting | None` field of a client
SPRING_LISTENER = "RocketMQMessageListener"
_ENV_STYLE = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Keys Spring (Cloud) fills in at run time: never a fixed value even though they look like configuration.
_RUNTIME_PREFIXES = ("random.", "spring.cloud.client.", "local.server.", "local.management.")
_RUNTIME_KEYS = frozenset({"pid", "hostname", "spring.application.instanceid", "vcap.application.instanceid"})


class StaticFiles:
    """`SourceFiles` over facts that are all parsed already (tests, hand-built projects)."""

    def __init__(self, facts: dict[str, FileFacts]) -> None:
        self.facts = facts
        self._memos: dict[str, dict] = {}

    def paths(self, frontend: str) -> list[str]:
        languages = frontend_named(frontend).languages
        return sorted(p for p, f in self.facts.items() if f.language in languages)

    def ensure_parsed(self, path: str) -> FileFacts | None:
        return self.facts.get(path)

    def peek(self, path: str) -> bytes | None:
        return None

    def mentions(self, path: str, words: tuple[bytes, ...]) -> frozenset[bytes]:
        return frozenset()

    def build_file(self, path: str) -> bytes | None:
        return None

    def memo(self, name: str) -> dict:
        return self._memos.setdefault(name, {})


class Linker:
    def __init__(self, files: dict[str, FileFacts], sources: SourceFiles | None = None, root: str = "",
                 callers: Callable[[str], bool] = lambda _path: True):
        self.files = files  # shared with the engine: files parsed on demand are added to it by `sources`
        self.sources = sources if sources is not None else StaticFiles(files)
        self.root = root
        # Files whose clients count: calls elsewhere (test sources the rules leave out) are not looked for.
        self.callers = callers
        self._config: dict[str, list[tuple[ConfigEntry, str]]] = {}
        self._config_scopes: set[str] = set()  # the parts of the project some configuration file configures
        for path in sorted(files):
            self._add_config(files[path])
        self._const_memo: dict[tuple[str, str], Value] = {}
        self._active: set[tuple[str, str]] = set()  # constants and keys being resolved, to catch cycles
        self._config_memo: dict[tuple, Value] = {}
        self._made_by_calls: dict[str, list[ClientFact]] = {}  # caller path -> clients that calls there make
        self._templates_bound: set[str] = set()  # files whose templates `_bind_templates` looked for calls of

    def _add_config(self, facts: FileFacts) -> None:
        if facts.config:
            self._config_scopes.add(config_scope(facts.path))
        for entry in facts.config:
            self._config.setdefault(canonical_key(entry.key), []).append((entry, facts.path))

    # --- public ---------------------------------------------------------------------------------------------

    def link(self) -> Project:
        self._bind_templates()
        resolved: dict[str, FileFacts] = {}
        # Resolving may parse more files on demand (constants classes); they are linked too, for their problems.
        while pending := sorted(set(self.files) - set(resolved)):
            for path in pending:
                resolved[path] = self.resolve_file(self.files[path])
        if any(SPRING_LISTENER in f.classes for f in resolved.values() if f.language == "java"):
            # The project declares its own @RocketMQMessageListener (a fork of the starter): its container, not
            # the starter's, applies the listeners' settings, so what an absent one means is not known.
            resolved = {path: dataclasses.replace(facts, clients=[
                dataclasses.replace(c, configured_elsewhere=True) if c.api == "spring-listener" else c
                for c in facts.clients]) for path, facts in resolved.items()}
        config = {}
        for key in sorted(self._config):
            value = self.config_value(key)
            if isinstance(value, Lit):
                config[key] = value.text
        return Project(root=self.root, files=resolved, config=config)

    def resolve_file(self, facts: FileFacts) -> FileFacts:
        ctx = facts
        made = list(self._made_by_calls.get(facts.path, ()))
        if facts.path not in self._templates_bound:  # parsed on demand after the calls were looked for
            made += [unbound(t.client, t.escapes) for t in facts.templates if not t.called_here]
        clients = [self._resolve_client(c, ctx) for c in facts.clients + made]
        produced = [linked for p in facts.produced for linked in self._resolve_produced(p, ctx)]
        connections = [dataclasses.replace(c, **{name: self._setting(getattr(c, name), ctx) for name in
                                                 ("name_server", "endpoints", "access_key", "secret_key")})
                       for c in facts.connections]
        return dataclasses.replace(facts, clients=clients, produced=produced, connections=connections, templates=[])

    def resolve(self, value: Value | None, ctx: FileFacts, keep_params: bool = False) -> Value | None:
        """The value as far as the project decides it; a method's parameter is unknown unless `keep_params` (a
        template's values, resolved before its calls bind them)."""
        if value is None or isinstance(value, (Lit, Dynamic)):
            return value
        if isinstance(value, Param):
            return value if keep_params else Dynamic(f"{value.name} is a parameter")
        if isinstance(value, Concat):
            return concat([self.resolve(part, ctx, keep_params) for part in value.parts])
        if isinstance(value, OneOf):
            return one_of(self.resolve(alternative, ctx, keep_params) for alternative in value.alternatives)
        if isinstance(value, Placeholder):
            return self._placeholder(value, ctx)
        if isinstance(value, ConstRef):
            return self._constant_ref(value, ctx)
        if isinstance(value, Property):
            return self._property(value, ctx)
        return Dynamic(f"unsupported value {value!r}")

    # --- facts ----------------------------------------------------------------------------------------------

    def _setting(self, setting: Setting | None, ctx: FileFacts, keep_params: bool = False) -> Setting | None:
        if setting is None:
            return None
        return dataclasses.replace(setting, value=self.resolve(setting.value, ctx, keep_params))

    def _resolve_client(self, client: ClientFact, ctx: FileFacts, keep_params: bool = False) -> ClientFact:
        # Every setting of the client, whatever it is named: a new setting needs no change here.
        changes = {name: self._setting(getattr(client, name), ctx, keep_params) for name in SETTING_FIELDS}
        listeners = []
        for listener in client.listeners:
            linked = self._listener(listener, ctx, keep_params)
            if linked is not listener and linked.delay_level is not None:
                changes["delay_level"] = linked.delay_level  # set by the listener's code, as in one file
            listeners.append(linked)
        changes["listeners"] = listeners
        changes["subscriptions"] = [
            dataclasses.replace(s, topic=self.resolve(s.topic, ctx, keep_params),
                                expression=self.resolve(s.expression, ctx, keep_params))
            for s in client.subscriptions
        ]
        return dataclasses.replace(client, **changes)

    def _listener(self, listener: Listener, ctx: FileFacts, keep_params: bool = False) -> Listener:
        """The listener with its delay level resolved; a class of another file replaced by that class's facts."""
        if listener.class_ref:
            found = self._listener_class(listener.class_ref, ctx)
            if found is not None:
                declaring, linked = found
                return dataclasses.replace(linked, class_ref=listener.class_ref,
                                           delay_level=self._setting(linked.delay_level, declaring))
        if listener.delay_level is None:
            return listener
        return dataclasses.replace(listener, delay_level=self._setting(listener.delay_level, ctx, keep_params))

    # --- clients made per call ----------------------------------------------------------------------------------

    def _bind_templates(self) -> None:
        """One client per call of each template's method in other files, added to the caller's clients; a template
        no call binds (there or in its own file) is one client, its parameters unknown (`rmqlint.calls`)."""
        by_language: dict[str, list[tuple[Template, FileFacts]]] = {}
        originals: dict[str, list[Template]] = {}
        for path in sorted(self.files):
            facts = self.files[path]
            self._templates_bound.add(path)
            for template in facts.templates:
                if not self.callers(path):  # only callers the rules do not see could bind it
                    self._made_by_calls.setdefault(path, []).append(unbound(template.client, template.escapes))
                    continue
                # The template's own constants and placeholders resolve where it is written; the callers' arguments
                # and settings where they are.
                prepared = dataclasses.replace(template, client=self._resolve_client(template.client, facts,
                                                                                     keep_params=True))
                by_language.setdefault(facts.language, []).append((prepared, facts))
                originals.setdefault(facts.language, []).append(template)
        for language, templates in sorted(by_language.items()):
            frontend = frontend_of(language)
            calls = frontend.find_calls(templates, self.sources, self.callers) if frontend is not None else []
            bound: set[int] = set()
            for index, caller, client in calls:
                found = self.sources.ensure_parsed(caller)
                if found is not None:
                    self._adopt(found)
                    if client is not None:  # None: a consumer its caller never starts
                        self._made_by_calls.setdefault(caller, []).append(client)
                    bound.add(index)
            for index, ((_prepared, facts), template) in enumerate(zip(templates, originals[language])):
                if index not in bound and not template.called_here:
                    self._made_by_calls.setdefault(facts.path, []).append(unbound(template.client, template.escapes))

    def _listener_class(self, written: str, ctx: FileFacts) -> tuple[FileFacts, Listener] | None:
        """The one file declaring the listener class `written` refers to from `ctx`, and its listener facts."""
        frontend = frontend_of(ctx.language)
        found = frontend.find_listener(written, ctx, self.sources) if frontend is not None else None
        if found is not None:
            self._adopt(found[0])
        return found

    def _resolve_produced(self, tag: ProducedTag, ctx: FileFacts) -> list[ProducedTag]:
        destination = getattr(tag, "destination", None)
        if destination is not None:
            resolved = self.resolve(destination, ctx)
            linked = [dataclasses.replace(tag, topic=topic, tag=tag_value, destination=resolved)
                      for topic, tag_value in self._split_destination(destination, ctx)]
            return [item for index, item in enumerate(linked) if item not in linked[:index]]
        return [dataclasses.replace(tag, topic=self.resolve(tag.topic, ctx), tag=self.resolve(tag.tag, ctx))]

    def _split_destination(self, destination: Value, ctx: FileFacts) -> list[tuple[Value, Value]]:
        """`RocketMQTemplate` destinations are "topic:tags" (`rmqlint.text.split_destination`), split once the
        parts are resolved, one (topic, tag) per alternative when a part is one of several values. A destination
        whose topic part is known but whose tag part is not ("orders:" + tag) keeps the topic; a dynamic part
        before any ':' leaves neither known."""
        parts = destination.parts if isinstance(destination, Concat) else (destination,)
        choices = [alternatives(self.resolve(p, ctx)) for p in parts]
        count = 1
        for choice in choices:
            count *= len(choice)
        if count > MAX_ALTERNATIVES:
            reason = f"destination is one of more than {MAX_ALTERNATIVES} values"
            return [(Dynamic(reason), Dynamic(reason))]
        split_all = []
        for resolved in itertools.product(*choices):
            split = split_destination(Concat(tuple(resolved)) if len(resolved) > 1 else resolved[0])
            if split is None:
                first = next(p for p in resolved if not isinstance(p, Lit))
                reason = first.reason if isinstance(first, Dynamic) else "unresolved destination"
                split = Dynamic(reason), Dynamic(reason)
            split_all.append(split)
        return split_all

    # --- Spring placeholders --------------------------------------------------------------------------------

    def _placeholder(self, ph: Placeholder, ctx: FileFacts, declaring: str = "") -> Value:
        """`${key:default}` as the configuration of `ctx`'s application sets it (of `declaring`'s, for a bound
        property whose class is declared in another module of the project)."""
        key = canonical_key(ph.key)
        entries = self._applicable(key, ctx.path) or (self._applicable(key, declaring) if declaring else [])
        if not entries and key in self._config and not self._configured(ctx.path) and not (
                declaring and self._configured(declaring)):
            # A module with no configuration of its own (a library, a starter) runs in the applications that use
            # it: the one application of the project that sets the key decides; of several, which one is not known.
            elsewhere = [(e, s) for e, s in self._config[key] if not _is_test_scope(config_scope(s))]
            applications = {config_scope(s) for _e, s in elsewhere}
            if len(applications) > 1:
                return Dynamic(f"${{{ph.key}}} is set by several applications of the project: "
                               f"{', '.join(sorted(a or '.' for a in applications))}")
            entries = elsewhere
        if entries:
            return self._profiled(ph, key, entries, ctx)
        if _is_runtime_key(ph.key):
            return Dynamic(f"${{{ph.key}}} is set at run time", _runtime_per(ph.key))
        if _ENV_STYLE.match(ph.key):
            return Dynamic(f"${{{ph.key}}} comes from the environment", "host" if ph.key == "HOSTNAME" else "")
        if ph.default is not None:
            return self.resolve(ph.default, ctx)
        return Dynamic(f"${{{ph.key}}} is not set in the project's configuration")

    def _profiled(self, ph: Placeholder, key: str, entries: list[tuple[ConfigEntry, str]], ctx: FileFacts) -> Value:
        """The value of a key that profiles may set differently: the value of the configuration every profile reads
        (or the placeholder's default) where no profile's file sets another, and each profile's own; one of them,
        each with the files and profiles it comes from (`Lit.config`), when they differ."""
        base = [(entry, source) for entry, source in entries if not entry.profile]
        by_profile: dict[str, list[tuple[ConfigEntry, str]]] = {}
        for entry, source in entries:
            if entry.profile:
                by_profile.setdefault(entry.profile, []).append((entry, source))
        if base:
            base_value = self._config_entries_value(key, base)
        elif ph.default is not None:
            base_value = _sourced(self.resolve(ph.default, ctx), ConfigSource(ph.key))
        else:
            base_value = Dynamic(f"${{{ph.key}}} is set only under profile {', '.join(sorted(by_profile))}",
                                 config=(ConfigSource(ph.key),))
        if not by_profile:
            return base_value
        values = {profile: self._config_entries_value(key, found) for profile, found in by_profile.items()}
        overridden = tuple(sorted(profile for profile, value in values.items() if value != base_value))
        if not overridden:
            return base_value
        return _merged(_overridden(base_value, overridden), *(values[profile] for profile in overridden))

    def _configured(self, path: str) -> bool:
        """Whether any Spring configuration file configures the application `path` belongs to."""
        return any(_in_scope(path, scope) for scope in self._config_scopes)

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
        if len(self._active) >= MAX_CHAIN:
            return Dynamic(_TOO_LONG)
        self._active.add(marker)
        try:
            results = []
            for entry, path in entries:
                value = self.resolve(entry.value, self.files.get(path) or FileFacts(path, ""))
                source = ConfigSource(entry.key, path, entry.location.line, entry.location.column, entry.profile)
                results.append((_sourced(value, source), path))
        finally:
            self._active.discard(marker)
        value = _agree(results, f"'{entries[0][0].key}'")
        self._config_memo[memo_key] = value
        return value

    # --- constants ----------------------------------------------------------------------------------------------

    def _constant_ref(self, ref: ConstRef, ctx: FileFacts) -> Value:
        frontend = frontend_of(ref.language)
        match = frontend.find_constant(ref, ctx, self.sources) if frontend is not None else None
        if match is None:
            return Dynamic(f"constant {_display(ref)} not found in the project")
        for facts, _key in match.declarations:
            self._adopt(facts)
        results = [(self._constant(f, key, f.constants[key]), f.path) for f, key in match.declarations]
        value = _agree(results, match.what)
        if ref.spring:
            # Spring reads placeholders in the constant's text, with the configuration of the referring file.
            value = self.resolve(_spring_text(value), ctx)
        return value

    # --- properties of injected beans --------------------------------------------------------------------------

    def _property(self, ref: Property, ctx: FileFacts) -> Value:
        """What Spring binds into a property of a bean (`Property`): the declaring class's binding (a placeholder,
        its default the field's initializer) resolved with the configuration of the application that reads it."""
        frontend = frontend_of(ref.language)
        match = frontend.find_property(ref, ctx, self.sources) if frontend is not None else None
        if match is None:
            return Dynamic(f"{ref.scopes[0] if ref.scopes else ''}.{'.'.join(ref.path)} is not bound by the project")
        results = []
        for facts, key in match.declarations:
            self._adopt(facts)
            results.append((self._bound(facts.properties[key], facts, ctx), facts.path))
        return _agree(results, match.what)

    def _bound(self, raw: Value, declaring: FileFacts, ctx: FileFacts) -> Value:
        """A bound value: its placeholders read with the configuration of `ctx`'s application (else of the
        declaring file's), anything else (a default's constants) resolved where it is declared."""
        if isinstance(raw, Placeholder):
            default = self._bound(raw.default, declaring, ctx) if raw.default is not None else None
            return self._placeholder(Placeholder(raw.key, default), ctx, declaring.path)
        if isinstance(raw, Concat):
            return concat([self._bound(part, declaring, ctx) for part in raw.parts])
        if isinstance(raw, OneOf):
            return one_of(self._bound(alternative, declaring, ctx) for alternative in raw.alternatives)
        return self.resolve(raw, declaring)

    # --- shared ---------------------------------------------------------------------------------------------

    def _constant(self, facts: FileFacts, key: str, raw: Value) -> Value:
        """A constant's value, resolved in the context of the file that declares it."""
        memo_key = (facts.path, key)
        if memo_key in self._const_memo:
            return self._const_memo[memo_key]
        if memo_key in self._active:
            return Dynamic(f"constant cycle through {key}")
        if len(self._active) >= MAX_CHAIN:
            return Dynamic(_TOO_LONG)
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


def _spring_text(value: Value) -> Value:
    """The `${...}` placeholders in the literal text of a resolved value (each alternative, each literal part)."""
    if isinstance(value, Lit):
        return parse_spring_string(value.text, value.origin)
    if isinstance(value, Concat):
        return concat([_spring_text(p) for p in value.parts])
    if isinstance(value, OneOf):
        return one_of(_spring_text(a) for a in value.alternatives)
    return value


def _sourced(value: Value, source: ConfigSource) -> Value:
    """`value` with each literal alternative marked as coming from `source` (unless it names where it comes from
    already: a key whose value is another key's placeholder keeps the inner key's file)."""
    if isinstance(value, (Lit, Dynamic)):
        return value if value.config else dataclasses.replace(value, config=(source,))
    if isinstance(value, OneOf):
        return OneOf(tuple(_sourced(alternative, source) for alternative in value.alternatives))
    return value


def _overridden(value: Value, profiles: tuple[str, ...]) -> Value:
    """The value every profile reads, marked as overridden under `profiles`."""
    if isinstance(value, (Lit, Dynamic)):
        return dataclasses.replace(value, config=tuple(
            dataclasses.replace(c, overridden=profiles) if not c.profile else c for c in value.config))
    if isinstance(value, OneOf):
        return OneOf(tuple(_overridden(alternative, profiles) for alternative in value.alternatives))
    return value


def _merged(*values: Value) -> Value:
    """One of `values`, equal texts kept once with the configuration sources of each."""
    merged: list[Value] = []
    for alternative in (a for value in values for a in alternatives(value)):
        same = next((i for i, m in enumerate(merged) if isinstance(m, (Lit, Dynamic)) and m == alternative), None)
        if same is None:
            merged.append(alternative)
        else:
            merged[same] = dataclasses.replace(merged[same], config=merged[same].config + alternative.config)
    return one_of(merged)


def _agree(results: list[tuple[Value, str]], what: str) -> Value:
    """One value when every source agrees; Dynamic when any is dynamic or they differ (which declaration or
    configuration file applies is not known, so none is picked)."""
    first = results[0][0]
    if all(value == first for value, _path in results):
        if len(results) > 1:
            first = _merged(*(value for value, _path in results))
        # Written alike in several places: a fix of one would leave the others, so none is claimed.
        return first if len({_path for _value, _path in results}) == 1 else without_origins(first)
    for value, _path in results:
        if isinstance(value, Dynamic):
            return value
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


def _is_test_scope(scope: str) -> bool:
    return scope == "src/test" or scope.endswith("/src/test")


def _in_scope(path: str, scope: str) -> bool:
    return not scope or path == scope or path.startswith(scope + "/")


def _runtime_per(key: str) -> str:
    """What a key Spring fills in at run time is unique per (`Dynamic.per`)."""
    canon = canonical_key(key)
    if canon.startswith("random."):
        return "process"
    if canon == "pid":
        return "pid"
    if canon in ("hostname", canonical_key("spring.cloud.client.hostname"),
                 canonical_key("spring.cloud.client.ip-address")):
        return "host"
    return ""


def _is_runtime_key(key: str) -> bool:
    canon = canonical_key(key)
    return canon in _RUNTIME_KEYS or canon.startswith(tuple(canonical_key(p) for p in _RUNTIME_PREFIXES))


def _display(ref: ConstRef) -> str:
    return f"{ref.scopes[0]}.{ref.name}" if ref.scopes else ref.name


