package org.example.broadcast;

import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/** Every instance reloads its local configuration on each change. */
public class ConfigRefresher {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("broadcast_config_refresher");
        consumer.setNamesrvAddr("localhost:9876");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.setMaxReconsumeTimes(10);
        consumer.subscribe("ConfigTopic", "*");
        consumer.registerMessageListener(new MessageListenerConcurrently() {
            @Override
            public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext context) {
                try {
                    reload(msgs);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                } catch (IllegalStateException e) {
                    // "try again later": in BROADCASTING the client logs "drop it" and never retries
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
            }
        });
        consumer.start();
    }

    private static void reload(List<MessageExt> msgs) {
        msgs.forEach(m -> System.out.println(new String(m.getBody())));
    }
}
