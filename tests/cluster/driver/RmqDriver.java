import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * One consumer process of the live tests (tests/cluster): a DefaultMQPushConsumer of the client release it is
 * compiled and run against, configured by its arguments (key=value), driven by commands on stdin, answering one
 * JSON object per line on stdout.
 *
 * Arguments: namesrv, group, kind=push|lite_pull|pull (a DefaultMQPushConsumer, DefaultLitePullConsumer or
 * DefaultMQPullConsumer, made and driven by reflection: a release without the class answers start_failed),
 * sub=TOPIC:EXPRESSION (repeatable; a pull consumer registers the topics), model=CLUSTERING|BROADCASTING,
 * strategy=AVG|AVG_BY_CIRCLE|CONSISTENT_HASH|CONFIG|MACHINE_ROOM|MACHINE_ROOM_NEARBY, vnodes, idcs=ROOM,...,
 * nearby=AVG|..., queues=BROKER:ID,... (CONFIG), instance, unit, ip, broker_rooms=BROKER=ROOM,...,
 * client_rooms=IP=ROOM,... (the machine room resolver: a client's room is its client id's IP's),
 * poll_ms (name server poll and heartbeat interval).
 *
 * Commands: `start`; `stable N TIMEOUT_MS` (answers once the process queue table has stayed the same for N
 * rebalance rounds: N calls of the strategy for every subscribed topic since it last changed, or, in broadcasting
 * mode, which calls no strategy, N rebalance intervals; with `perm TOPIC BROKER PERM` after it, only once the
 * client's own route of TOPIC says that permission for that broker, so a route change is known to have reached
 * it); `queues`; `config BROKER:ID,...` (CONFIG's
 * setMessageQueueList on the running consumer); `stop` (shutdown, then exit). End of input stops it too, so the
 * process never outlives the test that started it. A start that fails because the name server or a broker did not
 * answer in time (a RemotingException: the test machine is loaded) is tried again with a new consumer, up to 5
 * times; any other failure is the answer.
 */
public final class RmqDriver {
    private static final Map<String, AtomicLong> CALLS = new ConcurrentHashMap<>();
    private static final Map<String, String> THROWN = new ConcurrentHashMap<>();

    /** Counts the rebalance rounds: every call of the strategy, per topic, including the calls that throw. */
    static final class Counting implements AllocateMessageQueueStrategy {
        final AllocateMessageQueueStrategy inner;

        Counting(AllocateMessageQueueStrategy inner) {
            this.inner = inner;
        }

        @Override
        public List<MessageQueue> allocate(String group, String currentCID, List<MessageQueue> mqAll,
                                           List<String> cidAll) {
            String topic = mqAll.isEmpty() ? "" : mqAll.get(0).getTopic();
            try {
                List<MessageQueue> result = inner.allocate(group, currentCID, mqAll, cidAll);
                THROWN.remove(topic);
                return result;
            } catch (RuntimeException e) {
                THROWN.put(topic, e.getClass().getSimpleName() + ": " + e.getMessage());
                throw e;
            } finally {
                CALLS.computeIfAbsent(topic, t -> new AtomicLong()).incrementAndGet();
            }
        }

        @Override
        public String getName() {
            return inner.getName();
        }
    }

    static final class Rooms implements AllocateMachineRoomNearby.MachineRoomResolver {
        final Map<String, String> brokers;
        final Map<String, String> clients;

        Rooms(Map<String, String> brokers, Map<String, String> clients) {
            this.brokers = brokers;
            this.clients = clients;
        }

        @Override
        public String brokerDeployIn(MessageQueue messageQueue) {
            return brokers.get(messageQueue.getBrokerName());
        }

        @Override
        public String consumerDeployIn(String clientID) {
            return clients.get(clientID.split("@")[0]);
        }
    }

    private final Map<String, List<String>> args;
    private ClientConfig consumer;  // DefaultMQPushConsumer, DefaultLitePullConsumer or DefaultMQPullConsumer
    private AllocateMessageQueueStrategy strategy;
    private final long waitInterval = Long.parseLong(System.getProperty("rocketmq.client.rebalance.waitInterval",
        "20000"));

    private RmqDriver(Map<String, List<String>> args) {
        this.args = args;
    }

    private String arg(String key, String otherwise) {
        List<String> values = args.get(key);
        return values == null ? otherwise : values.get(values.size() - 1);
    }

    private static Map<String, String> table(String text) {
        Map<String, String> out = new HashMap<>();
        if (text != null && !text.isEmpty()) {
            for (String item : text.split(",")) {
                int eq = item.indexOf('=');
                out.put(item.substring(0, eq), item.substring(eq + 1));
            }
        }
        return out;
    }

    private List<MessageQueue> queueList(String text) {
        List<MessageQueue> out = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String item : text.split(",")) {
            int colon = item.lastIndexOf(':');
            String topic = item.substring(0, item.indexOf('/'));
            out.add(new MessageQueue(topic, item.substring(item.indexOf('/') + 1, colon),
                Integer.parseInt(item.substring(colon + 1))));
        }
        return out;
    }

    private AllocateMessageQueueStrategy named(String name) {
        switch (name) {
            case "AVG":
                return new AllocateMessageQueueAveragely();
            case "AVG_BY_CIRCLE":
                return new AllocateMessageQueueAveragelyByCircle();
            case "CONSISTENT_HASH":
                String vnodes = arg("vnodes", null);
                return vnodes == null ? new AllocateMessageQueueConsistentHash()
                    : new AllocateMessageQueueConsistentHash(Integer.parseInt(vnodes));
            case "CONFIG":
                AllocateMessageQueueByConfig byConfig = new AllocateMessageQueueByConfig();
                byConfig.setMessageQueueList(queueList(arg("queues", "")));
                return byConfig;
            case "MACHINE_ROOM":
                AllocateMessageQueueByMachineRoom byRoom = new AllocateMessageQueueByMachineRoom();
                byRoom.setConsumeridcs(new HashSet<>(List.of(arg("idcs", "").split(","))));
                return byRoom;
            case "MACHINE_ROOM_NEARBY":
                return new AllocateMachineRoomNearby(named(arg("nearby", "AVG")),
                    new Rooms(table(arg("broker_rooms", "")), table(arg("client_rooms", ""))));
            default:
                throw new IllegalArgumentException("unknown strategy " + name);
        }
    }

    private static final Map<String, String> KINDS = Map.of(
        "push", "org.apache.rocketmq.client.consumer.DefaultMQPushConsumer",
        "lite_pull", "org.apache.rocketmq.client.consumer.DefaultLitePullConsumer",
        "pull", "org.apache.rocketmq.client.consumer.DefaultMQPullConsumer");

    private String kind() {
        return arg("kind", "push");
    }

    /** target.name(values...), the public method whose parameters take the values (overloads differ by type). */
    private static Object call(Object target, String name, Object... values) throws Exception {
        for (Method m : target.getClass().getMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() != values.length) {
                continue;
            }
            Class<?>[] types = m.getParameterTypes();
            boolean fits = true;
            for (int i = 0; i < values.length; i++) {
                fits &= values[i] == null || types[i].isInstance(values[i]) || types[i].isPrimitive();
            }
            if (fits) {
                return m.invoke(target, values);
            }
        }
        throw new NoSuchMethodException(target.getClass().getName() + "." + name);
    }

    private static Object field(Object target, String name) throws Exception {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                // the superclass may have it
            }
        }
        throw new NoSuchFieldException(target.getClass().getName() + "." + name);
    }

    private Object impl() throws Exception {
        switch (kind()) {
            case "lite_pull":
                return field(consumer, "defaultLitePullConsumerImpl");
            case "pull":
                return field(consumer, "defaultMQPullConsumerImpl");
            default:
                return ((DefaultMQPushConsumer) consumer).getDefaultMQPushConsumerImpl();
        }
    }

    private void configure() throws Exception {
        consumer = (ClientConfig) Class.forName(KINDS.get(kind())).getConstructor(String.class)
            .newInstance(arg("group", null));
        consumer.setNamesrvAddr(arg("namesrv", null));
        Class<?> model = consumer.getClass().getMethod("getMessageModel").getReturnType();
        consumer.getClass().getMethod("setMessageModel", model).invoke(consumer,
            enumValue(model, arg("model", "CLUSTERING")));
        strategy = named(arg("strategy", "AVG"));
        call(consumer, "setAllocateMessageQueueStrategy", new Counting(strategy));
        if (args.containsKey("instance")) {
            consumer.setInstanceName(arg("instance", null));
        }
        if (args.containsKey("unit")) {
            consumer.setUnitName(arg("unit", null));
        }
        if (args.containsKey("ip")) {
            consumer.setClientIP(arg("ip", null));
        }
        int pollMs = Integer.parseInt(arg("poll_ms", "1000"));
        consumer.setPollNameServerInterval(pollMs);
        consumer.setHeartbeatBrokerInterval(pollMs);
        Set<String> registered = new TreeSet<>();
        for (String sub : args.getOrDefault("sub", List.of())) {
            int colon = sub.indexOf(':');
            if (kind().equals("pull")) {
                registered.add(sub.substring(0, colon));
            } else {
                call(consumer, "subscribe", sub.substring(0, colon), sub.substring(colon + 1));
            }
        }
        if (kind().equals("pull")) {
            call(consumer, "setRegisterTopics", registered);
        }
        if (kind().equals("push")) {
            ((DefaultMQPushConsumer) consumer).registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> type, String name) {
        return Enum.valueOf((Class<Enum>) type, name);
    }

    private Map<MessageQueue, ?> table() throws Exception {
        return ((org.apache.rocketmq.client.impl.consumer.RebalanceImpl) field(impl(), "rebalanceImpl"))
            .getProcessQueueTable();
    }

    private Set<String> topics() throws Exception {
        return new TreeSet<>(((org.apache.rocketmq.client.impl.consumer.RebalanceImpl) field(impl(), "rebalanceImpl"))
            .getSubscriptionInner().keySet());
    }

    private Object factory() throws Exception {
        return field(impl(), "mQClientFactory");
    }

    private String clientId() throws Exception {
        Object factory = factory();
        return factory == null ? "" : (String) call(factory, "getClientId");  // "" before start
    }

    /** The permission the client's own route of `topic` gives `broker` (-1: no such broker in it). The route
     * classes moved package in 5.0, so they are read by reflection. */
    private int routePerm(String topic, String broker) throws Exception {
        Object factory = factory();
        if (factory == null) {
            return -1;
        }
        Object route = ((Map<?, ?>) call(factory, "getTopicRouteTable")).get(topic);
        if (route != null) {
            for (Object qd : (List<?>) call(route, "getQueueDatas")) {
                if (broker.equals(call(qd, "getBrokerName"))) {
                    return (Integer) call(qd, "getPerm");
                }
            }
        }
        return -1;
    }

    private boolean broadcasting() {
        return "BROADCASTING".equals(arg("model", "CLUSTERING"));
    }

    private static TreeSet<String> held(Map<MessageQueue, ?> table) {
        TreeSet<String> out = new TreeSet<>();
        for (MessageQueue mq : table.keySet()) {
            out.add(mq.getTopic() + "\t" + mq.getBrokerName() + "\t" + mq.getQueueId());
        }
        return out;
    }

    /** The strategy calls per subscribed topic. A call over an empty mqAll cannot name its topic (Counting keeps it
     * under ""): it counts for the topics whose subscribe info is an empty set (routed, no readable queue). */
    private Map<String, Long> calls() throws Exception {
        Map<String, Long> out = new HashMap<>();
        Map<String, Set<MessageQueue>> info =
            ((org.apache.rocketmq.client.impl.consumer.RebalanceImpl) field(impl(), "rebalanceImpl"))
                .getTopicSubscribeInfoTable();
        for (String topic : topics()) {
            Set<MessageQueue> readable = info.get(topic);
            AtomicLong n = CALLS.get(readable != null && readable.isEmpty() ? "" : topic);
            out.put(topic, n == null ? 0L : n.get());
        }
        return out;
    }

    /** Waits until the table has stayed the same for `rounds` rebalance rounds (or the time is out), counted
     * from when the client's route of `topic` gives `broker` the permission `perm` (when `topic` is not null). */
    private String stable(int rounds, long timeoutMs, String topic, String broker, int perm) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (topic != null && routePerm(topic, broker) != perm) {
            if (System.currentTimeMillis() > deadline) {
                return report("timeout", held(table()), 0);
            }
            Thread.sleep(50);
        }
        TreeSet<String> last = held(table());
        Map<String, Long> since = calls();
        long sinceMs = System.currentTimeMillis();
        while (true) {
            Thread.sleep(50);
            TreeSet<String> now = held(table());
            if (!now.equals(last)) {
                last = now;
                since = calls();
                sinceMs = System.currentTimeMillis();
                continue;
            }
            long seen;
            if (broadcasting()) {
                seen = (System.currentTimeMillis() - sinceMs) / waitInterval;
            } else {
                Map<String, Long> calls = calls();
                seen = Long.MAX_VALUE;
                for (Map.Entry<String, Long> e : calls.entrySet()) {
                    seen = Math.min(seen, e.getValue() - since.getOrDefault(e.getKey(), 0L));
                }
                if (calls.isEmpty()) {
                    seen = 0;
                }
            }
            if (seen >= rounds) {
                return report("stable", now, seen);
            }
            if (System.currentTimeMillis() > deadline) {
                return report("timeout", now, seen);
            }
        }
    }

    private String report(String event, TreeSet<String> held, long rounds) throws Exception {
        StringBuilder out = new StringBuilder();
        out.append("{\"event\":").append(quote(event)).append(",\"client_id\":").append(quote(clientId()))
            .append(",\"rounds\":").append(rounds).append(",\"strategy\":").append(quote(strategy.getName()))
            .append(",\"queues\":[");
        boolean first = true;
        for (String q : held) {
            String[] p = q.split("\t");
            out.append(first ? "" : ",").append("[").append(quote(p[0])).append(",").append(quote(p[1]))
                .append(",").append(p[2]).append("]");
            first = false;
        }
        out.append("],\"thrown\":{");
        first = true;
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(THROWN).entrySet()) {
            out.append(first ? "" : ",").append(quote(e.getKey())).append(":").append(quote(e.getValue()));
            first = false;
        }
        return out.append("}}").toString();
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

    private static boolean transient_(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof org.apache.rocketmq.remoting.exception.RemotingException) {
                return true;
            }
        }
        return false;
    }

    private String start() throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                call(consumer, "start");
                return "{\"event\":\"started\",\"client_id\":" + quote(clientId()) + ",\"attempts\":" + attempt
                    + "}";
            } catch (Exception e) {
                Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                if (attempt < 5 && transient_(cause)) {
                    call(consumer, "shutdown");
                    Thread.sleep(500L * attempt);
                    configure();
                    continue;
                }
                return "{\"event\":\"start_failed\",\"error\":" + quote(cause.getClass().getName() + ": "
                    + cause.getMessage()) + "}";
            }
        }
    }

    private void run() throws Exception {
        try {
            configure();
        } catch (ClassNotFoundException e) {
            say("{\"event\":\"ready\"}");
            say("{\"event\":\"start_failed\",\"error\":" + quote("no class " + e.getMessage()) + "}");
            return;
        }
        say("{\"event\":\"ready\"}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ", 2);
            switch (words[0]) {
                case "start":
                    say(start());
                    break;
                case "stable":
                    String[] p = words[1].split(" ");
                    boolean waitsForPerm = p.length >= 6 && p[2].equals("perm");
                    say(stable(Integer.parseInt(p[0]), Long.parseLong(p[1]), waitsForPerm ? p[3] : null,
                        waitsForPerm ? p[4] : null, waitsForPerm ? Integer.parseInt(p[5]) : 0));
                    break;
                case "queues":
                    say(report("queues", held(table()), 0));
                    break;
                case "config":
                    ((AllocateMessageQueueByConfig) strategy).setMessageQueueList(
                        queueList(words.length > 1 ? words[1] : ""));
                    say("{\"event\":\"configured\"}");
                    break;
                case "stop":
                    stop();
                    return;
                default:
                    say("{\"event\":\"error\",\"error\":" + quote("unknown command " + words[0]) + "}");
            }
        }
        stop();
    }

    private void stop() {
        try {
            call(consumer, "shutdown");
        } catch (Exception e) {
            // exiting anyway
        }
        say("{\"event\":\"stopped\"}");
        System.out.flush();
        Runtime.getRuntime().halt(0);  // the client's non-daemon threads must not keep the process
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] argv) throws Exception {
        Map<String, List<String>> args = new HashMap<>();
        for (String a : argv) {
            int eq = a.indexOf('=');
            args.computeIfAbsent(a.substring(0, eq), k -> new ArrayList<>()).add(a.substring(eq + 1));
        }
        new RmqDriver(args).run();
    }
}
