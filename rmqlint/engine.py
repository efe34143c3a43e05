"""The lint run: settings -> discovery -> per-file facts (cached, prefiltered, parsed on demand) -> linker ->
rules (RMQ900 among them) -> suppressions -> the findings of the files the user asked about.

Only files that mention RocketMQ (the frontends' byte prefilter) and Spring configuration files are parsed up
front. Other files are parsed only when the linker needs a constant or a listener class they declare (a consumer
registers `new CacheRefreshListener()`: `CacheRefreshListener.java` first). Every file's verdict and facts go to
the cache, so a warm run stats the project and parses nothing that did not change.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from rmqlint.cache import Entry, FactsCache, content_hash, findings_stamp
from rmqlint.config import Settings, load_settings, parse_codes, parse_severity
from rmqlint.discover import Discovery, discover, find_root, is_test_source, source_kind
from rmqlint.modules import is_build_file
from rmqlint.frontends import frontend_named
from rmqlint.facts import FileFacts, facts_from_json, facts_to_json
from rmqlint.findings import Finding, finding_from_json, finding_to_json, severity_rank
from rmqlint.fixes import Fix
from rmqlint.profiles import profile_views, under_profiles, with_sources
from rmqlint.project import Project
from rmqlint.suppress import apply_suppressions



@dataclass
class LintOptions:
    paths: list[Path] = field(default_factory=lambda: [Path(".")])
    select: list[str] | None = None  # from the command line: override the configuration
    ignore: list[str] | None = None
    fail_on: str | None = None
    use_cache: bool = True
    # Nodes the deployments' replicas spread over (`rmqplan check --nodes`); None: the project's [tool.rmqplan]
    # nodes, else the worst case (host networking: every replica on one node).
    nodes: int | None = None


@dataclass
class LintResult:
    root: Path
    settings: Settings
    findings: list[Finding]
    files_checked: int  # source files in the reported set
    rules: list  # the enabled Rule instances
    parsed: int = 0  # files parsed in this run (the rest came from the cache or were not needed)
    projects: list[str] = field(default_factory=lambda: [""])  # the projects linted, relative to root ("": root)
    failing: bool | None = None  # set when projects with their own fail-on were merged
    baselined: int = 0  # findings left out because the baseline holds them
    offers_fixes: bool = False  # the text report counts the fixes (set by the `rmqlint` command, which has --fix)
    # Build and deployment files in the reported set (pom.xml, a manifest): read for findings too, so the reports
    # count them with `files_checked` (`checked`: `rmqlint pom.xml` checks one file)
    others_checked: int = 0
    # What the findings assume because an input was not given, one sentence each (`rmqplan check` without a
    # cluster: its queue layout); None: the report has no such field (rmqlint's own runs)
    assumptions: list[str] | None = None

    @property
    def checked(self) -> int:
        """The files checked among the paths given, as the reports count them: sources, build and deployment files."""
        return self.files_checked + self.others_checked

    def failed(self) -> bool:
        if self.failing is not None:
            return self.failing
        threshold = severity_rank(self.settings.fail_on)
        return any(severity_rank(f.severity) >= threshold for f in self.findings)


def known_codes() -> set[str]:
    from rmqlint.rules import ALL_RULES

    return {rule.CODE for rule in ALL_RULES}


def resolve_settings(root: Path, options: LintOptions, cache: FactsCache | None = None) -> Settings:
    """Project settings with the command line on top. Raises ConfigError."""
    codes = known_codes()
    settings = load_settings(root, codes, cache)
    if options.select is not None:
        settings.select = parse_codes(options.select, codes, "--select")
    if options.ignore is not None:
        settings.ignore = parse_codes(options.ignore, codes, "--ignore")
    if options.fail_on is not None:
        settings.fail_on = parse_severity(options.fail_on, "--fail-on")
    return settings


def lint(options: LintOptions) -> LintResult:
    """Lint the project holding `options.paths`, and each project nested in it that the paths reach (a git
    repository or a marked project below the root) on its own: with its own settings and cache, never linked to
    the others. Paths in the result are relative to the outermost root. Raises ConfigError or DiscoveryError
    (exit 2)."""
    root = find_root(options.paths)
    runs: list[tuple[str, LintResult]] = []
    pending = [("", root, list(options.paths))]
    while pending:
        prefix, project_root, paths = pending.pop(0)
        result, nested = _lint_project(project_root, paths, options)  # a ConfigError names its file itself
        runs.append((prefix, result))
        for rel in nested:
            nested_root = project_root / rel
            reaching = [nested_root if _contains(path, nested_root) else path for path in paths
                        if _contains(path, nested_root) or _contains(nested_root, path)]
            pending.append((f"{prefix}/{rel}" if prefix else rel, nested_root, reaching))
    return _merged(root, runs)


def load_project(path: Path, use_cache: bool = True) -> tuple[Project, set[str]]:
    """The linked facts of the project holding `path` (no rules run), and the files under `path`: for the
    topology graph and for `rmqplan fleet`. Raises ConfigError or DiscoveryError."""
    from rmqlint.linker import Linker

    root = find_root([path])
    cache = FactsCache(root, enabled=use_cache)
    settings = resolve_settings(root, LintOptions(paths=[path], use_cache=use_cache), cache)
    discovery = discover([path], root, settings.exclude, listing=cache)
    loader = SourceIndex(discovery, cache)
    loader.stat_all()
    loader.scan()
    project = _with_modules(Linker(loader.facts, loader, root=str(root), callers=_callers(settings.tests)).link(),
                            root, discovery.others)
    cache.save()
    return project, discovery.report


def _contains(directory: Path, path: Path) -> bool:
    directory, path = directory.resolve(), path.resolve()
    return path == directory or directory in path.parents


def _merged(root: Path, runs: list[tuple[str, LintResult]]) -> LintResult:
    """One result for the projects linted on their own: paths under the outermost root, findings in order."""
    if len(runs) == 1:
        return runs[0][1]
    outer = runs[0][1]
    findings = sorted((f.moved(prefix) for prefix, r in runs for f in r.findings), key=Finding.sort_key)
    rules = {type(rule): rule for _prefix, r in runs for rule in r.rules}
    return LintResult(root, outer.settings, findings, sum(r.files_checked for _p, r in runs),
                      sorted(rules.values(), key=lambda rule: rule.CODE), parsed=sum(r.parsed for _p, r in runs),
                      projects=[prefix for prefix, _r in runs], failing=any(r.failed() for _p, r in runs),
                      others_checked=sum(r.others_checked for _p, r in runs))


def _lint_project(root: Path, paths: list[Path], options: LintOptions) -> tuple[LintResult, list[str]]:
    """Lint one project: the result for `paths`, and the projects nested in it that `paths` reach."""
    from rmqlint.rules import ALL_RULES

    cache = FactsCache(root, enabled=options.use_cache)
    settings = resolve_settings(root, options, cache)
    discovery = discover(paths, root, settings.exclude, listing=cache)
    loader = SourceIndex(discovery, cache)
    rules = [rule() for rule in ALL_RULES if settings.enabled(rule.CODE)]

    stats = loader.stat_all()
    state = repr((sorted(r.CODE for r in rules), settings.tests, findings_stamp(), _others_stamp(root, discovery),
                  options.nodes))
    findings = _from_memo(cache.memo_findings(cache.snapshot(stats, state, after_run=False)))
    if findings is not None:
        cache.accept_memo()
    else:
        from rmqlint.linker import Linker  # not needed when the memo answers

        loader.scan()
        project = Linker(loader.facts, loader, root=str(root), callers=_callers(settings.tests)).link()
        findings = run_rules(_with_modules(project, root, discovery.others, options.nodes), rules,
                             tests=settings.tests)
        if cache.enabled:  # the memo of the findings is only written to a cache
            cache.remember(cache.snapshot(stats, state, after_run=True), [finding_to_json(f) for f in findings])
    cache.save()

    reported = discovery.report | discovery.report_others
    findings = [_within(f, discovery.report, root) for f in findings if _involves(f, reported)]
    result = LintResult(root, settings, findings, len(discovery.report), rules, parsed=loader.parsed_count,
                        others_checked=len(discovery.report_others - discovery.report))
    return result, discovery.nested


def _involves(finding: Finding, paths: set[str]) -> bool:
    """Whether the finding is at one of `paths` or cites one of them among its related places: a change to a file
    reports what it causes elsewhere too (a client release in pom.xml that makes the consumers' names collide, a
    replica count in a manifest, a producer's tag that no longer matches a subscription)."""
    return finding.location.path in paths or any(r.location.path in paths for r in finding.related)


def _within(finding: Finding, report: set[str], root: Path) -> Finding:
    """The finding without its fix when the fix would edit a file outside the paths the user asked about (a
    constant declared elsewhere, the file a symbolic link names): a fix never touches what was not asked for."""
    if finding.fix is None:
        return finding
    if finding.fix.paths <= report:
        from rmqlint.apply import real_path

        if all(real_path(root, path) in report for path in finding.fix.paths):
            return finding
    return dataclasses.replace(finding, fix=None)


def _others_stamp(root: Path, discovery: Discovery) -> list:
    """Size and modification time of each build and deployment file: a change to one is a change to the project
    the memo of the findings describes."""
    stamp = []
    for rel in discovery.others:
        try:
            st = os.stat(root / rel)
        except OSError:
            continue
        stamp.append((rel, st.st_size, st.st_mtime_ns))
    return stamp


def _with_modules(project: Project, root: Path, others: list[str], nodes: int | None = None) -> Project:
    """The project, with its build modules and deployments read when a rule first asks (`rmqlint.modules`);
    `nodes` overrides the project's configured number of nodes."""
    from rmqlint.modules import ModuleReader, is_deployment_file

    if not any(is_build_file(rel) for rel in others):
        project.modules_loader, project.deploys_loader = (lambda: []), (lambda: False)
        return project
    reader = ModuleReader(root, [rel for rel in others if is_deployment_file(rel)], nodes)
    project.modules_loader, project.deploys_loader = reader.modules, reader.deploys
    return project


def _callers(tests: str):
    """The files whose calls of a project method make clients the rules see: test sources are left out of the rules
    when they are quiet, so calls there need not be looked for."""
    return (lambda path: not is_test_source(path)) if tests == "quiet" else (lambda _path: True)


def _from_memo(items: list | None) -> list[Finding] | None:
    """Findings from the memo, or None when it is absent or damaged in any way (then the run lints for real)."""
    if items is None:
        return None
    try:
        return [finding_from_json(item) for item in items]
    except (ValueError, TypeError):
        return None


def run_rules(project: Project, rules: Iterable, tests: str = "lint") -> list[Finding]:
    """Every rule's findings, suppressions applied, sorted and de-duplicated.

    `tests="quiet"`: test sources (`discover.is_test_source`) are left out of the project the rules see, so they
    neither get findings nor cause findings elsewhere (a test consumer faking a production group); only the rules
    that speak in quiet test sources (`Rule.IN_QUIET_TESTS`, hard-coded credentials) see the whole project. Values
    are resolved before, so a test constant still resolves. "lint": test sources like any other."""
    rules = list(rules)
    # Values that Spring profiles set differently: the rules run once per profile (`rmqlint.profiles`).
    runs = [(profile, _run_rules(view, rules, tests)) for profile, view in profile_views(project)]
    kept = apply_suppressions(under_profiles(runs), project.files)
    return sorted((_with_digests(f, project) for f in kept), key=Finding.sort_key)


def _run_rules(project: Project, rules: list, tests: str) -> list[Finding]:
    without_tests = project
    if tests == "quiet":
        without_tests = Project(root=project.root, config=project.config,
                                files={p: f for p, f in project.files.items() if not is_test_source(p)},
                                modules_loader=lambda: project.modules, deploys_loader=lambda: project.deploys)
    findings: dict[tuple, Finding] = {}
    for rule in rules:
        for finding in rule.check(project if rule.IN_QUIET_TESTS else without_tests):
            finding = with_sources(finding, project)
            # One problem at one place is one finding: clients that one method makes per call share the place of
            # what the method writes itself (its instanceName), and each call adds the places it cites.
            key = (finding.code, finding.severity, finding.parts, finding.location)
            seen = findings.get(key)
            if seen is not None:
                finding = dataclasses.replace(seen, related=seen.related + tuple(
                    r for r in finding.related if r not in seen.related), fix=_joined(seen.fix, finding.fix))
            findings[key] = finding
    return list(findings.values())


def _joined(first: Fix | None, second: Fix | None) -> Fix | None:
    """The fix of a finding merged from several (each call of a method passing the same wrong literal): the edits
    of both, when they are alike in kind and do not overlap; else the first's (the next round of --fix takes the
    rest)."""
    if first is None or second is None or first == second or first.applicability != second.applicability:
        return first or second
    edits = tuple(dict.fromkeys(first.edits + second.edits))
    try:
        return Fix(first.message, edits, first.applicability)
    except ValueError:  # overlapping edits
        return first


def _with_digests(finding: Finding, project: Project) -> Finding:
    """A fix with the content hash of each file it edits as it was read for this run: the applier edits a file
    only if it still holds those bytes (another run, or an editor, may have changed it since)."""
    if finding.fix is None:
        return finding
    digests = tuple((path, project.files[path].digest) for path in sorted(finding.fix.paths)
                    if path in project.files and project.files[path].digest)
    return dataclasses.replace(finding, fix=dataclasses.replace(finding.fix, digests=digests))


def lint_sources(files: dict[str, str | bytes], rules: Iterable | None = None) -> list[Finding]:
    """Lint a small in-memory project (path -> text), no disk, no cache: for rule examples and tests."""
    from rmqlint.rules import ALL_RULES

    index = SourceIndex.in_memory({p: t.encode("utf-8") if isinstance(t, str) else t for p, t in files.items()})
    from rmqlint.linker import Linker

    index.scan()
    project = Linker(index.facts, index, root="").link()
    project.modules_loader = lambda: _modules_in_memory(files)  # `deploys` then asks the modules
    chosen = [rule() for rule in ALL_RULES] if rules is None else list(rules)
    return run_rules(project, chosen)


def _modules_in_memory(files: dict[str, str | bytes]):
    """`rmqlint.modules` for an in-memory project: its build and deployment files, written to a scratch directory
    (the readers read files), with paths as given."""
    import tempfile

    from rmqlint.modules import ModuleReader, is_deployment_file

    others = {p: t for p, t in files.items() if (is_build_file(p) or is_deployment_file(p)) and source_kind(p) is None}
    if not any(is_build_file(p) for p in others):
        return []
    with tempfile.TemporaryDirectory(prefix="rmqlint-modules-") as scratch:
        for rel, text in others.items():
            target = Path(scratch, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        return ModuleReader(Path(scratch), sorted(p for p in others if is_deployment_file(p))).modules()


# --- frontends ------------------------------------------------------------------------------------------------


def parse_file(kind: str, rel: str, data: bytes) -> tuple[FileFacts, bool]:
    """The file's facts, and whether the frontend crashed (such results are not cached)."""
    frontend = frontend_named(kind)
    try:
        return frontend.parse(rel, data), False
    except RecursionError:
        return frontend.problem(rel, "too deeply nested to parse: not linted"), True
    except Exception as err:  # a frontend bug must not stop the run: report the file and go on
        return frontend.problem(rel, f"internal error while parsing ({type(err).__name__}: {err})"), True


# --- the source index -----------------------------------------------------------------------------------------


KEPT_BYTES = 64 * 1024 * 1024  # the source read by the scan that `SourceIndex.peek` answers from memory
BUILD_FILE_BYTES = 1024 * 1024  # a build file larger is not one (the planner's readers refuse it too)


def _size(count: int) -> str:
    """A size in bytes as a limit's message says it: KB below a megabyte, MB from there."""
    if count < 1024 * 1024:
        return f"{count / 1024:,.0f} KB"
    return f"{count / (1024 * 1024):,.1f}".removesuffix(".0") + " MB"


def read_at_most(fh, limit: int) -> bytes:
    """The first `limit` bytes of an open file. `fh.read(limit)` would allocate (and give back) a buffer of `limit`
    bytes, 32 MB for a Java file, each time: reading a tree's 2,000 small files so cost twice what reading them
    does. The buffer is the file's size instead, and a file that grew since is read on, up to `limit`."""
    size = os.fstat(fh.fileno()).st_size
    if size >= limit:
        return fh.read(limit)
    data = fh.read(size + 1)
    if len(data) <= size:  # a buffered read stops short only at the end of the file
        return data
    return data + fh.read(limit - len(data))


class SourceIndex:
    """The project's files and their facts: scans with the prefilter, parses on demand for the linker
    (implements `linker.SourceLoader`), and keeps the cache up to date."""

    def __init__(self, discovery: Discovery, cache: FactsCache | None):
        self.root = discovery.root
        self._root_str = str(discovery.root)
        self.kinds = discovery.kinds
        self._build_files = {rel for rel in discovery.others if is_build_file(rel)}
        self.cache = cache
        self.facts: dict[str, FileFacts] = {}
        self._memory: dict[str, bytes] | None = None
        self._stats: dict[str, os.stat_result] = {}
        self._entries: dict[str, Entry] = {}
        self._paths_by_frontend: dict[str, list[str]] = {}
        self._memos: dict[str, dict] = {}
        self.parsed_count = 0
        self._peeked: dict[str, bytes | None] = {}
        self._kept_bytes = 0

    @classmethod
    def in_memory(cls, files: dict[str, bytes]) -> "SourceIndex":
        kinds = {rel: kind for rel in files if (kind := source_kind(rel)) is not None}
        index = cls(Discovery(root=Path("."), files=sorted(kinds), report=set(kinds), kinds=kinds), None)
        index._memory = files
        return index

    # --- scanning -------------------------------------------------------------------------------------------

    def stat_all(self) -> dict[str, os.stat_result]:
        """Stat every file once (the scan reuses the results). A file that cannot be statted (other than gone)
        leaves the result incomplete on purpose: the memo then never applies."""
        if self._memory is not None:
            return {}
        for rel in self.kinds:
            try:
                self._stats[rel] = os.stat(os.path.join(self._root_str, rel))
            except FileNotFoundError:
                continue
            except OSError:
                return {"\0unstatable": os.stat(self._root_str)}
        return self._stats

    def scan(self) -> None:
        for rel in sorted(self.kinds):
            self._visit(rel, eager=True)

    def ensure_parsed(self, rel: str) -> FileFacts | None:
        if rel not in self.facts:
            self._visit(rel, eager=False)
        return self.facts.get(rel)

    def _visit(self, rel: str, eager: bool) -> None:
        """Eager (the scan): parse when the file passes the prefilter. Not eager (on demand): parse anyway."""
        kind = self.kinds[rel]
        st = self._stats.get(rel)
        if self._memory is None and st is None:
            try:
                st = self._stats[rel] = os.stat(os.path.join(self._root_str, rel))
            except FileNotFoundError:
                return  # listed by git but deleted in the work tree: nothing to lint
            except OSError as err:
                self._add(frontend_named(kind).problem(rel, f"cannot read: {err.strerror or err}"))
                return
        if st is not None and not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            self._add(frontend_named(kind).problem(rel, "not a regular file: not linted"))
            return
        limit = frontend_named(kind).max_bytes
        if st is not None and st.st_size > limit:
            self._add(frontend_named(kind).problem(
                rel, f"file is {_size(st.st_size)}, over the {_size(limit)} limit for {kind} files: not linted"))
            return

        entry = self._entries.get(rel)
        if entry is None and self.cache is not None and st is not None:
            entry = self.cache.by_stat(rel, st)
        if entry is not None and self._use_entry(rel, entry, eager):
            self._entries[rel] = entry
            return

        data = self._read(rel, kind)
        if data is None:
            return
        caching = self.cache is not None and self.cache.enabled
        digest = content_hash(data) if caching else ""  # --no-cache: nothing to compare the hash with
        if caching:
            cached = self.cache.by_hash(rel, digest)
            if cached is not None and self._use_entry(rel, cached, eager):
                self._entries[rel] = cached
                self.cache.store(rel, st, cached)
                return

        frontend = frontend_named(kind)
        if b"\0" in data:
            self._finish(rel, st, digest, True, frontend.problem(rel, "binary file (contains NUL bytes): not linted"))
            return
        relevant = frontend.worth_parsing(data)
        facts, crashed = None, False
        if relevant or not eager:
            self.parsed_count += 1
            facts, crashed = parse_file(kind, rel, data)
            facts.digest = digest or content_hash(data)  # what was read, for fixes to check it is still there
        self._finish(rel, st, digest, relevant, facts, crashed)

    def _finish(self, rel: str, st, digest: str, relevant: bool, facts: FileFacts | None, crashed: bool = False):
        caching = self.cache is not None and self.cache.enabled and st is not None and not crashed
        entry = Entry(digest, relevant, facts_to_json(facts) if caching and facts is not None else None)
        self._entries[rel] = entry
        if facts is not None:
            self._add(facts)
        if caching:
            self.cache.store(rel, st, entry)

    def _use_entry(self, rel: str, entry: Entry, eager: bool) -> bool:
        """Take facts or a "not relevant" verdict from a cache entry; False means: read and parse again."""
        if entry.facts is None:
            if eager and entry.relevant is False:
                return True  # known not to mention RocketMQ: nothing to do until the linker asks
            return False
        if eager and not entry.relevant:
            return True  # parsed on demand in an earlier run; stays unparsed until asked for again
        try:
            facts = facts_from_json(entry.facts)
        except Exception:  # a damaged or foreign entry is never trusted: parse again
            return False
        if not isinstance(facts, FileFacts) or facts.path != rel:
            return False
        self._add(facts)
        return True

    def _read(self, rel: str, kind: str) -> bytes | None:
        if self._memory is not None:
            return self._memory[rel]
        try:
            with open(os.path.join(self._root_str, rel), "rb") as fh:
                data = read_at_most(fh, frontend_named(kind).max_bytes + 1)
        except OSError as err:
            self._add(frontend_named(kind).problem(rel, f"cannot read: {err.strerror or err}"))
            return None
        if self._kept_bytes + len(data) <= KEPT_BYTES:
            # Kept for the byte searches of the linker's lookups (`peek`), which would read the file again.
            self._kept_bytes += len(data)
            self._peeked[rel] = data
        return data

    def _add(self, facts: FileFacts) -> None:
        if facts.path in self.facts:
            return
        self.facts[facts.path] = facts

    # --- SourceFiles (what frontends' lookups may ask) ----------------------------------------------------------

    def paths(self, frontend: str) -> list[str]:
        if frontend not in self._paths_by_frontend:
            self._paths_by_frontend[frontend] = sorted(p for p, k in self.kinds.items() if k == frontend)
        return self._paths_by_frontend[frontend]

    def memo(self, name: str) -> dict:
        return self._memos.setdefault(name, {})

    def peek(self, rel: str) -> bytes | None:
        return self._peek(rel)

    def build_file(self, rel: str) -> bytes | None:
        if self._memory is not None:
            return self._memory.get(rel) if is_build_file(rel) else None
        if rel not in self._build_files:
            return None
        try:
            with open(os.path.join(self._root_str, rel), "rb") as fh:
                data = read_at_most(fh, BUILD_FILE_BYTES + 1)
        except OSError:
            return None
        return data if len(data) <= BUILD_FILE_BYTES else None

    def mentions(self, rel: str, words: tuple[bytes, ...]) -> frozenset[bytes]:
        """The words the file's bytes contain; the cache answers for a file whose content it searched before."""
        entry = self._entries.get(rel)
        digest = entry.hash if entry is not None and self.cache is not None and self.cache.enabled else ""
        if not digest:
            data = self._peek(rel)
            return frozenset(w for w in words if w in data) if data is not None else frozenset()
        keys = [w.decode("latin-1") for w in words]
        saved = self.cache.words_found(rel, digest) if rel not in self._peeked else None
        if saved is not None and all(k in saved for k in keys):
            return frozenset(w for w, k in zip(words, keys) if saved[k] is True)
        data = self._peek(rel)
        if data is None:
            return frozenset()
        found = frozenset(w for w in words if w in data)
        known = dict(saved or self.cache.words_found(rel, digest) or {})
        known.update((k, w in found) for w, k in zip(words, keys))
        self.cache.remember_words(rel, digest, known)
        return found

    def _peek(self, rel: str) -> bytes | None:
        """A file's bytes for the byte search, read once per run while the kept bytes stay under KEPT_BYTES. None
        for a file over its frontend's limit: it is not linted (RMQ900), so neither searched nor parsed for a
        lookup."""
        if self._memory is not None:
            return self._memory.get(rel)
        if rel in self._peeked:
            return self._peeked[rel]
        limit = frontend_named(self.kinds[rel]).max_bytes
        try:
            with open(os.path.join(self._root_str, rel), "rb") as fh:
                data = read_at_most(fh, limit + 1)
        except OSError:
            data = None
        if data is not None and len(data) > limit:
            data = None
        if data is None or self._kept_bytes + len(data) <= KEPT_BYTES:
            self._kept_bytes += len(data or b"")
            self._peeked[rel] = data
        return data
