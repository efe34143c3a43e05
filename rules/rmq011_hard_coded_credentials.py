"""RMQ011: an access key and secret key written as literals in code or committed configuration. The secret is
never printed: at most its first two characters and its length."""

from __future__ import annotations

import re
from typing import Iterable

from rmqlint.facts import Connection, Setting
from rmqlint.findings import Finding, Related
from rmqlint.project import Project
from rmqlint.rules._examples import go_file, line_of
from rmqlint.rules._known import alternatives, known, wrong
from rmqlint.rules.base import Example, Rule

SHOWN_CHARACTERS = 2  # of a secret, and only when it is long enough that two characters give little away
SHOWN_FROM_LENGTH = 8
# Texts that stand for a key rather than being one: "your-secret-key", "<SECRET>", "xxxx", "******", "ACCESS_KEY",
# "eyJrZXlJZC...." (cut short in a sample), "foo-bar-sk".
_DUMMY_WORDS = re.compile(
    r"your|change[-_ ]?me|placeholder|replace|todo|fixme|dummy|example|sample|fake|foo|\.\.\.|…", re.I)
_KEY_NAMES = frozenset({"ak", "sk", "accesskey", "secretkey", "accesssecret", "secret", "key", "password",
                        "accesskeyid", "accesskeysecret", "secretaccesskey"})


def is_dummy(text: str) -> bool:
    """A value that only stands in for credentials (documentation, samples that must be filled in)."""
    value = text.strip()
    if len(set(value)) <= 1:
        return True  # "", "xxxx", "******"
    if (value[0], value[-1]) in (("<", ">"), ("{", "}"), ("[", "]")):
        return True
    if _DUMMY_WORDS.search(value):
        return True
    return re.sub(r"[-_ .]", "", value).lower() in _KEY_NAMES


def _stand_in(access_key: Setting | None) -> bool:
    """An access key written as a stand-in: the pair is a template to fill in, whatever the secret says."""
    if access_key is None:
        return False
    texts = known(access_key.value)
    return bool(texts) and len(texts) == len(alternatives(access_key.value)) and all(is_dummy(t) for t in texts)


def masked(text: str) -> str:
    """How a credential is shown: its length, and its first characters only when it is long."""
    if len(text) >= SHOWN_FROM_LENGTH:
        return f'"{text[:SHOWN_CHARACTERS]}..." ({len(text)} characters)'
    return f"of {len(text)} characters"


_JAVA = """\
package com.example.billing;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class BillingProducer {
    private static final String ACCESS_KEY = "LTAI5tBillingProd";

    public DefaultMQProducer create() {
        return new DefaultMQProducer("billing_producer",
            new AclClientRPCHook(new SessionCredentials(ACCESS_KEY, "q8Zr2Lx0Vn7Kp3Ws9Yt4")));
    }
}
"""

_SPRING_CONFIG = """\
rocketmq:
  name-server: 10.0.0.1:9876
  producer:
    group: pay_producer
    access-key: rocketmq2
    secret-key: 12345678
"""

_SPRING_LISTENER = """\
package com.example.pay;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(topic = "PayTopic", consumerGroup = "pay_consumer",
    accessKey = "payConsumer", secretKey = "${pay.mq.secret:Pa55w0rd!2024}")
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
producer.set_session_credentials("stock-ak", "s3cr3t-stock-key", "ALIYUN")
"""

_PYTHON5 = """\
from rocketmq import ClientConfiguration, Credentials

config = ClientConfiguration("10.0.0.1:8081", Credentials("ledger-ak", "ledger-sk-9f8e7d"))
"""

# --- near misses that must stay quiet ---

_JAVA_OK = """\
package com.example.billing;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

public class BillingProducer {
    public DefaultMQProducer create() {
        SessionCredentials credentials = new SessionCredentials(System.getenv("MQ_AK"), System.getenv("MQ_SK"));
        SessionCredentials template = new SessionCredentials("your-access-key", "<YOUR_SECRET_KEY>");
        return new DefaultMQProducer("billing_producer", new AclClientRPCHook(credentials));
    }
}
"""

_SPRING_OK_CONFIG = """\
rocketmq:
  name-server: 10.0.0.1:9876
  producer:
    group: pay_producer
    access-key: ${MQ_ACCESS_KEY}
    secret-key: ${MQ_SECRET_KEY:}
  consumer:
    access-key: pay-consumer
    secret-key: ""
  pull-consumer:
    # a vendor's sample: the token cut short, the secret is the role to fill in
    access-key: eyJrZXlJZC....
    secret-key: admin
"""

_PYTHON_OK = """\
import os

from rocketmq import ClientConfiguration, Credentials

config = ClientConfiguration("10.0.0.1:8081", Credentials(os.environ["MQ_AK"], os.environ["MQ_SK"]))
anonymous = ClientConfiguration("10.0.0.1:8081", Credentials())
fake = Credentials("foo-bar-ak", "foo-bar-sk")
"""



_GO = go_file("""\
func main() {
	p, _ := rocketmq.NewProducer(
		producer.WithGroupName("order_producer"),
		producer.WithCredentials(primitive.Credentials{
			AccessKey: "LTAI5tQ7orders",
			SecretKey: "x9PqK2mVn4Lr8sT1",
		}),
	)
	_ = p.Start()
}
""")
_GO_ENV = _GO.replace('"LTAI5tQ7orders"', 'os.Getenv("MQ_ACCESS_KEY")').replace(
    '"x9PqK2mVn4Lr8sT1"', 'os.Getenv("MQ_SECRET_KEY")').replace('import (\\n', 'import (\\n\\t"os"\\n')


class HardCodedCredentials(Rule):
    CODE = "RMQ011"
    NAME = "hard-coded-credentials"
    SEVERITY = "error"
    SUMMARY = "An access key and secret key are written as literals in code or committed configuration"
    IN_QUIET_TESTS = True  # a committed secret is leaked wherever it is written
    SHOWS_SOURCE = False  # the lines hold the keys: a code frame would print what the message masks
    DOCS = f"""\
## What it does
Finds ACL credentials whose secret key is written into the repository, once constants and Spring placeholders
are resolved: `new SessionCredentials(accessKey, secretKey)` (also inside `new AclClientRPCHook(..)`), 5.x
`new StaticSessionCredentialsProvider(..)`, Spring `rocketmq.producer.secret-key`, `rocketmq.consumer.*`,
`rocketmq.pull-consumer.*` (and the v5 starter's sections), a listener's `accessKey`/`secretKey`, Python 5.x
`Credentials(ak, sk)` and 2.x `set_session_credentials(ak, sk, channel)`, Go `WithCredentials(primitive.Credentials{{
AccessKey: .., SecretKey: ..}})`. Test sources are checked too (see the
`tests` setting).

A value read from the environment, a placeholder whose value is not in the project, an empty string, and an
obvious stand-in (`your-secret-key`, `<SECRET>`, `xxxx`, `******`, a key cut short with `...`) are not reported,
nor is a secret whose access key is such a stand-in (the pair is a template to fill in).

## Why is this bad?
With ACL enabled, the access key and secret key are all a client needs to produce to and consume from the topics
the account may use: whoever reads the repository (or a build artefact, or a leaked clone) holds them, and they
cannot be taken back without rotating the key on every broker and redeploying every service. The Spring starter
builds its `AclClientRPCHook` from whatever these properties resolve to, so a literal in `application.yml` is as
exposed as one in code.

rmqlint itself never prints a secret: its messages show at most the first {SHOWN_CHARACTERS} characters and the
length, in every output format.

## Example
```java
new AclClientRPCHook(new SessionCredentials("LTAI5tBillingProd", "q8Zr2Lx0Vn7Kp3Ws9Yt4"));
```

## Fix
Read the credentials from the environment or a secret store at run time, and rotate the key that was committed:
```java
new AclClientRPCHook(new SessionCredentials(System.getenv("MQ_ACCESS_KEY"), System.getenv("MQ_SECRET_KEY")));
```
```yaml
rocketmq:
  producer:
    access-key: ${{MQ_ACCESS_KEY}}
    secret-key: ${{MQ_SECRET_KEY}}
```
"""

    INVALID = [
        Example(
            {"src/main/java/com/example/billing/BillingProducer.java": _JAVA},
            expect=(("src/main/java/com/example/billing/BillingProducer.java",
                     line_of(_JAVA, "new SessionCredentials")),),
            note="SessionCredentials inside an AclClientRPCHook, the access key a constant",
        ),
        Example(
            {"src/main/resources/application.yml": _SPRING_CONFIG},
            expect=(("src/main/resources/application.yml", line_of(_SPRING_CONFIG, "secret-key")),),
            note="Spring: rocketmq.producer.secret-key",
        ),
        Example(
            {"src/main/java/com/example/pay/PayListener.java": _SPRING_LISTENER},
            expect=(("src/main/java/com/example/pay/PayListener.java", line_of(_SPRING_LISTENER, "secretKey")),),
            note="Spring: a listener's secretKey placeholder falls back to a literal",
        ),
        Example(
            {"producer.py": _PYTHON2},
            expect=(("producer.py", line_of(_PYTHON2, "set_session_credentials")),),
            note="Python 2.x set_session_credentials",
        ),
        Example(
            {"config.py": _PYTHON5},
            expect=(("config.py", line_of(_PYTHON5, "Credentials(")),),
            note="Python 5.x Credentials",
        ),
        Example(
            {"orders/main.go": _GO},
            expect=(("orders/main.go", line_of(_GO, "SecretKey:")),),
            note="Go: primitive.Credentials with literal keys",
        ),
    ]

    VALID = [
        Example(
            {"src/main/java/com/example/billing/BillingProducer.java": _JAVA_OK},
            note="credentials from the environment; a stand-in to be filled in",
        ),
        Example(
            {"src/main/resources/application.yml": _SPRING_OK_CONFIG},
            note="Spring: environment variables, an empty default, an empty secret, a sample's stand-in access key",
        ),
        Example({"config.py": _PYTHON_OK}, note="Python: the environment, no credentials, a test's fake pair"),
        Example({"orders/main.go": _GO_ENV}, note="Go: the keys from the environment"),
    ]

    def looks_at(self, project: Project) -> bool:
        """Credentials written somewhere."""
        return any(c.access_key or c.secret_key for _f, c in project.connections())

    def check(self, project: Project) -> Iterable[Finding]:
        for _facts, connection in project.connections():
            if connection.secret_key is None or _stand_in(connection.access_key):
                continue
            for secret in wrong(connection.secret_key.value, lambda text: bool(text) and not is_dummy(text)):
                yield self._finding(connection, connection.secret_key, secret)

    def _finding(self, connection: Connection, secret_at: Setting, secret: str) -> Finding:
        parts = [f"secret key {masked(secret)} is written in the repository"]
        related = []
        access = connection.access_key
        if access is not None:
            keys = wrong(access.value, lambda text: bool(text) and not is_dummy(text))
            if len(keys) == 1:
                parts.append(f" with its access key {masked(keys[0])}")
                if access.location != secret_at.location:
                    related.append(Related(access.location, "the access key, written as a literal"))
        parts.append(": anyone who can read the repository can produce and consume with these credentials; read "
                     "them from the environment or a secret store, and rotate the key")
        return self.finding("".join(parts), secret_at.location, related)
