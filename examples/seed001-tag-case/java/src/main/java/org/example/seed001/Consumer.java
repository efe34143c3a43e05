package org.example.seed001;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** Seed 001, consumer side: "Aaaaa" is not "aaaaa" to the broker (hash code) nor to the client (Set.contains). */
public class Consumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("seed001_consumer");
        consumer.setNamesrvAddr("localhost:9876");
        consumer.subscribe("Seed001Topic", "Aaaaa");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            msgs.forEach(m -> System.out.println(new String(m.getBody())));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
