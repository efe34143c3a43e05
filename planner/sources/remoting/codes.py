"""The numbers of RocketMQ's remoting protocol that rmqplan uses (`RequestCode`, `ResponseCode`, `LanguageCode`,
`MQVersion.Version` in the Java sources): every request here only reads."""

from __future__ import annotations

from typing import Optional

# Requests, with the header fields each takes (extFields).
GET_BROKER_CONFIG = 26  # broker: its configuration as properties text (brokerPermission, brokerName, ...)
GET_ROUTEINFO_BY_TOPIC = 105  # name server: topic, acceptStandardJsonOnly
GET_BROKER_CLUSTER_INFO = 106  # name server: brokers by cluster, with their addresses
GET_ALL_SUBSCRIPTIONGROUP_CONFIG = 201  # broker: the consumer groups it knows
GET_CONSUMER_CONNECTION_LIST = 203  # broker: consumerGroup
GET_ALL_TOPIC_LIST_FROM_NAMESERVER = 206  # name server
GET_CONSUME_STATS = 208  # broker: consumerGroup, topic

REQUEST_NAMES = {
    GET_BROKER_CONFIG: "GET_BROKER_CONFIG",
    GET_ROUTEINFO_BY_TOPIC: "GET_ROUTEINFO_BY_TOPIC",
    GET_BROKER_CLUSTER_INFO: "GET_BROKER_CLUSTER_INFO",
    GET_ALL_SUBSCRIPTIONGROUP_CONFIG: "GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
    GET_CONSUMER_CONNECTION_LIST: "GET_CONSUMER_CONNECTION_LIST",
    GET_ALL_TOPIC_LIST_FROM_NAMESERVER: "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
    GET_CONSUME_STATS: "GET_CONSUME_STATS",
}

# Responses (RemotingSysResponseCode, then ResponseCode).
SUCCESS = 0
SYSTEM_ERROR = 1
NO_PERMISSION = 16
TOPIC_NOT_EXIST = 17
SUBSCRIPTION_GROUP_NOT_EXIST = 26
CONSUMER_NOT_ONLINE = 206
RESPONSE_NAMES = {
    0: "SUCCESS", 1: "SYSTEM_ERROR", 2: "SYSTEM_BUSY", 3: "REQUEST_CODE_NOT_SUPPORTED", 4: "TRANSACTION_FAILED",
    14: "SERVICE_NOT_AVAILABLE", 15: "VERSION_NOT_SUPPORTED", 16: "NO_PERMISSION", 17: "TOPIC_NOT_EXIST",
    24: "SUBSCRIPTION_NOT_EXIST", 26: "SUBSCRIPTION_GROUP_NOT_EXIST", 29: "INVALID_PARAMETER",
    206: "CONSUMER_NOT_ONLINE", 211: "BROKER_NOT_EXIST", 604: "ILLEGAL_OPERATION", 1500: "GO_AWAY",
    3001: "USER_NOT_EXIST", 3002: "POLICY_NOT_EXIST",
}

LANGUAGE_NAMES = {0: "JAVA", 1: "CPP", 2: "DOTNET", 3: "PYTHON", 4: "DELPHI", 5: "ERLANG", 6: "RUBY", 7: "OTHER",
                  8: "HTTP", 9: "GO", 10: "PHP", 11: "OMS", 12: "RUST", 13: "NODE_JS"}


def response_name(code: int) -> str:
    return RESPONSE_NAMES.get(code, f"response code {code}")


def request_name(code: int) -> str:
    return REQUEST_NAMES.get(code, f"request code {code}")


# `MQVersion.Version`: a client reports its release as the ordinal of this enum (a connection's `version`).
# 3.0.0 has sixteen pre-releases; then every release x.y.z is preceded by its SNAPSHOT: 3.0.1-3.0.15,
# 3.1.0-3.2.9, 3.3.1-3.9.9 (no x.y.0 there), 4.0.0-5.9.9; HIGHER_VERSION last.
def _version_names() -> list[str]:
    names = ["V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1", *(f"V3_0_0_BETA{i}" for i in range(1, 6))]
    for i in range(6, 10):
        names += [f"V3_0_0_BETA{i}_SNAPSHOT", f"V3_0_0_BETA{i}"]
    names.append("V3_0_0_FINAL")
    releases = [(3, 0, z) for z in range(1, 16)] + [(3, y, z) for y in (1, 2) for z in range(10)]
    releases += [(3, y, z) for y in range(3, 10) for z in range(1, 10)]
    releases += [(x, y, z) for x in (4, 5) for y in range(10) for z in range(10)]
    for x, y, z in releases:
        names += [f"V{x}_{y}_{z}_SNAPSHOT", f"V{x}_{y}_{z}"]
    return names + ["HIGHER_VERSION"]


VERSION_NAMES = _version_names()
CURRENT_VERSION = VERSION_NAMES.index("V5_3_3")  # the release whose protocol this client follows


def version_name(ordinal: int) -> Optional[str]:
    """`V4_9_8` for the ordinal a client reports; None for a number outside the enum."""
    return VERSION_NAMES[ordinal] if 0 <= ordinal < len(VERSION_NAMES) else None
