"""What the rules need to know about a client beyond its raw facts: is it a consumer, which message model it runs,
and which group it belongs to.

Every answer is certain or None: a rule that gets None stays quiet.
"""

from __future__ import annotations

from rmqlint.facts import ClientFact, Setting
from rmqlint.values import Lit, literal_texts

CLUSTERING = "CLUSTERING"
BROADCASTING = "BROADCASTING"

# Consumers whose queues the client splits by itself (RebalanceImpl): the ones a client id collision breaks.
# A plain pull consumer only rebalances topics registered for MQPullConsumerScheduleService, and 5.x simple
# consumers get their messages assigned by the proxy, so neither is part of RMQ001.
REBALANCING_ROLES = frozenset({"push_consumer", "lite_pull_consumer"})

CONSUMER_ROLES = frozenset({"push_consumer", "lite_pull_consumer", "pull_consumer", "simple_consumer"})

# The gRPC clients of rocketmq-clients (and their Spring starter): a proxy hands out messages (POP), so neither the
# client's rebalance nor its thread pool or retry settings are those of the remoting client.
GRPC_APIS = frozenset({"java5", "spring5-listener", "python5"})


def is_consumer(client: ClientFact) -> bool:
    return client.role in CONSUMER_ROLES


def message_model(client: ClientFact) -> str | None:
    """CLUSTERING or BROADCASTING when certain, else None.

    An absent setting is the client default, CLUSTERING (Java, Spring, and the C++ core under Python 2.x).
    Frontends give the enum constant's name; a qualified name (`MessageModel.BROADCASTING`) or another case is
    accepted too. Anything else (a Dynamic value, an unknown constant, one of both models) is unknown.
    """
    if client.message_model is None:
        return CLUSTERING
    texts = literal_texts(client.message_model.value)
    if texts is None:
        return None
    names = {text.strip().rsplit(".", 1)[-1].upper() for text in texts}
    name = names.pop() if len(names) == 1 else None
    return name if name in (CLUSTERING, BROADCASTING) else None


def lit_text(setting: Setting | None) -> str | None:
    """The exact text of a setting whose value is resolved, else None (absent or dynamic)."""
    if setting is not None and isinstance(setting.value, Lit):
        return setting.value.text
    return None


def describe_group(client: ClientFact) -> str:
    """`group "g"` when the group is known, else the client's name, for messages."""
    group = lit_text(client.group)
    if group is not None:
        return f'group "{group}"'
    if client.name:
        return f"{client.name} (group not resolved)"
    return "(group not resolved)"
