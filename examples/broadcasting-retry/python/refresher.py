"""Retries on a broadcasting consumer with the Python 2.x client: a broadcasting consumer that asks for a retry."""

import json

from rocketmq.client import ConsumeStatus, MessageModel, PushConsumer


def on_flag_change(msg):
    try:
        flags = json.loads(msg.body)
    except ValueError:
        return ConsumeStatus.RECONSUME_LATER
    print(flags)
    return ConsumeStatus.CONSUME_SUCCESS


consumer = PushConsumer("broadcast_feature_flags", message_model=MessageModel.BROADCASTING)
consumer.set_name_server_address("localhost:9876")
consumer.subscribe("FlagTopic", on_flag_change)
consumer.start()
