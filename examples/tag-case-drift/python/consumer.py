"""A Python 2.x consumer of the Python 5.x producer's topic: the client trims "OrderCreated" but the producer did not."""

from rocketmq.client import ConsumeStatus, PushConsumer

from producer import TOPIC


def on_order(msg):
    print(msg.tags, msg.body)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("tagcase_order_consumer")
consumer.set_name_server_address("localhost:9876")
consumer.subscribe(TOPIC, on_order, "OrderCreated")
consumer.start()
