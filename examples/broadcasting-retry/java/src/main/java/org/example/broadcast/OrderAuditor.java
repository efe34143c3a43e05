package org.example.broadcast;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** Quiet: a CLUSTERING consumer (the default) retries through %RETRY%broadcast_order_auditor, then the DLQ. */
public class OrderAuditor {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("broadcast_order_auditor");
        consumer.setNamesrvAddr("localhost:9876");
        consumer.setMaxReconsumeTimes(5);
        consumer.subscribe("AuditTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            context.setDelayLevelWhenNextConsume(3);
            return msgs.isEmpty() ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS : ConsumeConcurrentlyStatus.RECONSUME_LATER;
        });
        consumer.start();
    }
}
