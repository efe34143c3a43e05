"""The plan codes PLAN001..PLAN009: name, severity, one-line summary and the documentation `rmqplan explain CODE`
prints (what it finds, why it loses messages, an example, the fix), as rmqlint's rules document themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

ERROR, WARNING, INFO = "error", "warning", "info"
DOC_HEADINGS = ("## What it finds", "## Why is this bad?", "## Example", "## Fix")


@dataclass(frozen=True)
class PlanCode:
    code: str
    name: str  # kebab-case, like rmqlint's rule names
    severity: str
    summary: str
    docs: str


CODES = (
    PlanCode("PLAN001", "orphaned-queues", ERROR,
             "orphaned queues: readable, but no process of a clustering group holds them", """\
## What it finds
Readable queues of a topic (or of the group's `%RETRY%` topic) that no process of a clustering consumer group
holds after the rebalance.

## Why is this bad?
Every process computes its own share from the sorted queue and client id lists. When two processes report one
client id (a fixed instanceName, pid 1 in containers on an old client), they compute the same share and the
shares of the ids that are not there are taken by nobody. A strategy can also leave queues to nobody by design
(a CONFIG list that does not name them, a machine room without consumers). Messages sent to those queues pile up
unread until the group changes.

## Example
Two processes on 192.168.1.10 with `instance_name = "XUJIAN_MACBOOK"` over 4 queues: both report
`192.168.1.10@XUJIAN_MACBOOK`, both take queues 0 and 1, and queues 2 and 3 are consumed by nobody.

## Fix
Give every process its own client id: leave instanceName unset (clients from 4.9.0 add `pid#nanoTime`), or set it
from something unique per process (the pod name). For a strategy that leaves queues out, list every queue.
"""),
    PlanCode("PLAN002", "duplicated-queues", ERROR,
             "duplicated queues: two or more processes of a clustering group hold them", """\
## What it finds
Readable queues that two or more processes of a clustering consumer group hold at once.

## Why is this bad?
In clustering mode each message should be consumed by one process of the group. Processes that report one client
id compute the same share, and processes running different strategies (a deployment caught half-way) disagree on
the split: either way some queues are pulled by several processes and their messages are consumed twice, with
offsets committed by whoever is last.

## Example
Three pid-1 containers on one host on client 4.5.1 all report `10.0.0.5@1`: each takes queues 0-2 of 8, which are
consumed three times, and queues 3-7 by nobody (PLAN001).

## Fix
Make the client ids unique (no fixed instanceName; a client from 4.9.0 on, which adds a nanoTime to the pid) and
run one strategy in every process of the group.
"""),
    PlanCode("PLAN003", "idle-processes", WARNING,
             "idle processes: they hold no queue of a subscribed topic", """\
## What it finds
Processes that subscribe to a topic but hold none of its queues (retry topics are not counted: they have one queue
per broker).

## Why is this bad?
An idle process costs a JVM and consumes nothing. More processes than queues is the usual cause; a client id
shared with another process or a strategy that throws are others, and then queues go with it (PLAN001, PLAN005).

## Example
Six processes subscribe to a topic with 4 queues: AVG gives queues to four of them and two are idle.

## Fix
Run no more processes than the topic has readable queues, or add queues (`mqadmin updateTopic -r N -w N`).
"""),
    PlanCode("PLAN004", "unreadable-written-queues", ERROR,
             "written queues that no consumer can read (write > read queues, unreadable permission)", """\
## What it finds
Queues producers write to that consumers never read: a topic with more write queues than read queues on a broker,
or a topic or broker whose permission lets producers write but not consumers read.

## Why is this bad?
Producers pick among the write queues and consumers rebalance the read queues. A message sent to a queue id at or
above the read queue count, or to a broker consumers cannot read, is stored and never consumed.

## Example
`read_queues = 4`, `write_queues = 8`: producers send to queues 0-7, consumers read 0-3, and half the messages are
never consumed.

## Fix
Keep write queues at or below read queues; to shrink a topic, lower write_queues first, let the queues drain, then
lower read_queues. Give brokers and topics read permission wherever they take writes.
"""),
    PlanCode("PLAN005", "strategy-fails", ERROR,
             "the strategy throws (e.g. no machine room for a queue or client), so the rebalance fails", """\
## What it finds
Processes whose allocation strategy throws during the rebalance of a topic.

## Why is this bad?
A rebalance that throws keeps what the process held before; at start that is nothing, so its share is consumed
by nobody. MACHINE_ROOM_NEARBY throws for a queue or a client without a machine room; every strategy but CONFIG
throws on a topic that is still routed but has no readable queue (its brokers not readable, or 0 read queues):
the processes keep queues they cannot pull; a strategy of your own may throw for its own reasons.

## Example
`strategy = "MACHINE_ROOM_NEARBY"` over brokers without a `room`: every process's rebalance fails and no queue
is consumed.

## Fix
Give every broker and every process its machine room (`room` on brokers and instances in fleet.toml, what your
MachineRoomResolver returns in the client), or use a strategy that needs none. For a topic without a readable
queue, give its brokers and the topic read permission back (PLAN004 names them) or read queues.
"""),
    PlanCode("PLAN006", "imbalance", WARNING,
             "imbalance: a process holds at least twice its fair share", """\
## What it finds
A process of a clustering group that holds at least 2 queues of a topic and at least twice its fair share (the
topic's readable queues divided by the processes subscribing to it). When the fleet holds the group's backlog
(`rmqplan fleet` reads it from a cluster's consume stats), also a process that holds at least twice its fair share
of the messages behind and more than that share plus one queue's worth (the largest backlog of one queue): the
finding's `weight` is then "backlog".

## Why is this bad?
The overloaded process falls behind while others wait: its queues build a backlog and their messages are late.
CONSISTENT_HASH with few virtual nodes, CONFIG lists and machine rooms with few consumers are the usual causes.

## Example
CONSISTENT_HASH with `virtual_nodes = 1`: each process has one point on the ring, and the process whose arc is
longest takes most of the queues.

## Fix
Use AVG or AVG_BY_CIRCLE, more virtual nodes for CONSISTENT_HASH (the default is 10), or a CONFIG list that
splits evenly (`rmqplan simulate --plan DIR` writes one; `--balance backlog` makes it split the messages behind).
"""),
    PlanCode("PLAN007", "shared-offsets-file", WARNING,
             "broadcasting processes of one group on one host share a client id, hence one local offsets file", """\
## What it finds
Broadcasting consumers of one group on one host that report the same client id.

## Why is this bad?
A broadcasting consumer keeps its offsets in a local file named after its client id and group,
`~/.rocketmq_offsets/<clientId>/<group>/offsets.json`. Processes with one client id on one host share that file,
overwrite each other's progress, and after a restart skip or replay messages.

## Example
Two broadcasting processes on 10.0.0.8 keep the default instance name: both report `10.0.0.8@DEFAULT` and write
one offsets file.

## Fix
Give each process its own instanceName (or its own `rocketmq.client.localOffsetStoreDir`).
"""),
    PlanCode("PLAN008", "unwritten-readable-queues", INFO,
             "readable queues no producer writes to (read > write queues, a read-only broker)", """\
## What it finds
Readable queues that producers do not write to: more read queues than write queues, or a broker or topic that can
be read but not written.

## Why is this bad?
Nothing is lost: consumers drain what the queues hold, then they stay empty, and the processes holding them get
less than their share of the traffic. It is how a topic is shrunk or a broker drained before maintenance, so it is
only a note.

## Example
`broker_perm = { "broker-a" = 4 }` in a scenario: broker-a is read-only, its queues drain and receive nothing new.

## Fix
When the drain is done, lower read_queues to write_queues, or give the broker its write permission back.
"""),
    PlanCode("PLAN009", "clients-disagree", ERROR,
             "processes of a group run different allocation code (Go and Java clients, client releases) and do not "
             "partition the queues", """\
## What it finds
A clustering group whose processes are configured with one strategy but compute it with different code: a Go
service (rocketmq-client-go) and a Java service in one group, as during a rewrite, or Java clients whose releases
implement the strategy differently (MACHINE_ROOM before 4.8.0). Where the codes place a queue on different owners,
the queue is consumed by nobody or twice, although every client id is unique.

## Why is this bad?
Every process computes its own share from the same sorted lists, trusting that the others compute theirs the same
way. rocketmq-client-go's CONSISTENT_HASH builds another ring than Java's (CRC-32 of `i + clientId`, searched
strictly after the queue's hash, against MD5 of `clientId-i`), its MACHINE_ROOM takes its block from all the
queues, its MACHINE_ROOM_NEARBY is AVG: each process is right by its own code and the group as a whole is wrong.
Messages on the orphaned queues pile up; the doubled ones are consumed twice.

## Example
A group with `strategy = "CONSISTENT_HASH"`: 2 Go processes place the 8 queues on rocketmq-client-go's ring, 3 Java
processes on Java's; the rings put most queues on different owners, so some queues are held by a Go process and a
Java process, others by neither.

## Fix
Run one client's code in every process of the group: a strategy whose arithmetic is the same in both clients (AVG
or AVG_BY_CIRCLE, with names that sort alike), or move the group to one client before changing the strategy. During
a rewrite, give the new service its own consumer group and move the subscription over.
"""),
)

BY_CODE = {c.code: c for c in CODES}
SEVERITY = {c.code: c.severity for c in CODES}


def code_named(text: str) -> Optional[PlanCode]:
    """A code by its code (`PLAN001`, any case) or its name (`orphaned-queues`)."""
    wanted = text.strip()
    return BY_CODE.get(wanted.upper()) or next((c for c in CODES if c.name == wanted.lower()), None)
