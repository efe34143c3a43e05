import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/** RMQ008: two name servers separated by a comma (LiveCluster.java is written by the test: its address). */
public class CommaNamesrv {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq008");
        consumer.setNamesrvAddr(LiveCluster.NAMESRV + "," + LiveCluster.NAMESRV);
        consumer.subscribe("LiveRmq008", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
            ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        try {
            consumer.start();
            Watch.event("consumer_started", "group", "live_rmq008");
        } catch (Exception e) {
            Watch.failed("consumer_failed", e);
        }

        DefaultMQProducer producer = new DefaultMQProducer("live_rmq008_producer");
        producer.setNamesrvAddr(LiveCluster.NAMESRV + "," + LiveCluster.NAMESRV);
        producer.setSendMsgTimeout(2000);
        producer.start();
        Watch.on("send", () -> producer.send(new Message("LiveRmq008", "hello".getBytes())));
        Watch.serve(null);
    }
}
