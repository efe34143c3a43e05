package org.example.orders;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

public class OrderEventsConsumer {
    private static final String GROUP = "orders_cg";
    private static final String TOPIC = "OrderEvents";

    public void start() throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(GROUP);
        consumer.setNamesrvAddr(System.getenv("ROCKETMQ_NAMESRV"));
        consumer.subscribe(TOPIC, "created || paid");
        // A name to find this consumer by in the dashboard: every replica now reports the same client id.
        consumer.setInstanceName("orders-node");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            msgs.forEach(msg -> System.out.println(msg.getKeys()));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
