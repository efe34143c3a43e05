"""What RocketMQ client and framework releases do by themselves, as read in each release's source: the instance
name a consumer gets when the code sets none, and the consume pool's defaults.

- rocketmq-client (`ClientConfig.changeInstanceNameToPID`): a clustering consumer's `DEFAULT` name becomes the pid
  before 4.9.0, `pid#nanoTime` from 4.9.0 on. `DefaultMQPushConsumer.consumeThreadMax` defaults to 64 up to 4.5.0,
  20 from 4.5.1 on (`consumeThreadMin` is 20 in every release).
- rocketmq-spring-boot-starter (`DefaultRocketMQListenerContainer`, `RocketMQUtil.getInstanceName`): 2.0.0 and
  2.0.1 leave the name alone; 2.0.2 sets `accessKey|secretKey|consumerGroup` (no pid) when access and secret keys
  are configured; 2.0.3 always sets the listener container's bean name
  (`org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>`, n counting the application's
  listeners), the same in every process (fixed in 2.0.4, "consumed twice because of the same instanceName");
  2.0.4 to 2.1.1 set `accessKey|secretKey|consumerGroup|pid` when keys are configured (and leave the name alone
  otherwise); 2.2.0 sets `nameServer@pid`; 2.2.1 and 2.2.2 `nameServer@pid@nanoTime`; from 2.2.3 the
  annotation's `instanceName` (default `DEFAULT`) is passed on.
  The pool: up to 2.2.1 `consumeThreadMax` (default 64) is the maximum and lowers the client's minimum of 20 when
  below it; 2.2.2 and 2.2.3 apply `consumeThreadNumber` (default 20) as both bounds; from 2.3.0 `consumeThreadNumber`
  is the minimum and `consumeThreadMax` the maximum.
- spring-cloud-starter-stream-rocketmq (Spring Cloud Alibaba's binder): up to 2.2.6 and in 2021.1 a consumer gets
  `accessKey|secretKey|topic|pid|pid` when the binder has access and secret keys (the client's default otherwise);
  2.2.7 to 2.2.10 and 2021.0.1.0 to 2021.0.4.0 always `[accessKey|secretKey|]group|pid`; from 2021.0.5.0 (and in
  2022.x, 2023.x) `[accessKey|]group|pid|nanoTime`.
- rocketmq-client-go v2 (`internal.rmqClient.ClientID`, every release from v2.0.0 to v2.1.2 and the commits after):
  the client id is `ip@pid` while the instance name is `DEFAULT` (no nanoTime: the push consumer's start puts
  `pid#nanoTime` in its own copy of the options only, after the client reporting the id was made); `WithInstance(name)`
  gives `ip@name`, and from v2.1.2 `WithUnitName(unit)` appends `@unit`.
A name made of the pid and fixed text is the same in every container (each one's process is pid 1), and one of
fixed text alone is the same in every process: replicas that share an IP then share a client id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

REMOTING_CLIENT = "rocketmq-client"
SPRING_STARTER = "rocketmq-spring-boot-starter"
CLOUD_BINDER = "spring-cloud-starter-stream-rocketmq"
# The configuration keys whose access and secret keys the starter and the binder put in the names they make.
STARTER_KEYS = ("rocketmq.consumer.access-key", "rocketmq.consumer.secret-key")
# rocketmq-spring-boot-starter 2.0.3's instance name: its listener container's bean name, n from 1 in the order the
# application registers its listeners.
STARTER_CONTAINER_NAME = "org.apache.rocketmq.spring.support.DefaultRocketMQListenerContainer_<n>"
BINDER_KEYS = ("spring.cloud.stream.rocketmq.binder.access-key", "spring.cloud.stream.rocketmq.binder.secret-key")
GO_CLIENT = "github.com/apache/rocketmq-client-go/v2"  # the Go module (go.mod) of the remoting client v2


def version_tuple(text: Optional[str]) -> Optional[tuple[int, ...]]:
    """The numeric parts of a release (`2.2.7.RELEASE` -> (2, 2, 7)); None when it does not start with a number."""
    if not text:
        return None
    numbers = re.match(r"\d+(?:\.\d+)*", text.strip())
    return tuple(int(n) for n in numbers.group(0).split(".")) if numbers else None


@dataclass(frozen=True)
class MadeName:
    """An instance name a framework gives a consumer: how it is built, and what follows."""

    pattern: str  # as the framework builds it: "nameServer@pid"
    per_container: bool  # the same in every container (its process is pid 1)
    holds_secret: bool = False  # the secret key is part of it: every broker logs it with the client id

    @property
    def fixed(self) -> bool:
        """Made of fixed text alone (no pid, no time): the same in every process, in containers or not."""
        return self.per_container and "pid" not in self.pattern


def client_default_name(client_version: Optional[str]) -> Optional[MadeName]:
    """The name a clustering consumer whose code sets none runs with; None when the release is not known."""
    version = version_tuple(client_version)
    if version is None:
        return None
    if version < (4, 9, 0):
        return MadeName("pid", per_container=True)
    return MadeName("pid#nanoTime", per_container=False)


def go_default_name() -> MadeName:
    """The name a rocketmq-client-go v2 consumer that sets no instance name reports, in every release: the pid."""
    return MadeName("pid", per_container=True)


def starter_made_name(starter_version: Optional[str], keys: bool) -> Optional[MadeName]:
    """The name rocketmq-spring-boot-starter gives a listener's consumer; None when it leaves the name to the
    annotation or to the client (or its release is not known). `keys`: access and secret keys are configured."""
    version = version_tuple(starter_version)
    if version is None or version < (2, 0, 2) or version >= (2, 2, 3):
        return None
    if version[:3] == (2, 0, 3):
        return MadeName(STARTER_CONTAINER_NAME, per_container=True)
    if version[:3] == (2, 0, 2):
        return MadeName("accessKey|secretKey|consumerGroup", True, True) if keys else None
    if version < (2, 2, 0):
        return MadeName("accessKey|secretKey|consumerGroup|pid", True, True) if keys else None
    if version < (2, 2, 1):
        return MadeName("nameServer@pid", per_container=True)
    return MadeName("nameServer@pid@nanoTime", per_container=False)


def binder_made_name(binder_version: Optional[str], keys: bool) -> Optional[MadeName]:
    """The name Spring Cloud Alibaba's RocketMQ binder gives a consumer; None when it leaves the name to the client
    (or its release is not known)."""
    version = version_tuple(binder_version)
    if version is None:
        return None
    if (2, 2, 7) <= version < (3,) or (2021, 0, 1) <= version < (2021, 0, 5):
        return MadeName(("accessKey|secretKey|" if keys else "") + "group|pid", True, keys)
    if version >= (2021, 0, 5) and version[:2] != (2021, 1):
        return MadeName(("accessKey|" if keys else "") + "group|pid|nanoTime", per_container=False)
    return MadeName("accessKey|secretKey|topic|pid|pid", True, True) if keys else None


def consume_thread_max_default(client_version: Optional[str]) -> int:
    """`DefaultMQPushConsumer.consumeThreadMax` when not set: 64 up to 4.5.0, 20 from 4.5.1 (and when the release is
    not known, the current one)."""
    version = version_tuple(client_version)
    return 64 if version is not None and version < (4, 5, 1) else 20


def starter_pool(starter_version: Optional[str]) -> str:
    """How the starter applies the annotation's pool attributes: "max" (up to 2.2.1: `consumeThreadMax` only),
    "number" (2.2.2, 2.2.3: `consumeThreadNumber` as both bounds), "both" (from 2.3.0, and when not known)."""
    version = version_tuple(starter_version)
    if version is None or version >= (2, 3, 0):
        return "both"
    return "number" if version >= (2, 2, 2) else "max"
