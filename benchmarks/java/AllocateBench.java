import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.consistenthash.ConsistentHashRouter;
import org.apache.rocketmq.common.consistenthash.Node;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * One thread of the RocketMQ client's allocation classes over the groups of a file written by
 * benchmarks/strategy_bench.py, timed without JMH: the time to allocate every rebalance (a group's topic and its
 * retry topic) of every group, best and median of the repeats: wall time, this thread's CPU time and the process's
 * (with the garbage collector's and the JIT compiler's threads).
 *
 * Input (UTF-8): a first line with the broker names; then one line per group, fields separated by one space:
 * group, topic, the topic's queue count on each broker, then the client ids of its processes. The retry topic
 * %RETRY%group has one queue on each broker. mqAll and cidAll are sorted before the clock starts, as
 * RebalanceImpl sorts them before it calls the strategy.
 *
 * Runs (arguments after the file, each "NAME" or "NAME:repeats"):
 *   AVG, AVG_BY_CIRCLE, CONSISTENT_HASH_CLASS: the class's allocate() once per process (position i of cidAll),
 *     as every consumer runs it (CONSISTENT_HASH_CLASS builds the ring in each call);
 *   CONSISTENT_HASH: the class's ring (ConsistentHashRouter over the client ids, 10 virtual nodes) built once per
 *     group and each queue of both topics routed once: the least work that gives every process's share;
 *   CONSISTENT_HASH_REBALANCE: the same ring built once per rebalance, as one allocate() call builds it.
 * Each run prints assignments and a checksum: the wrapping sum of mix64(r, broker, queueId, position) over every
 * (process at `position` of the sorted cidAll, queue) pair, r = 2 * group line + (1 for the retry topic); the
 * Python side computes the same from the planner's rows.
 */
public final class AllocateBench {
    private static String[] brokers;
    private static String[] groups;
    private static List<List<MessageQueue>> mqAll;  // 2 per group: topic, retry topic
    private static List<List<String>> cidAll;  // 1 per group

    public static void main(String[] args) throws Exception {
        load(args[0]);
        System.out.println("loaded " + groups.length + " groups");
        for (int a = 1; a < args.length; a++) {
            String[] parts = args[a].split(":");
            int repeats = parts.length > 1 ? Integer.parseInt(parts[1]) : 3;
            run(parts[0], repeats);
        }
    }

    private static void load(String path) throws Exception {
        List<String> groupList = new ArrayList<>();
        mqAll = new ArrayList<>();
        cidAll = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8), 1 << 20)) {
            brokers = in.readLine().split(" ");
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                String group = f[0];
                String topic = f[1];
                List<MessageQueue> main = new ArrayList<>();
                List<MessageQueue> retry = new ArrayList<>();
                for (int b = 0; b < brokers.length; b++) {
                    int count = Integer.parseInt(f[2 + b]);
                    for (int q = 0; q < count; q++) {
                        main.add(new MessageQueue(topic, brokers[b], q));
                    }
                    retry.add(new MessageQueue("%RETRY%" + group, brokers[b], 0));
                }
                List<String> cids = new ArrayList<>(Arrays.asList(f).subList(2 + brokers.length, f.length));
                Collections.sort(main);
                Collections.sort(retry);
                Collections.sort(cids);
                groupList.add(group);
                mqAll.add(main);
                mqAll.add(retry);
                cidAll.add(cids);
            }
        }
        groups = groupList.toArray(new String[0]);
    }

    private static void run(String name, int repeats) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] wall = new double[repeats];
        double[] cpu = new double[repeats];
        double[] process = new double[repeats];
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] result = null;
        for (int i = 0; i < repeats; i++) {
            long w0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            long p0 = os.getProcessCpuTime();
            long[] got = allocateAll(name);
            cpu[i] = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
            process[i] = (os.getProcessCpuTime() - p0) / 1e9;
            wall[i] = (System.nanoTime() - w0) / 1e9;
            if (result != null && (result[0] != got[0] || result[1] != got[1])) {
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
        System.out.printf("java %s: assignments %d checksum %016x wall best %.3f median %.3f cpu best %.3f "
                + "median %.3f process cpu best %.3f (s; all wall %s)%n", name, result[0], result[1], w[0],
            w[repeats / 2], c[0], c[repeats / 2], p[0], all);
    }

    private static long[] allocateAll(String name) {
        switch (name) {
            case "AVG":
                return perProcess(new AllocateMessageQueueAveragely());
            case "AVG_BY_CIRCLE":
                return perProcess(new AllocateMessageQueueAveragelyByCircle());
            case "CONSISTENT_HASH_CLASS":
                return perProcess(new AllocateMessageQueueConsistentHash(10));
            case "CONSISTENT_HASH":
                return rings(10, true);
            case "CONSISTENT_HASH_REBALANCE":
                return rings(10, false);
            default:
                throw new IllegalArgumentException("unknown run " + name);
        }
    }

    /** allocate() once per process and rebalance, as every consumer calls it. */
    private static long[] perProcess(AllocateMessageQueueStrategy strategy) {
        long count = 0;
        long sum = 0;
        for (int g = 0; g < groups.length; g++) {
            List<String> cids = cidAll.get(g);
            for (int t = 0; t < 2; t++) {
                List<MessageQueue> mqs = mqAll.get(2 * g + t);
                long r = 2L * g + t;
                for (int p = 0; p < cids.size(); p++) {
                    for (MessageQueue mq : strategy.allocate(groups[g], cids.get(p), mqs, cids)) {
                        sum += mix(r, broker(mq), mq.getQueueId(), p);
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
    private static long[] rings(int virtualNodes, boolean perGroup) {
        long count = 0;
        long sum = 0;
        for (int g = 0; g < groups.length; g++) {
            List<String> cids = cidAll.get(g);
            List<Node> nodes = new ArrayList<>(cids.size());
            for (String cid : cids) {
                nodes.add(() -> cid);  // the class's ClientNode: getKey() is the client id
            }
            ConsistentHashRouter<Node> router = new ConsistentHashRouter<>(nodes, virtualNodes);
            for (int t = 0; t < 2; t++) {
                if (t == 1 && !perGroup) {
                    router = new ConsistentHashRouter<>(nodes, virtualNodes);
                }
                long r = 2L * g + t;
                for (MessageQueue mq : mqAll.get(2 * g + t)) {
                    Node owner = router.routeNode(mq.toString());
                    if (owner == null) {
                        continue;
                    }
                    String key = owner.getKey();
                    for (int p = 0; p < cids.size(); p++) {
                        if (key.equals(cids.get(p))) {
                            sum += mix(r, broker(mq), mq.getQueueId(), p);
                            count++;
                        }
                    }
                }
            }
        }
        return new long[] {count, sum};
    }

    private static int broker(MessageQueue mq) {
        String name = mq.getBrokerName();
        for (int b = 0; b < brokers.length; b++) {
            if (brokers[b] == name) {  // the loader's own strings
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
