"""Tag drift across languages: a Python 5.x producer (rocketmq-clients) tags orders "OrderCreated "."""

from rocketmq import ClientConfiguration, Credentials, Message, Producer

TOPIC = "OrderCreatedTopic"
TAG_CREATED = "OrderCreated "  # a trailing space: producer tags are not trimmed

config = ClientConfiguration("localhost:8081", Credentials())
producer = Producer(config, (TOPIC,))
producer.startup()

msg = Message()
msg.topic = TOPIC
msg.tag = TAG_CREATED
msg.body = b"order 42"
producer.send(msg)
producer.shutdown()
