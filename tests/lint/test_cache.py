"""The facts cache through real lint runs: hits, misses, racy edits, corruption, old versions, no cache dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import rmqlint.frontends
from rmqlint.cache import CACHE_DIR, CACHE_FILE, FACTS_FILE, _frontends_stamp
from rmqlint.engine import LintOptions, lint
from tests.lint.test_engine_fixtures import CONSUMER_JAVA, OLD, OTHER_CONSUMER_JAVA, java_project

CONSUMER = "src/main/java/com/app/Consumer.java"
NAMES = "src/main/java/com/app/Names.java"


def run(root, **kw):
    return lint(LintOptions(paths=[root], **kw))


def summary(result):
    return [(f.code, f.location.path, f.location.line, f.message) for f in result.findings]


def test_warm_run_parses_nothing_and_finds_the_same(tmp_path):
    root = java_project(tmp_path)
    cold = run(root)
    assert cold.parsed == 2  # the consumer (prefilter) and the constants class it needs; Plain is never parsed
    assert summary(cold) and summary(cold)[0][:2] == ("RMQ001", CONSUMER)
    warm = run(root)
    assert warm.parsed == 0 and summary(warm) == summary(cold)


def test_changed_file_is_parsed_again_alone(tmp_path):
    root = java_project(tmp_path)
    run(root)
    path = root / CONSUMER
    path.write_text(CONSUMER_JAVA.replace("Names.INSTANCE", "System.getenv(\"POD\")"), encoding="utf-8")
    result = run(root)
    assert result.parsed == 1 and result.findings == []


def test_touched_file_is_hashed_not_parsed(tmp_path):
    root = java_project(tmp_path)
    run(root)
    os.utime(root / CONSUMER, (OLD + 10, OLD + 10))
    assert run(root).parsed == 0


def test_racy_edit_with_same_size_and_mtime_is_seen(tmp_path):
    """A file written just before a run is not trusted by its stat next time (git's racily-clean rule)."""
    root = java_project(tmp_path, age_files=False)
    first = run(root)
    assert summary(first)
    path = root / CONSUMER
    st = path.stat()
    text = CONSUMER_JAVA.replace('"group_a"', '"group_z"')
    assert len(text) == len(CONSUMER_JAVA)
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = run(root)
    assert second.parsed == 1 and "group_z" in second.findings[0].message


def test_corrupt_cache_file_is_rebuilt(tmp_path):
    root = java_project(tmp_path)
    expected = summary(run(root))
    cache_file = root / CACHE_DIR / CACHE_FILE
    cache_file.write_bytes(b"\x00{not json")
    result = run(root)
    assert summary(result) == expected and result.parsed == 2
    assert json.loads(cache_file.read_text(encoding="utf-8"))["files"]  # valid again
    assert run(root).parsed == 0


def test_damaged_entry_is_never_trusted(tmp_path):
    root = java_project(tmp_path)
    expected = summary(run(root))
    index_file, facts_file = root / CACHE_DIR / CACHE_FILE, root / CACHE_DIR / FACTS_FILE
    index = json.loads(index_file.read_text(encoding="utf-8"))
    index["memo"] = None  # else the unchanged project is answered from the memo without reading any facts
    index_file.write_text(json.dumps(index), encoding="utf-8")
    facts = json.loads(facts_file.read_text(encoding="utf-8"))
    facts["facts"][CONSUMER][1]["clients"] = [{"role": 3}]  # wrong shape
    facts["facts"][NAMES] = "garbage"
    facts_file.write_text(json.dumps(facts), encoding="utf-8")
    result = run(root)
    assert summary(result) == expected and result.parsed == 2


@pytest.mark.parametrize("damage", ["missing", "other-content", "not-json"])
def test_facts_file_out_of_step_with_the_index_is_not_trusted(tmp_path, damage):
    root = java_project(tmp_path)
    expected = summary(run(root))
    index_file, facts_file = root / CACHE_DIR / CACHE_FILE, root / CACHE_DIR / FACTS_FILE
    index = json.loads(index_file.read_text(encoding="utf-8"))
    index["memo"] = None
    index_file.write_text(json.dumps(index), encoding="utf-8")
    if damage == "missing":
        facts_file.unlink()
    elif damage == "not-json":
        facts_file.write_text("{", encoding="utf-8")
    else:
        facts = json.loads(facts_file.read_text(encoding="utf-8"))
        facts["facts"][CONSUMER][0] = "0" * 32  # facts of another content
        facts_file.write_text(json.dumps(facts), encoding="utf-8")
    result = run(root)
    assert summary(result) == expected and result.parsed == (1 if damage == "other-content" else 2)
    assert run(root).parsed == 0  # healed


def test_other_version_cache_is_ignored(tmp_path):
    root = java_project(tmp_path)
    run(root)
    cache_file = root / CACHE_DIR / CACHE_FILE
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    data["key"] = "facts=0;rmqtools=0.0.1"
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    assert run(root).parsed == 2


def test_editing_any_frontend_module_changes_the_source_stamp(tmp_path):
    # A copy of the package's layout (empty files, old mtimes): a module of a language's sub-package counts as
    # much as one beside them, so a checkout's edited frontend never serves facts cached by the old one.
    frontends = Path(rmqlint.frontends.__file__).parent
    modules = [p.relative_to(frontends) for p in frontends.rglob("*.py") if "__pycache__" not in p.parts]
    assert any(len(m.parts) > 1 for m in modules)
    package = tmp_path / "rmqlint"
    for module in modules:
        (package / "frontends" / module).parent.mkdir(parents=True, exist_ok=True)
        (package / "frontends" / module).touch()
        os.utime(package / "frontends" / module, ns=(10**18, 10**18))
    assert _frontends_stamp(str(package)) == 10**18
    for i, module in enumerate(modules, 1):
        os.utime(package / "frontends" / module, ns=(10**18 + i, 10**18 + i))
        assert _frontends_stamp(str(package)) == 10**18 + i, module


def test_unusable_cache_location_never_fails_the_run(tmp_path):
    root = java_project(tmp_path)
    (root / CACHE_DIR).write_text("a file where the cache directory should be", encoding="utf-8")
    first, second = run(root), run(root)
    assert summary(first) == summary(second) and second.parsed == 2


def test_no_cache_reads_and_writes_nothing(tmp_path):
    root = java_project(tmp_path)
    result = run(root, use_cache=False)
    assert summary(result) and not (root / CACHE_DIR).exists()


def test_cache_dir_ignores_itself_for_git(tmp_path):
    root = java_project(tmp_path)
    run(root)
    assert (root / CACHE_DIR / ".gitignore").read_text(encoding="utf-8").strip().endswith("*")


def test_unchanged_project_is_answered_from_the_memo(tmp_path):
    root = java_project(tmp_path)
    expected = summary(run(root))
    cache_file = root / CACHE_DIR / CACHE_FILE
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    assert data["memo"]["findings"]
    # Prove the memo is what answers: facts are gone, findings are not.
    (root / CACHE_DIR / FACTS_FILE).unlink()
    for entry in data["files"].values():
        entry[5:7] = [False, False]  # not relevant, no facts
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    assert summary(run(root)) == expected


def test_memo_does_not_survive_a_change_of_rules_or_files(tmp_path):
    root = java_project(tmp_path)
    run(root)
    assert run(root, select=["RMQ003"]).findings == []  # other rules: not the memo's answer
    (root / "src/main/java/com/app/Other.java").write_text(OTHER_CONSUMER_JAVA, encoding="utf-8")
    assert [f[1] for f in summary(run(root))] == [CONSUMER, "src/main/java/com/app/Other.java"]


@pytest.mark.parametrize("damage", [
    [["RMQ001", "error"]],
    [{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8}],
    [["RMQ001", "error", "m", "p", "1", 1, 1, 1]],
    [["RMQ001", "fatal", "m", "p", 1, 1, 1, 1]],
    "not a list",
])
def test_damaged_memo_means_a_real_run(tmp_path, damage):
    root = java_project(tmp_path)
    expected = summary(run(root))
    cache_file = root / CACHE_DIR / CACHE_FILE
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    data["memo"]["findings"] = damage
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    assert summary(run(root)) == expected


def test_deeply_nested_cache_file_is_rebuilt(tmp_path):
    root = java_project(tmp_path)
    expected = summary(run(root))
    (root / CACHE_DIR / CACHE_FILE).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert summary(run(root)) == expected


def _fixture_facts():
    from pathlib import Path

    from rmqlint.engine import parse_file
    from rmqlint.discover import source_kind

    base = Path(__file__).resolve().parent / "fixtures"
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        kind = source_kind(rel)
        if kind is not None and path.is_file():
            facts, _crashed = parse_file(kind, rel, path.read_bytes())
            yield facts


def test_facts_round_trip_through_json():
    from rmqlint.facts import facts_from_json, facts_to_json

    seen = 0
    for facts in _fixture_facts():
        data = facts_to_json(facts)
        assert facts_from_json(json.loads(json.dumps(data))) == facts, facts.path
        seen += bool(facts.clients or facts.config)
    assert seen >= 5


@pytest.mark.parametrize("path, bad", [
    (("clients", 0, "location", "line"), "7"),
    (("clients", 0, "group", "value", "text"), 7),
    (("clients", 0, "subscriptions"), {"a": 1}),
    (("clients", 0), ["not", "an", "object"]),
])
def test_decoder_rejects_wrong_types(path, bad):
    from rmqlint.facts import facts_from_json, facts_to_json

    facts = next(f for f in _fixture_facts() if f.clients and f.clients[0].group is not None
                 and getattr(f.clients[0].group.value, "text", None) is not None)
    data = facts_to_json(facts)
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = bad
    with pytest.raises((TypeError, KeyError, ValueError)):
        facts_from_json(data)


def _age_tree(root):
    for path in [root, *root.rglob("*")]:
        os.utime(path, (OLD, OLD))


def test_tree_without_git_is_walked_once_while_nothing_moves(tmp_path, monkeypatch):
    from rmqlint import discover as discover_module

    root = java_project(tmp_path)
    (root / ".gitignore").write_text("generated/\n", encoding="utf-8")
    _age_tree(root)
    run(root)  # creates .rmqlint_cache/, which changes the root directory's mtime
    _age_tree(root)
    first = run(root)
    real_walk = discover_module._walk

    def no_walk(*args, **kwargs):
        raise AssertionError("walked again")

    monkeypatch.setattr(discover_module, "_walk", no_walk)
    assert summary(run(root)) == summary(first)  # the listing came from the cache

    monkeypatch.setattr(discover_module, "_walk", real_walk)
    (root / "src/main/java/com/app/Other.java").write_text(OTHER_CONSUMER_JAVA, encoding="utf-8")
    assert [f[1] for f in summary(run(root))] == [CONSUMER, "src/main/java/com/app/Other.java"]

    (root / "generated").mkdir()
    (root / "generated/Gen.java").write_text(OTHER_CONSUMER_JAVA.replace("Other", "Gen"), encoding="utf-8")
    _age_tree(root)
    assert len(run(root).findings) == 2  # ignored directory
    (root / ".gitignore").write_text("nothing/\n", encoding="utf-8")  # same directory mtime, new rule
    os.utime(root, (OLD, OLD))
    assert len(run(root).findings) == 3


def test_settings_file_is_parsed_again_only_when_it_changes(tmp_path, monkeypatch):
    import sys
    import types

    root = java_project(tmp_path)
    settings = root / ".rmqlint.toml"
    settings.write_text('ignore = ["RMQ003"]\n', encoding="utf-8")
    os.utime(settings, (OLD, OLD))
    assert summary(run(root))
    broken = types.ModuleType("tomllib")
    broken.load = lambda fh: (_ for _ in ()).throw(AssertionError("parsed again"))
    broken.TOMLDecodeError = ValueError
    monkeypatch.setitem(sys.modules, "tomllib", broken)
    assert summary(run(root))  # from the cache
    monkeypatch.undo()
    settings.write_text('ignore = ["RMQ001"]\n', encoding="utf-8")
    assert run(root).findings == []


def test_pyproject_with_toml_dates_elsewhere_is_cached_by_its_section(tmp_path):
    root = java_project(tmp_path)
    (root / ".rmqlint.toml").unlink()
    pyproject = root / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\nreleased = 2024-01-01\n[tool.rmqlint]\nfail-on = "error"\n',
                         encoding="utf-8")
    os.utime(pyproject, (OLD, OLD))
    first = run(root)
    assert first.settings.fail_on == "error"
    assert run(root).parsed == 0  # the cache was written and used


def test_toml_date_in_the_section_is_a_config_error_not_a_cache_failure(tmp_path):
    from rmqlint.config import ConfigError

    root = java_project(tmp_path)
    (root / ".rmqlint.toml").write_text("when = 2024-01-01\n", encoding="utf-8")
    os.utime(root / ".rmqlint.toml", (OLD, OLD))
    with pytest.raises(ConfigError, match="when: unknown key"):
        run(root)
    (root / ".rmqlint.toml").write_text("", encoding="utf-8")
    assert summary(run(root))


@pytest.mark.parametrize("entry", [
    {"size": 1},
    [1, 2, 3],
    ["a", "b", "c", True, 5, "x", "y"],
    [0, 0, 0, True, "h", None, True],
])
def test_damaged_index_entries_are_not_trusted(tmp_path, entry):
    root = java_project(tmp_path)
    expected = summary(run(root))
    index_file = root / CACHE_DIR / CACHE_FILE
    data = json.loads(index_file.read_text(encoding="utf-8"))
    data["memo"] = None
    data["files"][CONSUMER] = entry
    data["files"][NAMES] = entry
    index_file.write_text(json.dumps(data), encoding="utf-8")
    assert summary(run(root)) == expected
