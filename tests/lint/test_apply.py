"""The applier: edits on random text (Hypothesis), patches `git apply` takes, atomic writes, concurrent runs, and the
fixes of every rule's own examples and of the repository's examples."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rmqlint import apply
from rmqlint.cli import main
from rmqlint.engine import LintOptions, lint, lint_sources
from rmqlint.findings import Finding
from rmqlint.fixes import Edit, Fix
from rmqlint.frontends import frontend_for
from rmqlint.rules import ALL_RULES
from rmqlint.spans import Span
from tests.lint.test_engine_fixtures import write_project
from tests.lint.test_reporters import sarif_schema

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


# --- edits on random text ---------------------------------------------------------------------------------------

CODECS = ["utf-8", "gbk", "iso-8859-1"]
# Characters every one of these codecs writes, with the line ends a file may hold.
TEXT = st.text(alphabet=st.sampled_from(list("abc ,;|\t\r\n\"'{}$") + ["é", "名", "ü"]), max_size=60)


def _span(text: str, first: int, last: int, codec: str) -> Span:
    start, end = len(text[:first].encode(codec)), len(text[:last].encode(codec))
    return Span("f", start, end, 1, first + 1, 1, last + 1, codec, text[first:last])


@st.composite
def edited_text(draw):
    codec = draw(st.sampled_from(CODECS))
    text = draw(TEXT.filter(lambda t: all(_encodable(c, codec) for c in t)))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    pairs = list(zip(cuts[::2], cuts[1::2]))
    # Never two insertions at one point (their order would be a guess, and the applier refuses it).
    seen_points, chosen = set(), []
    for first, last in pairs:
        if first == last and first in seen_points:
            continue
        seen_points.add(first)
        chosen.append((first, last))
    replacements = draw(st.lists(TEXT.filter(lambda t: all(_encodable(c, codec) for c in t)),
                                 min_size=len(chosen), max_size=len(chosen)))
    return codec, text, list(zip(chosen, replacements))


def _encodable(char: str, codec: str) -> bool:
    try:
        char.encode(codec)
        return True
    except UnicodeEncodeError:
        return False


@given(edited_text())
@settings(max_examples=300, deadline=None)
def test_edits_on_random_text_round_trip(case):
    codec, text, chosen = case
    data = text.encode(codec)
    edits = [Edit(_span(text, first, last, codec), new) for (first, last), new in chosen]
    out = apply.apply_edits(data, edits)
    # The model: the same replacements made on the text, from the last to the first.
    expected = text
    for (first, last), new in sorted(chosen, reverse=True):
        expected = expected[:first] + new + expected[last:]
    assert out == expected.encode(codec)
    # Every byte outside the edits is where it was: each gap between them stands, unchanged, where the edits
    # before it put it.
    at, shift = 0, 0
    for (first, last), new in sorted(chosen):
        gap = text[at:first].encode(codec)
        start = len(text[:at].encode(codec)) + shift
        assert out[start:start + len(gap)] == gap
        shift += len(new.encode(codec)) - len(text[first:last].encode(codec))
        at = last
    tail = text[at:].encode(codec)
    assert out[len(out) - len(tail):] == tail


@given(edited_text())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_overlapping_edits_are_never_both_taken(case):
    codec, text, chosen = case
    edits = [Edit(_span(text, first, last, codec), new) for (first, last), new in chosen]
    taken: list[Edit] = []
    for edit in edits:
        if not apply._overlaps(edit, taken):
            taken.append(edit)
    for a in taken:
        for b in taken:
            if a is not b:
                assert a.span.end <= b.span.start or b.span.end <= a.span.start


# --- the diff, applied by git -----------------------------------------------------------------------------------

def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_diff_applies_with_git_and_equals_fix(tmp_path):
    names = ("package com.app;\r\n\r\npublic final class Mq {\r\n    // 名称服务器\r\n"
             '    public static final String NAMESRV = "10.0.0.1:9876,10.0.0.2:9876";\r\n}').encode("utf-8")
    files = {
        "src/main/java/com/app/Mq.java": names,  # CRLF, and no line end at the end
        "src/main/java/com/app/Producer.java": "package com.app;\n\nimport org.apache.rocketmq.client.producer"
                                               ".DefaultMQProducer;\n\npublic class Producer {\n    void start() {\n"
                                               '        new DefaultMQProducer("pg").setNamesrvAddr(Mq.NAMESRV);\n'
                                               "    }\n}\n",
        "conf dir/application.properties": "# 注释\nrocketmq.name-server=a:9876 b:9876\n".encode("gbk"),
        "配置/application.yml": "rocketmq:\n  name-server: c:9876,d:9876\n",  # git quotes such a path
        "consumer.py": 'from rocketmq.client import PushConsumer\n\nconsumer = PushConsumer("CID")\n'
                       'consumer.set_instance_name("node")\nconsumer.subscribe("T", print, "A,B")\n',
    }
    repo = write_project(tmp_path / "repo", files, git=True)
    other = write_project(tmp_path / "other", files, git=True)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")

    done = subprocess.run([str(BIN / "rmqlint"), "--diff", "--unsafe-fixes", "--no-cache", "."], cwd=repo,
                          capture_output=True, timeout=120)
    assert done.returncode == 1, done.stderr
    patch = done.stdout
    assert b'"a/conf dir/application.properties' not in patch  # spaces need no quotes in git's format
    assert _git(repo, "status", "--porcelain").stdout == b""  # --diff changed nothing
    (tmp_path / "fix.patch").write_bytes(patch)
    applied = _git(repo, "apply", "--check", str(tmp_path / "fix.patch"))
    assert applied.returncode == 0, applied.stderr
    assert _git(repo, "apply", str(tmp_path / "fix.patch")).returncode == 0

    assert main([str(other), "--fix", "--unsafe-fixes", "--no-cache"]) in (0, 1)
    for rel in files:
        assert (repo / rel).read_bytes() == (other / rel).read_bytes(), rel
    assert (repo / "src/main/java/com/app/Mq.java").read_bytes() == names.replace(b"9876,10.", b"9876;10.")

    again = subprocess.run([str(BIN / "rmqlint"), "--diff", "--unsafe-fixes", "--no-cache", "."], cwd=repo,
                           capture_output=True, timeout=120)
    assert (again.returncode, again.stdout) == (0, b"")



LINKED_CONFIG = "rocketmq:\n  name-server: a:9876,b:9876\n  producer:\n    group: pg\n"


def _linked_repo(repo: Path, target: str) -> Path:
    """A git repository whose module reads its configuration through a symbolic link to `target`."""
    write_project(repo, {"shared/application.yml": LINKED_CONFIG, "app/src/main/java/com/app/App.java":
                         "package com.app;\n"}, git=True)
    (repo / "app/src/main/resources").mkdir(parents=True)
    os.symlink(target, repo / "app/src/main/resources/application.yml")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_config_file_reached_through_a_link_is_fixed_once_by_its_own_path(tmp_path):
    repo = _linked_repo(tmp_path / "repo", "../../../../shared/application.yml")
    link = repo / "app/src/main/resources/application.yml"
    done = subprocess.run([str(BIN / "rmqlint"), "--diff", "--no-cache", "."], cwd=repo, capture_output=True,
                          timeout=120)
    patch = done.stdout
    assert patch.count(b"diff --git") == 1
    assert patch.startswith(b"diff --git a/shared/application.yml b/shared/application.yml\n")
    (tmp_path / "fix.patch").write_bytes(patch)
    checked = _git(repo, "apply", "--check", str(tmp_path / "fix.patch"))
    assert checked.returncode == 0, checked.stderr

    fixed = subprocess.run([str(BIN / "rmqlint"), "--fix", "--no-cache", "."], cwd=repo, capture_output=True,
                           timeout=120)
    assert fixed.stderr == b"rmqlint: fixed 2 findings in 1 file\n"  # the link's finding and the file's
    assert link.is_symlink() and link.read_bytes() == LINKED_CONFIG.replace(",", ";").encode()
    assert _git(repo, "status", "--porcelain").stdout == b" M shared/application.yml\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_link_to_a_file_outside_the_paths_is_not_fixed(tmp_path):
    outside = tmp_path / "elsewhere.yml"
    outside.write_text(LINKED_CONFIG)
    repo = _linked_repo(tmp_path / "out", str(outside))
    assert main([str(repo), "--fix", "--no-cache"]) == 1  # the link's finding stays: its file is not the project's
    assert outside.read_text() == LINKED_CONFIG
    assert _git(repo, "status", "--porcelain").stdout == b" M shared/application.yml\n"  # its own finding is fixed

    repo = _linked_repo(tmp_path / "in", "../../../../shared/application.yml")
    assert main([str(repo / "app"), "--fix", "--no-cache"]) == 1  # in the project, but not in the path given
    assert _git(repo, "status", "--porcelain").stdout == b""


# --- writing --------------------------------------------------------------------------------------------------

def _change(root: Path, rel: str, after: bytes) -> apply.FileChange:
    return apply.FileChange(rel, (root / rel).read_bytes(), after)


def test_write_keeps_the_mode_and_follows_a_symlink(tmp_path):
    (tmp_path / "real.yml").write_bytes(b"a: 1\n")
    os.chmod(tmp_path / "real.yml", 0o640)
    os.symlink("real.yml", tmp_path / "link.yml")
    apply.write(tmp_path, _change(tmp_path, "link.yml", b"a: 2\n"))
    assert (tmp_path / "link.yml").is_symlink() and (tmp_path / "real.yml").read_bytes() == b"a: 2\n"
    assert os.stat(tmp_path / "real.yml").st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yml", "real.yml"]  # no temporary file left


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path):
    (tmp_path / "a.yml").write_bytes(b"a: 1\n")
    change = _change(tmp_path, "a.yml", b"a: 2\n")
    (tmp_path / "a.yml").write_bytes(b"a: 3\n")  # another run, or an editor
    with pytest.raises(apply.WriteError, match="changed while it was being fixed"):
        apply.write(tmp_path, change)
    assert (tmp_path / "a.yml").read_bytes() == b"a: 3\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.yml"]


def test_a_stale_fix_is_left_out(tmp_path):
    (tmp_path / "a.properties").write_bytes(b"rocketmq.name-server=a:1,b:2\n")
    span = Span("a.properties", 21, 28, 1, 22, 1, 29, "utf-8", "a:1,b:2")
    finding = Finding("RMQ008", "error", "list", _loc("a.properties"), fix=Fix("semicolons", (Edit(span, "a:1;b:2"),)))
    (tmp_path / "a.properties").write_bytes(b"rocketmq.name-server=x:1,y:2\n")
    plan = apply.plan(tmp_path, [finding])
    assert plan.changes == [] and "changed since it was linted" in plan.skipped[0]


def test_a_fix_that_breaks_the_file_is_left_out(tmp_path):
    source = b'class A { String s = "x"; }\n'
    (tmp_path / "A.java").write_bytes(source)
    good = Fix("ok", (Edit(Span("A.java", 22, 23, 1, 23, 1, 24, "utf-8", "x"), "y"),))
    bad = Fix("breaks", (Edit(Span("A.java", 8, 9, 1, 9, 1, 10, "utf-8", "{"), "("),))
    plan = apply.plan(tmp_path, [Finding("RMQ008", "error", "m", _loc("A.java"), fix=bad),
                                 Finding("RMQ008", "error", "m", _loc("A.java"), fix=good)])
    assert [c.after for c in plan.changes] == [b'class A { String s = "y"; }\n']
    assert any("would no longer parse" in line for line in plan.skipped)


def _loc(path):
    from rmqlint.facts import Location

    return Location(path, 1, 1, 1, 2)


CONCURRENT = {
    "src/main/resources/application.yml": "rocketmq:\n  name-server: a:9876 b:9876\n  producer:\n    group: pg\n",
    "src/main/java/com/app/Pools.java": "package com.app;\n\nimport org.apache.rocketmq.client.consumer."
                                        "DefaultMQPushConsumer;\n\npublic class Pools {\n    void start() {\n"
                                        '        DefaultMQPushConsumer c = new DefaultMQPushConsumer("g");\n'
                                        "        c.setConsumeThreadMin(32);\n"
                                        '        c.subscribe("T", "A,B");\n        c.start();\n    }\n}\n',
}


def test_concurrent_runs_leave_whole_files(tmp_path):
    """Four runs fix one project at once: every file ends as one run alone leaves it (the insertion made once),
    and no temporary file is left behind."""
    root = write_project(tmp_path / "p", CONCURRENT)
    alone = write_project(tmp_path / "alone", CONCURRENT)
    main([str(alone), "--fix", "--no-cache"])
    runs = [subprocess.Popen([str(BIN / "rmqlint"), "--fix", "--no-cache", str(root)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE) for _ in range(4)]
    for run in runs:
        run.wait(timeout=120)
    for rel in CONCURRENT:
        assert (root / rel).read_bytes() == (alone / rel).read_bytes(), rel
        assert not frontend_for(rel).parse(rel, (root / rel).read_bytes()).problems
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".rmqlint-fix")]
    assert leftovers == []


# --- every rule's own examples, and the repository's ------------------------------------------------------------

def _examples():
    for rule in ALL_RULES:
        for kind in ("INVALID", "VALID"):
            for index, example in enumerate(getattr(rule, kind)):
                yield pytest.param(rule, kind, example, id=f"{rule.CODE}-{kind}-{index}")


@pytest.mark.parametrize("rule, kind, example", list(_examples()))
def test_rule_examples_fixed(tmp_path, rule, kind, example):
    """Applied to a rule's examples, every fix (unsafe ones too) makes its finding go away, leaves every file
    parsing as before, and a near miss (VALID) is never edited."""
    before = lint_sources(example.files, [rule()])
    fixable = [f for f in before if f.fix is not None]
    if kind == "VALID":
        assert fixable == []
    if not fixable:
        return
    root = write_project(tmp_path / "p", example.files)
    main([str(root), "--fix", "--unsafe-fixes", "--no-cache", "--select", rule.CODE])
    after = lint(LintOptions(paths=[root], use_cache=False, select=[rule.CODE])).findings
    assert not any(f.fix is not None for f in after), [f.message for f in after if f.fix]
    fixed_places = {(f.location.path, f.message) for f in fixable}
    assert not {(f.location.path, f.message) for f in after} & fixed_places
    for rel, source in example.files.items():
        if frontend_for(rel) is None:  # a build or deployment file beside the code (go.mod): no fix edits it
            assert (root / rel).read_text(encoding="utf-8") == source
            continue
        data = (root / rel).read_bytes()
        original = source.encode() if isinstance(source, str) else source
        problems = {p.message for p in frontend_for(rel).parse(rel, data).problems}
        assert problems <= {p.message for p in frontend_for(rel).parse(rel, original).problems}


def test_the_repository_examples_come_out_clean_of_what_was_fixed(tmp_path):
    copy = tmp_path / "examples"
    shutil.copytree(REPO / "examples", copy)
    (copy / ".rmqlint.toml").write_text("", encoding="utf-8")
    before = lint(LintOptions(paths=[copy], use_cache=False)).findings
    fixed = [f for f in before if f.fix is not None]
    assert {f.code for f in fixed} == {"RMQ001", "RMQ002"}
    assert main([str(copy), "--fix", "--unsafe-fixes"]) == 1  # RMQ003 (no fix) and the drift with a blank remain
    after = lint(LintOptions(paths=[copy], use_cache=False)).findings
    assert [f for f in after if f.fix is not None] == []
    assert not {(f.code, f.location.path) for f in after} & {(f.code, f.location.path) for f in fixed}
    assert len(after) == len(before) - len(fixed)
    for path in copy.rglob("*"):
        rel = path.relative_to(copy).as_posix()
        frontend = frontend_for(rel)
        if path.is_file() and frontend is not None:
            assert not frontend.parse(rel, path.read_bytes()).problems, rel


# --- reports ----------------------------------------------------------------------------------------------------

def test_json_and_sarif_carry_fixes_and_fingerprints(tmp_path, capsys, monkeypatch):
    root = write_project(tmp_path / "p", CONCURRENT)
    monkeypatch.chdir(root)
    assert main(["--format", "json", "--no-cache"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    by_code = {f["code"]: f for f in findings}
    yml = by_code["RMQ008"]
    blank = CONCURRENT["src/main/resources/application.yml"].index(" b:9876")  # the blank between the addresses
    assert yml["fix"] == {
        "applicability": "safe",
        "message": 'separate the addresses with ";"',
        "edits": [{"path": "src/main/resources/application.yml", "line": 2, "column": 22, "end_line": 2,
                   "end_column": 23, "start_byte": blank, "end_byte": blank + 1, "content": ";"}],
    }
    assert by_code["RMQ005"]["fix"]["edits"][0]["content"].endswith("\n        c.setConsumeThreadMax(32);")
    assert all(len(f["fingerprint"]) == 20 for f in findings)

    assert main(["--format", "sarif", "--no-cache"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, sarif_schema())
    results = log["runs"][0]["results"]
    assert [r["partialFingerprints"]["rmqlint/v1"] for r in results] == [f["fingerprint"] for f in findings]
    sarif_fix = next(r for r in results if r["ruleId"] == "RMQ008")["fixes"][0]
    change = sarif_fix["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "src/main/resources/application.yml"
    assert change["replacements"] == [{
        "deletedRegion": {"startLine": 2, "startColumn": 22, "endLine": 2, "endColumn": 23, "byteOffset": blank,
                          "byteLength": 1},
        "insertedContent": {"text": ";"},
    }]
    assert sarif_fix["properties"] == {"applicability": "safe"}


def test_text_counts_the_fixes(tmp_path, capsys):
    root = write_project(tmp_path / "p", CONCURRENT)
    main([str(root), "--no-cache"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "[*] 3 fixable with --fix (--diff shows them)."
    assert lines[-1].startswith("Found 3 findings")


def test_fixes_from_a_warm_run_and_in_a_nested_project(tmp_path, capsys):
    """The findings memo keeps fixes (a warm run answers from it), and a project nested in the linted tree is
    fixed at its own paths."""
    outer = write_project(tmp_path / "outer", {"README.md": "outer\n"}, git=True)
    inner = write_project(outer / "svc", CONCURRENT, git=True)
    assert main([str(outer)]) == 1  # fills the cache
    capsys.readouterr()
    assert main([str(outer), "--diff"]) == 1  # answered from the memo
    patch = capsys.readouterr().out
    assert "+++ b/svc/src/main/resources/application.yml" in patch and "+  name-server: a:9876;b:9876" in patch
    assert main([str(outer), "--fix"]) == 0
    assert (inner / "src/main/resources/application.yml").read_text() == CONCURRENT[
        "src/main/resources/application.yml"].replace("a:9876 b:9876", "a:9876;b:9876")
