package io.reactivebench.testing;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Vert.x reported a blocked event loop (or worker) thread while it ran.
 * Vert.x's BlockedThreadChecker logs a warning for each; this listens on that logger.
 *
 * <p>In the tests an event loop may run 50 ms at a time (%test.quarkus.vertx.max-event-loop-execute-time),
 * checked every 10 ms (FrequentBlockedThreadChecks), with the blocked thread's stack from 50 ms on
 * (warning-exception-time). A report counts when that stack waits (sleeps, parks, waits on a monitor, reads
 * or polls a socket): a blocking call on an event loop, however short. A busy stack counts from 10 s on, as in
 * the end-to-end suite's logs (benchkit/blocked.py): a cold JVM's class loading and first compilation also take
 * an event loop beyond 50 ms without blocking it, and a cold make test here, beside the background's compile,
 * logged 1.0 s in web-api's start-up (TCPServerBase.listen) and the end-to-end stack's start 2.2 s. So
 * does a wait to take a lock (ReentrantLock, as entering a synchronized block, which shows as busy anyway): the
 * holder's work is what it waits for, e.g. another thread building the same Jackson deserializer at first use.
 * And so does a socket read that Netty makes: its channels are non-blocking, so a read returns at once with what
 * has arrived, and a loop caught inside one was not waiting but descheduled (CI's make test caught authors' event
 * loop in Netty's read at 103 ms, on a machine whose two cores the background build kept busy).
 */
public class EventLoopGuard implements BeforeAllCallback, AfterAllCallback {
    public static final String CHECKER_LOGGER = "io.vertx.core.impl.BlockedThreadChecker";

    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();
    private static final Handler LISTENER = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()
                    && counts(String.valueOf(record.getMessage()), record.getThrown())) {
                REPORTS.add(record.getMessage() + (record.getThrown() == null ? ""
                        : "\n    at " + String.join("\n    at ", Arrays.stream(record.getThrown().getStackTrace())
                                .limit(8).map(String::valueOf).toList())));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    // Held, so that the logger (and the listener on it) is not garbage-collected.
    private static final Logger CHECKER = Logger.getLogger(CHECKER_LOGGER);

    static {
        CHECKER.addHandler(LISTENER);
    }

    /** Longer than this, a busy (not waiting) event loop counts too. */
    static final long BUSY_LIMIT_MS = 10_000;
    /** The innermost frames of a thread that waits: sleeping, parked, in Object.wait, reading or polling a socket. */
    private static final List<String> WAITING = List.of("java.lang.Thread.sleep", "jdk.internal.misc.Unsafe.park",
            "java.lang.Object.wait", "sun.nio.ch.Net.poll", "sun.nio.ch.SocketDispatcher.read", "sun.nio.ch.NioSocketImpl.park");
    /** A frame of taking a lock: the wait under it is for the holder's work, not for I/O. */
    private static final List<String> LOCKING = List.of("java.util.concurrent.locks.ReentrantLock.lock",
            "java.util.concurrent.locks.ReentrantReadWriteLock$ReadLock.lock", "java.util.concurrent.locks.ReentrantReadWriteLock$WriteLock.lock");
    /** A caller whose socket reads cannot wait: Netty's NIO channels are always in non-blocking mode. */
    private static final List<String> NON_BLOCKING_READERS = List.of("io.netty.channel.socket.nio.NioSocketChannel",
            "io.netty.channel.nio.AbstractNioByteChannel");
    private static final Pattern BLOCKED_FOR = Pattern.compile("blocked for (\\d+) ms");

    /** Whether a report of Vert.x's checker is a block this guard fails a test for (see the class comment). */
    static boolean counts(String message, Throwable stack) {
        Matcher blocked = BLOCKED_FOR.matcher(message);
        if (blocked.find() && Long.parseLong(blocked.group(1)) >= BUSY_LIMIT_MS) {
            return true;
        }
        if (stack == null || stack.getStackTrace().length == 0) {
            return false;
        }
        StackTraceElement[] frames = stack.getStackTrace();
        return matches(frames[0], WAITING) && Arrays.stream(frames).limit(8).noneMatch(frame -> matches(frame, LOCKING))
                && Arrays.stream(frames).noneMatch(frame -> matches(frame, NON_BLOCKING_READERS));
    }

    private static boolean matches(StackTraceElement frame, List<String> prefixes) {
        String name = frame.getClassName() + "." + frame.getMethodName();
        return prefixes.stream().anyMatch(name::startsWith);
    }

    /** What Vert.x reported since the last {@link #clear()} and counts (see {@link #counts}). */
    public static List<String> reports() {
        return List.copyOf(REPORTS);
    }

    public static void clear() {
        REPORTS.clear();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> reports = reports();
        if (!reports.isEmpty()) {
            throw new AssertionError("Vert.x reported blocked threads during " + context.getDisplayName() + ":\n"
                    + String.join("\n", reports));
        }
    }
}
