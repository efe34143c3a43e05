import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.command.MQAdminStartup;

/**
 * mqadmin for the live tests (tests/cluster): RocketMQ's own MQAdminStartup, run once per command in one JVM.
 * A separate `mqadmin` process per command spends seconds starting and then waiting for Netty's graceful shutdown
 * after it has printed; the output is the same, since the same command classes print it.
 *
 * Each line on stdin is one command, its arguments separated by tabs. The answer is what the command printed on
 * stdout and stderr, then a line `@@end` alone. End of input exits.
 *
 * `@send NAMESRV TOPIC TAG BODY BROKER QUEUE_ID` sends one message with a producer of this shell (mqadmin's
 * sendMessage shuts its producer down after one send, and its command object is made once per JVM): the tests'
 * own control messages, which rmqlint never reads. It answers `SEND_OK MSG_ID`, or the exception.
 */
public final class AdminShell {
    private static DefaultMQProducer producer;

    private static String send(String[] f) {
        try {
            if (producer == null) {
                producer = new DefaultMQProducer("live_test_sender");
                producer.setNamesrvAddr(f[1]);
                producer.start();
            }
            Message msg = new Message(f[2], f[3], f[4].getBytes("UTF-8"));
            SendResult result = producer.send(msg, new MessageQueue(f[2], f[5], Integer.parseInt(f[6])));
            return result.getSendStatus() + " " + result.getMsgId() + "\n";
        } catch (Exception e) {
            return e + "\n";
        }
    }

    public static void main(String[] argv) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("@send\t")) {
                out.print(send(line.split("\t", -1)));
                out.println("@@end");
                out.flush();
                continue;
            }
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            PrintStream captured = new PrintStream(buffer, true, "UTF-8");
            System.setOut(captured);
            System.setErr(captured);
            try {
                MQAdminStartup.main0(line.split("\t"), null);
            } catch (Throwable e) {
                e.printStackTrace(captured);
            } finally {
                captured.flush();
                System.setOut(out);
                System.setErr(err);
            }
            out.print(buffer.toString("UTF-8"));
            out.println("@@end");
            out.flush();
        }
        Runtime.getRuntime().halt(0);
    }
}
