"""The per-file facts cache under `<root>/.rmqlint_cache/`.

`index.json` holds, per project file, its size, mtime and inode, the hash of its content and the prefilter verdict
(does it mention RocketMQ at all?); also the whole-run memo, the file list of a tree without git and the parsed
settings table. `facts.json` holds the facts of every parsed file (`facts_to_json`), keyed by content hash, and
is read only when some file changed. A warm run therefore reads the index and stats the project: an unchanged file
is neither read nor hashed nor parsed. A changed stat makes the engine read and hash the file; equal content still
reuses the entry (a `touch` costs a hash, not a parse).

Stat results are only trusted when the file was last modified comfortably before the run that recorded them
(git's "racily clean" problem: an edit within the same mtime tick would otherwise go unseen).

Everything here is best effort: a missing, corrupt, foreign-version or unwritable cache means an empty cache, never
a failed run. Writes go to a temporary file and are renamed into place, so readers never see half a cache.

The folder comes with the repository, so what it holds decides nothing about where we write: a `.rmqlint_cache`
that is a symbolic link, or holds one, is not used (one line on stderr says so, once per folder and process), and
every file is opened relative to the folder's descriptor with O_NOFOLLOW (temporary files and the marker files with
O_EXCL too): a link committed under any of the names we write is never followed, dangling or not.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rmqlint.facts import FACTS_VERSION
from rmqlint.interrupts import deferred

CACHE_DIR = ".rmqlint_cache"
CACHE_FILE = "index.json"  # per file: stat, hash, prefilter verdict; the memo; the walk; the settings
FACTS_FILE = "facts.json"  # per file: its facts, read only when some file changed
RACY_MARGIN_NS = 2_000_000_000  # coarse filesystems keep mtimes to 1-2 s


@functools.lru_cache(maxsize=1)
def package_version() -> str:
    """The installed distribution's version, from its metadata directory on sys.path (what importlib.metadata
    would find, without the 40 ms its import costs a warm run)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if not name.startswith("rmqlint"):
                continue
            if name.startswith("rmqlint-") and name.endswith((".dist-info", ".egg-info")):
                return name[len("rmqlint-") :].rsplit(".", 1)[0].split("-py", 1)[0]
            if name == "rmqlint.egg-info":  # a development install: the version is inside
                try:
                    with open(os.path.join(entry or ".", name, "PKG-INFO"), encoding="utf-8") as fh:
                        for line in fh:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                except OSError:
                    pass
    return "0+source"  # running from a source tree without an installed distribution


def cache_key() -> str:
    return f"facts={FACTS_VERSION};rmqlint={package_version()};source={_frontends_stamp()}"


def _frontends_stamp(package: str = os.path.dirname(os.path.abspath(__file__))) -> int:
    """The newest modification time of the code that produces facts: in a development checkout, editing a
    frontend without bumping FACTS_VERSION must not serve stale facts. Each language's frontend is a sub-package
    of frontends/, so the folder is walked."""
    folders = []
    for folder, subfolders, _files in os.walk(os.path.join(package, "frontends")):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        folders.append(folder)
    return _newest([os.path.join(package, name) for name in ("facts.py", "values.py", "text.py", "discover.py")],
                   folders)


def findings_stamp() -> int:
    """The same for the code between facts and findings (linker, engine, rules): part of the whole-run memo's key,
    so a rule edited in a checkout is not answered by the memo of the old rule."""
    import rmqlint.rules

    package = os.path.dirname(os.path.abspath(__file__))
    return _newest([], [package, os.path.dirname(os.path.abspath(rmqlint.rules.__file__))])


def _newest(files: list[str], directories: list[str]) -> int:
    paths = list(files)
    for directory in directories:
        try:
            paths += [e.path for e in os.scandir(directory) if e.name.endswith(".py")]
        except OSError:
            pass
    newest = 0
    for path in paths:
        try:
            newest = max(newest, os.stat(path).st_mtime_ns)
        except OSError:
            pass
    return newest


def content_hash(data: bytes) -> str:
    import hashlib  # not needed by a warm run that reads nothing

    return hashlib.blake2b(data, digest_size=16).hexdigest()


# An index entry is a list (compact to store, quick to load): these are its fields.
_SIZE, _MTIME, _INO, _STAT_OK, _HASH, _RELEVANT, _HAS_FACTS = range(7)
_FIELDS = 7


@dataclass
class Entry:
    hash: str
    relevant: bool | None  # the prefilter verdict; None when not computed (a file parsed on demand)
    facts: dict | None  # facts_to_json of the parsed file, None when not parsed


class FactsCache:
    def __init__(self, root: Path, enabled: bool = True):
        self.dir = root / CACHE_DIR
        self.enabled = enabled
        self.key = cache_key()
        self.run_started_ns = time.time_ns()
        self._old: dict[str, list] = {}
        self._new: dict[str, list] = {}
        self._dirty = False
        self._memo_old: dict | None = None
        self._memo_new: dict | None = None
        self._walk_old: dict | None = None
        self._walk_new: dict | None = None
        self._settings_old: dict | None = None
        self._settings_new: dict | None = None
        self._words_old: dict = {}  # file -> [content hash, {word: found}]: the byte searches of the linker's lookups
        self._words_new: dict = {}
        self._words_dirty = False
        self._facts_old: dict | None = None  # loaded on first use
        self._facts_new: dict[str, list] = {}
        self._facts_dirty = False
        if enabled:
            self.enabled = _without_links(self.dir)
        if self.enabled:
            self._old = self._load()

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(_read(self.dir, CACHE_FILE))
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("files"), dict):
            self._dirty = True  # another version's cache: replace it
            return {}
        memo = data.get("memo")
        self._memo_old = memo if isinstance(memo, dict) else None
        walk = data.get("walk")
        self._walk_old = walk if isinstance(walk, dict) else None
        settings = data.get("settings")
        self._settings_old = settings if isinstance(settings, dict) else None
        words = data.get("words")
        self._words_old = words if isinstance(words, dict) else {}
        return data["files"]

    # --- words searched for in a file's bytes -----------------------------------------------------------------
    # The linker looks for the methods that make clients in every file (rmqlint.calls): a run with one file changed
    # answers the others from here instead of reading them again.

    def words_found(self, rel: str, digest: str) -> dict | None:
        """{word: found} of earlier searches of this content of the file, or None."""
        saved = self._words_new.get(rel) or self._words_old.get(rel)
        if saved.__class__ is list and len(saved) == 2 and saved[0] == digest and isinstance(saved[1], dict):
            return saved[1]
        return None

    def remember_words(self, rel: str, digest: str, found: dict) -> None:
        if not self.enabled or not digest:
            return
        saved = [digest, found]
        if self._words_new.get(rel) != saved:
            self._words_new[rel] = saved
            self._words_dirty = self._words_dirty or self._words_old.get(rel) != saved

    # --- the parsed settings file -------------------------------------------------------------------------------

    def settings_table(self, name: str, st: os.stat_result) -> dict | None:
        saved = self._settings_old
        if not self.enabled or saved is None:
            return None
        if saved.get("stat") != [name, st.st_size, st.st_mtime_ns, st.st_ino]:
            return None
        table = saved.get("table")
        if not isinstance(table, dict):
            return None
        self._settings_new = saved
        return table

    def remember_settings(self, name: str, st: os.stat_result, table: dict) -> None:
        """Keep a parsed settings table when it is plain JSON data and the file is not too fresh to trust."""
        if not self.enabled or st.st_mtime_ns >= self.run_started_ns - RACY_MARGIN_NS or not _plain(table):
            return
        saved = {"stat": [name, st.st_size, st.st_mtime_ns, st.st_ino], "table": table}
        if saved != self._settings_old:
            self._dirty = True
        self._settings_new = saved

    # --- the file list of a tree without git ------------------------------------------------------------------
    # Adding, removing or renaming a file changes its directory's mtime; editing a .gitignore changes its own.
    # While none of the walked directories and .gitignore files changed, the walk's list of files stands.

    def walk_files(self, root: Path) -> list[str] | None:
        walk = self._walk_old
        if not self.enabled or walk is None:
            return None
        dirs, ignores, files = walk.get("dirs"), walk.get("ignores"), walk.get("files")
        if not (isinstance(dirs, dict) and isinstance(ignores, dict) and isinstance(files, list)
                and all(type(f) is str for f in files)):
            return None
        base = str(root)
        try:
            for rel, mtime in dirs.items():
                if os.stat(os.path.join(base, rel)).st_mtime_ns != mtime:
                    return None
            for rel, size_mtime in ignores.items():
                st = os.stat(os.path.join(base, rel))
                if [st.st_size, st.st_mtime_ns] != size_mtime:
                    return None
        except (OSError, TypeError, ValueError):
            return None
        self._walk_new = walk
        return list(files)

    def remember_walk(self, dirs: dict, ignores: dict, files: list[str]) -> None:
        """Keep a walk's result, unless a directory or .gitignore changed too recently to trust its mtime."""
        limit = self.run_started_ns - RACY_MARGIN_NS
        fresh = any(m >= limit for m in dirs.values()) or any(m >= limit for _size, m in ignores.values())
        walk = None if fresh else {"dirs": dirs, "ignores": ignores, "files": files}
        if walk != self._walk_old:
            self._dirty = True
        self._walk_new = walk

    # --- the whole-run memo ---------------------------------------------------------------------------------
    # Cross-file rules make per-file findings unsound to cache, but when no file of the project changed (same
    # list, every stat trusted and equal) and the settings are the same, the previous run's findings stand.

    def snapshot(self, stats: dict[str, os.stat_result], settings: str, after_run: bool) -> str | None:
        """The memo key, or None when any file's stat cannot be trusted or differs from its entry.

        The memo is saved in the same file, at the same time, as the entries it was computed from. So when every
        file of the project matches its entry and the number of files is the same, the project is the one the
        memo describes; the key need not spell out every file."""
        if not self.enabled:
            return None
        entries = self._new if after_run else self._old
        for rel, st in stats.items():
            raw = entries.get(rel)
            if not (raw.__class__ is list and len(raw) == _FIELDS and raw[_STAT_OK] is True
                    and raw[_MTIME] == st.st_mtime_ns and raw[_SIZE] == st.st_size and raw[_INO] == st.st_ino):
                return None
        return f"{settings}\n{len(stats)} files"

    def memo_findings(self, snapshot: str | None) -> list | None:
        memo = self._memo_old
        if snapshot is None or memo is None or memo.get("snapshot") != snapshot:
            return None
        findings = memo.get("findings")
        return findings if isinstance(findings, list) else None

    def accept_memo(self) -> None:
        """The memo's findings are used: every file is unchanged, so every entry and the memo stay."""
        self._new = dict(self._old)
        self._memo_new = self._memo_old

    def remember(self, snapshot: str | None, findings: list) -> None:
        memo = None if snapshot is None else {"snapshot": snapshot, "findings": findings}
        if memo != self._memo_old:
            self._dirty = True
        self._memo_new = memo

    # --- lookups --------------------------------------------------------------------------------------------

    def by_stat(self, rel: str, st: os.stat_result) -> Entry | None:
        """The entry of an unchanged file, judged by its stat alone (no read)."""
        raw = self._old.get(rel)
        if not (raw.__class__ is list and len(raw) == _FIELDS and raw[_STAT_OK] is True):
            return None
        if raw[_SIZE] != st.st_size or raw[_MTIME] != st.st_mtime_ns or raw[_INO] != st.st_ino:
            return None
        entry = self._entry(rel, raw)
        if entry is not None:
            self._new[rel] = raw
        return entry

    def by_hash(self, rel: str, digest: str) -> Entry | None:
        """The entry of a file whose content was read and hashed: equal content, same facts."""
        raw = self._new.get(rel) or self._old.get(rel)
        if not (raw.__class__ is list and len(raw) == _FIELDS and raw[_HASH] == digest):
            return None
        return self._entry(rel, raw)

    def _entry(self, rel: str, raw: list) -> Entry | None:
        digest, relevant, has_facts = raw[_HASH], raw[_RELEVANT], raw[_HAS_FACTS]
        if not isinstance(digest, str) or not (relevant is None or isinstance(relevant, bool)):
            return None
        if not isinstance(has_facts, bool):
            return None
        facts = None
        if has_facts:
            saved = self._facts_new.get(rel) or self._saved_facts().get(rel)
            # Facts belong to one content: a facts file out of step with the index is ignored, not trusted.
            if isinstance(saved, list) and len(saved) == 2 and saved[0] == digest and isinstance(saved[1], dict):
                facts = saved[1]
        return Entry(digest, relevant, facts)

    def _saved_facts(self) -> dict:
        if self._facts_old is None:
            self._facts_old = {}
            try:
                data = json.loads(_read(self.dir, FACTS_FILE))
            except (OSError, ValueError, RecursionError):
                return self._facts_old
            if isinstance(data, dict) and data.get("key") == self.key and isinstance(data.get("facts"), dict):
                self._facts_old = data["facts"]
        return self._facts_old

    # --- updates --------------------------------------------------------------------------------------------

    def store(self, rel: str, st: os.stat_result, entry: Entry) -> None:
        if not self.enabled:
            return
        previous = self._new.get(rel)
        raw = [st.st_size, st.st_mtime_ns, st.st_ino, st.st_mtime_ns < self.run_started_ns - RACY_MARGIN_NS,
               entry.hash, entry.relevant, entry.facts is not None]
        if raw != previous:
            self._new[rel] = raw
            self._dirty = True
        if entry.facts is not None:
            saved = [entry.hash, entry.facts]
            if self._facts_new.get(rel) != saved:
                self._facts_new[rel] = saved
                self._facts_dirty = True

    def save(self) -> None:
        """Write the entries seen in this run (files gone from the project are dropped). Never raises."""
        if not self.enabled:
            return
        with_facts = {rel for rel, raw in self._new.items() if raw[_HAS_FACTS] is True}
        facts_changed = self._facts_dirty or with_facts != {
            rel for rel, raw in self._old.items()
            if raw.__class__ is list and len(raw) == _FIELDS and raw[_HAS_FACTS] is True}
        # Searches of files that were not asked about in this run stay while their content does.
        words = {rel: saved for rel, saved in self._words_old.items()
                 if rel not in self._words_new and rel in self._new and saved.__class__ is list and len(saved) == 2
                 and saved[0] == self._new[rel][_HASH]}
        words.update((rel, saved) for rel, saved in self._words_new.items() if rel in self._new)
        if (not self._dirty and not facts_changed and set(self._new) == set(self._old) and not self._words_dirty
                and self._walk_new == self._walk_old and self._settings_new == self._settings_old):
            return
        try:
            directory = _open_directory(self.dir, create=True)
        except OSError:  # a read-only checkout, or a link put there since the start of the run
            self.enabled = False
            return
        try:
            _write_marker_files(directory)
            if facts_changed:
                saved = self._saved_facts()
                facts = {}
                for rel in sorted(with_facts):
                    item = self._facts_new.get(rel) or saved.get(rel)
                    if isinstance(item, list) and len(item) == 2 and item[0] == self._new[rel][_HASH]:
                        facts[rel] = item
                # The facts first: an index never names facts that were not written.
                _write_atomically(directory, FACTS_FILE, {"key": self.key, "facts": facts})
            _write_atomically(directory, CACHE_FILE, {
                "key": self.key, "files": self._new, "memo": self._memo_new, "walk": self._walk_new,
                "settings": self._settings_new, "words": dict(sorted(words.items()))})
        except (OSError, TypeError, ValueError):
            # A read-only checkout or a full disk: the next run is simply cold.
            self.enabled = False
        finally:
            os.close(directory)


# --- the folder and its files, never through a symbolic link ------------------------------------------------------

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_said_not_used: set[str] = set()  # the folders whose line was written in this process (--fix lints several times)


def _open_directory(directory: Path, create: bool = False) -> int:
    """A descriptor of the cache folder itself: OSError (ELOOP) when it is a link, ENOENT when it is missing and
    not to be created. mkdir does not follow a link either: a dangling one named like the folder is EEXIST."""
    if create:
        try:
            os.mkdir(directory)
        except FileExistsError:
            pass
    return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)


def _without_links(directory: Path) -> bool:
    """Whether the cache folder may be used: missing, or a real folder holding no symbolic link. When not, one
    line on stderr names the link."""
    try:
        if os.path.islink(directory):
            return _not_used(directory, directory)
        fd = _open_directory(directory)
    except OSError:
        return True  # missing (or not a folder): nothing is read, and save() finds out whether it can write
    try:
        with os.scandir(fd) as entries:
            link = min((e.name for e in entries if e.is_symlink()), default=None)
    except OSError:
        link = None
    finally:
        os.close(fd)
    return True if link is None else _not_used(directory, directory / link)


def _not_used(directory: Path, link: Path) -> bool:
    key = os.path.abspath(directory)
    if key not in _said_not_used:
        from rmqlint.config import shown
        from rmqlint.output import write_error

        _said_not_used.add(key)
        write_error(f"{shown(link)}: a symbolic link: the facts cache is not used")
    return False


def _read(directory: Path, name: str) -> bytes:
    folder = _open_directory(directory)
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _create(directory: int, name: str, mode: int = 0o666) -> int:
    """A new file `name` in the folder: FileExistsError when anything, a link among them, has that name."""
    return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=directory)


def _write_atomically(directory: int, name: str, data: dict) -> None:
    """A temporary file of our own (0600, as tempfile's), renamed over `name`: a rename replaces a link there
    instead of writing where it points."""
    payload = json.dumps(data, separators=(",", ":")).encode("utf-8")
    stem = name.rsplit(".", 1)[0]
    tmp = None  # the temporary file's name once it is ours
    try:
        with deferred():  # a signal here acts once the name is kept, for the cleanup below
            for _attempt in range(100):
                candidate = f".{stem}-{os.urandom(6).hex()}.tmp"
                try:
                    fd = _create(directory, candidate, 0o600)
                except FileExistsError:
                    continue
                tmp = candidate
                break
            else:
                raise FileExistsError(f"no free temporary name for {name}")
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=directory)
            except OSError:
                pass
        raise


def _plain(value) -> bool:
    """JSON data only (TOML also has dates and times, which a JSON cache cannot hold)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def _write_marker_files(directory: int) -> None:
    for name, text in ((".gitignore", "# Created by rmqlint.\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# rmqlint facts cache\n")):
        try:
            fd = _create(directory, name)
        except FileExistsError:  # written by an earlier run
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
