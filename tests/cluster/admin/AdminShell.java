import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.rocketmq.tools.command.MQAdminStartup;

/**
 * mqadmin for the live tests (tests/cluster): RocketMQ's own MQAdminStartup, run once per command in one JVM.
 * A separate `mqadmin` process per command spends seconds starting and then waiting for Netty's graceful shutdown
 * after it has printed; the output is the same, since the same command classes print it.
 *
 * Each line on stdin is one command, its arguments separated by tabs. The answer is what the command printed on
 * stdout and stderr, then a line `@@end` alone. End of input exits.
 */
public final class AdminShell {
    public static void main(String[] argv) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
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
