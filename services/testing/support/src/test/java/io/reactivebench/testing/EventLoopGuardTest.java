package io.reactivebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard bites at the tests' limit: an event loop that waits beyond the 50 ms limit is reported, with
 * Vert.x set as the services' tests set it (50 ms limit, stack from 50 ms, a check every 10 ms); a busy one is not.
 */
class EventLoopGuardTest {
    private static final long LIMIT_MS = 50;
    /**
     * How long a test's event loop waits: ten times the limit, so that on a busy machine the checker, which samples
     * the stack when it gets to run, still finds the loop inside the wait and not already past it.
     */
    private static final long WAIT_MS = 10 * LIMIT_MS;
    private final List<LogRecord> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Handler everything = new Handler() {
        @Override
        public void publish(LogRecord record) {
            seen.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Vertx vertx;

    @BeforeEach
    void startVertx() {
        System.setProperty("vertx.logger-delegate-factory-class-name", "io.vertx.core.logging.JULLogDelegateFactory");
        Logger.getLogger(EventLoopGuard.CHECKER_LOGGER).addHandler(everything);
        EventLoopGuard.clear();
        VertxOptions options = new VertxOptions()
                .setMaxEventLoopExecuteTime(LIMIT_MS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
                .setWarningExceptionTime(LIMIT_MS).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS);
        new FrequentBlockedThreadChecks().accept(options);
        vertx = Vertx.vertx(options);
    }

    @AfterEach
    void stopVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        Logger.getLogger(EventLoopGuard.CHECKER_LOGGER).removeHandler(everything);
        EventLoopGuard.clear();
    }

    @Test
    void countsAnEventLoopThatSleepsTwiceTheLimit() throws Exception {
        vertx.runOnContext(ignored -> sleep(Duration.ofMillis(WAIT_MS)));
        awaitCheckerReport();
        assertFalse(EventLoopGuard.reports().isEmpty(), "Vert.x reported " + seen.size() + " blocks, the guard counted none");
        assertTrue(EventLoopGuard.reports().get(0).contains("java.lang.Thread.sleep"), EventLoopGuard.reports().get(0));
    }

    @Test
    void countsAnEventLoopThatReadsASocket() throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            vertx.runOnContext(ignored -> {
                try (Socket socket = new Socket("127.0.0.1", server.getLocalPort()); InputStream in = socket.getInputStream()) {
                    socket.setSoTimeout((int) WAIT_MS);
                    in.read(); // nobody writes: it waits until the time-out
                } catch (Exception expected) {
                    // the time-out ends the wait
                }
            });
            awaitCheckerReport();
        }
        assertFalse(EventLoopGuard.reports().isEmpty(), "Vert.x reported " + seen.size() + " blocks, the guard counted none");
    }

    @Test
    void leavesABusyEventLoopBelowTheBusyLimitAlone() throws Exception {
        vertx.runOnContext(ignored -> busyFor(4 * LIMIT_MS)); // busy, as class loading and a first compilation are
        awaitCheckerReport();
        assertEquals(List.of(), EventLoopGuard.reports());
    }

    @Test
    void leavesAWaitForALockHeldByABusyThreadBelowTheBusyLimitAlone() throws Exception {
        var lock = new ReentrantLock();
        var held = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                held.countDown();
                busyFor(4 * LIMIT_MS); // busy, as a first use that builds a Jackson deserializer is
            } finally {
                lock.unlock();
            }
        });
        held.await();
        vertx.runOnContext(ignored -> {
            lock.lock();
            lock.unlock();
        });
        awaitCheckerReport();
        holder.join();
        assertTrue(seen.stream().anyMatch(r -> r.getThrown() != null
                && r.getThrown().getStackTrace()[0].getMethodName().equals("park")), "the event loop was reported parked");
        assertEquals(List.of(), EventLoopGuard.reports());
    }

    @Test
    void countsAnEventLoopThatAwaitsACondition() throws Exception {
        var lock = new ReentrantLock();
        Condition never = lock.newCondition();
        vertx.runOnContext(ignored -> {
            lock.lock();
            try {
                never.await(WAIT_MS, TimeUnit.MILLISECONDS); // a wait for an event, as a blocking call's
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        awaitCheckerReport();
        assertFalse(EventLoopGuard.reports().isEmpty(), "Vert.x reported " + seen.size() + " blocks, the guard counted none");
    }

    @Test
    void countsAnyBlockOfTenSecondsOrMore() {
        assertTrue(EventLoopGuard.counts("Thread Thread[vert.x-eventloop-thread-0] has been blocked for 10200 ms, time limit is 50 ms", null));
        assertFalse(EventLoopGuard.counts("Thread Thread[vert.x-eventloop-thread-0] has been blocked for 1020 ms, time limit is 50 ms", null));
    }

    @Test
    void leavesANonBlockingReadOfNettyAlone() {
        // the stack CI's make test reported: Netty's read of a non-blocking channel, descheduled on a busy machine
        Throwable netty = stack("sun.nio.ch.SocketDispatcher.read0", "sun.nio.ch.SocketDispatcher.read",
                "sun.nio.ch.IOUtil.readIntoNativeBuffer", "sun.nio.ch.IOUtil.read", "sun.nio.ch.IOUtil.read",
                "sun.nio.ch.SocketChannelImpl.implRead", "sun.nio.ch.SocketChannelImpl.read",
                "io.netty.buffer.PooledByteBuf.setBytes", "io.netty.buffer.AbstractByteBuf.writeBytes",
                "io.netty.channel.socket.nio.NioSocketChannel.doReadBytes",
                "io.netty.channel.nio.AbstractNioByteChannel$NioByteUnsafe.read");
        String message = "Thread Thread[vert.x-eventloop-thread-0,5,main] has been blocked for 103 ms, time limit is 50 ms";
        assertFalse(EventLoopGuard.counts(message, netty));
        // the same read made by anything else may be a blocking channel's, and counts
        Throwable blocking = stack("sun.nio.ch.SocketDispatcher.read0", "sun.nio.ch.SocketDispatcher.read",
                "sun.nio.ch.IOUtil.read", "sun.nio.ch.SocketChannelImpl.read", "org.postgresql.core.PGStream.receive");
        assertTrue(EventLoopGuard.counts(message, blocking));
    }

    private static Throwable stack(String... frames) {
        Throwable stack = new Throwable();
        stack.setStackTrace(java.util.Arrays.stream(frames).map(frame -> new StackTraceElement(
                frame.substring(0, frame.lastIndexOf('.')), frame.substring(frame.lastIndexOf('.') + 1), null, -1))
                .toArray(StackTraceElement[]::new));
        return stack;
    }

    /** Waits until Vert.x's checker reported a block (any, counted or not), at most 5 s. */
    private void awaitCheckerReport() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(5);
        while (seen.stream().noneMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue()) && Instant.now().isBefore(deadline)) {
            Thread.sleep(20);
        }
        assertFalse(seen.isEmpty(), "Vert.x's checker reported nothing");
        Thread.sleep(WAIT_MS); // the block is over by now; later reports of it have arrived
    }

    private static void busyFor(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
