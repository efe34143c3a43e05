package org.example.tagcase.spring;

import org.apache.rocketmq.spring.core.RocketMQTemplate;
import org.springframework.stereotype.Service;

@Service
public class PaymentService {
    private final RocketMQTemplate rocketMQTemplate;

    public PaymentService(RocketMQTemplate rocketMQTemplate) {
        this.rocketMQTemplate = rocketMQTemplate;
    }

    public void paid(String orderId) {
        // destination "topic:tag"
        rocketMQTemplate.convertAndSend("PayTopic:PaySuccess", orderId);
    }
}
