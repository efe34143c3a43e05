"""Starting Spark the way users expect: Java checked first, local[*] by default, quiet terminal.

The JVM writes its start-up chatter (log4j defaults, hostname warnings, incubator modules) straight to the
terminal before any log level can be set, so its stdout and stderr go to a log file instead; our own short
progress lines go to stderr.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Iterable, Optional

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
    return major


def parse_conf(pairs: Iterable[str]) -> list[tuple[str, str]]:
    """`--conf key=value` items as pairs; a malformed item is a usage error."""
    out = []
    for item in pairs or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SparkUnavailable(f"--conf expects key=value, got {item!r}")
        out.append((key.strip(), value))
    return out


def progress(message: str) -> None:
    """One short progress line on stderr (Spark's own progress bar is off)."""
    print(f"rmqplan: {message}", file=sys.stderr, flush=True)


def get_session(master: Optional[str] = None, conf: Iterable = (), app_name: str = "rmqplan"):
    """The active SparkSession, or a new one: `master` defaults to local[*]; `conf` is pairs or "k=v" strings."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    check_java()
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
    # The planner is a batch job: the throughput collector gives its sorts and aggregations 15-25% more than
    # the default G1 at the default 1 GB driver heap (BENCHMARKS.md). Only the driver's JVM: local mode runs
    # the executors inside it.
    spark_conf.set("spark.driver.extraJavaOptions", "-XX:+UseParallelGC")
    for key, value in pairs:  # the user's --conf wins over our defaults
        spark_conf.set(key, value)
    log_path = os.path.join(tempfile.gettempdir(), f"rmqplan-spark-{os.getpid()}.log")
    started = time.monotonic()
    try:
        from pyspark.java_gateway import launch_gateway

        with open(log_path, "ab") as log:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
        context = SparkContext(conf=spark_conf, gateway=gateway)
    except Exception as exc:  # the JVM did not come up: point at its log, no traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SparkUnavailable(f"Spark did not start ({first}); see {log_path}") from None
    context.setLogLevel("ERROR")
    session = SparkSession(context)
    if time.monotonic() - started > 5:
        progress(f"Spark {session.version} started ({context.master}) in {time.monotonic() - started:.0f}s")
    return session
