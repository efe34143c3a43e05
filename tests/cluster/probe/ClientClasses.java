import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A client release's own classes, asked directly (tests/cluster/test_client_classes.py): no broker, no name server.
 * Compiled and run against one release's classpath. Each line on stdin is one question, its fields separated by
 * tabs, strings given as the hex of their UTF-8 bytes (so any character gets through); each answer is one JSON line.
 *
 * - `id KIND INSTANCE UNIT`: the client id a consumer of KIND (push, lite_pull, pull) made with the constructor
 *   taking a group builds (`buildMQClientId`) on IP 10.0.0.1 with that instanceName ("-": the default, replaced as
 *   a clustering consumer's start replaces it) and unitName ("-": none). A KIND the release does not have answers
 *   {"missing": CLASS}.
 * - `allocate STRATEGY PARAM CURRENT CIDS QUEUES`: what the strategy returns to CURRENT, or {"error": ...} when it
 *   throws. CIDS: comma-separated client ids (hex); QUEUES: comma-separated topic/broker/queueId (topic and broker
 *   in hex). PARAM: MACHINE_ROOM's consumer rooms (comma-separated hex), CONSISTENT_HASH's virtual nodes, else "-".
 */
public final class ClientClasses {
    private static final String[] CONSUMERS = {
        "push", "org.apache.rocketmq.client.consumer.DefaultMQPushConsumer",
        "lite_pull", "org.apache.rocketmq.client.consumer.DefaultLitePullConsumer",
        "pull", "org.apache.rocketmq.client.consumer.DefaultMQPullConsumer",
    };

    private static String unhex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private static List<String> unhexList(String text) {
        List<String> out = new ArrayList<>();
        if (!text.isEmpty() && !text.equals("-")) {
            for (String item : text.split(",")) {
                out.add(unhex(item));
            }
        }
        return out;
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static String clientId(String kind, String instance, String unit) throws Exception {
        String className = null;
        for (int i = 0; i < CONSUMERS.length; i += 2) {
            if (CONSUMERS[i].equals(kind)) {
                className = CONSUMERS[i + 1];
            }
        }
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException e) {
            return "{\"missing\":" + quote(className) + "}";
        }
        Constructor<?> make = type.getConstructor(String.class);
        ClientConfig consumer = (ClientConfig) make.newInstance("probe_group");
        consumer.setClientIP("10.0.0.1");
        if (instance.equals("-")) {
            consumer.changeInstanceNameToPID();
        } else {
            consumer.setInstanceName(unhex(instance));
        }
        if (!unit.equals("-")) {
            consumer.setUnitName(unhex(unit));
        }
        return "{\"client_id\":" + quote(consumer.buildMQClientId()) + "}";
    }

    private static AllocateMessageQueueStrategy strategy(String name, String param) {
        switch (name) {
            case "AVG":
                return new AllocateMessageQueueAveragely();
            case "AVG_BY_CIRCLE":
                return new AllocateMessageQueueAveragelyByCircle();
            case "CONSISTENT_HASH":
                return new AllocateMessageQueueConsistentHash(Integer.parseInt(param));
            case "MACHINE_ROOM":
                AllocateMessageQueueByMachineRoom byRoom = new AllocateMessageQueueByMachineRoom();
                byRoom.setConsumeridcs(new HashSet<>(unhexList(param)));
                return byRoom;
            default:
                throw new IllegalArgumentException("unknown strategy " + name);
        }
    }

    private static String allocate(String[] f) {
        AllocateMessageQueueStrategy strategy = strategy(f[1], f[2]);
        List<String> cids = unhexList(f[4]);
        List<MessageQueue> mqs = new ArrayList<>();
        if (!f[5].equals("-")) {
            for (String item : f[5].split(",")) {
                String[] p = item.split("/");
                mqs.add(new MessageQueue(unhex(p[0]), unhex(p[1]), Integer.parseInt(p[2])));
            }
        }
        List<MessageQueue> got;
        try {
            got = strategy.allocate("probe_group", unhex(f[3]), mqs, cids);
        } catch (RuntimeException e) {
            return "{\"error\":" + quote(e.getClass().getSimpleName() + ": " + e.getMessage()) + "}";
        }
        StringBuilder out = new StringBuilder("{\"queues\":[");
        for (int i = 0; i < got.size(); i++) {
            MessageQueue mq = got.get(i);
            out.append(i == 0 ? "" : ",").append("[").append(quote(mq.getTopic())).append(",")
                .append(quote(mq.getBrokerName())).append(",").append(mq.getQueueId()).append("]");
        }
        return out.append("]}").toString();
    }

    public static void main(String[] argv) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            String answer;
            try {
                answer = f[0].equals("id") ? clientId(f[1], f[2], f[3]) : allocate(f);
            } catch (Exception e) {
                answer = "{\"failed\":" + quote(e + " on " + Arrays.toString(f)) + "}";
            }
            System.out.println(answer);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
