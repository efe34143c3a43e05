"""pyarrow started without pandas in a local engine process (`rmqplan.engines.arrow_start`)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_arrays_are_made_without_importing_pandas_and_pandas_still_imports():
    pytest.importorskip("pandas")
    out = _run("""
        import sys
        import numpy as np
        from rmqplan.engines.arrow_start import start_arrow_without_pandas
        start_arrow_without_pandas()
        import pyarrow as pa, pyarrow.compute as pc
        pa.array(np.arange(3)); pa.scalar("x"); pc.take(pa.array(["a", "b"]), pa.array([1]))
        print("pandas" in sys.modules)
        import pandas
        print(pa.array(pandas.Series([1, 2])).to_pylist())
    """)
    assert out.split("\n")[:2] == ["False", "[1, 2]"]


def test_nothing_changes_where_pandas_is_already_imported():
    pytest.importorskip("pandas")
    out = _run("""
        import sys
        import pandas
        from rmqplan.engines.arrow_start import start_arrow_without_pandas
        start_arrow_without_pandas()
        import pyarrow as pa
        print(pa.Table.from_pandas(pandas.DataFrame({"a": [1]})).to_pylist(), sys.meta_path[0].__class__.__name__)
    """)
    assert out.startswith("[{'a': 1}]") and "_NoPandas" not in out
