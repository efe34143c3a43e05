import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** RMQ005: consumeThreadMin above the default consumeThreadMax. */
public class MinAboveMax {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq005_min");
        consumer.setConsumeThreadMin(32);
        consumer.subscribe("LiveRmq005", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        try {
            consumer.start();
        } catch (Exception e) {
            Watch.failed("start_failed", e);
            return;
        }
        Watch.serve(consumer);
    }
}
