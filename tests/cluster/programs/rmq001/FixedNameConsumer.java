import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** RMQ001: a fixed instanceName. Every replica on one host reports the client id ip@live-node. */
public class FixedNameConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq001");
        consumer.setInstanceName("live-node");
        consumer.subscribe("LiveRmq001", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
        Watch.serve(consumer);
    }
}
