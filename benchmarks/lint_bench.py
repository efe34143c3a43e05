"""rmqlint benchmark (not a test): how long a lint takes cold, warm and after a one-file edit, against the floor of
parsing every Java (or Go) file once with tree-sitter.

    python -m benchmarks.lint_bench                      # the synthetic corpus (benchmarks/corpus, regenerated)
    python -m benchmarks.lint_bench --source DIR         # any other source tree, e.g. the Apache RocketMQ source
    python -m benchmarks.lint_bench --repeat 5
    python -m benchmarks.lint_bench --source DIR --language go   # a Go tree (rocketmq-client-go), tree-sitter-go floor

Every figure is a separate `python -m rmqlint` process, as a user or pre-commit runs it: wall time (best of
--repeat) and CPU time (user + system of the process and its children, best of --repeat). Byte-code caching is
switched on (PYTHONPYCACHEPREFIX under benchmarks/work/), as it is for an installed package, even where the
environment sets PYTHONDONTWRITEBYTECODE.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "benchmarks" / "work"

# The languages a tree is linted as: (grammar module, file suffix, directories rmqlint does not read).
LANGUAGES = {"java": ("tree_sitter_java", ".java", ()), "go": ("tree_sitter_go", ".go", ("vendor", "testdata"))}
FLOOR_SCRIPT = """
import os, sys
import tree_sitter, {grammar}
parser = tree_sitter.Parser(tree_sitter.Language({grammar}.language()))
skip = {{".git", ".rmqlint_cache", {skipped}}}
files = size = 0
for dirpath, dirnames, filenames in os.walk(sys.argv[1]):
    dirnames[:] = [d for d in dirnames if d not in skip]
    for name in filenames:
        if name.endswith("{suffix}"):
            with open(os.path.join(dirpath, name), "rb") as fh:
                data = fh.read()
            parser.parse(data)
            files += 1
            size += len(data)
print(files, size)
"""


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _timed(argv: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU seconds (the child and its own children, e.g. git) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def _lint(target: Path, *extra: str) -> tuple[float, float, dict]:
    argv = [sys.executable, "-m", "rmqlint", str(target), "--format", "json", *extra]
    wall, cpu, proc = _timed(argv, target)
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"rmqlint failed on {target} (exit {proc.returncode}): {proc.stderr.strip()[:2000]}")
    return wall, cpu, json.loads(proc.stdout)


def _best(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return min(s[0] for s in samples), min(s[1] for s in samples)


def _edit_targets(target: Path, count: int, suffix: str = ".java") -> list[Path]:
    """Files that take part in linting (they mention RocketMQ), spread over the tree, in a stable order."""
    candidates = sorted(
        p for p in target.rglob(f"*{suffix}") if ".rmqlint_cache" not in p.parts and b"rocketmq" in p.read_bytes()
    )
    if not candidates:
        candidates = sorted(target.rglob(f"*{suffix}"))
    step = max(1, len(candidates) // max(count, 1))
    return candidates[::step][:count]


def measure(target: Path, repeat: int, language: str = "java") -> dict:
    target = target.resolve()
    grammar, suffix, skipped = LANGUAGES[language]
    floor_script = FLOOR_SCRIPT.format(grammar=grammar, suffix=suffix, skipped=", ".join(map(repr, skipped)))
    # Byte code compiled once, outside the measurements.
    subprocess.run([sys.executable, "-m", "rmqlint", "--version"], env=_env(), capture_output=True, check=True)

    floor = []
    for _ in range(repeat):
        wall, cpu, proc = _timed([sys.executable, "-c", floor_script, str(target)], target)
        if proc.returncode:
            raise SystemExit(f"floor failed: {proc.stderr}")
        floor.append((wall, cpu))
    files, size = (int(x) for x in proc.stdout.split())

    cold = []
    for _ in range(repeat):
        wall, cpu, cold_out = _lint(target, "--no-cache")
        cold.append((wall, cpu))

    cache = target / ".rmqlint_cache"
    if cache.exists():
        for child in cache.iterdir():
            child.unlink()
    _lint(target)  # fills the cache
    time.sleep(2.1)  # past the racy-mtime margin, as any later run would be
    _lint(target)  # the first run after that may rewrite stat entries once
    warm = []
    for _ in range(repeat):
        wall, cpu, warm_out = _lint(target)
        warm.append((wall, cpu))
    if warm_out != cold_out:
        raise SystemExit("warm findings differ from cold findings")

    changed = []
    for path in _edit_targets(target, repeat, suffix):
        original = path.read_bytes()
        try:
            path.write_bytes(original + b"\n// benchmark edit\n")
            wall, cpu, _out = _lint(target)
            changed.append((wall, cpu))
        finally:
            path.write_bytes(original)
            _lint(target)  # back to a warm cache for the next edit

    return {
        "target": str(target),
        "language": language,
        "files": files,
        "megabytes": size / 1e6,
        "findings": len(cold_out["findings"]),
        "floor": _best(floor),
        "cold": _best(cold),
        "warm": _best(warm),
        "one_file_changed": _best(changed),
    }


def report(result: dict) -> str:
    floor, cold, warm, changed = result["floor"], result["cold"], result["warm"], result["one_file_changed"]
    rows = [
        ("parse-everything floor (tree-sitter, one process)", floor),
        ("rmqlint cold (--no-cache, all rules)", cold),
        ("rmqlint warm (cache, nothing changed)", warm),
        ("rmqlint, one file changed", changed),
    ]
    lines = [
        f"target: {result['target']}: {result['files']} {result.get('language', 'java').title()} files, "
        f"{result['megabytes']:.1f} MB, {result['findings']} findings",
        "",
        "| run | wall s (best) | CPU s (best) |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {wall:.2f} | {cpu:.2f} |" for name, (wall, cpu) in rows]
    lines += [
        "",
        f"cold / floor: wall {cold[0] / floor[0]:.2f}, CPU {cold[1] / floor[1]:.2f} (target <= 1)",
        f"warm / cold: wall {warm[0] / cold[0]:.2f}, CPU {warm[1] / cold[1]:.2f} (target <= 0.25)",
        f"one file changed / cold: wall {changed[0] / cold[0]:.2f}, CPU {changed[1] / cold[1]:.2f}",
        f"cold per file: {1000 * cold[1] / max(result['files'], 1):.2f} ms CPU; per MB: "
        f"{cold[1] / max(result['megabytes'], 1e-9):.2f} s CPU",
    ]
    return "\n".join(lines)


def machine() -> str:
    try:
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return (f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"load average {load}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lint_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, help="lint this tree instead of the synthetic corpus")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best is reported")
    parser.add_argument("--language", choices=sorted(LANGUAGES), default="java",
                        help="the files the floor parses and the edits touch (default java)")
    args = parser.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    if args.source is None:
        from benchmarks.java_corpus import generate

        target = REPO / "benchmarks" / "corpus"
        print("corpus:", generate(target), flush=True)
    else:
        target = args.source
    print("machine:", machine(), flush=True)
    result = measure(target, max(1, args.repeat), args.language)
    print(report(result))
    print("machine after:", machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())
