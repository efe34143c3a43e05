"""The light install (`pip install rmqlint`, the pre-commit hook): rmqlint and the local planner without PySpark,
pyarrow or pandas. What needs them says in one line what to install, exit 2; nothing else imports them."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "fleet.toml")
SPARK_MODULES = {"rmqplan.engines.spark", "rmqplan.engines.spark_arrow"}  # the Spark engine: may import them at module level


def without_spark(*argv: str) -> tuple[int, str, list[str]]:
    """(exit code, stdout, stderr lines without the last `imported: [...]` line), and asserts nothing blocked was
    imported."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("without_spark.py")), *argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    lines = done.stderr.splitlines()
    assert lines and lines[-1] == "imported: []", done.stderr
    return done.returncode, done.stdout, lines[:-1]


def test_a_hand_written_fleet_and_a_generated_one_run_on_the_local_engine(tmp_path):
    code, out, err = without_spark("-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE)
    assert code == 1 and err == [] and "local engine (auto: a hand-written fleet of 3 groups)" in out
    fleet = tmp_path / "gen.toml"
    fleet.write_text('[generate]\ngroups = 20000\ncolliding_client_ids = 0.01\n'
                     'strategies = ["AVG", "CONSISTENT_HASH"]\n')
    code, out, err = without_spark("-m", "rmqplan.cli", "simulate", "--fleet", str(fleet), "--format", "json")
    assert code == 1 and err == [] and '"groups": 20000' in out


@pytest.mark.parametrize("extra", [["--engine", "spark"], ["--master", "spark://127.0.0.1:7077"],
                                   ["--conf", "spark.executor.memory=2g"]])
def test_what_needs_spark_is_one_line_saying_what_to_install(extra):
    code, out, err = without_spark("-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE, *extra)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0].startswith("rmqplan: spark engine (") and "pip install 'rmqlint[spark]'" in err[0]


def test_spark_settings_without_pyspark_name_the_install_and_the_local_engine():
    code, out, err = without_spark("-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE, "--conf",
                                   "spark.driver.memory=2g")  # auto sends Spark settings to Spark
    assert code == 2 and out == "" and len(err) == 1
    assert "pip install 'rmqlint[spark]', or --engine local" in err[0]


def test_out_without_pyarrow_is_one_line_and_leaves_nothing(tmp_path):
    code, out, err = without_spark("-m", "rmqplan.cli", "simulate", "--fleet", EXAMPLE, "--out",
                                   str(tmp_path / "out"))
    assert code == 2 and out == "" and len(err) == 1 and "pip install 'rmqlint[spark]'" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_rmqlint_runs_without_them():
    code, out, err = without_spark("-m", "rmqlint", str(ROOT / "examples"), "--no-cache", "--format", "json")
    assert code == 1 and err == [] and '"RMQ001"' in out


def test_no_planner_module_outside_the_spark_engine_imports_them_at_module_level():
    import rmqplan

    names = sorted(m.name for m in pkgutil.walk_packages(rmqplan.__path__, "rmqplan."))
    assert "rmqplan.cli" in names and "rmqplan.engines.local" in names and SPARK_MODULES <= set(names)
    code, _, err = without_spark("-c", "import importlib\n"
                                 f"for name in {[n for n in names if n not in SPARK_MODULES]!r}:\n"
                                 "    importlib.import_module(name)\n")
    assert code == 0 and err == []
