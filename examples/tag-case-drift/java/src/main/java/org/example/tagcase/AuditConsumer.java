package org.example.tagcase;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** Near misses that stay quiet: the exact tag (spaces around a subscribed tag are trimmed) and a SQL92 selector. */
public class AuditConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer exact = new DefaultMQPushConsumer("tagcase_exact");
        exact.subscribe("TagCaseTopic", " aaaaa || bbbbb");
        exact.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        exact.start();

        DefaultMQPushConsumer sql = new DefaultMQPushConsumer("tagcase_sql");
        sql.subscribe("TagCaseTopic", MessageSelector.bySql("TAGS IS NOT NULL AND TAGS = 'Aaaaa'"));
        sql.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        sql.start();
    }
}
