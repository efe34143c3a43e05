import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;

/** RMQ013: messages deduplicated by their offset message id (the client hands listeners MessageClientExt); the
 * first attempt at each fails. */
public class OffsetDedup {
    public static void main(String[] args) throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq013");
        consumer.subscribe("LiveRmq013", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                if (!handled.add(((MessageClientExt) msg).getOffsetMsgId())) {
                    Watch.delivered(msg, "skipped as seen");
                    continue;
                }
                if (msg.getReconsumeTimes() == 0) {
                    Watch.delivered(msg, "handled, then failed");
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                Watch.delivered(msg, "handled");
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        Watch.serve(consumer);
    }
}
