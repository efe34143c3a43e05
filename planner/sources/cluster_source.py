"""Where `rmqplan fleet` and `rmqplan check` read the cluster: saved mqadmin outputs (`--cluster DIR`,
`rmqplan.sources.mqadmin`) or the live cluster (`--namesrv ADDR`, `rmqplan.sources.live`). Both give a
`ClusterSnapshot`; a live cluster that cannot be read is a `ClusterSourceError` (one line, exit 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from rmqplan.sources.cluster import ClusterSnapshot


class ClusterSourceError(Exception):
    """The cluster cannot be read: one line, without any secret."""


@dataclass(frozen=True)
class ClusterSource:
    directory: Optional[str] = None  # --cluster DIR
    namesrv: Optional[str] = None  # --namesrv ADDR
    timeout: float = 3.0
    acl_file: Optional[str] = None  # keys to sign with (else the environment's, when set)
    deadline: Optional[float] = 60.0  # seconds the whole read may take (--deadline)
    warn: Optional[Callable[[str], None]] = field(default=None, compare=False)  # one line: a key file others read

    def given(self) -> bool:
        return self.directory is not None or self.namesrv is not None

    def describe(self) -> str:
        if self.namesrv is not None:
            return f"the live cluster of {self.namesrv}"
        return f"the cluster outputs in {self.directory}"

    def read(self, groups: Optional[Iterable[str]] = None, topics: Iterable[str] = ()) -> ClusterSnapshot:
        """The snapshot: the whole directory, or, live, the connections of `groups` (every group the brokers
        know when None), the routes of their topics and of `topics`, and their consume progress."""
        if self.namesrv is None:
            from rmqplan.sources.mqadmin import read_cluster_dir

            snapshot = read_cluster_dir(self.directory)
            snapshot.source = f"the mqadmin outputs in {self.directory}"
            return snapshot
        from rmqplan.sources.live import LiveCluster, LiveClusterError
        from rmqplan.sources.remoting.acl import CredentialsError, from_environment, from_file

        try:
            keys = from_file(self.acl_file, self.warn) if self.acl_file else from_environment()
            with LiveCluster(self.namesrv, self.timeout, keys, deadline=self.deadline) as live:
                return live.snapshot(groups=groups, topics=topics)
        except (CredentialsError, LiveClusterError) as e:
            raise ClusterSourceError(str(e)) from None
