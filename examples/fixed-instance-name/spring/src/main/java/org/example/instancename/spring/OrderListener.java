package org.example.instancename.spring;

import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.stereotype.Component;

/** Every pod of this Deployment runs with hostNetwork: true, so they share the node's IP. */
@Component
@RocketMQMessageListener(
    topic = "OrderTopic",
    consumerGroup = "instance_order_listener",
    instanceName = "${instance.mq.instance-name}")
public class OrderListener implements RocketMQListener<String> {
    @Override
    public void onMessage(String order) {
        System.out.println("order " + order);
    }
}
