"""RMQ005: consume thread bounds that make start() throw (min above max), or a max the pool never reaches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from rmqlint.facts import ClientFact, Location, Setting
from rmqlint.findings import Finding, Related
from rmqlint.fixes import UNSAFE, Fix, in_slot, replace
from rmqlint.client_releases import REMOTING_CLIENT, SPRING_STARTER, consume_thread_max_default, starter_pool
from rmqlint.project import Module, Project
from rmqlint.rules._consumers import describe_group
from rmqlint.rules._examples import line_of
from rmqlint.rules._known import fully_known
from rmqlint.rules.base import Example, Rule

# DefaultMQPushConsumer's defaults: consumeThreadMin 20; consumeThreadMax 20 from client 4.5.1 (64 up to 4.5.0),
# by the release the module's build file names (`rmqlint.client_releases`); without one, the current default.
JAVA_MIN_DEFAULT = 20
JAVA_MAX_DEFAULT = consume_thread_max_default(None)
# @RocketMQMessageListener's defaults; how the starter applies them depends on its release (`starter_pool`): from
# 2.3.0 consumeThreadNumber is the minimum and consumeThreadMax the maximum; 2.2.2 and 2.2.3 use consumeThreadNumber
# for both; earlier releases have only consumeThreadMax, which lowers the client's minimum of 20 when below it.
SPRING_NUMBER_DEFAULT = 20
SPRING_MAX_DEFAULT = 64


@dataclass(frozen=True)
class Bound:
    value: int
    setting: Setting | None  # None: the default
    name: str  # as the user writes it
    default: str = "the default"  # whose default it is, when not written

    @property
    def written(self) -> bool:
        return self.setting is not None

    def describe(self) -> str:
        return f"{self.name} {self.value}" + ("" if self.written else f" ({self.default})")


def _number(setting: Setting | None) -> int | None | bool:
    """The setting's value as an int; None when absent; False when not known exactly."""
    if setting is None:
        return None
    texts = fully_known(setting.value)
    if texts is None or len(texts) != 1:
        return False
    try:
        return int(texts[0].strip().rstrip("lL"), 0)
    except ValueError:
        return False


def _called(setting: Setting | None) -> bool:
    """A setting written by a setter call (`consumer.setConsumeThreadMin(1)`), not an annotation's attribute."""
    return setting is not None and setting.slot is not None and setting.slot.kind == "call"


def bounds(client: ClientFact, module: Module | None = None) -> tuple[Bound, Bound] | None:
    """The pool's (min, max) as the client applies them, when both are known: with the defaults of the releases
    the module's build file names (the current ones when it names none)."""
    # Both bounds set by setter calls on a Spring listener's consumer (its `prepareStart`, which the container
    # calls after applying the annotation): the client's own pool, whatever the starter made of the annotation.
    spring = client.api == "spring-listener" and not (_called(client.consume_thread_min)
                                                       and _called(client.consume_thread_max))
    low, high = _number(client.consume_thread_min), _number(client.consume_thread_max)
    if low is False or high is False:
        return None
    if spring:
        starter = module.release(SPRING_STARTER) if module is not None else None
        pool = starter_pool(starter.version if starter is not None else None)
        named = f"rocketmq-spring-boot-starter {starter.version}" if starter is not None and starter.version else ""
        if pool == "max":  # only consumeThreadMax, which lowers the client's minimum of 20 when below it
            maximum = SPRING_MAX_DEFAULT if high is None else high
            return (Bound(min(JAVA_MIN_DEFAULT, maximum), None, "consumeThreadMin",
                          f"the client's 20, or consumeThreadMax when lower, as {named} applies it"),
                    Bound(maximum, client.consume_thread_max, "consumeThreadMax", "the annotation's default"))
        if pool == "number":  # consumeThreadNumber for both bounds; consumeThreadMax is not read
            number = SPRING_NUMBER_DEFAULT if low is None else low
            return (Bound(number, client.consume_thread_min, "consumeThreadNumber", "the annotation's default"),
                    Bound(number, None, "consumeThreadMax", f"consumeThreadNumber, as {named} applies it"))
        return (Bound(SPRING_NUMBER_DEFAULT if low is None else low, client.consume_thread_min, "consumeThreadNumber",
                      "the annotation's default"),
                Bound(SPRING_MAX_DEFAULT if high is None else high, client.consume_thread_max, "consumeThreadMax",
                      "the annotation's default"))
    release = module.release(REMOTING_CLIENT, SPRING_STARTER) if module is not None else None
    version = release.client_version if release is not None else None
    default_max = consume_thread_max_default(version)
    whose = (f"the default of rocketmq-client {version}" if version
             else "the client's default from 4.5.1; 64 before")
    return (Bound(JAVA_MIN_DEFAULT if low is None else low, client.consume_thread_min, "consumeThreadMin",
                  "the client's default"),
            Bound(default_max if high is None else high, client.consume_thread_max, "consumeThreadMax", whose))


_JAVA_MIN_ONLY = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderConsumer {
    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setConsumeThreadMin(32);
        consumer.subscribe("OrderTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_JAVA_MAX_ABOVE_MIN = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class InvoiceConsumer {
    private static final int THREADS_MIN = 10;
    private static final int THREADS_MAX = 64;

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("invoice_consumer");
        consumer.setConsumeThreadMin(THREADS_MIN);
        consumer.setConsumeThreadMax(THREADS_MAX);
        consumer.subscribe("InvoiceTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
"""

_SPRING_NUMBER_ABOVE_MAX = """\
package com.example.mail;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "MailTopic", consumerGroup = "mail_sender", consumeThreadNumber = 100)
public class MailListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_JAVA_MIN_ONLY_POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-client</artifactId>
      <version>4.4.0</version>
    </dependency>
  </dependencies>
</project>
"""

_SPRING_222_POM = _JAVA_MIN_ONLY_POM.replace("<artifactId>rocketmq-client</artifactId>",
                                             "<artifactId>rocketmq-spring-boot-starter</artifactId>").replace(
    "<version>4.4.0</version>", "<version>2.2.2</version>")

_SPRING_MAX_ONLY = """\
package com.example.mail;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "SmsTopic", consumerGroup = "sms_sender", consumeThreadMax = 50)
public class SmsListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class Consumers {
    public void start() throws Exception {
        DefaultMQPushConsumer equal = new DefaultMQPushConsumer("order_consumer");
        equal.setConsumeThreadMin(64);
        equal.setConsumeThreadMax(64);
        equal.subscribe("OrderTopic", "*");
        equal.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        equal.start();

        DefaultMQPushConsumer fewer = new DefaultMQPushConsumer("audit_consumer");
        fewer.setConsumeThreadMin(4);
        fewer.setConsumeThreadMax(4);
        fewer.subscribe("OrderTopic", "*");
        fewer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        fewer.start();

        DefaultMQPushConsumer configured = new DefaultMQPushConsumer("report_consumer");
        configured.setConsumeThreadMin(Integer.getInteger("mq.threads", 20));
        configured.setConsumeThreadMax(64);
        configured.subscribe("OrderTopic", "*");
        configured.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        configured.start();
    }
}
"""

_SPRING_OK = """\
package com.example.mail;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "MailTopic", consumerGroup = "mail_sender", consumeThreadNumber = 32,
    consumeThreadMax = 32)
public class MailListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_SPRING_DEFAULTS = _SPRING_MAX_ONLY.replace(", consumeThreadMax = 50", ", consumeThreadNumber = 8")

_PYTHON = """\
from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("CID_ORDER")
consumer.set_thread_count(64)
consumer.subscribe("OrderTopic", on_message)
consumer.start()
"""


_SPRING_PREPARE_START = """\
package com.example.mail;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.apache.rocketmq.spring.core.RocketMQPushConsumerLifecycleListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "MailTopic", consumerGroup = "mail_consumer")
public class DigestListener implements RocketMQListener<String>, RocketMQPushConsumerLifecycleListener {
    @Override
    public void onMessage(String message) {
    }

    @Override
    public void prepareStart(DefaultMQPushConsumer consumer) {
        consumer.setConsumeThreadMin(1);
        consumer.setConsumeThreadMax(10);
    }
}
"""


class ConsumeThreadBounds(Rule):
    CODE = "RMQ005"
    NAME = "consume-thread-bounds"
    SEVERITY = "error"
    OTHER_SEVERITIES = ("warning",)
    NO_PYTHON_MISTAKE = "the Python clients take one thread count: a fixed pool"
    NO_GO_MISTAKE = "rocketmq-client-go takes one goroutine count (WithConsumeGoroutineNums): no bounds to disagree"
    SUMMARY = ("consumeThreadMin above consumeThreadMax makes start() throw; a consumeThreadMax above the min is "
               "never used")
    DOCS = f"""\
## What it does
Checks the consume thread pool of push consumers, with the client's defaults for the bound that is not set:
- error: the minimum above the maximum. `setConsumeThreadMin(32)` alone is above the default maximum of
  {JAVA_MAX_DEFAULT}; a Spring `consumeThreadNumber` above `consumeThreadMax` (default {SPRING_MAX_DEFAULT});
  a maximum below the default minimum of {JAVA_MIN_DEFAULT}.
- warning: a maximum written above the minimum. It is never used.

Java `setConsumeThreadMin` / `setConsumeThreadMax` and Spring `@RocketMQMessageListener(consumeThreadNumber,
consumeThreadMax)` are checked; a bound that is not known statically keeps the rule quiet, and so do the Spring
annotation's own defaults ({SPRING_NUMBER_DEFAULT} and {SPRING_MAX_DEFAULT}) when neither is written. A Spring
listener whose `prepareStart(consumer)` sets both bounds is checked as the client applies them: the container calls
it after applying the annotation. Bounds bound from the configuration (`@Value`, a `@ConfigurationProperties` bean)
are checked as each profile sets them. The Python clients take a single thread count (a fixed pool) and are never
reported.

## Why is this bad?
The consume service runs listeners on a `ThreadPoolExecutor` whose core size is `consumeThreadMin`, whose maximum is
`consumeThreadMax`, and whose work queue is an unbounded `LinkedBlockingQueue`. Such a pool starts a thread above the
core size only when the queue is full, which never happens: the pool never grows past `consumeThreadMin`. So
raising only `consumeThreadMax` changes nothing, and a consumer that falls behind stays behind. Raising only
`consumeThreadMin` past the default maximum ({JAVA_MAX_DEFAULT} from client 4.5.1, 64 up to 4.5.0) makes the
client's own check fail: `start()` throws `consumeThreadMin (..) is larger than consumeThreadMax (..)`, and the
consumer never starts.

The defaults are those of the release the module's build file names (`pom.xml`, `build.gradle`, the Spring
starter's client): the client's maximum by its release, and how the Spring starter applies the annotation by its
own. From 2.3.0 the starter applies `consumeThreadNumber` as the minimum and `consumeThreadMax` as the maximum;
2.2.2 and 2.2.3 use `consumeThreadNumber` for both and do not read `consumeThreadMax` (a `consumeThreadMax`
written there is a warning: it has no effect); earlier releases have only `consumeThreadMax`, which lowers the
client's minimum of 20 when it is below it (so it can never make start() throw). Without a release in the build
files, the current releases are assumed. A `consumeThreadMax` above the minimum has no effect in every release.

## Example
```java
consumer.setConsumeThreadMin(10);
consumer.setConsumeThreadMax(64);   // the pool stays at 10 threads
```

## Fix
Set the number of threads you want as the minimum, and the maximum to the same value:
```java
consumer.setConsumeThreadMin(64);
consumer.setConsumeThreadMax(64);
```
In Spring, `@RocketMQMessageListener(consumeThreadNumber = 64, consumeThreadMax = 64, ...)`.

`rmqlint --fix` writes the fix when the intent is clear from the two values, that is, when only one bound is
written and the other is the default: the one number written is the pool that was asked for (`setConsumeThreadMin(32)`
alone asks for 32 threads, `consumeThreadMax = 50` alone for 50), so the missing bound is written next to it with
the same number (`consumer.setConsumeThreadMax(32);` on the line after, `, consumeThreadNumber = 50` after the
attribute). When both bounds are written they contradict each other and the values do not say which was meant (a
maximum of 64 over a minimum of 10 may be a wish for 64 threads or a resting size of 10): `--unsafe-fixes` then
sets the bound that is off to the other's number, the maximum to the minimum when start() throws (the pool runs at
its minimum), the minimum to the maximum when the maximum is never used (the advice above).
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/orders/OrderConsumer.java": _JAVA_MIN_ONLY},
            expect=(("src/main/java/com/example/orders/OrderConsumer.java",
                     line_of(_JAVA_MIN_ONLY, "setConsumeThreadMin")),),
            note="a minimum above the default maximum of 20: start() throws",
        ),
        Example(
            {"src/main/java/com/example/orders/InvoiceConsumer.java": _JAVA_MAX_ABOVE_MIN},
            expect=(("src/main/java/com/example/orders/InvoiceConsumer.java",
                     line_of(_JAVA_MAX_ABOVE_MIN, "setConsumeThreadMax")),),
            note="a maximum above the minimum (constants): never used",
        ),
        Example(
            {"src/main/java/com/example/mail/MailListener.java": _SPRING_NUMBER_ABOVE_MAX},
            expect=(("src/main/java/com/example/mail/MailListener.java",
                     line_of(_SPRING_NUMBER_ABOVE_MAX, "consumeThreadNumber")),),
            note="Spring: consumeThreadNumber above the annotation's consumeThreadMax of 64",
        ),
        Example(
            {"src/main/java/com/example/mail/SmsListener.java": _SPRING_MAX_ONLY},
            expect=(("src/main/java/com/example/mail/SmsListener.java",
                     line_of(_SPRING_MAX_ONLY, "consumeThreadMax")),),
            note="Spring: consumeThreadMax raised alone",
        ),
        Example(
            {"pom.xml": _SPRING_222_POM, "src/main/java/com/example/mail/SmsListener.java": _SPRING_MAX_ONLY},
            expect=(("src/main/java/com/example/mail/SmsListener.java",
                     line_of(_SPRING_MAX_ONLY, "consumeThreadMax")),),
            note="Spring: starter 2.2.2 does not read consumeThreadMax (consumeThreadNumber sets both bounds)",
        ),
        Example(
            {"src/main/java/com/example/mail/DigestListener.java": _SPRING_PREPARE_START},
            expect=(("src/main/java/com/example/mail/DigestListener.java",
                     line_of(_SPRING_PREPARE_START, "setConsumeThreadMax")),),
            note="Spring: prepareStart sets both bounds on the consumer, after the starter applied the annotation",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/orders/Consumers.java": _JAVA_OK},
            note="equal bounds, above or below the defaults; a minimum from a system property",
        ),
        Example(
            {"pom.xml": _JAVA_MIN_ONLY_POM, "src/main/java/com/example/orders/OrderConsumer.java": _JAVA_MIN_ONLY},
            note="a minimum of 32 alone on client 4.4.0, whose default maximum is 64",
        ),
        Example({"src/main/java/com/example/mail/MailListener.java": _SPRING_OK}, note="Spring: equal bounds"),
        Example({"src/main/java/com/example/mail/SmsListener.java": _SPRING_DEFAULTS},
                note="Spring: consumeThreadNumber below the annotation's default maximum, which is not written"),
        Example({"consumer.py": _PYTHON}, note="Python 2.x: one thread count, a fixed pool"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A push consumer with a thread bound written."""
        return any(c.consume_thread_min or c.consume_thread_max for _f, c in project.clients()
                   if c.role == "push_consumer")

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, client in project.clients():
            if client.role != "push_consumer" or client.api not in ("java", "spring-listener"):
                continue
            if client.consume_thread_min is None and client.consume_thread_max is None:
                continue
            if client.configured_elsewhere and (client.consume_thread_min is None or client.consume_thread_max is None):
                continue  # the other bound may be set where we cannot see
            # The build files are read only when the releases could change the verdict.
            module = project.module_of(client.location.path) if _release_matters(client) else None
            if client.api == "spring-listener" and client.consume_thread_max is not None and module is not None:
                starter = module.release(SPRING_STARTER)
                if starter is not None and starter_pool(starter.version) == "number":
                    yield self._ignored_max(client, starter.version)
                    continue
            found = bounds(client, module)
            if found is None:
                continue
            low, high = found
            if low.value > high.value:
                yield self._too_low_max(client, low, high)
            elif high.value > low.value and high.written:
                yield self._unused_max(client, low, high)

    def _too_low_max(self, client: ClientFact, low: Bound, high: Bound) -> Finding:
        at = low.setting if low.written else high.setting
        other = high.setting if low.written else low.setting
        release = " (rocketmq-spring-boot-starter 2.3.0 and later)" if client.api == "spring-listener" else ""
        if "as rocketmq-spring" in high.default:
            release = ""  # the release is named in the bound
        text = (f"{low.describe()} is above {high.describe()} on consumer {describe_group(client)}: start() throws "
                f"\"consumeThreadMin ({low.value}) is larger than consumeThreadMax ({high.value})\"{release} and the "
                "consumer never starts")
        return self.finding(text, at.location, _related(other, at.location), fix=_fix(low, high, raise_max=True))

    def _ignored_max(self, client: ClientFact, starter: str) -> Finding:
        setting = client.consume_thread_max
        number = _number(client.consume_thread_min)
        pool = f"consumeThreadNumber ({number})" if isinstance(number, int) else "consumeThreadNumber (default 20)"
        text = (f"consumeThreadMax is not read by rocketmq-spring-boot-starter {starter} on consumer "
                f"{describe_group(client)}: that release sets both bounds of the pool to {pool}; set "
                "consumeThreadNumber to the number of threads wanted")
        return self.finding(text, setting.location, severity="warning")

    def _unused_max(self, client: ClientFact, low: Bound, high: Bound) -> Finding:
        text = (f"{high.describe()} is above {low.describe()} on consumer {describe_group(client)}: the consume "
                f"pool queues work without bound, so it never grows past {low.value} threads and the other "
                f"{high.value - low.value} are never used; raise {low.name} instead")
        return self.finding(text, high.setting.location, _related(low.setting, high.setting.location),
                            severity="warning", fix=_fix(low, high, raise_max=False))


# The other bound's name where a slot writes it: a Java setter, or a Spring listener's attribute.
_WRITTEN_AS = {("min", "call"): "setConsumeThreadMin", ("max", "call"): "setConsumeThreadMax",
               ("min", "attribute"): "consumeThreadNumber", ("max", "attribute"): "consumeThreadMax"}


def _fix(low: Bound, high: Bound, raise_max: bool) -> Fix | None:
    """One bound written, the other the default: the written number is the pool asked for, and the missing bound
    is written next to it with the same number (safe). Both written: the numbers disagree about what was meant;
    the bound that is off is set to the other's number (unsafe): the maximum to the minimum when start() would
    throw, the minimum to the maximum when the maximum is never used."""
    if low.written and high.written:
        changed, number = (high, low.value) if raise_max else (low, high.value)
        if changed.setting.written is None:
            return None
        return Fix(f"set {changed.name} to {number}", (replace(changed.setting.written, str(number)),),
                   applicability=UNSAFE)
    written, missing = (low, "max") if low.written else (high, "min")
    slot = written.setting.slot
    if slot is None or (missing, slot.kind) not in _WRITTEN_AS:
        return None
    name = _WRITTEN_AS[(missing, slot.kind)]
    return Fix(f"add {name} {written.value}, the number written for the other bound",
               (in_slot(slot, name, str(written.value)),))


def _release_matters(client: ClientFact) -> bool:
    """Whether the releases' defaults could change what is said of this client: a Java minimum written alone above
    the current default maximum (64 before client 4.5.1), or a Spring consumeThreadMax (read differently by each
    starter release) or consumeThreadNumber above the annotation's maximum."""
    low, high = _number(client.consume_thread_min), _number(client.consume_thread_max)
    if client.api == "spring-listener":
        return high is not None or (isinstance(low, int) and low > SPRING_MAX_DEFAULT)
    return high is None and isinstance(low, int) and low > JAVA_MAX_DEFAULT


def _related(setting: Setting | None, at: Location) -> list[Related]:
    if setting is None or setting.location == at:
        return []
    return [Related(setting.location, "the other bound")]
