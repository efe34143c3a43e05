"""The fleets the live tests run (tests/cluster/test_predictions.py) and test_recorded.py replays from the
outputs recorded from them: per group, its code and its processes (each a dict of driver settings)."""

from __future__ import annotations

from tests.cluster.fleets import GroupCode

TOPIC = "LiveOrders"  # 8 queues on broker-a, 4 on broker-b
OTHER = "LiveAudit"  # 2 queues on broker-a only

# group -> (its code, the processes: each a dict of driver settings)
BASELINE = {
    "live_avg": (GroupCode("live_avg", {TOPIC: "*"}, client="4.9.8"), [{}, {}, {}]),
    "live_circle": (GroupCode("live_circle", {TOPIC: "*"}, client="5.3.3", strategy="AVG_BY_CIRCLE"), [{}] * 3),
    "live_hash": (GroupCode("live_hash", {TOPIC: "*", OTHER: "*"}, client="4.9.3", strategy="CONSISTENT_HASH",
                            virtual_nodes=16), [{}] * 3),
    "live_fixed": (GroupCode("live_fixed", {TOPIC: "*"}, client="4.9.8", instance_name="orders-node"),
                   [{"instance": "orders-node"}] * 2 + [{"instance": "orders-node", "ip": "127.0.0.2"}]),
    "live_pid1": (GroupCode("live_pid1", {TOPIC: "*"}, client="4.5.1"), [{"pid_namespace": True}] * 3),
    "live_unit": (GroupCode("live_unit", {OTHER: "*"}, client="4.9.8", instance_name="unit-node",
                            unit_name="blue"), [{"instance": "unit-node", "unit": "blue"}] * 2),
    "live_broadcast": (GroupCode("live_broadcast", {TOPIC: "*"}, client="4.9.8", model="BROADCASTING"),
                       [{}] * 2),
    # lite pull consumers: no retry topic, and from 4.9.4 on a client id that ends with @STREAM
    "live_lite": (GroupCode("live_lite", {TOPIC: "*"}, client="4.9.8", kind="lite_pull"), [{"kind": "lite_pull"}] * 2),
    "live_lite_old": (GroupCode("live_lite_old", {OTHER: "*"}, client="4.9.3", kind="lite_pull"),
                      [{"kind": "lite_pull"}] * 2),
}

# The strategies that allocate from data given at run time (rmqplan fleet leaves their groups out: the test
# writes them into the fleet from the same consumerConnection outputs). ROOM_BROKER's name carries its room,
# as AllocateMessageQueueByMachineRoom reads it; AllocateMachineRoomNearby asks a resolver (the driver's:
# brokers and client IPs to rooms, as below).
ROOM_TOPIC = "LiveRooms"  # 4 queues on broker-a, 4 on ROOM_BROKER
ROOM_BROKER = "hz@broker-r"
BROKER_ROOMS = {"broker-a": "sh", ROOM_BROKER: "hz"}
CLIENT_ROOMS = {"127.0.0.1": "hz", "127.0.0.2": "sh"}
CONFIG_LISTS = [[[ROOM_TOPIC, "broker-a", 0], [ROOM_TOPIC, "broker-a", 1]],
                [[ROOM_TOPIC, "broker-a", 1], [ROOM_TOPIC, ROOM_BROKER, 3]]]
RUN_TIME = {
    "live_config": (GroupCode("live_config", {ROOM_TOPIC: "*"}, client="4.9.8", strategy="CONFIG"),
                    [{"ip": "127.0.0.1", "instance": "c1", "queues": CONFIG_LISTS[0]},
                     {"ip": "127.0.0.1", "instance": "c2", "queues": CONFIG_LISTS[1]}]),
    "live_room": (GroupCode("live_room", {ROOM_TOPIC: "*"}, client="4.9.3", strategy="MACHINE_ROOM"),
                  [{"ip": "127.0.0.1", "idcs": "hz"}] * 3),
    "live_nearby": (GroupCode("live_nearby", {ROOM_TOPIC: "*"}, client="5.3.3", strategy="MACHINE_ROOM_NEARBY"),
                    [{"ip": "127.0.0.1"}, {"ip": "127.0.0.1"}, {"ip": "127.0.0.2"}]),
}
