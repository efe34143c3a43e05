import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.consistenthash.ConsistentHashRouter;
import org.apache.rocketmq.common.consistenthash.Node;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * One thread of the RocketMQ client's allocation classes over the groups benchmarks/strategy_bench.py generates,
 * timed without JMH: best and median of the repeats of wall time, this thread's CPU time and the process's (with the
 * garbage collector's and the JIT compiler's threads).
 *
 * Arguments: the groups file, the generate spec "groups,seed,instLo,instHi,queueLo,queueHi,brokers,collideBelow"
 * (fleet.toml's [generate]; collideBelow = colliding_client_ids in millionths), then runs, each "NAME" or
 * "NAME:repeats".
 *
 * The groups file (UTF-8, written by the Python side with its own generator): a first line with the broker names;
 * then one line per group: group, topic, the topic's queue count on each broker, the client ids of its processes in
 * declaration order. The retry topic %RETRY%group has one queue on each broker. At start this program generates the
 * same groups itself (the port of rmqplan's generator below) and stops unless they are the file's, string for
 * string.
 *
 * Two shapes of the same groups: plain (brokers broker-00, broker-01, ...), and with machine rooms for the
 * MACHINE_ROOM and MACHINE_ROOM_NEARBY runs: broker b is named ROOMS[b % 2] + "@" + its plain name and deployed in
 * that room; a process is deployed in ROOMS[pid % 2], pid being the number after "@" in its client id.
 *
 * Kernel runs (allocation alone: each group's lists are built and sorted before the clock, as RebalanceImpl sorts
 * them before it calls the strategy):
 *   AVG, AVG_BY_CIRCLE, CONSISTENT_HASH_CLASS, MACHINE_ROOM (consumeridcs {hz, sh}), MACHINE_ROOM_NEARBY (delegate
 *     AVG), CONFIG (each process its own list, see configList): the class's allocate() once per process (position i
 *     of cidAll), as every consumer runs it (CONSISTENT_HASH_CLASS builds the ring in each call);
 *   CONSISTENT_HASH: the class's ring (ConsistentHashRouter over the client ids, 10 virtual nodes) built once per
 *     group and each queue of both topics routed once: the least work that gives every process's share;
 *   CONSISTENT_HASH_REBALANCE: the same ring built once per rebalance, as one allocate() call builds it.
 * Engine runs, ENGINE_AVG, ENGINE_AVG_BY_CIRCLE, ENGINE_CONSISTENT_HASH (ring per group): inside the clock, each
 * group generated from the spec (strings, MessageQueues, both lists sorted), allocated as the kernel run does, and
 * its problems counted as rmqplan's tally counts them (orphaned, duplicated, idle, imbalanced queues or processes).
 *
 * Each run prints assignments and a checksum: the wrapping sum of mix(r, broker, queueId, position) over every
 * (process at `position` of the sorted cidAll, queue) pair, r = 2 * group line + (1 for the retry topic); the Python
 * side computes the same from the planner's rows. Engine runs also print the problem totals.
 */
public final class AllocateBench {
    static final String[] ROOMS = {"hz", "sh"};
    static final int VIRTUAL_NODES = 10;

    private static Spec spec;
    private static String[] plainBrokers;
    private static String[] groups;
    private static int[][] queueCounts;
    private static String[][] clientIds;  // declaration order
    private static final Map<Boolean, Shape> SHAPES = new HashMap<>();

    public static void main(String[] args) throws Exception {
        spec = Spec.parse(args[1]);
        load(args[0]);
        System.out.println("loaded " + groups.length + " groups");
        checkGenerator();
        System.out.println("java generator: the file's groups, string for string");
        for (int a = 2; a < args.length; a++) {
            String[] parts = args[a].split(":");
            int repeats = parts.length > 1 ? Integer.parseInt(parts[1]) : 3;
            run(parts[0], repeats);
        }
    }

    // ---------------------------------------------------------------------------------------------- the input

    private static void load(String path) throws Exception {
        List<String> groupList = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        List<String[]> cids = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8), 1 << 20)) {
            plainBrokers = in.readLine().split(" ");
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                int[] c = new int[plainBrokers.length];
                for (int b = 0; b < c.length; b++) {
                    c[b] = Integer.parseInt(f[2 + b]);
                }
                groupList.add(f[0]);
                counts.add(c);
                cids.add(Arrays.copyOfRange(f, 2 + plainBrokers.length, f.length));
            }
        }
        groups = groupList.toArray(new String[0]);
        queueCounts = counts.toArray(new int[0][]);
        clientIds = cids.toArray(new String[0][]);
    }

    private static void checkGenerator() {
        if (groups.length != spec.groups || !Arrays.equals(plainBrokers, spec.brokerNames())) {
            throw new IllegalStateException("the file is not the spec's fleet");
        }
        for (int g = 0; g < groups.length; g++) {
            Generated gg = spec.group(g);
            if (!gg.group.equals(groups[g]) || !Arrays.equals(gg.counts, queueCounts[g])
                    || !Arrays.equals(gg.clientIds, clientIds[g])) {
                throw new IllegalStateException("the generator differs from the file at group " + g);
            }
        }
    }

    /** The groups as the client hands them to the strategy: both topics' sorted queues, the sorted client ids. */
    static final class Shape {
        final String[] brokers;
        final Map<String, String> brokerRoom = new HashMap<>();
        final Map<String, String> clientRoom = new HashMap<>();
        final List<List<MessageQueue>> mqAll = new ArrayList<>();  // 2 per group: topic, retry topic
        final List<List<String>> cidAll = new ArrayList<>();  // 1 per group, sorted

        Shape(boolean rooms) {
            brokers = rooms ? roomBrokers(plainBrokers) : plainBrokers.clone();
            for (int b = 0; b < brokers.length; b++) {
                brokerRoom.put(brokers[b], ROOMS[b % ROOMS.length]);
            }
            for (int g = 0; g < groups.length; g++) {
                mqAll.add(topicQueues(topic(groups[g]), brokers, queueCounts[g]));
                mqAll.add(retryQueues(groups[g], brokers));
                List<String> cids = new ArrayList<>(Arrays.asList(clientIds[g]));
                Collections.sort(cids);
                cidAll.add(cids);
                if (rooms) {
                    for (String cid : cids) {
                        clientRoom.put(cid, clientRoom(cid));
                    }
                }
            }
        }
    }

    static Shape shape(boolean rooms) {
        return SHAPES.computeIfAbsent(rooms, Shape::new);
    }

    static String[] roomBrokers(String[] plain) {
        String[] out = new String[plain.length];
        for (int b = 0; b < plain.length; b++) {
            out[b] = ROOMS[b % ROOMS.length] + "@" + plain[b];
        }
        return out;
    }

    /** ROOMS[pid % 2]: pid is the number between "@" and "#" (or the end) of a generated client id. */
    static String clientRoom(String cid) {
        int at = cid.indexOf('@');
        int hash = cid.indexOf('#', at);
        int pid = Integer.parseInt(cid.substring(at + 1, hash < 0 ? cid.length() : hash));
        return ROOMS[pid % ROOMS.length];
    }

    static String topic(String group) {
        return "TOPIC_" + group.substring(4);
    }

    static List<MessageQueue> topicQueues(String topic, String[] brokers, int[] counts) {
        List<MessageQueue> out = new ArrayList<>();
        for (int b = 0; b < brokers.length; b++) {
            for (int q = 0; q < counts[b]; q++) {
                out.add(new MessageQueue(topic, brokers[b], q));
            }
        }
        Collections.sort(out);
        return out;
    }

    static List<MessageQueue> retryQueues(String group, String[] brokers) {
        List<MessageQueue> out = new ArrayList<>();
        for (String broker : brokers) {
            out.add(new MessageQueue("%RETRY%" + group, broker, 0));
        }
        Collections.sort(out);
        return out;
    }

    /**
     * CONFIG's list of the process at declaration index i of n: the queues of its topic and of its retry topic at
     * sorted positions i, i + n, i + 2n ... (each list holds queues of both topics: in each rebalance some are the
     * other topic's, which the client holds all the same).
     */
    static List<MessageQueue> configList(List<MessageQueue> topic, List<MessageQueue> retry, int i, int n) {
        List<MessageQueue> out = new ArrayList<>();
        for (int j = i; j < topic.size(); j += n) {
            out.add(topic.get(j));
        }
        for (int j = i; j < retry.size(); j += n) {
            out.add(retry.get(j));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ runs

    private static void run(String name, int repeats) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] wall = new double[repeats];
        double[] cpu = new double[repeats];
        double[] process = new double[repeats];
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Work prepared = prepare(name);
        long[] result = null;
        for (int i = 0; i < repeats; i++) {
            long w0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            long p0 = os.getProcessCpuTime();
            long[] got = prepared.run();
            cpu[i] = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
            process[i] = (os.getProcessCpuTime() - p0) / 1e9;
            wall[i] = (System.nanoTime() - w0) / 1e9;
            if (result != null && !Arrays.equals(result, got)) {
                throw new IllegalStateException(name + ": repeats differ");
            }
            result = got;
        }
        double[] w = wall.clone();
        double[] c = cpu.clone();
        double[] p = process.clone();
        Arrays.sort(w);
        Arrays.sort(c);
        Arrays.sort(p);
        StringBuilder all = new StringBuilder();
        for (double x : wall) {
            all.append(all.length() == 0 ? "" : ", ").append(String.format("%.2f", x));
        }
        String totals = result.length > 2 ? String.format(" totals assignments %d orphaned %d duplicated %d idle %d"
            + " imbalanced %d", result[2], result[3], result[4], result[5], result[6]) : "";
        System.out.printf("java %s: assignments %d checksum %016x wall best %.3f median %.3f cpu best %.3f "
                + "median %.3f process cpu best %.3f%s (s; all wall %s)%n", name, result[0], result[1], w[0],
            w[repeats / 2], c[0], c[repeats / 2], p[0], totals, all);
    }

    interface Work {
        long[] run();
    }

    /** What a run times, its input prepared before the clock. */
    private static Work prepare(String name) {
        switch (name) {
            case "AVG":
                return () -> perProcess(shape(false), (g, i) -> AVG);
            case "AVG_BY_CIRCLE":
                return () -> perProcess(shape(false), (g, i) -> CIRCLE);
            case "CONSISTENT_HASH_CLASS":
                AllocateMessageQueueStrategy hash = new AllocateMessageQueueConsistentHash(VIRTUAL_NODES);
                return () -> perProcess(shape(false), (g, i) -> hash);
            case "CONSISTENT_HASH":
                return () -> rings(shape(false), true);
            case "CONSISTENT_HASH_REBALANCE":
                return () -> rings(shape(false), false);
            case "MACHINE_ROOM": {
                AllocateMessageQueueByMachineRoom room = new AllocateMessageQueueByMachineRoom();
                room.setConsumeridcs(new HashSet<>(Arrays.asList(ROOMS)));
                return () -> perProcess(shape(true), (g, i) -> room);
            }
            case "MACHINE_ROOM_NEARBY": {
                Shape s = shape(true);
                AllocateMessageQueueStrategy nearby = new AllocateMachineRoomNearby(AVG, resolver(s));
                return () -> perProcess(s, (g, i) -> nearby);
            }
            case "CONFIG": {
                Shape s = shape(false);
                AllocateMessageQueueStrategy[][] lists = new AllocateMessageQueueStrategy[groups.length][];
                for (int g = 0; g < groups.length; g++) {
                    List<String> cids = s.cidAll.get(g);
                    lists[g] = new AllocateMessageQueueStrategy[cids.size()];
                    Integer[] declared = new Integer[cids.size()];  // declaration index at each sorted position
                    for (int i = 0; i < declared.length; i++) {
                        declared[i] = i;
                    }
                    String[] ids = clientIds[g];
                    Arrays.sort(declared, (x, y) -> ids[x].compareTo(ids[y]));  // stable: equal ids keep their order
                    for (int p = 0; p < cids.size(); p++) {
                        AllocateMessageQueueByConfig config = new AllocateMessageQueueByConfig();
                        config.setMessageQueueList(configList(s.mqAll.get(2 * g), s.mqAll.get(2 * g + 1),
                            declared[p], cids.size()));
                        lists[g][p] = config;
                    }
                }
                return () -> perProcess(s, (g, i) -> lists[g][i]);
            }
            case "ENGINE_AVG":
                return () -> engine(Alloc.AVG);
            case "ENGINE_AVG_BY_CIRCLE":
                return () -> engine(Alloc.CIRCLE);
            case "ENGINE_CONSISTENT_HASH":
                return () -> engine(Alloc.RING);
            default:
                throw new IllegalArgumentException("unknown run " + name);
        }
    }

    static final AllocateMessageQueueStrategy AVG = new AllocateMessageQueueAveragely();
    static final AllocateMessageQueueStrategy CIRCLE = new AllocateMessageQueueAveragelyByCircle();

    static AllocateMachineRoomNearby.MachineRoomResolver resolver(Shape s) {
        return new AllocateMachineRoomNearby.MachineRoomResolver() {
            @Override
            public String brokerDeployIn(MessageQueue mq) {
                return s.brokerRoom.get(mq.getBrokerName());
            }

            @Override
            public String consumerDeployIn(String clientID) {
                return s.clientRoom.get(clientID);
            }
        };
    }

    interface StrategyOf {
        AllocateMessageQueueStrategy of(int group, int position);
    }

    /** allocate() once per process and rebalance, as every consumer calls it. */
    private static long[] perProcess(Shape s, StrategyOf strategies) {
        long count = 0;
        long sum = 0;
        for (int g = 0; g < groups.length; g++) {
            List<String> cids = s.cidAll.get(g);
            for (int t = 0; t < 2; t++) {
                List<MessageQueue> mqs = s.mqAll.get(2 * g + t);
                long r = 2L * g + t;
                for (int p = 0; p < cids.size(); p++) {
                    for (MessageQueue mq : strategies.of(g, p).allocate(groups[g], cids.get(p), mqs, cids)) {
                        sum += mix(r, broker(s.brokers, mq), mq.getQueueId(), p);
                        count++;
                    }
                }
            }
        }
        return new long[] {count, sum};
    }

    /**
     * The ring of AllocateMessageQueueConsistentHash, every queue routed once: built once per group (`perGroup`,
     * for both topics: less than the class ever does) or once per rebalance (what one allocate() call builds).
     */
    private static long[] rings(Shape s, boolean perGroup) {
        long count = 0;
        long sum = 0;
        for (int g = 0; g < groups.length; g++) {
            List<String> cids = s.cidAll.get(g);
            ConsistentHashRouter<Node> router = router(cids);
            for (int t = 0; t < 2; t++) {
                if (t == 1 && !perGroup) {
                    router = router(cids);
                }
                long r = 2L * g + t;
                for (MessageQueue mq : s.mqAll.get(2 * g + t)) {
                    Node owner = router.routeNode(mq.toString());
                    if (owner == null) {
                        continue;
                    }
                    String key = owner.getKey();
                    for (int p = 0; p < cids.size(); p++) {
                        if (key.equals(cids.get(p))) {
                            sum += mix(r, broker(s.brokers, mq), mq.getQueueId(), p);
                            count++;
                        }
                    }
                }
            }
        }
        return new long[] {count, sum};
    }

    static ConsistentHashRouter<Node> router(List<String> cids) {
        List<Node> nodes = new ArrayList<>(cids.size());
        for (String cid : cids) {
            nodes.add(() -> cid);  // the class's ClientNode: getKey() is the client id
        }
        return new ConsistentHashRouter<>(nodes, VIRTUAL_NODES);
    }

    // ----------------------------------------------------------------------------------------------- the engine

    enum Alloc { AVG, CIRCLE, RING }

    /**
     * Each group generated from the spec, its two rebalances allocated (the class per process, or the ring per
     * group) and counted: {assignments, checksum, assignments, orphaned, duplicated, idle, imbalanced}.
     */
    private static long[] engine(Alloc how) {
        String[] brokers = spec.brokerNames();
        long count = 0;
        long sum = 0;
        long[] problems = new long[4];
        AllocateMessageQueueStrategy strategy = how == Alloc.AVG ? AVG : CIRCLE;
        for (int g = 0; g < spec.groups; g++) {
            Generated gg = spec.group(g);
            List<String> cids = new ArrayList<>(Arrays.asList(gg.clientIds));
            Collections.sort(cids);
            int n = cids.size();
            ConsistentHashRouter<Node> router = how == Alloc.RING ? router(cids) : null;
            for (int t = 0; t < 2; t++) {
                List<MessageQueue> mqs = t == 0 ? topicQueues(topic(gg.group), brokers, gg.counts)
                    : retryQueues(gg.group, brokers);
                int m = mqs.size();
                int[] holders = new int[m];
                int[] held = new int[n];
                long r = 2L * g + t;
                int[] start = new int[brokers.length];  // each broker's first queue: brokers sort by name
                for (int b = 1; b < brokers.length; b++) {
                    start[b] = start[b - 1] + (t == 0 ? gg.counts[b - 1] : 1);
                }
                if (how == Alloc.RING) {
                    for (int at = 0; at < m; at++) {
                        MessageQueue mq = mqs.get(at);
                        Node owner = router.routeNode(mq.toString());
                        if (owner == null) {
                            continue;
                        }
                        String key = owner.getKey();
                        for (int p = 0; p < n; p++) {
                            if (key.equals(cids.get(p))) {
                                holders[at]++;
                                held[p]++;
                                sum += mix(r, broker(brokers, mq), mq.getQueueId(), p);
                                count++;
                            }
                        }
                    }
                } else {
                    for (int p = 0; p < n; p++) {
                        for (MessageQueue mq : strategy.allocate(gg.group, cids.get(p), mqs, cids)) {
                            held[p]++;
                            int b = broker(brokers, mq);
                            holders[start[b] + mq.getQueueId()]++;
                            sum += mix(r, b, mq.getQueueId(), p);
                            count++;
                        }
                    }
                }
                count(problems, holders, held, m, t == 1);
            }
        }
        return new long[] {count, sum, count, problems[0], problems[1], problems[2], problems[3]};
    }

    /** rmqplan's tally of one clustering rebalance in which every process subscribes. */
    static void count(long[] problems, int[] holders, int[] held, int m, boolean retry) {
        for (int h : holders) {
            if (h == 0) {
                problems[0]++;
            } else if (h > 1) {
                problems[1]++;
            }
        }
        int n = held.length;
        for (int h : held) {
            if (!retry && h == 0) {
                problems[2]++;
            }
            if (!retry && m > 0 && n >= 2 && h >= 2 && (long) h * n >= 2L * m) {
                problems[3]++;
            }
        }
    }

    // -------------------------------------------------------------------------------- rmqplan's generator, ported

    /** fleet.toml's [generate] (one strategy) and rmqplan.generated.generate's draws. */
    static final class Spec {
        static final long MODULUS = 2147483647L;
        static final int F_INSTANCES = 1;
        static final int F_COLLIDE = 2;
        static final int F_HOST = 4;
        static final int F_PROCESS = 5;
        static final int F_NANOTIME = 6;
        static final int F_QUEUES = 16;
        static final long PROCESS_STEP = 1234567891L;
        static final long NANOTIME_STEP = 987654323L;

        int groups;
        long state;
        int instLo;
        int instHi;
        int queueLo;
        int queueHi;
        int brokers;
        long collideBelow;  // round(colliding_client_ids * 1e6): a group collides when its draw % 1e6 is below

        static Spec parse(String text) {
            String[] f = text.split(",");
            Spec s = new Spec();
            s.groups = Integer.parseInt(f[0]);
            s.state = mix(Math.floorMod(Long.parseLong(f[1]), MODULUS));
            s.instLo = Integer.parseInt(f[2]);
            s.instHi = Integer.parseInt(f[3]);
            s.queueLo = Integer.parseInt(f[4]);
            s.queueHi = Integer.parseInt(f[5]);
            s.brokers = Integer.parseInt(f[6]);
            s.collideBelow = Long.parseLong(f[7]);
            return s;
        }

        static long mix(long x) {
            x = (x * 1103515245L + 12345L) % MODULUS;
            x ^= x >> 16;
            x = (x * 1664525L + 1013904223L) % MODULUS;
            return x ^ (x >> 13);
        }

        long field(long groupState, int f) {
            return mix((groupState + f) % MODULUS);
        }

        String[] brokerNames() {
            int width = Math.max(2, String.valueOf(brokers - 1).length());
            String[] out = new String[brokers];
            for (int b = 0; b < brokers; b++) {
                out[b] = "broker-" + padded(b, width);
            }
            return out;
        }

        Generated group(int g) {
            long gs = mix((state + g) % MODULUS);
            Generated out = new Generated();
            out.group = "GID_" + padded(g, 7);
            int n = instLo + (int) (field(gs, F_INSTANCES) % (instHi - instLo + 1));
            out.counts = new int[brokers];
            for (int b = 0; b < brokers; b++) {
                out.counts[b] = queueLo + (int) (field(gs, F_QUEUES + b) % (queueHi - queueLo + 1));
            }
            out.clientIds = new String[n];
            if (field(gs, F_COLLIDE) % 1000000 < collideBelow) {  // one client id for every process
                Arrays.fill(out.clientIds, "10." + field(gs, F_HOST) % 256 + ".0.1@1");
                return out;
            }
            long a0 = field(gs, F_PROCESS);
            long nano0 = field(gs, F_NANOTIME);
            for (int i = 0; i < n; i++) {
                long a = (a0 + i * PROCESS_STEP) % MODULUS;
                long nano = (nano0 + i * NANOTIME_STEP) % MODULUS;
                out.clientIds[i] = "10." + (a % 256) + "." + (i / 256) + "." + (i % 256) + "@"
                    + (1 + (a >> 8) % 65535) + "#" + nano;
            }
            return out;
        }

        static String padded(int value, int width) {
            String s = Integer.toString(value);
            StringBuilder out = new StringBuilder(width);
            for (int i = s.length(); i < width; i++) {
                out.append('0');
            }
            return out.append(s).toString();
        }
    }

    static final class Generated {
        String group;
        int[] counts;
        String[] clientIds;
    }

    // ------------------------------------------------------------------------------------------------ checksum

    private static int broker(String[] brokers, MessageQueue mq) {
        String name = mq.getBrokerName();
        for (int b = 0; b < brokers.length; b++) {
            if (brokers[b].equals(name)) {
                return b;
            }
        }
        throw new IllegalStateException("unknown broker " + name);
    }

    /** splitmix64's finaliser over (r, broker, queueId, position) packed in 24 + 8 + 16 + 16 bits. */
    static long mix(long r, int broker, int queueId, int position) {
        long x = (((r << 8 | broker) << 16 | queueId) << 16) | position;
        x ^= x >>> 30;
        x *= 0xbf58476d1ce4e5b9L;
        x ^= x >>> 27;
        x *= 0x94d049bb133111ebL;
        x ^= x >>> 31;
        return x;
    }
}
