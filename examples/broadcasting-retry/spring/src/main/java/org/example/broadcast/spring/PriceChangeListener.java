package org.example.broadcast.spring;

import org.apache.rocketmq.spring.annotation.MessageModel;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

/** Every node keeps a local price cache. Throwing asks the container for RECONSUME_LATER: dropped in BROADCASTING. */
@Component
@RocketMQMessageListener(
    topic = "PriceTopic",
    consumerGroup = "broadcast_price_cache",
    messageModel = MessageModel.BROADCASTING,
    maxReconsumeTimes = 3)
public class PriceChangeListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String change) {
        if (change.isBlank()) {
            throw new IllegalArgumentException("unreadable price change, retry");
        }
        System.out.println("price " + change);
    }
}
