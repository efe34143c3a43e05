package org.example.tagcase.spring;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

@Component
@RocketMQMessageListener(
    topic = "${tagcase.pay.topic}",
    consumerGroup = "tagcase_pay_success",
    selectorExpression = "${tagcase.pay.tag:paySuccess}")
public class PaySuccessListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String orderId) {
        System.out.println("paid " + orderId);
    }
}
