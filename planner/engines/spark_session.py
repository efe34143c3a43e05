"""Starting Spark the way users expect: Java checked first, local[*] by default, quiet terminal.

The JVM writes its start-up chatter (log4j defaults, hostname warnings, incubator modules) straight to the
terminal before any log level can be set, so its stdout and stderr go to a log file instead; the stages' progress
comes from Spark's status tracker (`StatusWatcher`) and is shown on a terminal only (`rmqplan.report.progress`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Iterable, Optional

MIN_JAVA = 17


class SparkUnavailable(Exception):
    """Spark cannot run here (no usable Java, bad --conf): one line for the user, exit 2."""


def _java_command() -> Optional[str]:
    # spark-class picks $JAVA_HOME/bin/java when JAVA_HOME is set, else `java` on PATH: check the same binary.
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = os.path.join(java_home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java")


def java_major_version(output: str) -> Optional[int]:
    """The major version from `java -version` output: `"17.0.15"` -> 17, `"1.8.0_292"` -> 8."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', output)
    if not match:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2):
        major = int(match.group(2))
    return major


def check_java() -> int:
    """Return the Java major version, or raise SparkUnavailable with one clear line."""
    return _java_version()[0]


def _java_version() -> tuple[int, str]:
    """(major version, `java -version` output) of the java Spark will run; raises SparkUnavailable."""
    java = _java_command()
    where = f"JAVA_HOME={os.environ['JAVA_HOME']}" if os.environ.get("JAVA_HOME") else "PATH"
    if java is None:
        raise SparkUnavailable(
            f"the Spark engine needs Java {MIN_JAVA} or newer, but no java was found on {where}; "
            f"install a JDK {MIN_JAVA}+ and set JAVA_HOME, or use --engine local"
        )
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SparkUnavailable(f"the Spark engine needs Java {MIN_JAVA}+, but `{java} -version` failed: {exc}")
    major = java_major_version(done.stderr + done.stdout)
    if major is None or major < MIN_JAVA:
        found = f"Java {major}" if major else "an unrecognised java"
        raise SparkUnavailable(
            f"the Spark engine needs Java {MIN_JAVA} or newer, but {java} is {found}; "
            f"set JAVA_HOME to a JDK {MIN_JAVA}+, or use --engine local"
        )
    return major, f"{java}\n{done.stderr}{done.stdout}"


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rmqplan")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def class_archive_options(java_version: str) -> list[str]:
    """JVM options for an application class-data archive (AppCDS) of Spark's classes.

    Loading and verifying Spark's ten thousand classes is most of the JVM's start and of the first query; a
    dynamic archive made by the first run (`-XX:ArchiveClassesAtExit`, written when that JVM exits, after the
    command has answered) maps them ready-made in later runs, seconds faster. The archive is specific to the
    java binary and Spark's jars, so its name carries a digest of both; a JVM that cannot use it (another JDK)
    ignores it. Stored in ~/.cache/rmqplan (XDG_CACHE_HOME), about 150 MB; RMQPLAN_SPARK_CDS=0 turns it off."""
    import hashlib

    import pyspark

    if os.environ.get("RMQPLAN_SPARK_CDS", "1") == "0":
        return []
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    try:
        listing = sorted((name, os.path.getsize(os.path.join(jars, name))) for name in os.listdir(jars))
    except OSError:
        return []
    digest = hashlib.sha1(repr((java_version, pyspark.__version__, listing)).encode()).hexdigest()[:12]
    folder = _cache_dir()
    final = os.path.join(folder, f"spark-{pyspark.__version__}-{digest}.jsa")
    quiet = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    try:
        os.makedirs(folder, exist_ok=True)
        pending = []  # archives written by earlier runs' JVMs at exit (a JVM may outlive its Python process)
        for name in os.listdir(folder):
            if name.startswith(os.path.basename(final) + ".") and name.endswith(".tmp"):
                path = os.path.join(folder, name)
                pid = name[len(os.path.basename(final)) + 1:-len(".tmp")]
                settled = time.time() - os.path.getmtime(path) > 60 and not (pid.isdigit() and _alive(int(pid)))
                pending.append((settled, path))
        if not os.path.isfile(final):
            done = [path for settled, path in pending if settled and os.path.getsize(path) > 0]
            if done:
                os.replace(done[0], final)
            elif any(not settled for settled, _ in pending) or not os.access(folder, os.W_OK):
                return []  # another run is writing one
        for settled, path in pending:
            if settled and os.path.exists(path):
                os.remove(path)
    except OSError:
        return []
    if os.path.isfile(final):
        return [f"-XX:SharedArchiveFile={final}", *quiet]
    return [f"-XX:ArchiveClassesAtExit={final}.{os.getpid()}.tmp", *quiet]


def parse_conf(pairs: Iterable[str]) -> list[tuple[str, str]]:
    """`--conf key=value` items as pairs; a malformed item is a usage error."""
    out = []
    for item in pairs or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SparkUnavailable(f"--conf expects key=value, got {item!r}")
        out.append((key.strip(), value))
    return out


class StatusWatcher:
    """Spark's stages and tasks as a status line (`show(text)`), polled from Spark's status tracker by a daemon
    thread while the engine runs: "starting Spark" until the context exists, then the running stages' tasks done
    and running. Spark's own console progress bar stays off (it would interleave with ours)."""

    def __init__(self, show: Callable[[str], None], interval: float = 0.2):
        self.show, self.interval = show, interval
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rmqplan-spark-status", daemon=True)

    def __enter__(self) -> "StatusWatcher":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        from pyspark import SparkContext

        failures = 0
        while not self._stop.wait(self.interval):
            try:
                text = self.describe(SparkContext._active_spark_context)
                failures = 0
            except Exception:  # the context is stopping, or Py4J is busy: skip a beat, give up after a few
                failures += 1
                if failures > 10:
                    return
                continue
            if text and not self._stop.is_set():
                self.show(text)

    def describe(self, context) -> str:
        from rmqplan.report.progress import seconds

        elapsed = seconds(time.monotonic() - self.started)
        if context is None or getattr(context, "_jsc", None) is None:  # the context is being made
            return f"rmqplan: starting Spark (JVM, session), {elapsed}"
        tracker = context.statusTracker()
        stages = [s for s in (tracker.getStageInfo(i) for i in sorted(tracker.getActiveStageIds())) if s]
        if not stages:
            return f"rmqplan: Spark {context.master}, the driver prepares the next job, {elapsed}"
        parts = [f"stage {s.stageId}: {s.numCompletedTasks} of {s.numTasks} tasks done, {s.numActiveTasks} running"
                 for s in stages]
        return f"rmqplan: Spark {context.master}, {'; '.join(parts)}, {elapsed}"


def get_session(master: Optional[str] = None, conf: Iterable = (), app_name: str = "rmqplan"):
    """The active SparkSession, or a new one: `master` defaults to local[*]; `conf` is pairs or "k=v" strings."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    _, java_version = _java_version()
    # Python tasks run the allocation kernel: they must use this interpreter (its numpy, pyarrow and planner),
    # not whatever `python3` is first on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    pairs = [p if isinstance(p, tuple) else parse_conf([p])[0] for p in conf]
    spark_conf = SparkConf()
    spark_conf.setMaster(master or "local[*]").setAppName(app_name)
    spark_conf.set("spark.ui.showConsoleProgress", "false")
    spark_conf.set("spark.ui.enabled", "false")
    spark_conf.set("spark.sql.shuffle.partitions", "8")
    spark_conf.set("spark.sql.adaptive.enabled", "true")
    # The driver JVM of a short job (local mode runs the executors inside it): the parallel collector, only the
    # quick C1 compiler (the work is in Python tasks; C2 would spend the run compiling), Spark's classes from an
    # archive (see class_archive_options): together they took a first small job from 12.5 s to 6-7 s here.
    spark_conf.set("spark.driver.extraJavaOptions", " ".join(
        ["-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1", *class_archive_options(java_version)]))
    for key, value in pairs:  # the user's --conf wins over our defaults
        spark_conf.set(key, value)
    log_path = os.path.join(tempfile.gettempdir(), f"rmqplan-spark-{os.getpid()}.log")
    try:
        from pyspark.java_gateway import launch_gateway

        with open(log_path, "ab") as log:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
        context = SparkContext(conf=spark_conf, gateway=gateway)
    except Exception as exc:  # the JVM did not come up: point at its log, no traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SparkUnavailable(f"Spark did not start ({first}); see {log_path}") from None
    context.setLogLevel("ERROR")
    return SparkSession(context)
