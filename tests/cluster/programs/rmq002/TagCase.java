import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/** RMQ002: the producer tags "aaaaa", the consumer subscribes "Aaaaa". */
public class TagCase {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("live_rmq002_producer");
        producer.start();
        Watch.on("send", () -> producer.send(new Message("LiveRmq002", "aaaaa", "drifted".getBytes())));

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq002");
        consumer.subscribe("LiveRmq002", "Aaaaa");
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
