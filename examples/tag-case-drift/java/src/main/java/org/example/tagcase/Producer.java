package org.example.tagcase;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

/** Tag case drift, producer side: tags are stored exactly as written. */
public class Producer {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("tagcase_producer");
        producer.setNamesrvAddr("localhost:9876");
        producer.start();
        Message msg = new Message("TagCaseTopic", "aaaaa", "hello".getBytes(StandardCharsets.UTF_8));
        SendResult result = producer.send(msg);
        System.out.printf("%s%n", result);
        producer.shutdown();
    }
}
