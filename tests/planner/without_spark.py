"""`python tests/planner/without_spark.py -m MODULE ARGS...` (or `-c CODE`): run MODULE as `python -m` would (or
CODE as `python -c`), with PySpark, pyarrow
and pandas made unimportable, as in the light install (`pip install rmqlint`, the pre-commit hook). At exit it
writes to stderr, as its last line, which of them were imported after all (`imported: []`)."""

import atexit
import importlib.abc
import runpy
import sys

BLOCKED = ("pyspark", "pyarrow", "pandas", "py4j")


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def main() -> None:
    sys.meta_path.insert(0, Blocker())
    atexit.register(lambda: print(f"imported: {sorted(m for m in BLOCKED if m in sys.modules)}", file=sys.stderr))
    if sys.argv[1:2] not in (["-m"], ["-c"]) or len(sys.argv) < 3:
        raise SystemExit("usage: without_spark.py -m MODULE [ARGS...] | -c CODE")
    flag, target = sys.argv[1], sys.argv[2]
    sys.argv = [target] + sys.argv[3:]
    if flag == "-c":
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
