"""RocketMQ's Java side for the live tests (tests/cluster/) and the benchmarks (benchmarks/): the jars Maven fetched
and Java sources compiled against them. Both import this package; neither imports the other.

The jars come from Maven Central through `tests/cluster/maven/pom.xml` (`make rocketmq`, which `make install-test`
and `make bench` run, copies them into `.cache/rocketmq/<classpath>/`, or RMQTOOLS_ROCKETMQ_CACHE); a source is
compiled with `javac` against one of those classpaths once per content, into the same cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("RMQTOOLS_ROCKETMQ_CACHE", REPO / ".cache" / "rocketmq"))


def classpath(name: str) -> str:
    """The classpath of one fetched directory (`server`, `client-4.9.8`): every jar in it."""
    return str(CACHE / name / "*")


def compiled(source: Path, against: str, *more: Path) -> Path:
    """The classes of `source` (a .java file, and the `more` it needs) compiled against the classpath `against`,
    cached by content. Raises RuntimeError when javac fails."""
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in (source, *more))).hexdigest()[:12]
    out = CACHE / "classes" / f"{source.stem}-{against}-{digest}"
    if (out / f"{source.stem}.class").exists():
        return out
    tmp = Path(tempfile.mkdtemp(prefix=f".{source.stem}-", dir=CACHE))
    done = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", classpath(against),
                           str(source), *map(str, more)], capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"javac {source.name} against {against} failed:\n{done.stderr}")
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(out)
    except OSError:  # compiled meanwhile by another process
        shutil.rmtree(tmp, ignore_errors=True)
    return out
