"""Acceptance: the `rmqlint` command on a realistic monorepo (Java services sharing constants, a Spring Boot app,
Python 2.x and 5.x services) reports exactly the RMQ001-RMQ003 cases it holds and nothing else; once they are
fixed, the same tree is clean. Also the bundled examples/ give the findings their READMEs promise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MONOREPO = Path(__file__).resolve().parent / "fixtures" / "monorepo"
EXAMPLES = REPO / "examples"


def line_of(path: Path, needle: str) -> int:
    """The one line of `path` containing `needle` (the expectations below name code, not bare numbers)."""
    lines = [n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if needle in text]
    assert len(lines) == 1, f"{needle!r} occurs {len(lines)} times in {path}"
    return lines[0]


ORDER = "order-service/src/main/java/com/acme/order"
INVENTORY = "inventory-service/src/main/java/com/acme/inventory"
NOTIFY = "notification-app/src/main/java/com/acme/notify"
YAML = "notification-app/src/main/resources/application.yml"
BILLING = "python/legacy-billing/billing"

# (code, path, text on the reported line)
MONOREPO_FINDINGS = [
    # RMQ001: fixed names on clustering consumers, through a constant, a literal, Spring config and a placeholder
    ("RMQ001", f"{INVENTORY}/OrderConsumer.java", "consumer.setInstanceName(InventoryMq.INSTANCE_NAME);"),
    ("RMQ001", f"{INVENTORY}/StockSync.java", 'pull.setInstanceName("stock-puller");'),
    ("RMQ001", YAML, "instance-name: notification-puller"),
    ("RMQ001", f"{NOTIFY}/OrderPaidListener.java", 'instanceName = "${acme.notify.instance}"'),
    ("RMQ001", f"{BILLING}/consumer.py", 'consumer.set_instance_name("billing-worker")'),
    # RMQ002: case and trailing-space drift, across services and languages
    ("RMQ002", f"{ORDER}/RefundConsumer.java", 'subscribe(Topics.ORDER, "RefundIssued")'),
    ("RMQ002", f"{INVENTORY}/OrderConsumer.java", '" || OrderCancelled"'),
    ("RMQ002", f"{NOTIFY}/OrderPaidListener.java", 'selectorExpression = "${acme.notify.paid-tag}"'),
    ("RMQ002", f"{NOTIFY}/SmsRequestListener.java", '@RocketMQMessageListener('),
    # RMQ003: retries assumed on broadcasting consumers
    ("RMQ003", f"{INVENTORY}/CacheEvictConsumer.java", "return ConsumeConcurrentlyStatus.RECONSUME_LATER;"),
    ("RMQ003", f"{INVENTORY}/listener/PriceRefreshListener.java", "return ConsumeConcurrentlyStatus.RECONSUME_LATER;"),
    ("RMQ003", f"{NOTIFY}/TemplateReloadListener.java", "throw new IllegalStateException"),
    ("RMQ003", f"{NOTIFY}/LocaleCacheListener.java", "delayLevelWhenNextConsume = 3"),
    ("RMQ003", f"{BILLING}/rates.py", "return ConsumeStatus.RECONSUME_LATER"),
]

# The fix of every finding above, as a developer would write it: (path, old text, new text).
FIXES = [
    (f"{INVENTORY}/OrderConsumer.java", "setInstanceName(InventoryMq.INSTANCE_NAME)",
     'setInstanceName(InventoryMq.INSTANCE_NAME + "-" + System.getenv("HOSTNAME"))'),
    (f"{INVENTORY}/OrderConsumer.java", '" || OrderCancelled"', '" || orderCancelled"'),
    (f"{INVENTORY}/StockSync.java", 'pull.setInstanceName("stock-puller");',
     'pull.setInstanceName(System.getenv("POD_NAME"));'),
    (YAML, "    instance-name: notification-puller\n", ""),
    (YAML, "paid-tag: orderPaid", "paid-tag: OrderPaid"),
    (f"{NOTIFY}/OrderPaidListener.java", "${acme.notify.instance}", "${HOSTNAME}"),
    (f"{BILLING}/consumer.py", '    consumer.set_instance_name("billing-worker")\n', ""),
    ("python/payments/payments/publisher.py", '"RefundIssued "', '"RefundIssued"'),
    (f"{INVENTORY}/CacheEvictConsumer.java", "return ConsumeConcurrentlyStatus.RECONSUME_LATER;",
     "return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;"),
    (f"{INVENTORY}/CacheEvictConsumer.java", "        consumer.setMaxReconsumeTimes(5);\n", ""),
    (f"{INVENTORY}/listener/PriceRefreshListener.java", "return ConsumeConcurrentlyStatus.RECONSUME_LATER;",
     "return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;"),
    (f"{NOTIFY}/TemplateReloadListener.java", 'throw new IllegalStateException("template id missing, try again");',
     "return;"),
    (f"{BILLING}/rates.py", "return ConsumeStatus.RECONSUME_LATER", "return ConsumeStatus.CONSUME_SUCCESS"),
    (f"{NOTIFY}/NotifySender.java", '"acme-notify:smsRequested"', '"acme-notify:SmsRequested"'),
    (f"{NOTIFY}/LocaleCacheListener.java", ",\n    delayLevelWhenNextConsume = 3)", ")"),
]


def run_rmqlint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The real command line, in a fresh interpreter, as CI runs it."""
    code = "import sys; from rmqlint.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def json_findings(result: subprocess.CompletedProcess) -> list[dict]:
    assert not result.stderr.strip() or "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)["findings"]


@pytest.fixture()
def monorepo(tmp_path: Path) -> Path:
    # A copy: outside this repository (whose settings exclude tests/), and free to edit.
    target = tmp_path / "acme"
    shutil.copytree(MONOREPO, target)
    return target


@pytest.fixture(scope="module")
def pristine_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """One run on an unedited copy, shared by the tests that only read its output."""
    target = tmp_path_factory.mktemp("pristine") / "acme"
    shutil.copytree(MONOREPO, target)
    return target, run_rmqlint(target, ".", "--format", "json", "--no-cache")


def test_monorepo_reports_exactly_the_planted_cases(pristine_run):
    monorepo, result = pristine_run
    assert result.returncode == 1, result.stdout + result.stderr
    findings = json_findings(result)
    got = sorted((f["code"], f["path"], f["line"]) for f in findings)
    want = sorted((code, path, line_of(monorepo / path, text)) for code, path, text in MONOREPO_FINDINGS)
    assert got == want
    severities = {f["code"]: f["severity"] for f in findings}
    assert severities == {"RMQ001": "error", "RMQ002": "error", "RMQ003": "warning"}


def test_monorepo_messages_name_the_evidence(pristine_run):
    monorepo, result = pristine_run
    findings = json_findings(result)
    by_place = {(f["code"], f["path"].rsplit("/", 1)[-1], f["line"]): f["message"] for f in findings}
    messages = {(code, path): msg for (code, path, _line), msg in by_place.items()}
    assert '"inventory-node"' in messages[("RMQ001", "OrderConsumer.java")]
    assert 'group "inventory_order_consumer"' in messages[("RMQ001", "OrderConsumer.java")]
    assert '"notify-paid"' in messages[("RMQ001", "OrderPaidListener.java")]
    refund = messages[("RMQ002", "RefundConsumer.java")]
    publisher = "python/payments/payments/publisher.py"
    assert f'"RefundIssued " at {publisher}:{line_of(monorepo / publisher, chr(34) + "RefundIssued ")}' in refund
    paid = messages[("RMQ002", "OrderPaidListener.java")]
    assert '"orderPaid"' in paid and '"OrderPaid" at python/payments/payments/publisher.py:' in paid
    assert "sets maxReconsumeTimes" in messages[("RMQ003", "CacheEvictConsumer.java")]
    consumer = f"{INVENTORY}/PriceCacheConsumer.java"
    price = messages[("RMQ003", "PriceRefreshListener.java")]
    assert 'group "inventory_price_cache"' in price
    assert f"the consumer is at {consumer}:{line_of(monorepo / consumer, 'new DefaultMQPushConsumer')}" in price


def test_monorepo_is_clean_once_fixed(monorepo: Path):
    for rel, old, new in FIXES:
        path = monorepo / rel
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, (rel, old)
        path.write_text(text.replace(old, new), encoding="utf-8")
    result = run_rmqlint(monorepo, ".", "--format", "json", "--no-cache")
    assert json_findings(result) == []
    assert result.returncode == 0


def test_monorepo_inline_suppression_is_what_keeps_a_reviewed_case_quiet(monorepo: Path):
    job = monorepo / ORDER / "ReconciliationJob.java"
    text = job.read_text(encoding="utf-8")
    comment = "        // rmqlint: disable=RMQ001 -- one replica by design, see ops/runbook.md\n"
    assert text.count(comment) == 1
    job.write_text(text.replace(comment, ""), encoding="utf-8")
    findings = json_findings(run_rmqlint(monorepo, ORDER, "--format", "json", "--no-cache"))
    got = sorted((f["code"], f["path"], f["line"]) for f in findings)
    inventory = monorepo / INVENTORY / "OrderConsumer.java"
    assert got == [
        ("RMQ001", f"{ORDER}/ReconciliationJob.java", line_of(job, 'setInstanceName("reconciliation")')),
        # in another service, but it cites a producer of order-service: linting order-service shows what it causes
        ("RMQ002", f"{INVENTORY}/OrderConsumer.java", line_of(inventory, '" || OrderCancelled"')),
        ("RMQ002", f"{ORDER}/RefundConsumer.java", line_of(monorepo / ORDER / "RefundConsumer.java", '"RefundIssued"')),
    ]


# --- the bundled examples ---------------------------------------------------------------------------------------

FIXED_NAME = "examples/fixed-instance-name"
TAG_DRIFT = "examples/tag-case-drift"
BROADCAST_RETRY = "examples/broadcasting-retry"

EXAMPLE_FINDINGS = [
    ("RMQ001", f"{FIXED_NAME}/java/src/main/java/org/example/instancename/Consumer.java", 'setInstanceName("XUJIAN_MACBOOK")'),
    ("RMQ001", f"{FIXED_NAME}/spring/src/main/java/org/example/instancename/spring/OrderListener.java", "instanceName ="),
    ("RMQ001", f"{FIXED_NAME}/python/consumer.py", 'set_instance_name("XUJIAN_MACBOOK")'),
    ("RMQ002", f"{TAG_DRIFT}/java/src/main/java/org/example/tagcase/Consumer.java", 'subscribe("TagCaseTopic", "Aaaaa")'),
    ("RMQ002", f"{TAG_DRIFT}/spring/src/main/java/org/example/tagcase/spring/PaySuccessListener.java",
     "selectorExpression"),
    ("RMQ002", f"{TAG_DRIFT}/python/consumer.py", 'on_order, "OrderCreated"'),
    ("RMQ003", f"{BROADCAST_RETRY}/java/src/main/java/org/example/broadcast/ConfigRefresher.java", "RECONSUME_LATER;"),
    ("RMQ003", f"{BROADCAST_RETRY}/spring/src/main/java/org/example/broadcast/spring/PriceChangeListener.java", "throw new"),
    ("RMQ003", f"{BROADCAST_RETRY}/python/refresher.py", "RECONSUME_LATER"),
    ("RMQ001", "examples/orders-on-host-network/services/orders/src/main/java/org/example/orders/"
               "OrderEventsConsumer.java", 'setInstanceName("orders-node")'),
]


def test_examples_give_the_documented_findings():
    result = run_rmqlint(REPO, "examples", "--format", "json", "--no-cache")
    assert result.returncode == 1, result.stdout + result.stderr
    got = sorted((f["code"], f["path"], f["line"]) for f in json_findings(result))
    want = sorted((code, path, line_of(REPO / path, text)) for code, path, text in EXAMPLE_FINDINGS)
    assert got == want
    # Each README names the places it promises.
    for code, path, text in EXAMPLE_FINDINGS:
        example_dir, rel = path.split("/", 2)[1], path.split("/", 2)[2]
        readme = (EXAMPLES / example_dir / "README.md").read_text(encoding="utf-8")
        assert f"{rel}:{line_of(REPO / path, text)}" in readme, (example_dir, rel)
