import java.util.ArrayList;
import java.util.List;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/** RMQ007: a batch listener that fails the whole batch for one bad message, without an ackIndex. */
public class BatchRetry {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("live_rmq007_producer");
        producer.start();
        List<Message> batch = new ArrayList<>();
        for (String body : new String[] {"ok-1", "ok-2", "ok-3", "ok-4", "bad"}) {
            batch.add(new Message("LiveRmq007", body.getBytes()));
        }
        producer.send(batch);  // stored before the consumer starts: its first pull takes the five at once

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq007");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeMessageBatchMaxSize(10);
        consumer.subscribe("LiveRmq007", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            boolean bad = false;
            for (MessageExt msg : msgs) {
                bad |= new String(msg.getBody()).equals("bad");
            }
            for (MessageExt msg : msgs) {
                Watch.delivered(msg, (bad ? "RECONSUME_LATER" : "CONSUME_SUCCESS") + " in a batch of " + msgs.size());
            }
            return bad ? ConsumeConcurrentlyStatus.RECONSUME_LATER : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        Watch.serve(consumer);
    }
}
