"""RMQ008: a name server list (or 5.x endpoint list) separated by ',' or spaces instead of ';'."""

from __future__ import annotations

from typing import Iterable

from rmqlint.facts import Location, Setting
from rmqlint.findings import Finding
from rmqlint.fixes import SAFE, UNSAFE, Fix, replace_parts
from rmqlint.project import Project
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._fixing import READ_ELSEWHERE, applicability_at, written_literal
from rmqlint.rules._known import wrong
from rmqlint.rules.base import Example, Rule

LIST_SEPARATOR = ";"


def separator_edits(addresses: str) -> list[tuple[int, int, str]]:
    """(first, last, ";") for every run of `,` and blanks between two addresses of a `;`-separated part: the
    edits that make a list the clients read as one malformed address into a `;`-separated list."""
    edits = []
    offset = 0
    for part in addresses.split(LIST_SEPARATOR):
        i = 0
        while i < len(part):
            if part[i] in _SEPARATING and part[:i].strip(_SEPARATING):
                j = i
                while j < len(part) and part[j] in _SEPARATING:
                    j += 1
                if part[j:].strip(_SEPARATING):
                    edits.append((offset + i, offset + j, LIST_SEPARATOR))
                i = j
            else:
                i += 1
        offset += len(part) + len(LIST_SEPARATOR)
    return edits


_SEPARATING = ", \t"


def go_separator_edits(address: str) -> list[tuple[int, int, str]]:
    """(first, last, '", "') for every run of `;`, `,` and blanks between two addresses of one element of a Go
    list: the edits that make it elements of their own."""
    edits = []
    i = 0
    while i < len(address):
        if address[i] in _GO_SEPARATING and address[:i].strip(_GO_SEPARATING):
            j = i
            while j < len(address) and address[j] in _GO_SEPARATING:
                j += 1
            if address[j:].strip(_GO_SEPARATING):
                edits.append((i, j, '", "'))
            i = j
        else:
            i += 1
    return edits


_GO_SEPARATING = ";, \t"


def _go_fix(setting: Setting, text: str) -> Fix | None:
    """Safe where the element is the string literal itself (its text read nowhere else)."""
    literal = written_literal(setting.value, text)
    written = setting.written
    if literal is None or written is None or literal.origin.path != written.path or \
            (literal.origin.start - 1, literal.origin.end + 1) != (written.start, written.end):
        return None
    return Fix("write each address as an element of its own",
               tuple(replace_parts(literal.origin, go_separator_edits(text))))


def wrong_separator(addresses: str) -> str | None:
    """The separator a name server (or endpoint) list uses instead of `;`: `,` or a space between two
    addresses; None when every `;`-separated part is a single address."""
    for part in addresses.split(LIST_SEPARATOR):
        part = part.strip()
        if "," in part and sum(1 for piece in part.split(",") if piece.strip()) >= 2:
            return ","
        if len(part.split()) >= 2:
            return " "
    return None


_JAVA = """\
package com.example.orders;

import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class OrderProducerFactory {
    private static final String NAMESRV = "10.0.0.1:9876,10.0.0.2:9876";

    public DefaultMQProducer create() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("order_producer");
        producer.setNamesrvAddr(NAMESRV);
        producer.start();
        return producer;
    }
}
"""

_JAVA5 = """\
package com.example.orders;

import org.apache.rocketmq.client.apis.ClientConfiguration;

public class ProxyConfig {
    public ClientConfiguration configuration() {
        return ClientConfiguration.newBuilder().setEndpoints("10.0.0.1:8081, 10.0.0.2:8081").build();
    }
}
"""

_SPRING_CONFIG = """\
rocketmq:
  name-server: 10.0.0.1:9876 10.0.0.2:9876
  producer:
    group: pay_producer
"""

_SPRING_LISTENER = """\
package com.example.pay;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay_consumer",
    nameServer = "${pay.namesrv:10.0.0.1:9876,10.0.0.2:9876}")
public class PayListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String message) {
        System.out.println(message);
    }
}
"""

_PYTHON2 = """\
from rocketmq.client import Producer

producer = Producer("PID_STOCK")
producer.set_name_server_address("10.0.0.1:9876,10.0.0.2:9876")
producer.start()
"""

_PYTHON5 = """\
from rocketmq import ClientConfiguration, Credentials

config = ClientConfiguration("10.0.0.1:8081,10.0.0.2:8081", Credentials())
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class Clients {
    public void start() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("order_producer");
        producer.setNamesrvAddr("10.0.0.1:9876;10.0.0.2:9876;");
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("order_consumer");
        consumer.setNamesrvAddr(System.getenv("NAMESRV_ADDR"));
        DefaultMQPushConsumer cloud = new DefaultMQPushConsumer("cloud_consumer");
        cloud.setNamesrvAddr("http://MQ_INST_1234_abcd.mq.example.com:80");
    }
}
"""

_SPRING_OK = """\
rocketmq:
  name-server: ${NAMESRV_ADDR:10.0.0.1:9876,10.0.0.2:9876}
  producer:
    group: pay_producer
"""

_SPRING_OK_LISTENER = _SPRING_LISTENER.replace("10.0.0.1:9876,10.0.0.2:9876", "10.0.0.1:9876;10.0.0.2:9876")

_PYTHON_OK = """\
import os

from rocketmq.client import Producer

producer = Producer("PID_STOCK")
producer.set_name_server_address("10.0.0.1:9876; 10.0.0.2:9876")
other = Producer("PID_AUDIT")
other.set_name_server_address(os.environ["NAMESRV_ADDR"])
"""



_GO = go_file("""\
func main() {
	p, err := rocketmq.NewProducer(
		producer.WithGroupName("order_producer"),
		producer.WithNameServer(primitive.NamesrvAddr{"10.0.0.1:9876;10.0.0.2:9876"}),
	)
	if err != nil {
		panic(err)
	}
	_ = p.Start()
}
""")
_GO_ELEMENTS = _GO.replace('"10.0.0.1:9876;10.0.0.2:9876"', '"10.0.0.1:9876", "10.0.0.2:9876"')


class NamesrvSeparator(Rule):
    CODE = "RMQ008"
    NAME = "namesrv-separator"
    SEVERITY = "error"
    SUMMARY = "A name server (or 5.x endpoint) list is separated by ',' or spaces instead of ';'"
    DOCS = """\
## What it does
Checks every name server list and 5.x proxy endpoint list written in the project, once resolved (constants,
Spring placeholders and their defaults): `setNamesrvAddr(..)` on any client, Spring `rocketmq.name-server` and a
listener's `nameServer`, Python 2.x `set_name_server_address(..)`, and the 5.x endpoints
(`ClientConfiguration.newBuilder().setEndpoints(..)`, Python `ClientConfiguration(endpoints, ..)`, the v5
starter's `endpoints`). It reports a list whose addresses are separated by `,` or by spaces. In Go
(`WithNameServer(primitive.NamesrvAddr{..})`, `WithNsResolver(primitive.NewPassthroughResolver([]string{..}))`) the
list is a slice, and it reports an element that holds several addresses, whatever separates them.

## Why is this bad?
The clients split such a list on `;` and on nothing else: the Java client (`MQClientAPIImpl`) and the 5.x
`Endpoints` split on `;`, the C++ core behind Python 2.x splits on `;` and trims each part, and the 5.x Python
client splits on `;`. `"10.0.0.1:9876,10.0.0.2:9876"` is therefore one address whose host is
`10.0.0.1:9876,10.0.0.2`: the client never reaches a name server. From client 4.6.0 on, every send fails with
`connect to [10.0.0.1:9876,10.0.0.2:9876] failed` and a push consumer's `start()` throws it; older clients send
nothing ("No route info of this topic") and their consumers start without ever getting a route. With a single
address in the list the mistake stays hidden until a second name server is added.

rocketmq-client-go takes each element of its list as one address and checks it when the client is made:
`"10.0.0.1:9876;10.0.0.2:9876"` in one element makes `NewPushConsumer` and `NewProducer` return "multiple IP addr
does not support", and with `,` or a space the client dials the whole text as one address.

A value that comes from the environment, or a placeholder whose value is not in the project, is not checked.

## Example
```java
producer.setNamesrvAddr("10.0.0.1:9876,10.0.0.2:9876");
```

## Fix
Separate the addresses with `;`:
```java
producer.setNamesrvAddr("10.0.0.1:9876;10.0.0.2:9876");
```
`rmqlint --fix` does it where the list is written: the literal, or the configuration value of a `rocketmq.` key (a
placeholder's default too). Where the list is a constant, a variable or another configuration key, other code may
read it too (and split it on `,`), so the fix is unsafe there (`--unsafe-fixes`). Each run of `,` and blanks
between two addresses becomes one `;`; a list written in several places, or with escapes, is left to you. In
Go the fix splits the element into elements of their own (`"10.0.0.1:9876", "10.0.0.2:9876"`) where it is a string
literal written in the list.
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/orders/OrderProducerFactory.java": _JAVA},
            expect=(("src/main/java/com/example/orders/OrderProducerFactory.java",
                     line_of(_JAVA, "setNamesrvAddr")),),
            note="a constant with a comma-separated list",
        ),
        Example(
            {"src/main/java/com/example/orders/ProxyConfig.java": _JAVA5},
            expect=(("src/main/java/com/example/orders/ProxyConfig.java", line_of(_JAVA5, "setEndpoints")),),
            note="5.x endpoints separated by ', '",
        ),
        Example(
            {"src/main/resources/application.yml": _SPRING_CONFIG},
            expect=(("src/main/resources/application.yml", line_of(_SPRING_CONFIG, "name-server")),),
            note="Spring: rocketmq.name-server separated by a space",
        ),
        Example(
            {"src/main/java/com/example/pay/PayListener.java": _SPRING_LISTENER},
            expect=(("src/main/java/com/example/pay/PayListener.java", line_of(_SPRING_LISTENER, "nameServer")),),
            note="Spring: a listener's nameServer whose placeholder default is comma-separated",
        ),
        Example(
            {"producer.py": _PYTHON2},
            expect=(("producer.py", line_of(_PYTHON2, "set_name_server_address")),),
            note="Python 2.x",
        ),
        Example(
            {"config.py": _PYTHON5},
            expect=(("config.py", line_of(_PYTHON5, "ClientConfiguration(")),),
            note="Python 5.x endpoints",
        ),
        Example(
            {"orders/main.go": _GO},
            expect=(("orders/main.go", line_of(_GO, "10.0.0.1:9876;10.0.0.2:9876")),),
            note="Go: two addresses in one element of the list",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/orders/Clients.java": _JAVA_OK},
            note="';' with a trailing ';'; the environment; an HTTP endpoint",
        ),
        Example({"src/main/resources/application.yml": _SPRING_OK},
                note="an environment variable decides (its default is not used when it is set)"),
        Example({"src/main/java/com/example/pay/PayListener.java": _SPRING_OK_LISTENER},
                note="Spring: a listener's default separated by ';'"),
        Example({"producer.py": _PYTHON_OK}, note="Python: '; ' (the C++ core trims), the environment"),
        Example({"orders/main.go": _GO_ELEMENTS}, note="Go: an element per address"),
    ]

    def looks_at(self, project: Project) -> bool:
        """A name server or endpoint list."""
        return any(c.name_server or c.endpoints for _f, c in project.connections())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, connection in project.connections():
            for setting, what in ((connection.name_server, "name server list"), (connection.endpoints,
                                                                                  "endpoint list")):
                if setting is not None and connection.api == "go":
                    yield from self._check_go(setting)
                elif setting is not None:
                    yield from self._check(project, setting, what)

    def _check_go(self, setting: Setting) -> Iterable[Finding]:
        """rocketmq-client-go takes each element of its list as one address (`NamesrvAddr.Check` at the client's
        creation): `;` in one is refused ("multiple IP addr does not support"), a `,` or a space is dialled as it is."""
        for text in wrong(setting.value, lambda t: bool(go_separator_edits(t))):
            failure = ('the client is not made: NewPushConsumer / NewProducer return "multiple IP addr does not '
                       'support"') if ";" in text else "the client dials that one address and reaches no name server"
            yield self.finding(
                f'name server address "{text}" holds several addresses, but rocketmq-client-go takes each element of '
                f"the list as one address: {failure}; write each address as an element of its own",
                setting.location, fix=_go_fix(setting, text))

    def _check(self, project: Project, setting: Setting, what: str) -> Iterable[Finding]:
        for text in wrong(setting.value, lambda t: wrong_separator(t) is not None):
            separator = wrong_separator(text)
            shown = "a space" if separator == " " else f'"{separator}"'
            failure = (f'sends fail with "connect to [{text}] failed" (before client 4.6.0 "No route info of this '
                       f'topic")' if what.startswith("name") else "nothing is sent or received")
            yield self.finding(
                f'{what} "{text}" is separated by {shown}, but clients split it on ";" only: they read it as one '
                f"malformed address and reach no {'name server' if what.startswith('name') else 'proxy'}: "
                f'{failure}; separate the addresses with ";"',
                setting.location,
                fix=_fix(project, written_literal(setting.value, text), setting.location),
            )


def _fix(project: Project, literal, at: Location) -> Fix | None:
    """The separators replaced by `;` where the list is written (a literal, a constant, a configuration value):
    unsafe where other code may read it too (a constant, a key a placeholder names)."""
    if literal is None:
        return None
    edits = tuple(replace_parts(literal.origin, separator_edits(literal.text)))
    if applicability_at(project, literal.origin, at) == SAFE:
        return Fix('separate the addresses with ";"', edits)
    return Fix(f'separate the addresses with ";" {READ_ELSEWHERE}', edits, UNSAFE)
