"""The pre-commit snippet of docs/outputs-and-integrations.md works as written, with real pre-commit: a scratch git
repository takes it with `repo:` pointing at this repository and `rev:` at its HEAD commit (the form the page
documents: a full commit sha), pre-commit installs the hook from it (the light install, from PyPI) and runs it on
what is committed. A commit that adds a fixed instanceName is stopped with RMQ001; a clean one goes through. A
commit that changes only a build file or a manifest is stopped with the finding that change causes, wherever it is.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.test_engine_fixtures import FROM_HOSTNAME, ORDERS_CONSUMER, ORDERS_DEPLOYMENT, ORDERS_POM, \
    deployed_files

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


def words(text: str) -> str:
    """The text with every run of white space one space: the text report wraps a finding's message."""
    return " ".join(text.split())


def _snippet() -> str:
    """The page's .pre-commit-config.yaml, as written."""
    block = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return block.group(1)


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    """One store of hook environments for the module: the hook is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


class Hooked:
    """A scratch git repository using the page's snippet, `rev` frozen by `pre-commit autoupdate --freeze`."""

    def __init__(self, project: Path, home: Path):
        pre_commit = Path(sys.executable).parent / "pre-commit"
        if not pre_commit.exists() or shutil.which("git") is None:
            if os.environ.get("CI") == "true":  # make test installs the [dev] extra: in CI a skip would hide a break
                pytest.fail("CI=true: pre-commit (the [dev] extra) and git are needed", pytrace=False)
            pytest.skip("pre-commit (the [dev] extra) and git are needed")
        self.pre_commit, self.project = pre_commit, project
        self.env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        self.env.pop("VIRTUAL_ENV", None)
        snippet = _snippet()
        assert re.search(r"(?m)^\s+rev: [0-9a-f]{40}\b", snippet), "the snippet pins rev to a full commit sha"
        # Only the placeholder of where the hook repository is changes; `pre-commit autoupdate --freeze`, as the page
        # says, writes the sha of its newest commit (the repository has no tags) in place of the example sha.
        config = re.sub(r"(?m)^(\s+- repo: )\S+", lambda m: m.group(1) + str(REPO), snippet, count=1)
        assert config.count(str(REPO)) == 1
        project.mkdir()
        _git(project, "init", "-q")
        (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        updated = self.run("autoupdate", "--freeze")
        assert updated.returncode == 0, updated.stdout + updated.stderr
        self.config = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
        _git(project, "add", ".pre-commit-config.yaml")

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.pre_commit), *(args or ("run",))], cwd=self.project, env=self.env,
                              capture_output=True, text=True, timeout=900)

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            (self.project / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.project / rel).write_text(text, encoding="utf-8")
        _git(self.project, "add", ".")

    def commit_clean(self, files: dict[str, str]) -> None:
        """Commit `files` after the hook passed on all of them."""
        self.write(files)
        passed = self.run("run", "--all-files")
        assert passed.returncode == 0 and re.search(r"rmqlint\.+Passed", passed.stdout), passed.stdout + passed.stderr
        _git(self.project, "commit", "-q", "-m", "clean")


def test_the_documented_snippet_runs_with_real_pre_commit(tmp_path, pre_commit_home):
    head = _git(REPO, "rev-parse", "HEAD").strip()
    hooked = Hooked(tmp_path / "project", pre_commit_home)
    assert re.search(rf"(?m)^\s+rev: {head}\b", hooked.config), hooked.config

    hooked.write({"src/main/java/Orders.java": CONSUMER % '"XUJIAN_MACBOOK"'})
    stopped = hooked.run()
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert "rmqlint" in stopped.stdout and "Failed" in stopped.stdout
    assert 'src/main/java/Orders.java:6:9: RMQ001 instanceName is fixed to "XUJIAN_MACBOOK"' in words(stopped.stdout)

    hooked.write({"src/main/java/Orders.java": CONSUMER % 'System.getenv("HOSTNAME")'})  # unique per pod: quiet
    passed = hooked.run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"rmqlint\.+Passed", passed.stdout)


def test_a_commit_of_the_client_release_alone_is_stopped_at_the_build_file(tmp_path, pre_commit_home):
    """Three replicas on host networking with a consumer that sets no name: rocketmq-client 4.9.3 names it
    pid#nanoTime, 4.5.1 by the pid alone, 1 in every container. The commit changes pom.xml and nothing else."""
    hooked = Hooked(tmp_path / "project", pre_commit_home)
    hooked.commit_clean(deployed_files(version="4.9.3", replicas=3))
    pom = (hooked.project / ORDERS_POM).read_text(encoding="utf-8")
    hooked.write({ORDERS_POM: pom.replace("<version>4.9.3</version>", "<version>4.5.1</version>")})
    assert _git(hooked.project, "diff", "--cached", "--name-only").split() == [ORDERS_POM]
    stopped = hooked.run()
    assert stopped.returncode == 1 and re.search(r"rmqlint\.+Failed", stopped.stdout), stopped.stdout + stopped.stderr
    assert f"{ORDERS_POM}:10:7: RMQ001 rocketmq-client 4.5.1 gives every clustering consumer" in words(stopped.stdout)


def test_a_commit_of_the_replica_count_alone_is_stopped_with_the_finding_citing_the_manifest(tmp_path,
                                                                                              pre_commit_home):
    """A consumer named after HOSTNAME, the node's name on host networking: one replica is alone on its node, three
    may share it. The commit changes the Deployment's replicas and nothing else; the finding is at the consumer."""
    hooked = Hooked(tmp_path / "project", pre_commit_home)
    hooked.commit_clean(deployed_files(replicas=1, name=FROM_HOSTNAME))
    manifest = (hooked.project / ORDERS_DEPLOYMENT).read_text(encoding="utf-8")
    hooked.write({ORDERS_DEPLOYMENT: manifest.replace("replicas: 1\n", "replicas: 3\n")})
    assert _git(hooked.project, "diff", "--cached", "--name-only").split() == [ORDERS_DEPLOYMENT]
    stopped = hooked.run()
    assert stopped.returncode == 1 and re.search(r"rmqlint\.+Failed", stopped.stdout), stopped.stdout + stopped.stderr
    assert f"{ORDERS_CONSUMER}:8:9: RMQ001 the instanceName of clustering consumer" in words(stopped.stdout)
    assert f"Deployment orders at {ORDERS_DEPLOYMENT}:13 runs 3 replicas on host networking" in words(stopped.stdout)


def test_the_hook_passes_every_kind_of_file_rmqlint_reads(tmp_path):
    """pre-commit passes a changed file to the hook only when the hook's `files`, `exclude`, `types` and `types_or`
    take it (identify's tags, as pre-commit computes them): every source, build and deployment file rmqlint reads."""
    identify = pytest.importorskip("identify.identify", reason="identify comes with pre-commit (the [dev] extra)")
    import yaml

    from rmqlint.discover import source_kind
    from rmqlint.modules import BUILD_FILES, is_build_file, is_deployment_file

    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))

    def passed(rel: str) -> bool:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
        tags = identify.tags_from_path(str(path))
        return (re.search(hook.get("files", ""), rel) is not None
                and not (hook.get("exclude") and re.search(hook["exclude"], rel))
                and set(hook.get("types", ["file"])) <= tags
                and (not hook.get("types_or") or bool(set(hook["types_or"]) & tags)))

    read = ["src/main/java/com/example/Orders.java", "worker/consumer.py", "billing/consumer.go",
            "src/main/resources/application.properties", "src/main/resources/application-prod.yml",
            "deploy/orders.yaml", "docker-compose.yml", "worker/requirements.txt", "worker/requirements-prod.txt",
            "orders/src/main/resources/spring/mq-consumer.xml", "web/src/main/webapp/WEB-INF/applicationContext.xml",
            *(f"orders/{name}" for name in sorted(BUILD_FILES))]
    for rel in read:
        assert source_kind(rel) is not None or is_build_file(rel) or is_deployment_file(rel), rel
        assert passed(rel), rel
    for rel in ("README.md", "orders/src/main/resources/logback.xml", "orders/src/main/resources/log4j2-spring.xml",
                "web/src/main/webapp/WEB-INF/web.xml", "Makefile"):
        assert not passed(rel), rel
