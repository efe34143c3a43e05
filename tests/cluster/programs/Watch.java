import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * What a program of tests/cluster/programs shows the test that runs it: compiled with each program, never linted.
 * A program builds its clients as user code does (the mistake its rule finds, written out), starts them, then
 * calls `serve`, which answers commands on stdin with one JSON object a line (as tests/cluster/driver does):
 *
 * - `stable N TIMEOUT_MS`: the consumer's queues once its process queue table stayed the same for N rebalance
 *   intervals (`rocketmq.client.rebalance.waitInterval`);
 * - `received`: every delivery the listeners noted so far (`delivered`), in order;
 * - a name given to `on`: runs that action (a send), answers what it returned or threw;
 * - `stop`: shuts the consumer down and exits; so does the end of input.
 */
public final class Watch {
    /** An action a command runs. */
    public interface Action {
        Object run() throws Exception;
    }

    private static final Map<String, Action> ACTIONS = new ConcurrentHashMap<>();
    private static final List<String> DELIVERIES = new ArrayList<>();
    private static final long WAIT = Long.parseLong(System.getProperty("rocketmq.client.rebalance.waitInterval",
        "20000"));

    private Watch() {
    }

    public static void on(String command, Action action) {
        ACTIONS.put(command, action);
    }

    /** Notes one delivery of a message to a listener (with what the listener then did). */
    public static synchronized void delivered(MessageExt msg, String outcome) {
        String offsetMsgId = msg instanceof MessageClientExt ? ((MessageClientExt) msg).getOffsetMsgId() : null;
        DELIVERIES.add("{\"msg_id\":" + quote(msg.getMsgId()) + ",\"offset_msg_id\":" + quote(offsetMsgId)
            + ",\"topic\":" + quote(msg.getTopic()) + ",\"queue_offset\":" + msg.getQueueOffset()
            + ",\"tags\":" + quote(String.valueOf(msg.getTags())) + ",\"body\":"
            + quote(new String(msg.getBody(), StandardCharsets.UTF_8)) + ",\"reconsume_times\":"
            + msg.getReconsumeTimes() + ",\"outcome\":" + quote(outcome) + "}");
    }

    public static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void event(String event, String key, Object value) {
        say("{\"event\":" + quote(event) + ",\"" + key + "\":" + quote(String.valueOf(value)) + "}");
    }

    /** What a failed call threw, as the test reads it. */
    public static void failed(String event, Throwable e) {
        say("{\"event\":" + quote(event) + ",\"error\":" + quote(e.getClass().getName() + ": " + e.getMessage())
            + "}");
    }

    static String quote(String s) {
        if (s == null) {
            return "null";
        }
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

    private static Map<MessageQueue, ?> table(DefaultMQPushConsumer consumer) {
        return consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable();
    }

    private static TreeSet<String> held(DefaultMQPushConsumer consumer) {
        TreeSet<String> out = new TreeSet<>();
        for (MessageQueue mq : table(consumer).keySet()) {
            out.add("[" + quote(mq.getTopic()) + "," + quote(mq.getBrokerName()) + "," + mq.getQueueId() + "]");
        }
        return out;
    }

    private static String clientId(DefaultMQPushConsumer consumer) {
        return consumer.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
    }

    private static String stable(DefaultMQPushConsumer consumer, int rounds, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        TreeSet<String> last = held(consumer);
        long since = System.currentTimeMillis();
        String event = "stable";
        while (System.currentTimeMillis() - since < rounds * WAIT) {
            Thread.sleep(50);
            TreeSet<String> now = held(consumer);
            if (!now.equals(last)) {
                last = now;
                since = System.currentTimeMillis();
            }
            if (System.currentTimeMillis() > deadline) {
                event = "timeout";
                break;
            }
        }
        return "{\"event\":\"" + event + "\",\"client_id\":" + quote(clientId(consumer)) + ",\"queues\":["
            + String.join(",", last) + "]}";
    }

    /** Answers the test's commands about `consumer` (null: a program without one) until `stop`. */
    public static void serve(DefaultMQPushConsumer consumer) throws Exception {
        say("{\"event\":\"started\",\"client_id\":" + quote(consumer == null ? "" : clientId(consumer)) + "}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            if (words[0].equals("stop")) {
                break;
            } else if (words[0].equals("stable")) {
                say(stable(consumer, Integer.parseInt(words[1]), Long.parseLong(words[2])));
            } else if (words[0].equals("received")) {
                synchronized (Watch.class) {
                    say("{\"event\":\"received\",\"deliveries\":[" + String.join(",", DELIVERIES) + "]}");
                }
            } else if (ACTIONS.containsKey(words[0])) {
                try {
                    say("{\"event\":\"done\",\"result\":" + quote(String.valueOf(ACTIONS.get(words[0]).run())) + "}");
                } catch (Exception e) {
                    failed("failed", e);
                }
            } else {
                say("{\"event\":\"error\",\"error\":" + quote("unknown command " + words[0]) + "}");
            }
        }
        if (consumer != null) {
            consumer.shutdown();
        }
        say("{\"event\":\"stopped\"}");
        Runtime.getRuntime().halt(0);
    }
}
