"""What code does with a message identity that changes on every retry: which calls use a value as a key to
deduplicate, store or look up messages, and which only show it (logging). Shared by the Java and Python frontends,
which find the identities and the calls they reach (`facts.IdentityUse`).

A retried message is a new copy in `%RETRY%<group>`: a new offset message id, commit log offset and queue offset
(and, for the 5.x clients, a new receipt handle on every delivery). The message id (`getMsgId()`, Python 2.x
`msg.id`, 5.x `message_id`) and the keys stay. Calls are judged by their names, as they read to the developer:
- dedupe: a set, map or cache asked or told about the key (`add`/`contains` on a set, `putIfAbsent`,
  `setIfAbsent`, Redis `setnx`/`sadd`/`sismember`/`exists`, a Bloom filter's `mightContain`);
- store: a record given the value as its id or key (`setMsgId`, `setMessageId`, `msg_id=`), or handed to a
  `save`/`insert`/`persist`/`upsert` call;
- lookup: a `find..By`, `select..By`, `query..By`, `get..By`, `exists..By`, `count..By`, `delete..By` call, or a
  SQL statement executed with it.
The offset message id and the commit log offset name nothing but a stored copy of a message: code that hands one
to any other call (`orderService.markPaid(offsetMsgId)`, `processed(commitLogOffset)`) keeps or looks up by it
("key"), unless the call only shows it: logging, printing, formatting, comparing, converting, a tracing or logging
context (`MDC.put`), or a setter named after the identity itself (`setOffsetMsgId`). The queue offset counts only
in the calls above (it is also an offset to commit, on purpose)."""

from __future__ import annotations

import re

# Collections whose `add`/`put`/`get`/`remove` take a key, by their type's simple name.
KEYED_TYPES = re.compile(r"(?i)(set|map|cache|bloomfilter|bucket)$")
# Methods that ask or tell a store about a key, whatever the receiver.
DEDUPE_METHODS = frozenset({
    "contains", "containsKey", "putIfAbsent", "computeIfAbsent", "setIfAbsent", "setnx", "setNX", "sadd", "sAdd",
    "sismember", "sIsMember", "isMember", "hsetnx", "hSetNX", "exists", "hasKey", "mightContain", "tryAdd",
    "getIfPresent", "add_if_absent",
})
KEYED_METHODS = frozenset({"add", "put", "get", "remove", "set", "setex", "delete", "discard", "__contains__"})
STORE_METHODS = re.compile(r"^(save|insert|persist|store|upsert|create|record)([A-Z_]\w*)?$")
LOOKUP_METHODS = re.compile(r"^(find|select|query|get|exists|count|delete|load|fetch|filter)\w*By\w*$"
                            r"|^(find|select|query|fetch|load)(One|First)?$|^filter$|^execute$|^executemany$")
# A setter or keyword naming a unique id or key: what a record keeps to recognise the message again.
ID_NAMES = re.compile(r"(?i)^(set_?)?(\w*_?)?(msg|message|mq|unique|uniq|biz|business|dedup\w*|idempot\w*|"
                      r"event|record)_?(id|key|no)$")
# RocketMQ's own APIs that take an offset message id on purpose (the admin tools look messages up by it).
ROCKETMQ_LOOKUPS = frozenset({"viewMessage", "queryMessage", "queryMessageByUniqKey", "viewMessageById",
                              "decodeMessageId"})
_OFFSET_NAMES = re.compile(r"(?i)offset|commit_?log")
_KEYWORD_LOOKUPS = frozenset({"get", "get_or_create", "exclude", "exists", "count", "delete"})  # ORM queries


# Calls that only show a value (log, print, format, compare, convert, check) or put it in a logging or tracing
# context: by method name, or by the receiver as written.
_SHOWING_METHODS = re.compile(
    r"^(trace|debug|info|warn|warning|error|fatal|critical|exception|log|print|println|printf|format|append|join|"
    r"concat|equals|equalsIgnoreCase|compareTo|compare|startsWith|endsWith|matches|valueOf|toString|str|repr|"
    r"parseLong|parseInt|hash|hashCode|isEmpty|isBlank|isNotBlank|isNotEmpty|hasText|hasLength|notNull|"
    r"requireNonNull|checkArgument|checkNotNull|assert\w*|setAttribute|setTag|tag|addEvent|set_tag|"
    r"setOffsetMsgId|setCommitLogOffset|setQueueOffset)$")
_SHOWING_RECEIVERS = re.compile(r"(?i)(^|\.)(log|logger|_?logger|mdc|tracer|span|out|err|metrics?|counter|"
                                r"assert\w*|objects|strings|stringutils|string|long|integer|math)$")


def classify(method: str, receiver_type: str = "", keyword: str = "", distinct: bool = False,
             receiver: str = "") -> str | None:
    """"dedupe", "store", "lookup" or "key" for a call `method` (on a receiver declared `receiver_type` and
    written `receiver`, the value passed as `keyword` in Python) that takes a message identity; None when the call
    is not such a use. `distinct`: the identity is the offset message id or the commit log offset, which any call
    but one that only shows it keeps or looks up by ("key")."""
    if method in ROCKETMQ_LOOKUPS:
        return None
    if keyword:
        if _OFFSET_NAMES.search(keyword):
            return None  # stored as what it is: an offset
        if ID_NAMES.match(keyword):
            return "lookup" if LOOKUP_METHODS.match(method) or method in _KEYWORD_LOOKUPS else "store"
        return None
    if method in DEDUPE_METHODS:
        return "dedupe"
    if method in KEYED_METHODS and KEYED_TYPES.search(receiver_type.split("<", 1)[0].rpartition(".")[2] or "-"):
        return "dedupe"
    if method.startswith("set") and not _OFFSET_NAMES.search(method) and ID_NAMES.match(method):
        return "store"
    if STORE_METHODS.match(method):
        return "store"
    if LOOKUP_METHODS.match(method):
        return "lookup"
    if distinct and not _SHOWING_METHODS.match(method) and not _SHOWING_RECEIVERS.search(receiver) \
            and not _OFFSET_NAMES.search(method):
        return "key"
    return None
