"""Consumer processes of the Go client for the live tests: tests/cluster/go/main.go, a rocketmq-client-go v2.1.2 push
consumer that answers the commands the Java driver answers (`tests.cluster.rocketmq.Consumer`), built with the
machine's `go` command into the cache on first use (the module comes from the Go module proxy; `make install-test`
fetches it)."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Optional

from tests.cluster.rocketmq import CACHE, REBALANCE_MS, Cluster, Consumer, PidNamespace, _spawn

SOURCE = Path(__file__).resolve().parent / "go"
BINARY = CACHE / "go-driver" / "driver"
_built: Optional[Path] = None


def go_unavailable() -> Optional[str]:
    """Why the Go consumers cannot run here, in one line; None when they can."""
    if shutil.which("go") is None:
        return "no `go` on PATH (the Go consumers of the live tests are built with it)"
    return None


def driver() -> Path:
    """The built driver (built once per session)."""
    global _built
    if _built is None:
        BINARY.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["go", "build", "-o", str(BINARY), "."], cwd=SOURCE, capture_output=True, text=True,
                              env={**os.environ, "GOFLAGS": "-mod=mod -buildvcs=false"}, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"go build of {SOURCE} failed:\n{done.stderr[-3000:]}")
        _built = BINARY
    return _built


class GoConsumer(Consumer):
    """One Go consumer process. `pid_namespace`: True runs it as pid 1 of a namespace of its own (a container's
    entrypoint); a `PidNamespace` runs it there. Settings: strategy, vnodes, idcs, instance, unit."""

    def __init__(self, cluster: Cluster, *, group: str, subscriptions: dict[str, str], pid_namespace=False,
                 start: bool = True, **settings):
        self.client, self.group, self.client_id = "go", group, None
        args = [f"namesrv={cluster.namesrv}", f"group={group}", f"rebalance_ms={REBALANCE_MS}",
                *(f"sub={t}:{e}" for t, e in subscriptions.items()),
                *(f"{k}={v}" for k, v in settings.items() if v is not None)]
        home = Path(tempfile.mkdtemp(prefix="go-consumer-", dir=cluster.home))
        command = [str(driver()), *args]
        if isinstance(pid_namespace, PidNamespace):
            argv = [*pid_namespace.enter(), *command]
        else:
            argv = ["unshare", "--pid", "--fork", "--mount-proc", *command] if pid_namespace else command
        self._proc = _spawn(argv, cwd=home, env={**cluster.env(), "HOME": str(home)}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=open(home / "stderr.txt", "wb"), text=True)
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._waiting = ["ready"]
        if start:
            self._proc.stdin.write("start\n")
            self._proc.stdin.flush()
            self._waiting.append("started")
