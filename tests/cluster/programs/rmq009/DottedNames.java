import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/** RMQ009: a group and a topic named with dots. */
public class DottedNames {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live.rmq009.consumer");
        consumer.subscribe("LiveRmq009", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        try {
            consumer.start();
            Watch.event("consumer_started", "group", consumer.getConsumerGroup());
        } catch (Exception e) {
            Watch.failed("consumer_failed", e);
        }
        DefaultMQProducer producer = new DefaultMQProducer("live_rmq009_producer");
        producer.start();
        try {
            Message created = new Message("live.rmq009.created", "created", "hello".getBytes());
            Watch.event("sent", "result", producer.send(created));
        } catch (Exception e) {
            Watch.failed("send_failed", e);
        }
        Watch.serve(null);
    }
}
