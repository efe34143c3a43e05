"""A fixed instance name with the Python 2.x client (rocketmq-client-python, C++ core).

The C++ core builds the client id as ip@pid#instanceName. In containers on host networking every replica is pid 1
on the same IP, so a fixed instance name makes them all one client id.
"""

import time

from rocketmq.client import ConsumeStatus, PushConsumer


def on_message(msg):
    print(msg.id, msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("instance_python_group")
consumer.set_name_server_address("localhost:9876")
consumer.set_instance_name("XUJIAN_MACBOOK")
consumer.subscribe("TopicTest", on_message)
consumer.start()
while True:
    time.sleep(3600)
