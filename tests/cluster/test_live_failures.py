"""When the live cluster cannot be read, rmqplan says so in one line and exits 2 (docs/status.md, "When it cannot
read the cluster"): a name server that is down, a broker that does not answer, a broker with access control and
no keys or wrong ones. With the right keys, the same broker answers.

A cluster of its own (a name server and a broker on 127.0.0.1), so that freezing its broker does not touch the
session's: `acl-broker` checks signatures (RocketMQ 5.3's authentication, its users taken over from an ACL 1.0
plain_acl.yml: migrateAuthFromV1Enabled); frozen (SIGSTOP), it plays a broker that does not answer.
"""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from tests.cluster import rocketmq
from tests.cluster.fleets import rmqplan

pytestmark = pytest.mark.cluster

READER, READER_SECRET = "rmqplan-reader", "reader-secret-1234"
PLAIN_ACL = f"""globalWhiteRemoteAddresses: []
accounts:
  - accessKey: {READER}
    secretKey: {READER_SECRET}
    admin: false
  - accessKey: broker-admin
    secretKey: admin-secret-5678
    admin: true
"""
AUTHENTICATION = {
    "authenticationEnabled": "true",
    "authenticationProvider": "org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider",
    "authenticationMetadataProvider":
        "org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider",
    "migrateAuthFromV1Enabled": "true",  # the users of ${ROCKETMQ_HOME}/conf/plain_acl.yml
    "innerClientAuthenticationCredentials": '{"accessKey":"broker-admin","secretKey":"admin-secret-5678"}',
}


@pytest.fixture(scope="module")
def guarded(rocketmq_home, tmp_path_factory):
    home = tmp_path_factory.mktemp("guarded")
    (home / "conf").mkdir()
    (home / "conf" / "plain_acl.yml").write_text(PLAIN_ACL)
    cluster = rocketmq.Cluster(home)
    try:
        cluster.start_namesrv()
        cluster.start_broker("acl-broker", **AUTHENTICATION)
        _registered(cluster.namesrv, "acl-broker")
        yield cluster
    finally:
        cluster.close()


def _registered(namesrv: str, broker: str, timeout: float = 60) -> None:
    """Waits until the name server lists the broker (it registers after it says it booted)."""
    from rmqplan.sources.origin import Origin
    from rmqplan.sources.remoting import bodies, codes
    from rmqplan.sources.remoting.client import RemotingClient

    deadline = time.monotonic() + timeout
    with RemotingClient() as client:
        while True:
            answer = client.request(namesrv, codes.GET_BROKER_CLUSTER_INFO)
            if broker in {b.name for b in bodies.cluster_brokers(answer.body, Origin(namesrv))}:
                return
            assert time.monotonic() < deadline, f"{broker} not registered with {namesrv} in {timeout:.0f} s"
            time.sleep(0.2)


@pytest.fixture
def keys(tmp_path):
    key = tmp_path / "key"
    key.write_text(f"AccessKey={READER}\nSecretKey={READER_SECRET}\n")
    key.chmod(0o600)  # private, as a key file should be: a key file others may read is warned of
    return key


def _one_line(done) -> str:
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def test_right_keys_read_the_guarded_broker_and_wrong_or_no_keys_do_not(guarded, keys, monkeypatch):
    acl = guarded.brokers["acl-broker"].address
    done = rmqplan("status", "--namesrv", guarded.namesrv, "--interval", "0", "--acl-file", keys, ok=(0,))
    assert "no consumer group is connected now (1 broker asked)" in done.stdout
    err = _one_line(rmqplan("status", "--namesrv", guarded.namesrv, "--interval", "0", ok=(2,)))
    assert f"broker acl-broker ({acl}): GET_BROKER_CONFIG: NO_PERMISSION: username cannot be null" in err
    monkeypatch.setenv("RMQPLAN_ACCESS_KEY", READER)
    monkeypatch.setenv("RMQPLAN_SECRET_KEY", "not-the-secret")
    err = _one_line(rmqplan("fleet", "--namesrv", guarded.namesrv, ok=(2,)))
    assert f"broker acl-broker ({acl}): GET_BROKER_CONFIG: NO_PERMISSION: check signature failed" in err
    assert "not-the-secret" not in err


def test_a_name_server_that_is_down_and_one_that_answers(guarded, keys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        down = f"127.0.0.1:{s.getsockname()[1]}"
    err = _one_line(rmqplan("status", "--namesrv", down, ok=(2,)))
    assert err == f"rmqplan: name server {down}: connection refused (GET_BROKER_CLUSTER_INFO)\n"
    done = rmqplan("status", "--namesrv", f"{down};{guarded.namesrv}", "--interval", "0", "--acl-file", keys,
                   ok=(0,))
    assert "no consumer group is connected now (1 broker asked)" in done.stdout


def test_a_broker_that_does_not_answer(guarded, keys, tmp_path):
    lost = guarded.brokers["acl-broker"]
    out = tmp_path / "fleet.toml"
    os.kill(lost.proc.pid, signal.SIGSTOP)
    try:
        for args in (["status", "--interval", "0"], ["fleet", "-o", out]):
            err = _one_line(rmqplan(*args, "--namesrv", guarded.namesrv, "--acl-file", keys, "--timeout", "1",
                                    ok=(2,)))
            assert f"broker acl-broker ({lost.address}): GET_BROKER_CONFIG: no answer within 1 s" in err
        assert not out.exists()
    finally:
        os.kill(lost.proc.pid, signal.SIGCONT)
