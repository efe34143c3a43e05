package org.example.instancename;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** The fix: a name unique to the replica (or no setInstanceName at all). */
public class FixedConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("fixed_consumer_group");
        consumer.setNamesrvAddr("localhost:9876");
        consumer.setInstanceName("instance-" + System.getenv("HOSTNAME"));
        consumer.subscribe("TopicTest", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
    }
}
