import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/** RMQ004: group live_rmq004 subscribes LiveRmq004Orders here... */
public class OrdersConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq004");
        consumer.subscribe("LiveRmq004Orders", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        consumer.start();
        Watch.serve(consumer);
    }
}
