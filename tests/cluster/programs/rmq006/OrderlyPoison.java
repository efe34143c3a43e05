import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

/** RMQ006: an orderly listener that cannot handle one message, and no maxReconsumeTimes. */
public class OrderlyPoison {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("live_rmq006");
        consumer.subscribe("LiveRmq006", "*");
        consumer.setSuspendCurrentQueueTimeMillis(10);
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
            for (MessageExt msg : msgs) {
                if (new String(msg.getBody()).equals("poison")) {
                    Watch.delivered(msg, "SUSPEND_CURRENT_QUEUE_A_MOMENT");
                    return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                }
                Watch.delivered(msg, "SUCCESS");
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        consumer.start();
        Watch.serve(consumer);
    }
}
