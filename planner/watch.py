"""`rmqplan watch --namesrv ADDR`: `rmqplan status` as a service beside Prometheus.

One read loop (a thread) reads the cluster as `status` does (`rmqplan.status.report_of`, with each group's
dead-letter topic) every `--interval` seconds: the next read starts `--interval` after the last one started, or
when it ends if it took longer, so a slow read never stacks reads up. Each good read replaces the one state
(`rmqplan.watch_state.WatchState`), which decides what changed: one line per change on standard output. A read
that fails (a name server or broker down, a timeout, an ACL refusal: one line) keeps the last good read, marked
stale, logs one line per fault (not per read) and one when reads succeed again; the connections are opened anew.

The verdicts of the brokers' offsets (`rmqplan.status_report.judge`) compare a read with one at least
`JUDGE_AFTER` seconds before it (the clients commit their offsets every 5 s): two reads' progress are kept.

Served over HTTP by the standard library's WSGI server, threaded as the Prometheus client library serves:
- `/metrics`: the Prometheus text format, by the client library (`rmqplan.watch_metrics`);
- `/`: the report page of `status --html`, with what changed on top; the `Refresh` header reloads it every
  interval;
- `/healthz`: 200 while the service runs (a liveness probe: a cluster that cannot be read is not a reason to
  restart the service; `rmqplan_watch_last_read_success` says it).
It binds to 127.0.0.1 unless `--listen HOST:PORT` says otherwise, and says where it serves. SIGTERM or Ctrl-C stop
it at once: one line, exit 0.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Optional, TextIO

from rmqplan.model.fleet_size import MAX_ENTRIES

EXIT_OK, EXIT_USAGE = 0, 2
DEFAULT_LISTEN = "127.0.0.1:5558"  # beside rocketmq-exporter's 5557
DEFAULT_INTERVAL = 15.0
JUDGE_AFTER = 6.0  # seconds between two reads whose offsets are compared: longer than the clients' 5 s commit


@dataclass
class WatchOptions:
    namesrv: str
    listen: str = DEFAULT_LISTEN
    interval: float = DEFAULT_INTERVAL
    strategies: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    timeout: float = 3.0
    acl_file: Optional[str] = None
    deadline: float = 60.0
    max_entries: int = MAX_ENTRIES  # what the connected groups' fleet may hold (rmqplan.model.fleet_size)


def _stamp(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6; port 0: any free port, said at the start). Raises ValueError with one
    line."""
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT, e.g. {DEFAULT_LISTEN} or 0.0.0.0:5558")
    return host, int(port)


class Watcher:
    """The read loop: one `LiveCluster`, the state, and the two reads' progress the verdicts compare."""

    def __init__(self, options: WatchOptions, state, metrics, out: TextIO, err: TextIO, keys=None, told=None):
        from rmqplan.sources.live import LiveCluster

        self.options, self.state, self.metrics, self.out, self.err = options, state, metrics, out, err
        self.told = told or {}
        self.live = LiveCluster(options.namesrv, options.timeout, keys, deadline=options.deadline)
        self.failures = 0  # reads failed in a row
        self._reference = None  # (when, progress): the read the next verdicts compare with
        self._candidate = None  # (when, progress): the next reference, once it is JUDGE_AFTER old
        self._quiet = False  # standard output failed: changes are no longer written

    def _earlier(self, at: float, progress: dict):
        if self._candidate is None:
            self._candidate = (at, progress)
        elif at - self._candidate[0] >= JUDGE_AFTER:
            self._reference, self._candidate = self._candidate, (at, progress)
        if self._reference is None:
            return None, 0.0
        return self._reference[1], round(at - self._reference[0], 1)

    def read(self) -> None:
        """One read of the cluster, its changes written; a failure is one line when it is new."""
        from rmqplan.sources.live import LiveClusterError
        from rmqplan.status import ModelError, report_of
        from rmqlint.printable import printable

        started = time.monotonic()
        only = self.options.groups or None
        try:
            snapshot = self.live.snapshot(groups=only, dead_letters=True)
            at = time.time()
            earlier, interval = self._earlier(at, snapshot.progress)
            report = report_of(snapshot, self.told, only, interval=interval, earlier=earlier,
                               max_entries=self.options.max_entries)
        except (LiveClusterError, ModelError) as e:
            self._failed(printable(str(e)), started)
            return
        except Exception as e:  # noqa: BLE001 - a service keeps serving: one line, and the next read tries again
            self._failed(printable(f"unexpected {type(e).__name__}: {e}"), started)
            return
        self.metrics.read_seconds.observe(time.monotonic() - started)
        self.metrics.reads.labels("ok").inc()
        found = self.state.succeeded(report, at)
        if self.failures:
            self._log(f"{_stamp(at)} rmqplan watch: reading again after {self.failures} failed "
                      f"read{'s' if self.failures != 1 else ''}")
            self.failures = 0
        self.metrics.changes.inc(len(found))
        self._write("".join(c.line() + "\n" for c in found))

    def _failed(self, fault: str, started: float) -> None:
        self.live.close()  # the next read connects anew: a broker that came back is on a new connection
        self.metrics.read_seconds.observe(time.monotonic() - started)
        self.metrics.reads.labels("failed").inc()
        self.failures += 1
        at = time.time()
        if self.state.failed(fault, at):
            self._log(f"{_stamp(at)} rmqplan watch: read failed: {fault} (serving the last good read, marked "
                      "stale)")

    def _write(self, text: str) -> None:
        if not text or self._quiet:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except Exception as e:  # noqa: BLE001 - stdout closed (rmqlint.output.OutputFailed) or broken
            self._quiet = True
            self._log(f"rmqplan watch: cannot write the changes to standard output ({e}): serving on")

    def _log(self, line: str) -> None:
        try:
            self.err.write(line + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def loop(self, stop: threading.Event) -> None:
        while not stop.is_set():
            started = time.monotonic()
            self.read()
            stop.wait(max(0.0, started + self.options.interval - time.monotonic()))
        self.live.close()


def make_app(state, metrics, refresh: float):
    """The WSGI application: `/metrics`, `/` and `/healthz`."""
    from prometheus_client import make_wsgi_app

    metrics_app = make_wsgi_app(metrics.registry)

    def app(environ, start_response):
        path = environ.get("PATH_INFO", "/")
        if path == "/metrics":
            return metrics_app(environ, start_response)
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if path in ("/", "/index.html"):
            body = state.page().encode("utf-8")
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                      ("Refresh", str(max(1, round(refresh)))),
                                      ("Content-Length", str(len(body)))])
            return [body]
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found: /, /metrics or /healthz\n"]
    return app


def serve(host: str, port: int, app):
    """The threaded WSGI server of the Prometheus client library, quiet, on `host:port` (IPv6 when the host is)."""
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client.exposition import ThreadingWSGIServer

    class Quiet(WSGIRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the standard library's name
            pass

    class Server(ThreadingWSGIServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    return make_server(host, port, app, Server, handler_class=Quiet)


def watch_command(options: WatchOptions, out: TextIO, err: TextIO) -> int:
    from rmqplan.sources.from_cluster import StrategyOptionError, parse_strategy_option
    from rmqplan.sources.live import LiveClusterError, parse_namesrv
    from rmqplan.sources.remoting.acl import CredentialsError
    from rmqplan.status import credentials
    from rmqplan.watch_metrics import WatchMetrics
    from rmqplan.watch_state import WatchState
    from rmqlint.interrupts import Terminated
    from rmqlint.printable import printable

    if options.interval <= 0 or options.timeout <= 0 or options.deadline <= 0:
        err.write("rmqplan: error: --interval, --timeout and --deadline must be more than 0\n")
        return EXIT_USAGE
    try:
        host, port = parse_listen(options.listen)
        parse_namesrv(options.namesrv)
        told = parse_strategy_option(options.strategies)
        keys = credentials(options.acl_file, err)
    except (ValueError, StrategyOptionError, LiveClusterError, CredentialsError) as e:
        err.write(f"rmqplan: {printable(str(e))}\n")
        return EXIT_USAGE
    state = WatchState(f"the name server{'s' if ';' in options.namesrv else ''} {options.namesrv}", options.interval)
    metrics = WatchMetrics(state)
    try:
        server = serve(host, port, make_app(state, metrics, options.interval))
    except OSError as e:
        err.write(f"rmqplan: --listen {printable(options.listen)}: cannot serve there: {e.strerror or e}\n")
        return EXIT_USAGE
    port = server.server_port
    shown = f"[{host}]" if ":" in host else host
    where = (f"on {host} only (--listen 0.0.0.0:{port} serves other hosts)" if host in ("127.0.0.1", "localhost", "::1")
             else f"on {host}")
    err.write(f"rmqplan watch: serving http://{shown}:{port}/ (the report page), /metrics and /healthz "
              f"{where}; reading {printable(options.namesrv)} every {options.interval:g} s\n")
    err.flush()
    watcher = Watcher(options, state, metrics, out, err, keys, told)
    stop = threading.Event()
    reader = threading.Thread(target=watcher.loop, args=(stop,), name="rmqplan-watch-reads", daemon=True)
    reader.start()
    try:
        server.serve_forever(poll_interval=0.25)
    except (KeyboardInterrupt, Terminated) as e:
        err.write(f"rmqplan watch: stopped ({'SIGTERM' if isinstance(e, Terminated) else 'interrupted'})\n")
    finally:
        stop.set()
        server.server_close()
    # The read held (a large cluster's is hundreds of MB of objects) is left to the exit: the collector's last pass
    # over it took longer than the second a stop may take.
    import gc

    gc.freeze()
    return EXIT_OK
