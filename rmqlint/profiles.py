"""Spring profiles: the project as each profile configures it, and where a finding's values are configured.

The linker gives a key that profiles set differently as one of its values, each marked with the configuration it
comes from (`Lit.config`, `Dynamic.config`: file, line, profile; the configuration every profile reads is marked
with the profiles that override it). A rule must not pair one profile's minimum with another's maximum, and a
value that a profile's own file overrides is not what runs under that profile. So when any value depends on a
profile, the rules run once per profile that the configuration names (`profile_views`), each on the project with
every value as that profile sets it; a finding that holds under only some of them says which (`under_profiles`).
Configuration that every profile reads and every named profile overrides is then judged only as overridden (it
runs under no profile the project names).

A finding at a setting whose value a configuration file gives names that file and line (`with_sources`), so the
user sees which line of `application-prod.yml` to change.
"""

from __future__ import annotations

import dataclasses
import typing

from rmqlint.facts import ClientFact, FileFacts, Location, Setting
from rmqlint.findings import Finding, Related
from rmqlint.project import Project
from rmqlint.values import ConfigSource, OneOf, Value, alternatives, one_of

_SETTINGS = tuple(name for name, hint in typing.get_type_hints(ClientFact).items()
                  if Setting in typing.get_args(hint))
_CONNECTION_SETTINGS = ("name_server", "endpoints", "access_key", "secret_key")


def profiles(project: Project) -> list[str]:
    """The profiles the project's configuration names (its files' and documents'), sorted, when some value
    depends on one; else none."""
    found: set[str] = set()
    for value in _values(project):
        for alternative in alternatives(value):
            for source in getattr(alternative, "config", ()):
                if source.profile:
                    found.add(source.profile)
                found.update(source.overridden)
    if found:
        found.update(entry.profile for facts in project.files.values() for entry in facts.config if entry.profile)
    return sorted(found)


def profile_views(project: Project) -> list[tuple[str, Project]]:
    """(profile, the project as it configures it) for each profile values depend on; [("", project)] when none
    does."""
    named = profiles(project)
    if not named:
        return [("", project)]
    return [(profile, view(project, profile)) for profile in named]


def view(project: Project, profile: str) -> Project:
    """The project with every value as `profile` sets it (files without such a value are shared)."""
    files = {}
    for path, facts in project.files.items():
        files[path] = _facts_under(facts, profile) if _depends(facts) else facts
    return dataclasses.replace(project, files=files)


def under_profiles(runs: list[tuple[str, list[Finding]]]) -> list[Finding]:
    """The findings of the runs, one per problem; one that not every profile's run has says under which."""
    if len(runs) == 1:
        return list(runs[0][1])
    seen: dict[tuple, tuple[Finding, list[str]]] = {}
    for profile, findings in runs:
        for finding in findings:
            key = (finding.code, finding.severity, finding.parts, finding.location)
            first, where = seen.setdefault(key, (finding, []))
            if profile not in where:
                where.append(profile)
    everywhere = {profile for profile, _findings in runs}
    out = []
    for finding, where in seen.values():
        if set(where) != everywhere:
            said = ", ".join(where)
            finding = dataclasses.replace(
                finding, parts=finding.parts + (f" (under profile{'s' if len(where) > 1 else ''} {said})",))
        out.append(finding)
    return out


def with_sources(finding: Finding, project: Project) -> Finding:
    """A finding at a setting whose value a configuration file gives (or citing one, as the other bound of a
    pool): the message names that file and line (and its profile), and the place is one of its related ones. Where
    the value depends on a profile, its fix, if any, is dropped: an edit of the code there would change the value
    under every profile, and the profile's file is what to change."""
    sources = []
    for location in (finding.location, *(r.location for r in finding.related)):
        sources += [s for s in _sources_at(project, location) if s not in sources]
    if not sources:
        return finding
    parts: list = []
    related = list(finding.related)
    for source in sources:
        place = Location(source.path, source.line, source.column, source.line, source.column + 1)
        parts += [f"; {source.key} is set at ", place] + ([f" ({source.when()})"] if source.when() else [])
        if not any(r.location == place for r in related):
            related.append(Related(place, f"{source.key} is set here"))
    profiled = any(source.profile or source.overridden for source in sources)
    return dataclasses.replace(finding, parts=finding.parts + tuple(parts), related=tuple(related),
                               fix=None if profiled else finding.fix)


# --- values ------------------------------------------------------------------------------------------------------


def _values(project: Project):
    for facts in project.files.values():
        yield from _facts_values(facts)


def _facts_values(facts: FileFacts):
    for client in facts.clients:
        for name in _SETTINGS:
            setting = getattr(client, name)
            if setting is not None:
                yield setting.value
        for subscription in client.subscriptions:
            yield subscription.topic
            yield subscription.expression
    for connection in facts.connections:
        for name in _CONNECTION_SETTINGS:
            setting = getattr(connection, name)
            if setting is not None:
                yield setting.value
    for tag in facts.produced:
        yield tag.topic
        yield tag.tag


def _depends(facts: FileFacts) -> bool:
    return any(getattr(a, "config", ()) for value in _facts_values(facts) for a in alternatives(value)
               if any(s.profile or s.overridden for s in a.config))


def _under(value: Value, profile: str) -> Value:
    """`value` as `profile` sets it: the alternatives whose configuration applies under it (and those no
    configuration gives, such as a branch of code)."""
    if not isinstance(value, OneOf):
        return value
    kept = [a for a in value.alternatives if not getattr(a, "config", ()) or _applies(a.config, profile)]
    return one_of(kept) if kept else value


def _applies(sources: tuple[ConfigSource, ...], profile: str) -> bool:
    """Whether a value made from these configuration entries runs under `profile`: for each key it reads, one of
    its entries applies."""
    by_key: dict[str, list[ConfigSource]] = {}
    for source in sources:
        by_key.setdefault(source.key, []).append(source)
    return all(any(s.applies(profile) for s in found) for found in by_key.values())


def _setting_under(setting: Setting | None, profile: str) -> Setting | None:
    if setting is None or not isinstance(setting.value, OneOf):
        return setting
    return dataclasses.replace(setting, value=_under(setting.value, profile))


def _facts_under(facts: FileFacts, profile: str) -> FileFacts:
    clients = []
    for client in facts.clients:
        changes: dict = {name: _setting_under(getattr(client, name), profile) for name in _SETTINGS}
        changes["subscriptions"] = [dataclasses.replace(s, topic=_under(s.topic, profile),
                                                        expression=_under(s.expression, profile))
                                    for s in client.subscriptions]
        clients.append(dataclasses.replace(client, **changes))
    connections = [dataclasses.replace(c, **{name: _setting_under(getattr(c, name), profile)
                                            for name in _CONNECTION_SETTINGS}) for c in facts.connections]
    produced = [dataclasses.replace(t, topic=_under(t.topic, profile), tag=_under(t.tag, profile))
                for t in facts.produced]
    return dataclasses.replace(facts, clients=clients, connections=connections, produced=produced)


def _sources_at(project: Project, location: Location) -> list[ConfigSource]:
    """The configuration files that give the value of a setting written at `location`."""
    facts = project.files.get(location.path)
    if facts is None:
        return []
    found: list[ConfigSource] = []
    for client in facts.clients:
        for name in _SETTINGS:
            setting = getattr(client, name)
            if setting is not None and setting.location == location:
                for alternative in alternatives(setting.value):
                    for source in getattr(alternative, "config", ()):
                        if source.path and source not in found:
                            found.append(source)
    return found

