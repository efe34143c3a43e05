"""Spring Boot configuration frontend: `application*.properties|yml|yaml` and `bootstrap*.*`.

Every key becomes a `ConfigEntry` (flattened as written, value split into text and `${..}` placeholders, located at
its value) for the linker's merged configuration. The `rocketmq.*` keys of rocketmq-spring-boot also describe
clients that Spring creates (RocketMQProperties / RocketMQAutoConfiguration):
- `rocketmq.producer.*` with a `group`: a DefaultMQProducer (instance-name since 2.2.3);
- `rocketmq.pull-consumer.*` (2.2.3+) and `rocketmq.consumer.*` (2.2.0-2.2.2) with group/topic: the
  DefaultLitePullConsumer behind RocketMQTemplate#receive (message-model, selector-type, selector-expression,
  instance-name);
- `rocketmq.simple-consumer.*` (rocketmq-v5-client-spring-boot): a SimpleConsumer (consumer-group, topic, tag,
  filter-expression-type).
Keys are matched with Spring's relaxed binding (`instance-name` = `instanceName` = `instance_name`).

Properties keep their positions through a logical-line scan of the format (comments, `\\` continuations, `#---`
documents); each logical line is then parsed by jproperties, which handles separators and escapes. The Java
specification reads `.properties` as ISO-8859-1 (other characters as `\\uXXXX` escapes); most projects write
UTF-8, and many keep comments in GBK: a file that is valid UTF-8 is read as UTF-8, any other as ISO-8859-1, which
never fails, so such a comment no longer costs the file its keys. YAML is read from PyYAML's event stream (marks
carry line and column) without recursion, so deep nesting cannot exhaust the stack. Documents that apply under a
profile (`spring.config.activate.on-profile`) are kept; a client setting that such a document changes is Dynamic,
since it depends on the deployment. Each entry carries the profile it applies under (`ConfigEntry.profile`: its
document's condition, else its file's name, `application-prod.yml`), for the linker's values per profile.

Maven and Gradle fill in resource-filtering tokens at build time (`name: @project.artifactId@`, Spring Boot's
Maven delimiter): such a value is unresolved (Dynamic), and an unquoted token, which YAML cannot read, is read as
the string it stands for instead of failing the whole file. `${project.version}` is a placeholder like any other.
"""

from __future__ import annotations

import codecs
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rmqlint.facts import ClientFact, ConfigEntry, Connection, FileFacts, Location, Problem, Setting, Subscription
from rmqlint.frontends.base import Frontend
from rmqlint.spans import Span
from rmqlint.text import TextBytes, canonical_key, decode, suppression_codes
from rmqlint.values import TOO_DEEP, Dynamic, Lit, Value, parse_spring_string, without_origins

if TYPE_CHECKING:  # the parsers are imported where they are used: importing this module (discovery) stays cheap
    import yaml

_CONFIG_NAME = re.compile(r"^(application|bootstrap)([-.][^/]*)?\.(properties|ya?ml)$")


def is_spring_config(path: str) -> bool:
    """`application.yml`, `application-prod.properties`, `bootstrap.yaml`... (by base name)."""
    return _CONFIG_NAME.match(posixpath.basename(path.replace("\\", "/"))) is not None


# --- reading ---------------------------------------------------------------------------------------------------


class SpringFrontend(Frontend):
    """Spring Boot configuration: always parsed (every key may resolve a placeholder elsewhere)."""

    name = "spring"
    languages = ("properties", "yaml")
    # Every key of a .properties file is kept with its position: about 200 bytes per byte (peak RSS of `rmqplan
    # check` on 0.5 MB of `kN=v` lines 142 MB, 1 MB 243 MB, 4 MB 807 MB). YAML is bounded by its events
    # (MAX_YAML_EVENTS), 100 MB at 4 MB.
    max_bytes = 768 * 1024

    def claims(self, path: str) -> bool:
        return is_spring_config(path)

    def language_of(self, path: str) -> str:
        return "properties" if path.endswith(".properties") else "yaml"

    def parse(self, path: str, data: bytes) -> FileFacts:
        return parse_properties(path, data) if path.endswith(".properties") else parse_yaml(path, data)


def _text(facts: FileFacts, data: bytes, fallback: str | None = None) -> tuple[str | None, TextBytes | None]:
    """The file as text (UTF-8, else `fallback` when given), or None with a Problem for binary or undecodable
    bytes; and where its characters stand in its bytes."""
    encoding = "utf-8"
    decoded = decode(facts.path, data, what="configuration")
    if decoded.text is None and fallback is not None and b"\0" not in data:
        encoding = fallback
        decoded = decode(facts.path, data, what="configuration", encoding=fallback)
    if decoded.problem is not None:
        facts.problems.append(decoded.problem)
    if decoded.text is None:
        return None, None
    bom = 3 if encoding == "utf-8" and data.startswith(codecs.BOM_UTF8) else 0
    return decoded.text, TextBytes(facts.path, decoded.text, encoding, bom)


# A Maven (Spring Boot's `@..@` delimiter) or Gradle resource-filtering token, filled in at build time.
_BUILD_TOKEN = re.compile(r"@[A-Za-z0-9_][A-Za-z0-9_.\-]*@")


def config_value(text: str, origin: Span | None = None) -> Value:
    """A configuration value: text and `${key:default}` placeholders; a build token makes it unresolved.
    `origin`: where the text is written as it reads."""
    token = _BUILD_TOKEN.search(text)
    if token is not None:
        return Dynamic(f"{token.group(0)} is filled in by the build (resource filtering)")
    return parse_spring_string(text, origin)


def _loc(path: str, line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> Location:
    if end_line is None:
        end_line, end_column = line, column + 1
    return Location(path, line, column, end_line, end_column)


# --- .properties -----------------------------------------------------------------------------------------------


def parse_properties(path: str, data: bytes) -> FileFacts:
    facts = FileFacts(path=path, language="properties")
    try:
        text, positions = _text(facts, data, fallback="iso-8859-1")
        if text is not None:
            profiles = _read_properties(facts, text, positions)
            _mark_profiles(facts, profiles)
            _clients(facts, profiles)
    except Exception as err:  # never a traceback for a user's file
        facts.problems.append(Problem(f"could not analyse: {type(err).__name__}: {err}", _loc(path, 1, 1)))
    return facts


def _read_properties(facts: FileFacts, text: str, positions: TextBytes | None = None) -> dict[int, str]:
    """Reads the entries; returns id(entry) -> profile for entries of profile-specific documents (Spring Boot
    2.4+ splits a properties file into documents at `#---` / `!---` lines)."""
    import jproperties

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # the format's line terminators
    documents: list[int] = []
    document = 0
    i = 0
    while i < len(lines):
        first = i
        raw = lines[i]
        stripped = raw.lstrip(" \t\f")
        i += 1
        if not stripped:
            continue
        if raw in ("#---", "!---"):
            document += 1
            continue
        if stripped[0] in "#!":
            codes = suppression_codes(stripped)
            if codes:
                facts.suppressions.setdefault(first + 1, []).extend(codes)
            continue
        # A natural line ending in an odd number of backslashes continues on the next one.
        parts = [raw]
        while _continues(parts[-1]) and i < len(lines):
            parts.append(lines[i])
            i += 1
        logical = "\n".join(parts)
        props = jproperties.Properties()
        try:
            props.load(logical, "utf-8")
        except jproperties.PropertyError as err:
            # jproperties numbers lines within the text it was given (one logical line): drop its prefix
            detail = str(err).split(": ", 1)[-1] if str(err).startswith("Parse error in") else str(err)
            facts.problems.append(Problem(f"properties error: {detail}", _loc(facts.path, first + 1, 1)))
            continue
        for key, (value, _meta) in props.items():
            span = None
            start = _value_start(raw)
            if positions is not None and len(parts) == 1 and value and raw[start:] == value:
                line_start = positions.index(first + 1, 1)  # the value reads as written: no escape, one line
                span = positions.span(line_start + start, line_start + len(raw))
            facts.config.append(_entry(facts, key, value, _value_location(facts.path, first, parts), span))
            documents.append(document)
    return _profiles(facts.config, documents)


def _entry(facts: FileFacts, key: str, text: str, location: Location, span: Span | None = None) -> ConfigEntry:
    """A configuration entry; a value too deeply nested to follow is unknown, and said so at its line. `span`:
    where the value is written as it reads."""
    value = config_value(text, span)
    if value == Dynamic(TOO_DEEP):
        facts.problems.append(Problem(f"{key}: {TOO_DEEP}, not followed", location))
    return ConfigEntry(key, value, location, span)


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _value_start(line: str) -> int:
    """Where a logical line's value starts: after the key and its separator (`=`, `:` or blanks)."""
    pos = len(line) - len(line.lstrip(" \t\f"))
    while pos < len(line) and line[pos] not in "=: \t\f":
        pos += 2 if line[pos] == "\\" else 1
    while pos < len(line) and line[pos] in " \t\f":
        pos += 1
    if pos < len(line) and line[pos] in "=:":
        pos += 1
        while pos < len(line) and line[pos] in " \t\f":
            pos += 1
    return min(pos, len(line))


def _value_location(path: str, first: int, parts: list[str]) -> Location:
    """Where the value starts (after the key and its separator) up to the end of the logical line."""
    line = parts[0]
    start_line, start_col = first + 1, _value_start(line) + 1
    end_line = first + len(parts)
    end_col = len(parts[-1]) + 1
    if (end_line, end_col) <= (start_line, start_col):
        end_line, end_col = start_line, start_col + 1
    return Location(path, start_line, start_col, end_line, end_col)


# --- YAML ------------------------------------------------------------------------------------------------------


def parse_yaml(path: str, data: bytes) -> FileFacts:
    facts = FileFacts(path=path, language="yaml")
    try:
        text, positions = _text(facts, data)
        if text is not None:
            profiles = _read_yaml(facts, text, positions)
            _mark_profiles(facts, profiles)
            _yaml_suppressions(facts, text, scan=not facts.problems)
            _clients(facts, profiles)
    except RecursionError:
        facts.problems.append(Problem("YAML nested too deeply to analyse", _loc(path, 1, 1)))
    except Exception as err:  # never a traceback for a user's file
        facts.problems.append(Problem(f"could not analyse: {type(err).__name__}: {err}", _loc(path, 1, 1)))
    return facts


class _TooLarge(Exception):
    pass


def _read_yaml(facts: FileFacts, text: str, positions: TextBytes | None = None) -> dict[int, str]:
    """Reads the entries; returns id(entry) -> profile expression for entries of profile-specific documents."""
    import yaml

    quoted = _QuotedTokens()
    while True:
        # Spans are taken of the text as written, not once build tokens had to be quoted.
        flattener = _Flattener(facts, quoted, positions if not quoted.count else None)
        facts.config.clear()
        try:
            for event in yaml.parse(text, Loader=yaml.SafeLoader):
                flattener.feed(event)
        except yaml.MarkedYAMLError as err:
            # An unquoted build token (`name: @project.artifactId@`) is not YAML until the build replaces it:
            # quote it where the scanner stops, and read the file again.
            patched = quoted.quote(text, err)
            if patched is not None:
                text = patched
                continue
            _yaml_problem(facts, err, quoted)
        except yaml.YAMLError as err:
            facts.config.clear()
            facts.problems.append(Problem(f"YAML error: {err}", _loc(facts.path, 1, 1)))
        except _TooLarge as err:
            facts.config.clear()
            facts.problems.append(Problem(str(err), _loc(facts.path, 1, 1)))
        return flattener.profiles()


MAX_BUILD_TOKENS = 200  # quoted one by one, each with a new read of the file


class _QuotedTokens:
    """The build tokens quoted so far, to report positions in the file as written."""

    def __init__(self) -> None:
        self.count = 0
        self.tokens: dict[int, list[tuple[int, int]]] = {}  # 0-based line -> (0-based column as written, length)

    def quote(self, text: str, err) -> str | None:
        """`text` with the unquoted build token the scanner stopped at quoted; None when it stopped elsewhere."""
        mark = err.problem_mark
        if self.count >= MAX_BUILD_TOKENS or mark is None or mark.index >= len(text) or text[mark.index] != "@":
            return None
        token = _BUILD_TOKEN.match(text, mark.index)
        if token is None:
            return None
        self.count += 1
        self.tokens.setdefault(mark.line, []).append((self._written(mark.line, mark.column), len(token.group(0))))
        return f"{text[:token.start()]}'{token.group(0)}'{text[token.end():]}"

    def _written(self, line: int, column: int) -> int:
        """A 0-based column of the quoted text, in the file as written: less the quotes added before it."""
        shift = 0
        added = 0
        for start, length in sorted(self.tokens.get(line, ())):
            if column > start + shift:
                added += 1  # past the opening quote
            if column > start + shift + length + 1:
                added += 1  # past the closing quote
            shift += 2
        return column - added

    def original(self, location: Location) -> Location:
        if not self.tokens:
            return location
        return Location(location.path, location.line, self._written(location.line - 1, location.column - 1) + 1,
                        location.end_line, self._written(location.end_line - 1, location.end_column - 1) + 1)


def _yaml_problem(facts: FileFacts, err, quoted: _QuotedTokens) -> None:
    mark = err.problem_mark or err.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    what = err.problem or err.context or "invalid YAML"
    if err.context and err.context_mark is not None and err.problem_mark is not None:
        what += f" ({err.context} at line {err.context_mark.line + 1})"
    facts.config.clear()  # Spring refuses the whole file
    where = quoted.original(_loc(facts.path, line, column))
    facts.problems.append(Problem(f"YAML error: {what}", _loc(facts.path, where.line, where.column)))


MAX_YAML_DEPTH = 200
MAX_YAML_EVENTS = 50_000  # aliases replay their events: a few lines can otherwise expand without bound


@dataclass
class _Frame:
    kind: str  # "map" | "seq" | "skip"
    prefix: str
    merge: bool = False  # the value of a `<<` merge key: its entries belong to the enclosing prefix
    key: str | None = None  # map: the key whose value comes next
    expect_key: bool = True
    skip_value: bool = False  # map: the key was not a scalar, so its value is not configuration
    merge_key: bool = False  # map: the key is YAML's merge key `<<`
    index: int = 0


class _Flattener:
    """Flattens PyYAML's event stream into dotted keys without recursion (deep input cannot exhaust the
    stack); anchors are recorded and replayed for aliases, `<<` merge keys fold into their mapping."""

    def __init__(self, facts: FileFacts, unquoted: "_QuotedTokens", positions: TextBytes | None = None):
        import yaml  # PyYAML is imported only when a YAML file is parsed (not on a warm run)

        self.yaml = yaml
        self.facts = facts
        self.positions = positions
        self.unquoted = unquoted
        self.stack: list[_Frame] = []
        self.anchors: dict[str, list[yaml.Event]] = {}
        self.recording: list[tuple[str, list[yaml.Event], list[int]]] = []  # anchor, events, [depth]
        self.events = 0
        self.document = 0
        self.documents: list[int] = []  # per entry of facts.config: its document

    def feed(self, event: yaml.Event, replay: bool = False) -> None:
        if isinstance(event, self.yaml.AliasEvent):
            recorded = self.anchors.get(event.anchor)
            if recorded is None:
                return  # the parser reports undefined aliases itself
            for replayed in recorded:
                self.feed(replayed, replay=True)
            return
        self.events += 1
        if self.events > MAX_YAML_EVENTS:
            raise _TooLarge(f"more than {MAX_YAML_EVENTS} YAML nodes (aliases?): not analysed")
        self._record(event, replay)
        if isinstance(event, self.yaml.DocumentStartEvent):
            self.stack = []
            self.document += 1
            return
        if isinstance(event, (self.yaml.MappingStartEvent, self.yaml.SequenceStartEvent)):
            self._start(event)
        elif isinstance(event, (self.yaml.MappingEndEvent, self.yaml.SequenceEndEvent)):
            self._end()
        elif isinstance(event, self.yaml.ScalarEvent):
            self._scalar(event)

    def _record(self, event: yaml.Event, replay: bool) -> None:
        for _anchor, events, depth in self.recording:
            events.append(event)
            if isinstance(event, (self.yaml.MappingStartEvent, self.yaml.SequenceStartEvent)):
                depth[0] += 1
            elif isinstance(event, (self.yaml.MappingEndEvent, self.yaml.SequenceEndEvent)):
                depth[0] -= 1
        anchor = None if replay else getattr(event, "anchor", None)
        if anchor and isinstance(event, self.yaml.ScalarEvent):
            self.anchors[anchor] = [event]
        elif anchor and isinstance(event, (self.yaml.MappingStartEvent, self.yaml.SequenceStartEvent)):
            self.recording.append((anchor, [event], [1]))
        finished = [r for r in self.recording if r[2][0] == 0]
        for anchor_name, events, _depth in finished:
            self.anchors[anchor_name] = events
        if finished:
            self.recording = [r for r in self.recording if r[2][0] != 0]

    def _child_prefix(self) -> tuple[str | None, bool]:
        """The key a node starting now has (None: not configuration), and whether it is a merge value."""
        if not self.stack:
            return "", False
        top = self.stack[-1]
        if top.kind == "skip":
            return None, False
        if top.kind == "seq":
            index = top.index
            top.index += 1
            return (top.prefix, True) if top.merge else (f"{top.prefix}[{index}]", False)
        if top.expect_key:
            return None, False  # a complex (non-scalar) key
        top.expect_key = True
        if top.skip_value or top.key is None:
            return None, False
        if top.merge_key:
            return top.prefix, True
        return (f"{top.prefix}.{top.key}" if top.prefix else top.key), False

    def _start(self, event: yaml.Event) -> None:
        if len(self.stack) >= MAX_YAML_DEPTH:
            raise _TooLarge(f"YAML nested more than {MAX_YAML_DEPTH} levels deep: not analysed")
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind == "map" and top.expect_key:
            top.expect_key, top.skip_value = False, True  # complex key: skip it and its value
            self.stack.append(_Frame("skip", ""))
            return
        prefix, merge = self._child_prefix()
        if prefix is None:
            self.stack.append(_Frame("skip", ""))
            return
        kind = "map" if isinstance(event, self.yaml.MappingStartEvent) else "seq"
        self.stack.append(_Frame(kind, prefix, merge=merge and kind == "seq"))

    def _end(self) -> None:
        if self.stack:
            self.stack.pop()

    def _scalar(self, event: yaml.ScalarEvent) -> None:
        top = self.stack[-1] if self.stack else None
        if top is None or top.kind == "skip":
            return
        if top.kind == "map" and top.expect_key:
            top.expect_key, top.skip_value = False, False
            top.key = event.value
            top.merge_key = event.value == "<<" and event.implicit[0]  # a quoted "<<" is an ordinary key
            return
        prefix, merge = self._child_prefix()
        if prefix is None or prefix == "" or merge:
            return
        plain = event.implicit[0]
        text = "" if plain and event.value in ("", "~", "null", "Null", "NULL") else event.value
        start, end = event.start_mark, event.end_mark
        location = Location(self.facts.path, start.line + 1, start.column + 1, end.line + 1, end.column + 1)
        if (location.end_line, location.end_column) <= (location.line, location.column):
            location = _loc(self.facts.path, start.line + 1, start.column + 1)
        self.facts.config.append(_entry(self.facts, prefix, text, self.unquoted.original(location),
                                        self._span(event, text)))
        self.documents.append(self.document)

    def _span(self, event: yaml.ScalarEvent, text: str) -> Span | None:
        """Where a plain or quoted scalar on one line is written exactly as it reads (no escape, no folding)."""
        if self.positions is None or not text or event.style not in (None, "'", '"'):
            return None
        first, last = event.start_mark.index, event.end_mark.index
        if event.style is not None:
            first, last = first + 1, last - 1
        if self.positions.text[first:last] != text or "\n" in text or "\r" in text:
            return None
        return self.positions.span(first, last)

    def profiles(self) -> dict[int, str]:
        return _profiles(self.facts.config, self.documents)


def _profiles(config: list[ConfigEntry], documents: list[int]) -> dict[int, str]:
    """id(entry) -> the profile condition of its document (`spring.config.activate.on-profile`, or the older
    `spring.profiles`), for entries of documents that apply only under a profile."""
    conditions: dict[int, str] = {}
    for entry, document in zip(config, documents):
        if canonical_key(entry.key) in _PROFILE_KEYS and isinstance(entry.value, Lit):
            conditions[document] = entry.value.text
    return {id(e): conditions[d] for e, d in zip(config, documents) if d in conditions}


_PROFILE_KEYS = {canonical_key("spring.config.activate.on-profile"), canonical_key("spring.profiles")}


def file_profile(path: str) -> str:
    """The profile a configuration file applies under, by its name: `application-prod.yml` -> "prod",
    `bootstrap-dev.properties` -> "dev"; "" for `application.yml` (every profile)."""
    match = _CONFIG_NAME.match(posixpath.basename(path.replace("\\", "/")))
    suffix = match.group(2) if match is not None else None
    return suffix[1:] if suffix and suffix.startswith("-") else ""


def _mark_profiles(facts: FileFacts, documents: dict[int, str]) -> None:
    """Each entry's `profile`: its document's condition, else its file's profile."""
    named = file_profile(facts.path)
    for entry in facts.config:
        entry.profile = documents.get(id(entry), named)


def _yaml_suppressions(facts: FileFacts, text: str, scan: bool) -> None:
    """`# rmqlint: disable=...` comments. PyYAML drops comments, so a `#` counts as one when no token of the
    scanner covers it and it starts a line or follows a blank (YAML's comment rule). Without a scan (the file
    could not be read as YAML), every such `#` counts."""
    if "rmqlint" not in text:
        return
    import yaml

    lines = re.split("\r\n|[\n\r\x85\u2028\u2029]", text)  # YAML's line breaks, as in PyYAML's marks
    covered: dict[int, list[tuple[int, int]]] = {}
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader) if scan else ():
            start, end = token.start_mark, token.end_mark
            for line in range(start.line, end.line + 1):
                first = start.column if line == start.line else 0
                last = end.column if line == end.line else 1 << 30
                covered.setdefault(line, []).append((first, last))
    except yaml.YAMLError:
        pass  # scalars after the error are not known: a `#` there counts as a comment
    for number, line in enumerate(lines):
        for column, char in enumerate(line):
            if char != "#" or (column and line[column - 1] not in " \t"):
                continue
            if any(a <= column < b for a, b in covered.get(number, ())):
                continue
            codes = suppression_codes(line[column:])
            if codes:
                facts.suppressions.setdefault(number + 1, []).extend(codes)
            break


# --- clients from rocketmq.* keys --------------------------------------------------------------------------------


@dataclass
class _Section:
    """The entries under one prefix, by canonical key suffix."""

    entries: dict[str, list[ConfigEntry]]
    profiles: dict[int, str]  # id(entry) -> profile, for entries that apply only under a profile

    def setting(self, name: str) -> Setting | None:
        """The value Spring binds. Later unconditional entries override earlier ones (a properties key written
        twice); a profile document that sets another value makes it depend on the deployment: Dynamic."""
        found = self.entries.get(canonical_key(name))
        if not found:
            return None
        base = [e for e in found if id(e) not in self.profiles]
        chosen = base[-1] if base else found[0]
        for entry in found:
            if id(entry) in self.profiles and entry.value != chosen.value:
                profile = self.profiles[id(entry)]
                return Setting(Dynamic(f"{entry.key} differs under profile {profile}"), entry.location)
        if len(found) > 1:  # written in several places (a profile's document too): a fix of one is not enough
            return Setting(without_origins(chosen.value), chosen.location)
        return Setting(chosen.value, chosen.location, written=chosen.span)


def _section(facts: FileFacts, prefix: str, profiles: dict[int, str]) -> _Section:
    entries: dict[str, list[ConfigEntry]] = {}
    head = canonical_key(prefix) + "."
    for entry in facts.config:
        canon = canonical_key(entry.key)
        if canon.startswith(head):
            entries.setdefault(canon[len(head):], []).append(entry)
    return _Section(entries, profiles)


# `rocketmq.producer.*` and `rocketmq.(pull-)consumer.*` keys (relaxed) -> the `ClientFact` field they set, beside
# the group and topic. A new setting is one line here.
_PRODUCER_SETTINGS = {"instance-name": "instance_name"}
_PULL_CONSUMER_SETTINGS = {"message-model": "message_model", "instance-name": "instance_name",
                           "pull-batch-size": "pull_batch_size"}

# Sections whose clients read credentials (and, for the v5 starter, proxy endpoints) from `access-key`,
# `secret-key` and `endpoints` (RocketMQProperties of both starters; listeners default to the consumer's keys).
_CREDENTIAL_SECTIONS = ("rocketmq.producer", "rocketmq.consumer", "rocketmq.pull-consumer", "rocketmq.simple-consumer",
                        "rocketmq.push-consumer")


def _connections(facts: FileFacts, profiles: dict[int, str]) -> None:
    """`rocketmq.name-server`, and each section's credentials and endpoints, as written in this file."""
    name_server = _section(facts, "rocketmq", profiles).setting("name-server")
    if name_server is not None:
        facts.connections.append(Connection("spring-config", name_server.location, name_server=name_server))
    for prefix in _CREDENTIAL_SECTIONS:
        section = _section(facts, prefix, profiles)
        parts = {"endpoints": section.setting("endpoints"), "access_key": section.setting("access-key"),
                 "secret_key": section.setting("secret-key")}
        written = [part for part in parts.values() if part is not None]
        if written:
            first = min(written, key=lambda p: (p.location.line, p.location.column))
            facts.connections.append(Connection("spring-config", first.location, **parts))


def _clients(facts: FileFacts, profiles: dict[int, str]) -> None:
    _connections(facts, profiles)
    producer = _section(facts, "rocketmq.producer", profiles)
    group = producer.setting("group")
    if group is not None:
        fact = ClientFact(role="producer", api="spring-config", location=group.location, name="rocketmq.producer",
                          group=group, **{f: producer.setting(key) for key, f in _PRODUCER_SETTINGS.items()})
        facts.clients.append(fact)
    for prefix in ("rocketmq.pull-consumer", "rocketmq.consumer"):
        section = _section(facts, prefix, profiles)
        group, topic = section.setting("group"), section.setting("topic")
        if group is None and topic is None:
            continue
        fact = ClientFact(role="lite_pull_consumer", api="spring-config", location=(group or topic).location,
                          name=prefix, group=group,
                          **{f: section.setting(key) for key, f in _PULL_CONSUMER_SETTINGS.items()})
        if topic is not None:
            expression = section.setting("selector-expression")
            selector, expression_value = _selector(section.setting("selector-type"),
                                                   expression.value if expression else Lit("*"), "TAG", "SQL92")
            fact.subscriptions.append(Subscription(topic.value, expression_value, selector, topic.location))
        facts.clients.append(fact)
    simple = _section(facts, "rocketmq.simple-consumer", profiles)
    group, topic = simple.setting("consumer-group"), simple.setting("topic")
    if group is not None or topic is not None:
        fact = ClientFact(role="simple_consumer", api="spring-config", location=(group or topic).location,
                          name="rocketmq.simple-consumer", group=group)
        if topic is not None:
            tag = simple.setting("tag")
            selector, expression_value = _selector(simple.setting("filter-expression-type"),
                                                   tag.value if tag else Lit("*"), "tag", "sql92")
            fact.subscriptions.append(Subscription(topic.value, expression_value, selector, topic.location))
        facts.clients.append(fact)


def _selector(kind: Setting | None, expression: Value, tag: str, sql: str) -> tuple[str, Value]:
    """("TAG" | "SQL92", expression); a selector type that is not literal text makes the expression dynamic."""
    if kind is None:
        return "TAG", expression
    if isinstance(kind.value, Lit) and kind.value.text.strip().upper() == tag.upper():
        return "TAG", expression
    if isinstance(kind.value, Lit) and kind.value.text.strip().upper() == sql.upper():
        return "SQL92", expression
    return "TAG", Dynamic("selector type is not known")
