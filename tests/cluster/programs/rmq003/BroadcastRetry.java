import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/** RMQ003: a broadcasting consumer that asks for every message again. */
public class BroadcastRetry {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq003");
        consumer.setMessageModel(MessageModel.BROADCASTING);
        consumer.subscribe("LiveRmq003", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                Watch.delivered(msg, "RECONSUME_LATER");
            }
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        });
        consumer.start();
        Watch.serve(consumer);
    }
}
