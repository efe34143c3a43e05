package org.example.seed001.spring;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(
    topic = "${seed001.pay.topic}",
    consumerGroup = "seed001_pay_success",
    selectorExpression = "${seed001.pay.tag:paySuccess}")
public class PaySuccessListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String orderId) {
        System.out.println("paid " + orderId);
    }
}
