"""What is parsed is capped so that memory stays bounded: a source file over its language's limit is one RMQ900 note
and the rest of the project is still linted; Python statements past libcst's node budget, build files, manifests
holding too many values and very long lines in a report's code frame likewise. (Memory itself is measured, not
tested: the figures are where each limit is defined.)"""

from __future__ import annotations

import re

import pytest

from rmqlint.engine import LintOptions, lint
from rmqlint.frontends import frontend_named
from rmqlint.frontends.python.parse import MAX_NODES
from rmqlint.reporters.code_frame import MAX_LINE
from rmqlint.reporters.text import render_text
from tests.lint.test_engine_fixtures import java_project, write_project

IMPORT = "import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n"
CONSUMER = "src/main/java/com/app/Consumer.java"


def dense_java(size: int) -> str:
    """A class of one array literal: tree-sitter's densest input, `size` bytes or a little more."""
    return IMPORT + "class Table { int[] t = {" + "1," * (size // 2) + "1}; }\n"


def lint_with(root, files):
    """The engine fixtures' project (a consumer with a fixed instance name: RMQ001) and `files`."""
    write_project(java_project(root), files)
    return lint(LintOptions(paths=[root], use_cache=False))


def by_path(result):
    found = {}
    for f in result.findings:
        found.setdefault(f.location.path, []).append(f)
    return found


@pytest.mark.parametrize("path, text, message", [
    ("src/main/java/com/app/Table.java", dense_java(1024 * 1024),  # was parsed: 275 MB
     "file is 1 MB, over the 768 KB limit for java files: not linted"),
    ("app/tables.py", "import rocketmq\nT = [" + "1," * 100_000 + "1]\n",  # was parsed: 150 MB
     "file is 195 KB, over the 192 KB limit for python files: not linted"),
    ("src/main/resources/application.properties", "rocketmq.name-server=ns:9876\n" + "k=v\n" * 200_000,
     "file is 781 KB, over the 768 KB limit for spring files: not linted"),  # was parsed: 190 MB
])
def test_a_file_just_over_its_limit_is_one_note_and_the_rest_is_linted(tmp_path, path, text, message):
    found = by_path(lint_with(tmp_path, {path: text}))
    (note,) = found[path]
    assert (note.code, note.location.line, note.message) == ("RMQ900", 1, message)
    assert [f.code for f in found[CONSUMER]] == ["RMQ001"]  # the consumer beside it is still linted


def test_a_file_at_its_limit_is_linted(tmp_path):
    limit = frontend_named("java").max_bytes
    text = dense_java(limit - 100)
    assert len(text.encode()) <= limit
    found = by_path(lint_with(tmp_path, {"src/main/java/com/app/Table.java": text}))
    assert "src/main/java/com/app/Table.java" not in found and [f.code for f in found[CONSUMER]] == ["RMQ001"]


def test_python_statements_past_libcsts_budget_are_one_note(tmp_path):
    # 14,000 module constants of 4 nodes each (Assign, Name, Store, Constant): 120 KB, under the file limit, all
    # kept for libcst (other modules may import them), where 64 KB of such lines took 150 MB
    text = "import rocketmq\n" + "".join(f"c{i}=1\n" for i in range(14_000))
    assert len(text.encode()) < frontend_named("python").max_bytes
    found = by_path(lint_with(tmp_path, {"app/consts.py": text}))
    (note,) = found["app/consts.py"]
    assert note.code == "RMQ900" and note.message == (
        f"too large to analyse: more than {MAX_NODES:,} syntax nodes in the statements that can hold facts: not "
        "analysed")
    assert [f.code for f in found[CONSUMER]] == ["RMQ001"]


def test_a_line_too_long_for_a_code_frame_is_reported_without_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = "src/main/java/com/app/Table.java"
    result = lint_with(tmp_path, {path: dense_java(2 * MAX_LINE)[:-4] + "\n"})  # a syntax error on that line
    text = render_text(result, width=100)
    before, after = text.split(f"{path}:2:1: RMQ900 ", 1)
    assert re.search(r"(?m)^8 \| +consumer.setInstanceName", before)  # the consumer's finding keeps its frame
    assert not re.search(r"(?m)^\d* *\| ", after)  # the long line's finding has none (each character: a cell)


def test_build_files_and_manifests_over_their_limits_are_one_problem(tmp_path):
    from rmqplan.sources.buildfiles import read_build_files
    from rmqplan.sources.deploy import read_deployments
    from rmqplan.sources.yaml_lines import MAX_NODES as MAX_VALUES

    (tmp_path / "build.gradle.kts").write_text('dependencies {\n' + 'implementation("a:b:1")\n' * 50_000 + "}\n")
    problems = [str(p) for p in read_build_files(tmp_path).problems]
    assert problems == [f"{tmp_path / 'build.gradle.kts'}: not a build file (binary or over 1 MB): not read"]
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "orders.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\n"
                                        "spec:\n  x: [" + "1," * MAX_VALUES + "1]\n")
    problems = [str(p) for p in read_deployments(deploy).problems]
    assert problems == [f"{deploy / 'orders.yaml'}:1: not readable as YAML: holds more than {MAX_VALUES:,} values"]
