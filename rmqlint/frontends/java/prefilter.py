"""Which Java files are worth extracting clients from: a byte search, done before (and instead of) a parse."""

from __future__ import annotations

import re

# Bytes without which a file cannot create or configure a client, send a message or declare a Spring listener.
_USAGE_MARKERS = (b"DefaultMQ", b"DefaultLitePullConsumer", b"TransactionMQProducer", b"RocketMQMessageListener",
                  b"RocketMQTemplate", b"setTag", b"ConsumerBuilder", b"SessionCredentials", b"setNamesrvAddr",
                  b"setEndpoints")
_MESSAGE_CREATION = re.compile(rb"new\s+(?:[\w.]+\.)?Message\b")  # a byte search, not a parse of the source


def may_use_clients(data: bytes) -> bool:
    """Cheap byte-level prefilter: False means parsing the file could yield no client, listener, subscription,
    produced tag or connection setting (only constants and listener classes, which the linker asks for on demand). A file that merely
    imports RocketMQ packages, as most of the RocketMQ source itself does, fails it; so does a file that only
    declares a listener class: it is parsed when a consumer refers to it."""
    return any(marker in data for marker in _USAGE_MARKERS) or bool(_MESSAGE_CREATION.search(data))
