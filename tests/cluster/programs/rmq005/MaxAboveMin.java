import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/** RMQ005: consumeThreadMax raised above the default consumeThreadMin, for a listener that is slow. */
public class MaxAboveMin {
    public static void main(String[] args) throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq005_max");
        consumer.setConsumeThreadMax(64);
        consumer.subscribe("LiveRmq005", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        DefaultMQProducer producer = new DefaultMQProducer("live_rmq005_producer");
        producer.start();
        Watch.on("send", () -> {
            for (int i = 0; i < 120; i++) {
                producer.send(new Message("LiveRmq005", ("m" + i).getBytes()));
            }
            return 120;
        });
        Watch.on("peak", peak::get);
        Watch.serve(consumer);
    }
}
