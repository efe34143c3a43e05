"""The Spark engine on a real cluster: a Spark standalone master and worker on 127.0.0.1, started from PySpark's own
`spark-class`, and `rmqplan simulate --master spark://127.0.0.1:<port>` as a user runs it (a fresh process).

The executors' Python is this interpreter without its site-packages hooks (`python -S`, the packages' directory on
PYTHONPATH): the editable install's `planner` is out of their reach, so the tasks can only run the `planner` the
driver ships as a zip (`SparkContext.addPyFile`). The run writes `--out`: the tasks write their Parquet part files
themselves. Answers and tables must equal the local engine's."""

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "fleet.toml"
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: Path, text: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"{log.name}: exited {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.3)
    raise AssertionError(f"{log.name}: no {text!r} after {timeout} s: {log.read_text(errors='replace')[-2000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(master URL, the environment to run rmqplan in): a master and a worker with 2 cores, stopped at the end."""
    pyspark = pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java: a Spark standalone cluster needs Java 17+")
    home = Path(pyspark.__file__).parent
    spark_class = home / "bin" / "spark-class"
    tmp = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(tmp),
               SPARK_WORKER_DIR=str(tmp / "work"), SPARK_NO_DAEMONIZE="1")
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    procs = []
    try:
        master_log = tmp / "master.log"
        master = subprocess.Popen([str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(_free_port())],
                                  stdout=open(master_log, "wb"), stderr=subprocess.STDOUT, env=env, cwd=tmp)
        procs.append(master)
        _wait_for(master_log, "I have been elected leader", master)
        worker_log = tmp / "worker.log"
        worker = subprocess.Popen([str(spark_class), "org.apache.spark.deploy.worker.Worker", master_url,
                                   "--host", "127.0.0.1", "--cores", "2", "--memory", "2g",
                                   "--webui-port", str(_free_port()), "--work-dir", str(tmp / "work")],
                                  stdout=open(worker_log, "wb"), stderr=subprocess.STDOUT, env=env, cwd=tmp)
        procs.append(worker)
        _wait_for(worker_log, "Successfully registered with master", worker)
        # The executors' Python: this interpreter, its packages importable, the editable `rmqplan` not.
        python = tmp / "executor-python"
        python.write_text("#!/bin/sh\n"
                          f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{sysconfig.get_paths()["purelib"]}" '
                          f'exec {sys.executable} -S "$@"\n')
        python.chmod(0o755)
        hidden = subprocess.run([str(python), "-c", "import numpy, pyarrow, pyspark; import rmqplan"],
                                capture_output=True, text=True, cwd=tmp)
        assert hidden.returncode == 1 and "No module named 'rmqplan'" in hidden.stderr, hidden.stderr
        yield master_url, dict(os.environ, PYSPARK_PYTHON=str(python)), tmp
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _rmqplan(*argv: str, env=None, cwd=ROOT) -> tuple[int, dict, str]:
    done = subprocess.run([sys.executable, "-m", "rmqplan.cli", "simulate", "--format", "json", *argv],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout), done.stderr


def _tables(directory: Path) -> dict:
    """Every --out table sorted by all its columns, and findings.json's lines sorted: comparable across engines."""
    import pyarrow.parquet as pq

    out = {}
    for name in ("assignments", "groups", "processes", "brokers"):
        table = pq.read_table(directory / name)
        out[name] = table.sort_by([(c, "ascending") for c in table.column_names]).combine_chunks()
    out["findings"] = sorted((directory / "findings.json").read_text().splitlines())
    return out


def test_a_fleet_on_a_standalone_cluster_equals_the_local_engine(cluster, tmp_path):
    master, env, cluster_dir = cluster
    fleet = tmp_path / "fleet.toml"  # the example's hand-written groups and scenario, and 20,000 generated groups
    fleet.write_text(EXAMPLE.read_text() + "\n[generate]\ngroups = 20000\nseed = 9\ninstances = [1, 12]\n"
                     "colliding_client_ids = 0.02\nstrategies = [\"AVG\", \"AVG_BY_CIRCLE\", \"CONSISTENT_HASH\"]\n")
    code, on_cluster, err = _rmqplan("--fleet", str(fleet), "--master", master, "--out", str(tmp_path / "cluster"),
                                     env=env, cwd=tmp_path)
    local_code, local, _ = _rmqplan("--fleet", str(fleet), "--engine", "local", "--out", str(tmp_path / "local"))
    assert code == local_code == 1
    assert on_cluster.pop("findings_file") == str(tmp_path / "cluster" / "findings.json")
    assert local.pop("findings_file") == str(tmp_path / "local" / "findings.json")
    assert on_cluster.pop("results_file") == str(tmp_path / "cluster" / "groups")
    assert local.pop("results_file") == str(tmp_path / "local" / "groups")
    assert on_cluster == local and on_cluster["totals"]["groups"] == 20003
    summary = json.loads((tmp_path / "cluster" / "summary.json").read_text())
    assert summary["engine"] == "spark" and summary["findings_written"] == sum(on_cluster["finding_counts"].values())
    tables, expected = _tables(tmp_path / "cluster"), _tables(tmp_path / "local")
    assert tables["assignments"].num_rows >= on_cluster["totals"]["assignments"] > 500_000  # baseline + scenario
    for name, table in expected.items():
        assert (tables[name] == table) if name == "findings" else tables[name].equals(table), name
    # the executors ran the shipped zip (their Python cannot import the editable rmqplan, checked by the fixture)
    apps = list((cluster_dir / "work").glob("app-*/*/rmqplan.zip"))
    assert apps, "no executor received rmqplan.zip"
