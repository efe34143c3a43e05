import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/** RMQ010: a message tagged "created||paid", meant for either subscription. */
public class PipeTag {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("live_rmq010_producer");
        producer.start();
        Watch.on("send", () -> producer.send(new Message("LiveRmq010", "created||paid", "both".getBytes())));

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq010");
        consumer.subscribe("LiveRmq010", "created || paid");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                Watch.delivered(msg, "consumed");
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        Watch.serve(consumer);
    }
}
