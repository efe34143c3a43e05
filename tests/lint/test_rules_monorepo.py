"""Acceptance for RMQ004-RMQ011: on a monorepo with Java services sharing constants, a Spring Boot app with its
configuration and Python 2.x and 5.x services (tests/lint/fixtures/rules-monorepo), `rmqlint` reports every planted
case of the eight rules and nothing else, its test sources stay quiet, and the fixes a developer would make leave
the tree clean."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.lint.test_acceptance import json_findings, line_of, run_rmqlint

MONOREPO = Path(__file__).resolve().parent / "fixtures" / "rules-monorepo"
BILLING = "billing-service/src/main/java/com/globex/billing"
LEDGER = "ledger-app/src/main/java/com/globex/ledger"
YAML = "ledger-app/src/main/resources/application.yml"
NOTIFIER = "python/notifier/notifier/consumer.py"
GATEWAY = "python/gateway/gateway/events.py"

# (code, severity, path, text on the reported line)
FINDINGS = [
    ("RMQ004", "error", f"{BILLING}/BillingConsumer.java", "new DefaultMQPushConsumer(Mq.BILLING_GROUP)"),
    ("RMQ005", "error", f"{BILLING}/BillingConsumer.java", "setConsumeThreadMin(Mq.BILLING_THREADS)"),
    ("RMQ005", "warning", f"{LEDGER}/ReversalListener.java", "consumeThreadMax = 32"),
    ("RMQ006", "warning", f"{LEDGER}/PostingListener.java", "consumeMode = ConsumeMode.ORDERLY"),
    ("RMQ006", "warning", NOTIFIER, 'PushConsumer("notifier_cg", orderly=True)'),
    ("RMQ007", "warning", f"{BILLING}/BillingConsumer.java", "return ConsumeConcurrentlyStatus.RECONSUME_LATER"),
    ("RMQ007", "info", f"{BILLING}/BillingConsumer.java", "setPullBatchSize(64)"),
    ("RMQ008", "error", f"{BILLING}/BillingConsumer.java", "setNamesrvAddr(Mq.NAMESRV)"),
    ("RMQ008", "error", YAML, "name-server:"),
    ("RMQ008", "error", GATEWAY, "ClientConfiguration(ENDPOINTS"),
    ("RMQ009", "error", f"{LEDGER}/PostingListener.java", '"ledger.posting"'),
    ("RMQ009", "error", GATEWAY, '"gateway.events"'),
    ("RMQ010", "error", f"{LEDGER}/ReversalListener.java", "selectorExpression"),
    ("RMQ010", "error", NOTIFIER, 'msg.set_tags("Sent||Delivered")'),
    ("RMQ011", "error", f"{BILLING}/Acl.java", '"q8ZrT2vXk7Lm4Pw9"'),
    ("RMQ011", "error", YAML, "secret-key: Zx81kQm3LrV0aWe7"),
    ("RMQ011", "error", NOTIFIER, "set_session_credentials"),
]

FIXES = [
    (f"{BILLING}/Acl.java", '"q8ZrT2vXk7Lm4Pw9"', 'System.getenv("BILLING_MQ_SK")'),
    (f"{BILLING}/AuditTrail.java", "new DefaultMQPushConsumer(Mq.BILLING_GROUP)",
     'new DefaultMQPushConsumer("billing_audit_cg")'),
    ("common/src/main/java/com/globex/common/Mq.java", '"10.20.0.11:9876,10.20.0.12:9876"',
     '"10.20.0.11:9876;10.20.0.12:9876"'),
    (f"{BILLING}/BillingConsumer.java", "consumer.setConsumeThreadMin(Mq.BILLING_THREADS);\n",
     "consumer.setConsumeThreadMin(Mq.BILLING_THREADS);\n        consumer.setConsumeThreadMax(Mq.BILLING_THREADS);\n"),
    (f"{BILLING}/BillingConsumer.java", "setConsumeMessageBatchMaxSize(16)", "setConsumeMessageBatchMaxSize(1)"),
    (f"{BILLING}/BillingConsumer.java", "setPullBatchSize(64)", "setPullBatchSize(32)"),
    (f"{LEDGER}/PostingListener.java", 'consumerGroup = "ledger.posting",',
     'consumerGroup = "ledger_posting", maxReconsumeTimes = 16,'),
    (f"{LEDGER}/ReversalListener.java", "consumeThreadNumber = 8", "consumeThreadNumber = 32"),
    (YAML, "name-server: 10.20.0.11:9876 10.20.0.12:9876", "name-server: 10.20.0.11:9876;10.20.0.12:9876"),
    (YAML, "tags: Posted;Reversed", "tags: Posted || Reversed"),
    (YAML, "secret-key: Zx81kQm3LrV0aWe7", "secret-key: ${LEDGER_CONSUMER_SK}"),
    (GATEWAY, '"10.20.0.31:8081,10.20.0.32:8081"', '"10.20.0.31:8081;10.20.0.32:8081"'),
    (GATEWAY, '"gateway.events"', '"gateway_events"'),
    (NOTIFIER, '"LTAI5tGlobexNotify", "b7Hn2Qx9Lk4Mz1Rv"', 'os.environ["MQ_AK"], os.environ["MQ_SK"]'),
    (NOTIFIER, "from rocketmq.client", "import os\n\nfrom rocketmq.client"),
    (NOTIFIER, "    print(msg.id, msg.tags)\n",
     "    if msg.reconsume_times > 16:\n        return ConsumeStatus.CONSUME_SUCCESS\n    print(msg.id, msg.tags)\n"),
    (NOTIFIER, 'msg.set_tags("Sent||Delivered")', 'msg.set_tags("Sent")'),
]


@pytest.fixture()
def monorepo(tmp_path: Path) -> Path:
    target = tmp_path / "globex"  # outside this repository, whose settings exclude tests/
    shutil.copytree(MONOREPO, target)
    return target


def test_every_planted_case_and_nothing_else(monorepo):
    result = run_rmqlint(monorepo, ".", "--format", "json", "--no-cache")
    assert result.returncode == 1, result.stdout + result.stderr
    got = sorted((f["code"], f["severity"], f["path"], f["line"]) for f in json_findings(result))
    want = sorted((code, severity, path, line_of(monorepo / path, text)) for code, severity, path, text in FINDINGS)
    assert got == want


def test_secrets_never_appear_in_any_format(monorepo):
    for fmt in ("text", "json", "sarif", "github"):
        out = run_rmqlint(monorepo, ".", "--format", fmt, "--no-cache").stdout
        for secret in ("q8ZrT2vXk7Lm4Pw9", "Zx81kQm3LrV0aWe7", "b7Hn2Qx9Lk4Mz1Rv"):
            assert secret not in out and secret[2:] not in out, fmt


def test_test_sources_are_linted_fully_on_request(monorepo):
    (monorepo / ".rmqlint.toml").write_text('tests = "lint"\n')
    result = run_rmqlint(monorepo, ".", "--format", "json", "--no-cache")
    test_file = f"{BILLING.replace('main', 'test')}/BillingConsumerTest.java"
    in_test = sorted(f["code"] for f in json_findings(result) if f["path"] == test_file)
    # another topic for the production group, a comma-separated name server list, a minimum above 20, a
    # subscription separated by a comma
    assert in_test == ["RMQ004", "RMQ005", "RMQ008", "RMQ010"]


def test_the_fixed_tree_is_clean(monorepo):
    for rel, old, new in FIXES:
        path = monorepo / rel
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, (rel, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = run_rmqlint(monorepo, ".", "--format", "json", "--no-cache")
    assert json_findings(result) == [] and result.returncode == 0, result.stdout
