"""A deterministic synthetic Java code base for the lint benchmark.

About 2,100 files and 14 MB in 30 modules. Most files are ordinary service code that never touches RocketMQ;
each module also has a constants class (no RocketMQ import: it is only parsed because consumers reference it),
push consumers whose group, topic, tags and instanceName come from that class, a producer, and in every third
module a broadcasting consumer that returns RECONSUME_LATER. Some consumers fix their instanceName (RMQ001), some
producers send a tag in another case (RMQ002), so the run has findings to report.

    python -m benchmarks.java_corpus [DIR]     (default: benchmarks/corpus)
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

MODULES = 30
PLAIN_PER_MODULE = 65
SEED = 7

_WORDS = ("order", "invoice", "ledger", "stock", "parcel", "route", "price", "refund", "coupon", "account", "audit",
          "basket", "claim", "quota", "batch", "report", "session", "token", "vendor", "shipment")
_TYPES = ("String", "int", "long", "boolean", "double", "List<String>", "Map<String, Long>")


def _name(rng: random.Random, capital: bool = True) -> str:
    first, second = rng.choice(_WORDS), rng.choice(_WORDS)
    text = first + second.capitalize()
    return text[0].upper() + text[1:] if capital else text


def _method(rng: random.Random, index: int) -> str:
    name = _name(rng, capital=False) + str(index)
    var = _name(rng, capital=False)
    lines = [
        "    /**",
        f"     * Computes the {var} for a batch of records. Keeps the order of the input and skips empty entries;",
        "     * the result is never null.",
        "     */",
        f"    public List<String> {name}(List<String> input, int limit) {{",
        "        List<String> out = new ArrayList<>();",
        "        int seen = 0;",
        "        for (String item : input) {",
        "            if (item == null || item.isEmpty()) {",
        "                continue;",
        "            }",
        f"            String {var} = item.trim() + \"-{rng.randint(0, 9999)}\";",
        f"            if ({var}.length() > limit && seen % {rng.randint(2, 9)} == 0) {{",
        f"                out.add({var}.substring(0, limit));",
        "            } else {",
        f"                out.add({var});",
        "            }",
        "            seen++;",
        "        }",
        "        Map<String, Long> counts = new HashMap<>();",
        "        for (String value : out) {",
        "            counts.merge(value, 1L, Long::sum);",
        "        }",
        f"        LOG.debug(\"{name}: {{}} items, {{}} distinct\", out.size(), counts.size());",
        "        return out;",
        "    }",
        "",
    ]
    return "\n".join(lines)


def _bulk(rng: random.Random, methods: int) -> str:
    return "\n".join(_method(rng, i) for i in range(methods))


_PLAIN_IMPORTS = """\
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
"""


def plain_class(rng: random.Random, package: str, name: str) -> str:
    fields = "\n".join(f"    private {rng.choice(_TYPES)} {_name(rng, False)}{i};" for i in range(rng.randint(3, 8)))
    return (
        f"package {package};\n\n{_PLAIN_IMPORTS}\n"
        f"/** {name}: part of the synthetic benchmark code base; no messaging here. */\n"
        f"public class {name} {{\n"
        f"    private static final Logger LOG = LoggerFactory.getLogger({name}.class);\n\n{fields}\n\n"
        f"{_bulk(rng, rng.randint(5, 8))}"
        "}\n"
    )


def constants_class(package: str, name: str, module: int) -> str:
    lines = [f"package {package};", "", f"/** Names shared by the messaging code of module {module}. */",
             f"public final class {name} {{", f"    private {name}() {{", "    }", ""]
    lines.append(f'    public static final String PREFIX = "m{module}-";')
    for t in range(3):
        lines.append(f'    public static final String TOPIC_{t} = PREFIX + "topic-{t}";')
    for t in range(4):
        lines.append(f'    public static final String TAG_{t} = "Tag{t}";')
    for c in range(3):
        lines.append(f'    public static final String GROUP_{c} = PREFIX + "group-{c}";')
        lines.append(f'    public static final String INSTANCE_{c} = PREFIX + "worker-{c}";')
    lines += ["}", ""]
    return "\n".join(lines)


def consumer_class(rng: random.Random, package: str, name: str, consts: str, number: int, fixed: bool) -> str:
    instance = f"{consts}.INSTANCE_{number}" if fixed else 'System.getenv("HOSTNAME")'
    return f"""\
package {package};

{_PLAIN_IMPORTS}import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

public class {name} {{
    private static final Logger LOG = LoggerFactory.getLogger({name}.class);
    private final DefaultMQPushConsumer consumer;

    public {name}(String nameServer) throws Exception {{
        consumer = new DefaultMQPushConsumer({consts}.GROUP_{number});
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName({instance});
        consumer.subscribe({consts}.TOPIC_{number}, {consts}.TAG_{number} + " || " + {consts}.TAG_3);
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {{
            for (MessageExt msg : msgs) {{
                LOG.info("{name} got {{}}", msg.getMsgId());
            }}
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }});
        consumer.start();
    }}

{_bulk(rng, rng.randint(3, 6))}}}
"""


def producer_class(rng: random.Random, package: str, name: str, consts: str, drift: bool) -> str:
    tag = '"tag1"' if drift else f"{consts}.TAG_1"
    return f"""\
package {package};

{_PLAIN_IMPORTS}import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

public class {name} {{
    private static final Logger LOG = LoggerFactory.getLogger({name}.class);
    private final DefaultMQProducer producer = new DefaultMQProducer("producer-{name}");

    public void publish(byte[] body) throws Exception {{
        Message message = new Message({consts}.TOPIC_1, {tag}, body);
        producer.send(message);
        Message other = new Message({consts}.TOPIC_0, {consts}.TAG_0, body);
        producer.send(other);
    }}

{_bulk(rng, rng.randint(3, 6))}}}
"""


def broadcast_class(rng: random.Random, package: str, name: str, consts: str) -> str:
    return f"""\
package {package};

{_PLAIN_IMPORTS}import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

public class {name} {{
    private static final Logger LOG = LoggerFactory.getLogger({name}.class);

    public void start() throws Exception {{
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer({consts}.GROUP_2);
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe({consts}.TOPIC_2, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {{
            try {{
                LOG.info("refresh {{}}", msgs.size());
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }} catch (RuntimeException e) {{
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            }}
        }});
        consumer.start();
    }}

{_bulk(rng, rng.randint(3, 6))}}}
"""


def generate(target: Path) -> dict:
    """Write the corpus under `target` (replacing it); returns counts. Same seed, same bytes."""
    if target.exists():
        shutil.rmtree(target)
    rng = random.Random(SEED)
    files: dict[str, str] = {}
    for module in range(MODULES):
        base = f"src/main/java/com/acme/m{module}"
        package = f"com.acme.m{module}"
        consts = f"MqNames{module}"
        files[f"{base}/{consts}.java"] = constants_class(package, consts, module)
        for number in range(2):
            name = f"{_name(rng)}Consumer{module}x{number}"
            files[f"{base}/messaging/{name}.java"] = consumer_class(
                rng, f"{package}.messaging", name, consts, number, fixed=(module + number) % 4 == 0
            )
        name = f"{_name(rng)}Publisher{module}"
        files[f"{base}/messaging/{name}.java"] = producer_class(
            rng, f"{package}.messaging", name, consts, drift=module % 5 == 0
        )
        if module % 3 == 0:
            name = f"CacheRefresher{module}"
            files[f"{base}/messaging/{name}.java"] = broadcast_class(
                rng, f"{package}.messaging", name, consts
            )
        for index in range(PLAIN_PER_MODULE):
            sub = ("service", "model", "web", "repo")[index % 4]
            name = f"{_name(rng)}{sub.capitalize()}{module}x{index}"
            files[f"{base}/{sub}/{name}.java"] = plain_class(rng, f"{package}.{sub}", name)
    for rel, text in files.items():
        module = rel.split("/")[5][1:]
        consts = f"MqNames{module}"
        if "/messaging/" in rel:
            # Half the modules import the constants class, the other half name it fully qualified.
            if int(module) % 2:
                text = text.replace("\n\nimport ", f"\n\nimport com.acme.m{module}.{consts};\nimport ", 1)
            else:
                text = text.replace(f"{consts}.", f"com.acme.m{module}.{consts}.")
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    # Its own project (and git repository): the benchmark must not lint the checkout around it.
    (target / ".rmqlint.toml").write_text("# synthetic benchmark corpus\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(target)], check=False)
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in target.rglob("*.java")),
            "rocketmq_files": sum(1 for t in files.values() if "org.apache.rocketmq" in t)}


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "corpus"
    print(generate(out))
