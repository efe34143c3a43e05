package org.example.tagcase;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** Tag case drift, consumer side: "Aaaaa" is not "aaaaa" to the broker (hash code) nor to the client (Set.contains). */
public class Consumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("tagcase_consumer");
        consumer.setNamesrvAddr("localhost:9876");
        consumer.subscribe("TagCaseTopic", "Aaaaa");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            msgs.forEach(m -> System.out.println(new String(m.getBody())));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
    }
}
