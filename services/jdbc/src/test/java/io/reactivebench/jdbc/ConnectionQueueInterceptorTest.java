package io.reactivebench.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

/**
 * The queue as the services meet it: every transaction through {@link ConnectionQueueInterceptor}, on a real Agroal
 * pool and a real PostgreSQL, beside a borrower outside any transaction: the readiness check. Borrowing straight from
 * Agroal, as Quarkus' own check does, it can park just as a transaction returns the only free connection, and a
 * transaction arriving then sees it parked and sleeps beside that idle connection for up to a second (Agroal 3.2.1,
 * AgroalHandOffTest). Borrowing in the queue ({@link QueuedDataSourceHealthCheck}, what the services run), nothing
 * waits inside Agroal. Under a plain load, transactions all run beside the check and every place comes back.
 */
class ConnectionQueueInterceptorTest {
    private static final Duration AGROAL_TIMEOUT = Duration.ofSeconds(3);

    @Test
    void transactionsInTurnBesideAHealthCheckOutsideAnyTransactionNeverWaitAgroalsTimeOut() throws Exception {
        int connections = 3;
        int callers = 40;
        int transactionsEach = 100;
        try (AgroalDataSource pool = Pools.pool(connections, AGROAL_TIMEOUT, new Pools.Parks())) {
            var queue = new ConnectionQueue(connections, Duration.ofSeconds(30));
            var interceptor = new ConnectionQueueInterceptor(queue, noTransaction());
            var longestNanos = new AtomicLong();
            var done = new AtomicInteger();
            var checks = new AtomicInteger();
            var running = new AtomicBoolean(true);
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<?> health = threads.submit(() -> {
                    while (running.get()) { // the readiness check: a connection outside any transaction
                        try (Connection connection = pool.getConnection()) {
                            if (connection.isValid(1)) {
                                checks.incrementAndGet();
                            }
                        }
                        Thread.sleep(5);
                    }
                    return null;
                });
                List<Future<?>> all = new ArrayList<>();
                for (int caller = 0; caller < callers; caller++) {
                    all.add(threads.submit(() -> {
                        for (int i = 0; i < transactionsEach; i++) {
                            long start = System.nanoTime();
                            interceptor.inTurn(invocation(() -> transaction(pool)));
                            longestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                            done.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> caller : all) {
                    caller.get();
                }
                running.set(false);
                health.get();
            }
            Duration longest = Duration.ofNanos(longestNanos.get());
            assertEquals(callers * transactionsEach, done.get(), "every transaction ran");
            assertTrue(checks.get() > 0, "the health check got its connections beside them");
            // A caller asleep in Agroal sleeps its whole time-out (3 s here); a wait behind the health check is one
            // transaction's time. Half the time-out leaves a slow machine its headroom and still tells them apart.
            assertTrue(longest.compareTo(AGROAL_TIMEOUT.dividedBy(2)) < 0,
                    "the longest transaction took " + longest.toMillis() + " ms: a caller slept in Agroal");
            assertEquals(0, queue.taken(), "every place given back");
            assertEquals(0, queue.waiting());
        }
    }

    @Test
    void behindQuarkusOwnHealthCheckATransactionParksBesideTheIdleConnection() throws Exception {
        var parks = new Pools.Parks();
        try (AgroalDataSource pool = Pools.pool(1, Duration.ofSeconds(30), parks);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var queue = new ConnectionQueue(1, Duration.ofSeconds(30));
            var interceptor = new ConnectionQueueInterceptor(queue, noTransaction());
            var held = new CountDownLatch(1);
            var done = new CountDownLatch(1);
            var connection = new AtomicReference<Connection>();
            Future<?> first = threads.submit(() -> interceptor.inTurn(invocation(() -> {
                connection.set(pool.getConnection());
                held.countDown();
                done.await(); // its connection is closed for it, just as the check parks
                return null;
            })));
            held.await();
            parks.onFirst.set(() -> {
                Pools.close(connection.get());
                done.countDown();
            });
            // Quarkus' check: a connection straight from Agroal, which parks while the transaction holds the only one
            Future<Boolean> check = threads.submit(() -> {
                try (Connection borrowed = pool.getConnection()) {
                    return borrowed.isValid(1);
                }
            });
            first.get();
            Pools.await(() -> pool.getMetrics().awaitingCount() == 1, "the health check did not park in Agroal");

            long start = System.nanoTime();
            interceptor.inTurn(invocation(() -> transaction(pool))); // sees the check parked, and parks too
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(waited.toMillis() >= 800, "a transaction in turn still slept in Agroal: " + waited.toMillis() + " ms");
            assertTrue(check.get());
        }
    }

    @Test
    void withTheQueuedHealthCheckNothingWaitsInsideAgroal() throws Exception {
        var parks = new Pools.Parks();
        try (AgroalDataSource pool = Pools.pool(1, Duration.ofSeconds(30), parks);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var queue = new ConnectionQueue(1, Duration.ofSeconds(30));
            var interceptor = new ConnectionQueueInterceptor(queue, noTransaction());
            var health = new QueuedDataSourceHealthCheck(queue, pool);
            var held = new CountDownLatch(1);
            var done = new CountDownLatch(1);
            Future<?> first = threads.submit(() -> interceptor.inTurn(invocation(() -> {
                try (Connection connection = pool.getConnection()) {
                    held.countDown();
                    done.await();
                }
                return null;
            })));
            held.await();
            Future<HealthCheckResponse> check = threads.submit(health::call);
            Pools.await(() -> queue.waiting() == 1, "the health check did not wait in the queue");
            done.countDown(); // the transaction ends; the check takes its turn, then the next transaction its own

            long start = System.nanoTime();
            interceptor.inTurn(invocation(() -> transaction(pool)));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            first.get();
            assertEquals(HealthCheckResponse.Status.UP, check.get().getStatus());
            assertEquals(List.of(), parks.availableAtEach, "nothing parked in Agroal");
            assertTrue(waited.toMillis() < 500, "the transaction waited " + waited.toMillis() + " ms");
            assertEquals(0, queue.taken());
        }
    }

    @Test
    void aMethodInsideATransactionJoinsItWithoutASecondPlace() throws Exception {
        var queue = new ConnectionQueue(1, Duration.ofMillis(50));
        var joined = new ConnectionQueueInterceptor(queue, status(Status.STATUS_ACTIVE));
        // the only place is taken by the outer transaction; the inner call joins it instead of waiting for another
        assertEquals("inner", queue.inTurn(() -> joined.inTurn(invocation(() -> "inner"))));
    }

    /** A read as the services' repositories make one: its own transaction on one connection. */
    private static Object transaction(AgroalDataSource pool) throws Exception {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("SELECT 1");
            connection.commit();
            connection.setAutoCommit(true);
            return null;
        }
    }


    private static TransactionManager noTransaction() {
        return status(Status.STATUS_NO_TRANSACTION);
    }

    /** A transaction manager that only answers its status (the interceptor asks nothing else). */
    private static TransactionManager status(int status) {
        return (TransactionManager) Proxy.newProxyInstance(TransactionManager.class.getClassLoader(),
                new Class<?>[] {TransactionManager.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getStatus")) {
                        return status;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The intercepted call: proceed runs the work. */
    private static InvocationContext invocation(Callable<Object> work) {
        return (InvocationContext) Proxy.newProxyInstance(InvocationContext.class.getClassLoader(),
                new Class<?>[] {InvocationContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("proceed")) {
                        return work.call();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
