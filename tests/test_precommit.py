"""The pre-commit snippet of docs/outputs-and-integrations.md works as written, with real pre-commit: a scratch git
repository takes it with `repo:` pointing at this repository and `rev:` at its HEAD commit (the form the page
documents: a full commit sha), pre-commit installs the hook from it (the light install, from PyPI) and runs it on
what is committed. A commit that adds a fixed instanceName is stopped with RMQ001; a clean one goes through.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "outputs-and-integrations.md"

CONSUMER = """\
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class Orders {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("orders_cg");
        consumer.setInstanceName(%s);
        consumer.subscribe("Orders", "*");
        consumer.start();
    }
}
"""


def _snippet() -> str:
    """The page's .pre-commit-config.yaml, as written."""
    block = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return block.group(1)


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def test_the_documented_snippet_runs_with_real_pre_commit(tmp_path):
    pre_commit = Path(sys.executable).parent / "pre-commit"
    if not pre_commit.exists() or shutil.which("git") is None:
        if os.environ.get("CI") == "true":  # make install installs the [dev] extra: in CI a skip would hide a break
            pytest.fail("CI=true: pre-commit (the [dev] extra) and git are needed", pytrace=False)
        pytest.skip("pre-commit (the [dev] extra) and git are needed")
    head = _git(REPO, "rev-parse", "HEAD").strip()
    snippet = _snippet()
    assert re.search(r"(?m)^\s+rev: [0-9a-f]{40}\b", snippet), "the snippet pins rev to a full commit sha"
    # Only the placeholder of where the hook repository is changes; `pre-commit autoupdate --freeze`, as the page
    # says, writes the sha of its newest commit (the repository has no tags) in place of the example sha.
    config = re.sub(r"(?m)^(\s+- repo: )\S+", lambda m: m.group(1) + str(REPO), snippet, count=1)
    assert config.count(str(REPO)) == 1

    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    java = project / "src" / "main" / "java" / "Orders.java"
    java.parent.mkdir(parents=True)
    java.write_text(CONSUMER % '"XUJIAN_MACBOOK"', encoding="utf-8")
    _git(project, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(pre_commit), *(args or ("run",))], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900)

    updated = run("autoupdate", "--freeze")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    written = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert re.search(rf"(?m)^\s+rev: {head}\b", written), written
    _git(project, "add", ".pre-commit-config.yaml")

    stopped = run()
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert "rmqlint" in stopped.stdout and "Failed" in stopped.stdout
    assert 'src/main/java/Orders.java:6:9: RMQ001 instanceName is fixed to "XUJIAN_MACBOOK"' in stopped.stdout

    java.write_text(CONSUMER % 'System.getenv("HOSTNAME")', encoding="utf-8")  # unique per pod: quiet
    _git(project, "add", ".")
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"rmqlint\.+Passed", passed.stdout)
