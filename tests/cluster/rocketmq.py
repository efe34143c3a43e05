"""A real RocketMQ on 127.0.0.1 for the live tests: a name server, brokers, mqadmin, and consumer processes.

The jars come from Maven Central through `tests/cluster/maven/pom.xml` (`make install-test` copies them
into `.cache/rocketmq/<classpath>/`); the Java sources of this directory (`driver/RmqDriver.java`,
`admin/AdminShell.java`) are compiled with `javac` against them, once per source version and classpath, into
the same cache (`harness.rocketmq_java`, which the benchmarks use too).

Every process is started in a session of its own (its own process group), registered in `_STARTED`, and killed
with its whole group by `Cluster.close`/`Consumer.close`, by an `atexit` hook, and on SIGTERM (a handler that
takes no lock: it runs between any two steps of this thread, which may hold one); each also gets
SIGKILL from the kernel when the test process dies (PR_SET_PDEATHSIG), and a consumer exits when its stdin
closes: a failing, interrupted or killed test run leaves no JVM behind. Consumers that must share a pid run in a pid namespace of their own
(`unshare --pid --fork --mount-proc`), where the JVM is pid 1, as a container's entrypoint is.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from harness.rocketmq_java import CACHE, REPO, classpath, compiled

HERE = Path(__file__).resolve().parent
SERVER = "server"
CLIENTS = ("4.5.1", "4.9.3", "4.9.8", "5.3.3")  # the releases consumers run on
# and the releases whose classes alone are asked (tests/cluster/probe/ClientClasses.java): each next to the
# release that changed what rmqplan models (MACHINE_ROOM's block in 4.8.0 and its checks in 4.9.3, "@STREAM" in 4.9.4)
RELEASES = tuple(sorted(CLIENTS + ("4.7.1", "4.8.0", "4.9.4"), key=lambda v: tuple(map(int, v.split(".")))))
SERVER_VERSION = "5.3.3"
CLUSTER_NAME = "RmqLive"
# A rebalance round every 0.5 s (the client's default is 20 s), routes and heartbeats every 0.5 s (30 s).
REBALANCE_MS = 500
POLL_MS = 500
JVM_SMALL = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:-UsePerfData"]
# Netty 4.0 (client 4.5.1) reaches into java.nio, which Java 9+ must open to it.
OPENS = [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in ("java.nio", "sun.nio.ch", "java.lang", "java.util")]

_STARTED: dict[int, subprocess.Popen] = {}  # pid -> process, each the leader of its own process group
_LOCK = threading.Lock()


def _kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all() -> None:
    """Kills every process group this module started and still knows about."""
    with _LOCK:
        procs = list(_STARTED.values())
        _STARTED.clear()
    for proc in procs:
        _kill_group(proc)
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


atexit.register(kill_all)


def _on_sigterm(signum, frame):
    """pytest killed by CI's timeout: take the cluster down with it, and end as SIGTERM ends a process. No lock
    and no wait: this runs between two steps of the main thread, which may be holding _LOCK (in `_spawn`, `_forget`,
    `kill_all`) or a process's wait lock, and again inside itself when a second SIGTERM comes (`timeout` and
    `make` each send one). The registry is copied in one step (dict.copy does not let another thread in); the
    groups get SIGKILL, which needs no waiting for."""
    for proc in _STARTED.copy().values():
        _kill_group(proc)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, _on_sigterm)


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the test process dies, even by SIGKILL (prctl PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _spawn(argv: list[str], *, cwd: Path, env: dict, stdin=subprocess.DEVNULL, stdout=None,
           stderr=subprocess.STDOUT, text: bool = False) -> subprocess.Popen:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr, text=text,
                            start_new_session=True, preexec_fn=_die_with_parent)
    with _LOCK:
        _STARTED[proc.pid] = proc
    return proc


def _forget(proc: subprocess.Popen) -> None:
    with _LOCK:
        _STARTED.pop(proc.pid, None)


def unavailable() -> Optional[str]:
    """Why the live tests cannot run here, in one line; None when they can."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return (f"no `{tool}` on PATH (the live RocketMQ tests need Java 17+ and the jars `make install-test` "
                    "fetches)")
    missing = [name for name in (SERVER, *(f"client-{v}" for v in RELEASES))
               if not any((CACHE / name).glob("*.jar"))]
    if missing:
        why = "no `mvn` on PATH" if shutil.which("mvn") is None else "`make install-test` has not fetched them"
        return f"the RocketMQ jars are missing from {CACHE} ({', '.join(missing)}): {why}"
    return None


DRIVER = HERE / "driver" / "RmqDriver.java"
ADMIN = HERE / "admin" / "AdminShell.java"
PROBE = HERE / "probe" / "ClientClasses.java"
PROGRAMS = HERE / "programs"  # a directory of small programs per rule, and Watch.java, compiled with each


def ask_classes(release: str, questions: list[list[str]]) -> list[dict]:
    """The answers of one client release's own classes (`probe/ClientClasses.java`) to `questions`, each a list of
    fields (strings are sent as the hex of their UTF-8 bytes by the caller), in one JVM."""
    cp = f"{compiled(PROBE, f'client-{release}')}:{classpath(f'client-{release}')}"
    text = "".join("\t".join(q) + "\n" for q in questions)
    done = subprocess.run(["java", "-Xmx64m", *JVM_SMALL, "-cp", cp, "ClientClasses"], input=text,
                          capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if len(lines) != len(questions):
        raise RuntimeError(f"ClientClasses on {release}: {len(lines)} answers to {len(questions)} questions:\n"
                           f"{done.stderr[-3000:]}")
    return [json.loads(line) for line in lines]


def driver_classpath(version: str) -> str:
    return f"{compiled(DRIVER, f'client-{version}')}:{classpath(f'client-{version}')}"


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(*offsets: int) -> int:
    """A free port p on 127.0.0.1 such that p + each offset is free too (a broker listens on p, p-2 and p+1)."""
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 1024 + 2 and all(_port_free(port + o) for o in offsets):
            return port
    raise RuntimeError("no free port on 127.0.0.1")


def _wait_for(path: Path, text: str, proc: subprocess.Popen, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}) before it was ready; its output:\n"
                               + _tail(path))
        time.sleep(0.05)
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s; its output:\n" + _tail(path))


def _tail(path: Path, lines: int = 30) -> str:
    if not path.exists():
        return "(nothing)"
    return "\n".join(line for line in path.read_text(errors="replace").splitlines() if "|-" not in line)[-4000:]


@dataclass
class Broker:
    name: str
    port: int
    home: Path
    proc: Optional[subprocess.Popen] = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """A name server and brokers of one cluster, all on 127.0.0.1, in a temporary directory."""

    home: Path
    namesrv_port: int = 0
    brokers: dict[str, Broker] = field(default_factory=dict)
    _namesrv: Optional[subprocess.Popen] = None
    _admin: Optional[subprocess.Popen] = None
    _admin_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def namesrv(self) -> str:
        return f"127.0.0.1:{self.namesrv_port}"

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")}
        return {**env, "ROCKETMQ_HOME": str(self.home)}

    def _java(self, heap: str, *args: str) -> list[str]:
        return ["java", f"-Xms{heap}", f"-Xmx{heap}", *JVM_SMALL, f"-Duser.home={self.home}", *args]

    def start_namesrv(self) -> None:
        self.namesrv_port = free_port()
        conf = self.home / "namesrv.properties"
        conf.write_text(f"listenPort={self.namesrv_port}\nbindAddress=127.0.0.1\n")
        log = self.home / "namesrv.out"
        with open(log, "wb") as out:
            self._namesrv = _spawn(self._java("96m", "-cp", classpath(SERVER),
                                              "org.apache.rocketmq.namesrv.NamesrvStartup", "-c", str(conf)),
                                   cwd=self.home, env=self.env(), stdout=out)
        _wait_for(log, "boot success", self._namesrv, 60, "the name server")

    def start_broker(self, name: str, **settings) -> Broker:
        broker = self.spawn_broker(name, **settings)
        self.wait_broker(name)
        return broker

    def wait_broker(self, name: str) -> None:
        broker = self.brokers[name]
        assert broker.proc is not None
        _wait_for(broker.home / "broker.out", "boot success", broker.proc, 90, f"broker {name}")

    def spawn_broker(self, name: str, **settings) -> Broker:
        broker = self.brokers.get(name)
        if broker is None:
            broker = Broker(name, free_port(-2, 1), self.home / f"broker-{len(self.brokers)}")
            broker.home.mkdir()
            self.brokers[name] = broker
        store = broker.home / "store"
        conf = broker.home / "broker.properties"
        values = {
            "brokerClusterName": CLUSTER_NAME, "brokerName": name, "brokerId": 0,
            "namesrvAddr": self.namesrv, "brokerIP1": "127.0.0.1", "listenPort": broker.port,
            "bindAddress": "127.0.0.1",
            "storePathRootDir": store, "storePathCommitLog": store / "commitlog",
            # a small store: 8 MB commit log files, 2,000-entry consume queue files, no timer wheel log
            "mappedFileSizeCommitLog": 8 * 1024 * 1024, "mappedFileSizeConsumeQueue": 2000 * 20,
            "timerWheelEnable": "false", "autoCreateTopicEnable": "false",
            "flushDiskType": "ASYNC_FLUSH", "diskMaxUsedSpaceRatio": 99,
            # a message sent back for a retry comes again after 1 s at every level (the default starts at 10 s)
            "messageDelayLevel": " ".join(["1s"] * 18),
            **settings,
        }
        conf.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
        log = broker.home / "broker.out"
        log.unlink(missing_ok=True)
        with open(log, "wb") as out:
            broker.proc = _spawn(self._java("256m", "-XX:MaxDirectMemorySize=128m", "-cp", classpath(SERVER),
                                            "org.apache.rocketmq.broker.BrokerStartup", "-c", str(conf)),
                                 cwd=broker.home, env=self.env(), stdout=out)
        return broker

    def stop_broker(self, name: str, timeout: float = 30) -> None:
        """A broker shut down as an operator does (SIGTERM): it unregisters from the name server first; once
        the name server has dropped it, the rest of its slow shutdown does not matter and it is killed."""
        broker = self.brokers[name]
        assert broker.proc is not None
        os.kill(broker.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if name not in self.admin("clusterList", "-n", self.namesrv) or broker.proc.poll() is not None:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"broker {name} still registered {timeout:.0f} s after SIGTERM")
        _kill_group(broker.proc)
        broker.proc.wait(timeout=10)
        _forget(broker.proc)
        broker.proc = None

    def admin(self, *args: str, timeout: float = 60) -> str:
        """What `mqadmin ARGS` prints (stdout and stderr), run by RocketMQ's own MQAdminStartup in a shell JVM."""
        with self._admin_lock:
            if self._admin is None or self._admin.poll() is not None:
                cp = f"{compiled(ADMIN, SERVER)}:{classpath(SERVER)}"
                self._admin = _spawn(self._java("128m", "-cp", cp, "AdminShell"), cwd=self.home, env=self.env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
            assert self._admin.stdin is not None and self._admin.stdout is not None
            self._admin.stdin.write("\t".join(args) + "\n")
            self._admin.stdin.flush()
            lines = []
            deadline = time.monotonic() + timeout
            while True:
                line = self._admin.stdout.readline()
                if line == "":
                    raise RuntimeError(f"mqadmin shell exited during {' '.join(args)}: {''.join(lines)}")
                if line == "@@end\n":
                    break
                lines.append(line)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"mqadmin {' '.join(args)} took more than {timeout} s")
            return "".join(line for line in lines if "|-INFO in" not in line and "|-WARN in" not in line)

    def update_topic(self, topic: str, read: int, write: Optional[int] = None, *, broker: Optional[str] = None,
                     perm: int = 6) -> None:
        where = ["-b", self.brokers[broker].address] if broker else ["-c", CLUSTER_NAME]
        out = self.admin("updateTopic", "-n", self.namesrv, *where, "-t", topic, "-r", str(read),
                         "-w", str(read if write is None else write), "-p", str(perm))
        if "success" not in out:
            raise RuntimeError(f"updateTopic {topic}: {out}")
        # the broker registers the change with the name server on a thread of its own: wait until the route says
        # it, so that consumers started next see it from their first route (a later one would be a change)
        brokers = [broker] if broker else [b for b, x in self.brokers.items() if x.proc is not None]
        deadline = time.monotonic() + 60
        while True:
            shown = self.route(topic)
            if all(shown.get(b) == (read, perm) for b in brokers):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"updateTopic {topic}: the name server's route says {shown} after 60 s")
            time.sleep(0.1)

    def route(self, topic: str) -> dict[str, tuple[int, int]]:
        """broker -> (read queues, perm) of the topic, as the name server's route has it now ({} for none)."""
        from rmqplan.sources import relaxed_json

        text = self.admin("topicRoute", "-n", self.namesrv, "-t", topic)
        if "{" not in text:
            return {}  # no route yet: mqadmin printed its error
        data = relaxed_json.parse(text[text.index("{"):])
        return {q["brokerName"]: (q["readQueueNums"], q["perm"]) for q in data.get("queueDatas", [])}

    def close(self) -> None:
        procs = [p for p in [self._admin, self._namesrv, *(b.proc for b in self.brokers.values())] if p]
        for proc in procs:
            _kill_group(proc)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _forget(proc)
        self._admin = self._namesrv = None
        for broker in self.brokers.values():
            broker.proc = None


def start_cluster(home: Path, brokers: tuple[str, ...]) -> Cluster:
    cluster = Cluster(home)
    try:
        cluster.start_namesrv()
        for name in brokers:  # in parallel: each registers with the name server that is up already
            cluster.spawn_broker(name)
        for name in brokers:
            cluster.wait_broker(name)
    except BaseException:
        cluster.close()
        raise
    return cluster


class PidNamespace:
    """A pid namespace that consumers join (`Consumer(pid_namespace=...)`), for a test whose processes restart:
    Linux hands out a host's pids in increasing order, which is what rmqplan assumes of a restarted process (a pid
    after the largest of its group), but the machine's own pids wrap at pid_max and cross from 4 to 5 digits, and
    a client id is ordered as text. Here pids start after 1,000 (the namespace's first process spends them), so the
    test's processes get 4-digit pids in the order they start."""

    def __init__(self, cluster: Cluster):
        script = "i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done; echo up; exec sleep 100000"
        self._proc = _spawn(["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", script],
                            cwd=cluster.home, env=cluster.env(), stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        if self._proc.stdout.readline() != "up\n":
            raise RuntimeError("the pid namespace did not start")
        children = Path(f"/proc/{self._proc.pid}/task/{self._proc.pid}/children").read_text().split()
        self.init = int(children[0])  # the namespace's pid 1, as the host sees it

    def enter(self) -> list[str]:
        """The argv prefix that runs a command in the namespace (nsenter forks, so the command is a member)."""
        return ["nsenter", f"--target={self.init}", "--pid", "--"]

    def close(self) -> None:
        _kill_group(self._proc)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        _forget(self._proc)


class Consumer:
    """One consumer process (tests/cluster/driver/RmqDriver.java) on a given client release. `pid_namespace`:
    True runs it as pid 1 of a namespace of its own (a container's entrypoint); a `PidNamespace` runs it there."""

    def __init__(self, cluster: Cluster, *, group: str, subscriptions: dict[str, str], client: str = "4.9.8",
                 model: str = "CLUSTERING", strategy: str = "AVG", pid_namespace=False,
                 start: bool = True, **settings):
        self.client = client
        self.group = group
        self.client_id: Optional[str] = None
        args = [f"namesrv={cluster.namesrv}", f"group={group}", f"model={model}", f"strategy={strategy}",
                f"poll_ms={POLL_MS}", *(f"sub={t}:{e}" for t, e in subscriptions.items()),
                *(f"{k}={v}" for k, v in settings.items() if v is not None)]
        home = Path(tempfile.mkdtemp(prefix="consumer-", dir=cluster.home))
        java = ["java", "-Xms32m", "-Xmx96m", *JVM_SMALL, *OPENS, f"-Duser.home={home}",
                f"-Drocketmq.client.logRoot={home}/logs", "-Drocketmq.client.logLevel=WARN",
                f"-Drocketmq.client.rebalance.waitInterval={REBALANCE_MS}",
                "-cp", driver_classpath(client), "RmqDriver", *args]
        if isinstance(pid_namespace, PidNamespace):
            argv = [*pid_namespace.enter(), *java]
        else:
            argv = ["unshare", "--pid", "--fork", "--mount-proc", *java] if pid_namespace else java
        self._proc = _spawn(argv, cwd=home, env=cluster.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=open(home / "stderr.txt", "wb"), text=True)
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._waiting = ["ready"]
        if start:
            self._proc.stdin.write("start\n")
            self._proc.stdin.flush()
            self._waiting.append("started")

    def started(self) -> str:
        """Waits for the process to be up (and its consumer started, if it was asked to): its client id."""
        answer = self._drain()
        if answer is not None and answer["event"] == "start_failed":
            raise RuntimeError(f"consumer of {self.group} did not start: {answer['error']}")
        assert self.client_id is not None, "not started"
        return self.client_id

    def _drain(self) -> Optional[dict]:
        answer = None
        while self._waiting:
            answer = self._expect(self._waiting.pop(0), "start_failed", timeout=180)
            if answer["event"] == "started":
                self.client_id = answer["client_id"]
        return answer

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            if line.startswith("{"):
                self._lines.put(json.loads(line))
        self._lines.put(None)

    def _expect(self, *events: str, timeout: float) -> dict:
        try:
            answer = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"consumer {self.client_id or self.group}: no answer in {timeout:.0f} s") from None
        if answer is None:
            raise RuntimeError(f"consumer {self.client_id or self.group} exited ({self._proc.wait()})")
        if answer["event"] not in events:
            raise RuntimeError(f"consumer {self.client_id or self.group}: expected {events}, got {answer}")
        return answer

    def send(self, command: str, *events: str, timeout: float = 30) -> dict:
        self._drain()
        assert self._proc.stdin is not None
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        return self._expect(*events, timeout=timeout)

    def start(self) -> dict:
        """Starts a consumer made with start=False; the answer says `started` or `start_failed` and why."""
        answer = self.send("start", "started", "start_failed", timeout=60)
        if answer["event"] == "started":
            self.client_id = answer["client_id"]
        return answer

    def stable(self, rounds: int = 3, timeout: float = 60) -> dict:
        """The queues held once the process queue table stayed the same for `rounds` rebalance rounds."""
        answer = self.send(f"stable {rounds} {int(timeout * 1000)}", "stable", "timeout", timeout=timeout + 30)
        if answer["event"] != "stable":
            raise RuntimeError(f"consumer {self.client_id}: no stable allocation in {timeout:.0f} s: {answer}")
        return answer

    def config(self, queues: list[tuple[str, str, int]]) -> None:
        self.send("config " + ",".join(f"{t}/{b}:{q}" for t, b, q in queues), "configured")

    def stop(self) -> None:
        """A clean shutdown: the client unregisters from the brokers, so the others rebalance at once."""
        if self._proc.poll() is None:
            try:
                self.send("stop", "stopped", timeout=60)
            except RuntimeError:
                pass
        self.close()

    def close(self) -> None:
        _kill_group(self._proc)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        _forget(self._proc)


class Program(Consumer):
    """A program of tests/cluster/programs (`main`, a class of `directory`, compiled with its other sources and
    programs/Watch.java against `client`): user code with a rule's mistake, run against the cluster. It takes
    the name server from `-Drocketmq.namesrv.addr`, as the client does when the code sets none, and answers
    Watch's commands; what it prints before it serves (a start that failed, a send) is in `seen`."""

    def __init__(self, cluster: Cluster, directory: Path, main: str, client: str = "4.9.8"):
        self.client, self.group, self.client_id = client, main, None
        sources = sorted(directory.glob("*.java"))
        first = next(f for f in sources if f.stem == main)
        classes = compiled(first, f"client-{client}", *(f for f in sources if f != first), PROGRAMS / "Watch.java")
        home = Path(tempfile.mkdtemp(prefix=f"{main}-", dir=cluster.home))
        java = ["java", "-Xms32m", "-Xmx96m", *JVM_SMALL, *OPENS, f"-Duser.home={home}",
                f"-Drocketmq.client.logRoot={home}/logs", "-Drocketmq.client.logLevel=WARN",
                f"-Drocketmq.client.rebalance.waitInterval={REBALANCE_MS}",
                f"-Drocketmq.namesrv.addr={cluster.namesrv}", "-cp", f"{classes}:{classpath(f'client-{client}')}",
                main]
        self._proc = _spawn(java, cwd=home, env=cluster.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=open(home / "stderr.txt", "wb"), text=True)
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._waiting: list[str] = []
        self.seen: list[dict] = []

    def until(self, event: str, timeout: float = 180) -> dict:
        """The next events up to the first `event` (kept in `seen`), that one returned; an exit first raises."""
        while True:
            try:
                answer = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise RuntimeError(f"{self.group}: no {event} in {timeout:.0f} s; saw {self.seen}") from None
            if answer is None:
                raise RuntimeError(f"{self.group} exited ({self._proc.wait()}) before {event}; saw {self.seen}")
            self.seen.append(answer)
            if answer["event"] == event:
                return answer

    def started(self) -> str:
        if self.client_id is None:
            self.client_id = self.until("started")["client_id"]
        return self.client_id

    def stop(self) -> None:
        if self._proc.poll() is None and self.client_id is not None:
            try:
                self.send("stop", "stopped", timeout=60)
            except RuntimeError:
                pass
        self.close()


def stable_all(consumers: list[Consumer], rounds: int = 3, timeout: float = 180,
               route: Optional[tuple[str, str, int]] = None) -> list[dict]:
    """Every consumer's queues once the group as a whole is stable: each consumer waits for its own table to stay
    the same for `rounds` rounds (all at once, each in its own process), and the whole is asked again until two
    answers in a row agree, so that no consumer's late change is missed. `route` (topic, broker, perm): each
    consumer first waits until its own route of the topic gives that broker that permission (a change made with
    mqadmin has reached it), and counts its rounds from then."""
    last = None
    for c in consumers:
        c.started()
    deadline = time.monotonic() + timeout
    after = f" perm {route[0]} {route[1]} {route[2]}" if route is not None else ""
    while True:
        for c in consumers:
            assert c._proc.stdin is not None
            c._proc.stdin.write(f"stable {rounds} {int(timeout * 1000)}{after}\n")
            c._proc.stdin.flush()
        answers = []
        for c in consumers:
            answer = c._expect("stable", "timeout", timeout=timeout + 30)
            if answer["event"] != "stable":
                raise RuntimeError(f"consumer {c.client_id}: no stable allocation in {timeout:.0f} s: {answer}")
            answers.append(answer)
        now = [(a["client_id"], a["queues"]) for a in answers]
        if now == last:
            return answers
        if time.monotonic() > deadline:
            raise RuntimeError(f"the consumers' allocation kept changing for {timeout:.0f} s")
        last = now


def status_queues(text: str) -> list[list]:
    """The queues in the `#Consumer MQ Detail#` table of `mqadmin consumerStatus -g G -i CLIENT_ID`: the
    client's own process queue table, as it reports it to the broker."""
    lines = text.splitlines()
    start = lines.index("#Consumer MQ Detail#") + 2  # then the column header
    out = []
    for line in lines[start:]:
        if not line.strip():
            break
        topic, broker, qid = line.split()[:3]
        out.append([topic, broker, int(qid)])
    return sorted(out)


def connection_ids(text: str) -> list[str]:
    """The client ids `mqadmin consumerConnection -g G` lists, in its order."""
    out = []
    for line in text.splitlines():
        if line.startswith("#ClientId"):
            continue
        if not line.strip() or line.startswith("Below is subscription"):
            if out:
                break
            continue
        out.append(line.split()[0])
    return out
