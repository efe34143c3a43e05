"""pyarrow without pandas in the local engine's processes.

pyarrow's first `pa.array` (or `pa.scalar`) imports pandas, when it is installed, only to ask whether the value is
a pandas object: 0.2 s of every process that writes `--out` tables (a tenth of a million generated groups' table
writing). The local engine never hands pyarrow a pandas object, so its processes let that first look find no
pandas; pandas stays importable for anything that asks for it by name.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

_started = False


class _NoPandas(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            raise ImportError("pandas is not looked at by rmqplan's local engine")
        return None


def start_arrow_without_pandas() -> None:
    """Make pyarrow's first array here without importing pandas (once a process; nothing if pandas is imported)."""
    global _started
    if _started:
        return
    _started = True
    if "pandas" in sys.modules:
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        import pyarrow as pa

        pa.array([0])  # pyarrow records here, once, that it has no pandas to look at
    except ImportError:
        pass
    finally:
        sys.meta_path.remove(finder)
