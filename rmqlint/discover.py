"""Which files make up the project: the root, the source files under it, and the ones the user asked about.

The whole project is always indexed (cross-file rules need every constant and every producer), but findings are
reported only for the paths given on the command line (and those that cite one of their files: `rmqlint.engine`):
that is how a pre-commit run on three changed files still sees the rest of the repository.

A project never reaches into another one nested in it: a git repository (a clone, a submodule) or a marked project
(`.rmqlint.toml`, or a `pyproject.toml` with a `[tool.rmqlint]` table) below the root is linted on its own, so a
folder holding several checkouts never links a consumer of one to a producer of another.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rmqlint.modules import is_build_file, is_deployment_file

ROOT_MARKERS = (".git", "pyproject.toml", ".rmqlint.toml")
# Directories never worth reading: build output, dependencies, virtualenvs, our own cache.
SKIPPED_DIRS = frozenset({"target", "build", "node_modules", ".venv", ".git", ".rmqlint_cache"})


class DiscoveryError(Exception):
    """A path argument that does not exist or is outside the project: one line, exit 2."""


@dataclass
class Discovery:
    root: Path
    files: list[str]  # every project source file, relative '/'-separated, sorted
    report: set[str] = field(default_factory=set)  # the files whose findings are reported
    kinds: dict[str, str] = field(default_factory=dict)  # path -> the name of the frontend that reads it
    # Projects nested below the root that the paths reach into (outermost only, relative): linted on their own.
    nested: list[str] = field(default_factory=list)
    # Build files and YAML files that are no Spring configuration (deployments): what `rmqlint.modules` reads;
    # those under the paths given are reported on too (a finding at a dependency's version).
    others: list[str] = field(default_factory=list)
    report_others: set[str] = field(default_factory=set)


def find_root(paths: list[Path]) -> Path:
    """The nearest ancestor (of the arguments' common directory) holding .git, pyproject.toml or .rmqlint.toml;
    without one, that common directory itself. Raises DiscoveryError for arguments in separate projects with
    nothing in common (indexing, say, all of /tmp to join them would be slow and wrong)."""
    resolved = [p.resolve() for p in paths]
    common = Path(os.path.commonpath([str(p) for p in resolved]))
    if common.is_file() or (len(resolved) == 1 and not common.is_dir()):
        common = common.parent
    marked = _marked_ancestor(common)
    if marked is not None:
        return marked
    if len(resolved) > 1:
        roots = {_marked_ancestor(p if p.is_dir() else p.parent) for p in resolved}
        if len(roots) > 1 and None not in roots:
            names = ", ".join(sorted(str(r) for r in roots))
            raise DiscoveryError(f"the paths belong to different projects ({names}): lint them one at a time")
    return common


def _marked_ancestor(start: Path) -> Path | None:
    for candidate in (start, *start.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return None


def is_test_source(rel_path: str) -> bool:
    """Test code: under `src/test/` (Maven, Gradle), under a `tests/` directory, a Python test module
    (`test_*.py`, `*_test.py`, `conftest.py`), or a Go test file (`*_test.go`)."""
    path = "/" + rel_path
    if "/src/test/" in path or "/tests/" in path:
        return True
    name = rel_path.rpartition("/")[2]
    if name.endswith("_test.go"):
        return True
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def source_kind(rel_path: str) -> str | None:
    """The name of the frontend that reads this file (`rmqlint.frontends`), or None: not a file rmqlint reads."""
    from rmqlint.frontends import frontend_for

    frontend = frontend_for(rel_path)
    return frontend.name if frontend is not None else None


def discover(paths: list[Path], root: Path, exclude: list[str] | tuple[str, ...] = (), listing=None) -> Discovery:
    """Index the project under `root`, and mark the files under `paths` for reporting.

    Files named explicitly are linted even when git ignores them; `exclude` globs (gitignore syntax, relative to
    the root) apply to everything, explicit files included, so a pre-commit run honours them too.
    """
    excluded = _gitignore_spec(exclude) if exclude else None
    listed = _project_files(root, listing)
    nested = nested_projects(root, listed, excluded)
    inside_nested = _under_any(nested)
    kinds: dict[str, str] = {}
    others: list[str] = []
    for rel in listed:
        if _skipped(rel) or (excluded is not None and excluded.match_file(rel)) or inside_nested(rel):
            continue
        kind = source_kind(rel)
        if kind is not None:
            kinds[rel] = kind
        elif is_build_file(rel) or is_deployment_file(rel):
            others.append(rel)

    report: set[str] = set()
    report_others: set[str] = set()
    reached: set[str] = set()
    for arg in paths:
        full = arg.resolve()
        if not full.exists():
            raise DiscoveryError(f"{arg}: no such file or directory")
        try:
            rel = full.relative_to(root).as_posix()
        except ValueError:
            raise DiscoveryError(f"{arg}: outside the project root {root}") from None
        if full.is_dir():
            prefix = "" if rel == "." else rel + "/"
            report.update(p for p in kinds if p.startswith(prefix))
            report_others.update(p for p in others if p.startswith(prefix))
            reached.update(n for n in nested if not prefix or n.startswith(prefix) or (rel + "/").startswith(n + "/"))
        elif inside_nested(rel):
            reached.update(n for n in nested if rel.startswith(n + "/"))
        else:
            kind = source_kind(rel)
            if excluded is not None and excluded.match_file(rel):
                continue
            if kind is None:
                if rel in others:
                    report_others.add(rel)
                continue
            kinds.setdefault(rel, kind)
            report.add(rel)
    return Discovery(root=root, files=sorted(kinds), report=report, kinds=kinds,
                     nested=[n for n in nested if n in reached], others=sorted(others), report_others=report_others)


# --- projects nested in the project --------------------------------------------------------------------------

PROJECT_FILES = (".rmqlint.toml", "pyproject.toml")  # kept in the listing: they may mark a nested project


def nested_projects(root: Path, listed: list[str], excluded=None) -> list[str]:
    """The outermost projects below `root` in its listing: git repositories (git lists an untracked one as
    `dir/`, a submodule as its path; the walk lists both as `dir/`) and directories marked by `.rmqlint.toml` or
    by a `pyproject.toml` with a `[tool.rmqlint]` table."""
    found: set[str] = set()
    submodules = ".gitmodules" in listed
    for rel in listed:
        if rel.endswith("/"):
            found.add(rel.rstrip("/"))
            continue
        directory, _, name = rel.rpartition("/")
        if directory and (name == ".rmqlint.toml" or (name == "pyproject.toml" and _has_rmqlint_table(root / rel))):
            found.add(directory)
        elif submodules and "." not in name and os.path.exists(os.path.join(root, rel, ".git")):
            found.add(rel)
    found = {d for d in found if d and not _skipped(d + "/") and not (excluded is not None and excluded.match_file(d + "/"))}
    return sorted(d for d in found if not any(d.startswith(other + "/") for other in found))


def _has_rmqlint_table(path: Path) -> bool:
    from rmqlint import bounded_toml

    try:
        data = bounded_toml.read(path)
    except (OSError, bounded_toml.TomlRefused):
        return False
    if b"rmqlint" not in data:  # most pyproject.toml files: no TOML parser needed
        return False
    import tomllib

    try:
        tool = bounded_toml.loads(data.decode("utf-8")).get("tool")
    except (tomllib.TOMLDecodeError, bounded_toml.TomlRefused, UnicodeDecodeError):
        return False  # reported when that project's own settings are read
    return isinstance(tool, dict) and "rmqlint" in tool


def _under_any(directories: list[str]):
    if not directories:
        return lambda rel: False
    prefixes = tuple(d + "/" for d in directories)
    return lambda rel: rel.startswith(prefixes)


def _gitignore_spec(lines):
    import pathspec  # imported when needed: most runs (git, no excludes) never match a pattern themselves

    return pathspec.GitIgnoreSpec.from_lines(lines)


_SKIPPED_PATH = re.compile("(?:^|/)(?:" + "|".join(re.escape(d) for d in sorted(SKIPPED_DIRS)) + ")/")


def _skipped(rel: str) -> bool:
    return _SKIPPED_PATH.search(rel) is not None


def _project_files(root: Path, listing=None) -> list[str]:
    """git's list of files; without git, the walk's (reused from `listing`, the cache, while no directory and no
    .gitignore changed)."""
    listed = _git_files(root)
    if listed is not None:
        return listed
    if listing is not None:
        cached = listing.walk_files(root)
        if cached is not None:
            return cached
    record: dict = {"dirs": {}, "ignores": {}}
    files = _walk(root, record)
    if listing is not None:
        listing.remember_walk(record["dirs"], record["ignores"], files)
    return files


def _git_files(root: Path) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files, as git sees them: fast and exact about .gitignore."""
    if not _inside_git_repo(root):
        return None
    out = _run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"])
    if out is None:
        return None
    # Tracked files deleted in the work tree are still listed: the engine skips what it cannot stat. Nothing
    # listed at all (a project inside an ignored directory of another repository): walk instead.
    return [rel for rel in out.decode("utf-8", "surrogateescape").split("\0") if rel] or None


def _run(argv: list[str]) -> bytes | None:
    """A command's standard output, or None when it cannot run or fails. posix_spawn where there is one: a warm
    lint is short enough that importing `subprocess` (and its threading machinery) shows."""
    if not hasattr(os, "posix_spawnp"):
        import subprocess

        try:
            return subprocess.run(argv, capture_output=True, timeout=60, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            return None
    read_end, write_end = os.pipe()
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, write_end, 1),
            (os.POSIX_SPAWN_CLOSE, read_end),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ])
    except OSError:  # no git on PATH
        os.close(read_end)
        os.close(write_end)
        return None
    os.close(write_end)
    chunks = []
    try:
        while chunk := os.read(read_end, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(read_end)
        _pid, status = os.waitpid(pid, 0)
    return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def _inside_git_repo(root: Path) -> bool:
    return any((candidate / ".git").exists() for candidate in (root, *root.parents))


def _walk(root: Path, record: dict | None = None) -> list[str]:
    """Without git: walk the tree, honouring every .gitignore on the way down. `record` receives the mtime of
    every directory read and the size and mtime of every .gitignore, which decide whether the list still holds."""
    files: list[str] = []
    # Each entry: (directory relative to root, spec of that directory's .gitignore)
    specs: list[tuple[str, object]] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        for base, spec in specs:
            if base and not rel.startswith(base + "/"):
                continue
            sub = rel[len(base) + 1 :] if base else rel
            if spec.match_file(sub + "/" if is_dir else sub):
                return True
        return False

    top = os.fspath(root)
    below = len(os.path.join(top, ""))  # os.walk joins each directory's path onto `top`: cut, not pathlib's parse
    for dirpath, dirnames, filenames in os.walk(top):
        rel_dir = dirpath[below:].replace(os.sep, "/") if dirpath != top else ""
        specs[:] = [(b, s) for b, s in specs if not b or rel_dir == b or rel_dir.startswith(b + "/")]
        if record is not None:
            try:
                record["dirs"][rel_dir] = os.stat(dirpath).st_mtime_ns
            except OSError:
                record["dirs"][rel_dir] = -1  # never equal to a real mtime: the next run walks again
        if ".gitignore" in filenames:
            if record is not None:
                try:
                    st = os.stat(os.path.join(dirpath, ".gitignore"))
                    record["ignores"][f"{rel_dir}/.gitignore" if rel_dir else ".gitignore"] = [st.st_size,
                                                                                               st.st_mtime_ns]
                except OSError:
                    pass
            try:
                with open(os.path.join(dirpath, ".gitignore"), encoding="utf-8", errors="replace") as fh:
                    specs.append((rel_dir, _gitignore_spec(fh.read().splitlines())))
            except OSError:
                pass
        join = (lambda n: f"{rel_dir}/{n}") if rel_dir else (lambda n: n)
        kept = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not ignored(join(d), True))
        # A git repository below is a project of its own: listed as `dir/` (as git lists one), not entered.
        repositories = [d for d in kept if os.path.exists(os.path.join(dirpath, d, ".git"))]
        files.extend(join(d) + "/" for d in repositories)
        dirnames[:] = [d for d in kept if d not in repositories]
        # Only names that can be source files are matched against the ignore rules (the slow part of a walk); a
        # frontend may claim by directory too (Spring XML bean files live under resources/).
        files.extend(join(f) for f in filenames
                     if (source_kind(join(f)) is not None or (f in PROJECT_FILES and rel_dir) or is_build_file(f)
                         or is_deployment_file(f)) and not ignored(join(f), False))
    return files
