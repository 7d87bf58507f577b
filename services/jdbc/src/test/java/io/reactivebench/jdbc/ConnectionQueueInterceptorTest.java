package io.reactivebench.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue as the services meet it: every transaction through {@link ConnectionQueueInterceptor}, on a real Agroal
 * pool and a real PostgreSQL, while a borrower outside any transaction (what the readiness check does) takes a
 * connection now and then and waits for it in Agroal itself. The transactions all run, every place comes back, the
 * borrower outside is served beside them, and a transaction that parks behind it waits a moment, not Agroal's
 * time-out. (Under this load Agroal alone does not stall either: AgroalHandOffTest builds the interleaving that
 * does.)
 */
class ConnectionQueueInterceptorTest {
    private static final Duration AGROAL_TIMEOUT = Duration.ofSeconds(3);
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void transactionsInTurnBesideAHealthCheckOutsideAnyTransactionNeverWaitAgroalsTimeOut() throws Exception {
        int connections = 3;
        int callers = 40;
        int transactionsEach = 100;
        try (AgroalDataSource pool = pool(connections)) {
            var queue = new ConnectionQueue(connections, Duration.ofSeconds(30));
            var interceptor = new ConnectionQueueInterceptor(queue, noTransaction(), true);
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
    void aMethodInsideATransactionJoinsItWithoutASecondPlace() throws Exception {
        var queue = new ConnectionQueue(1, Duration.ofMillis(50));
        var joined = new ConnectionQueueInterceptor(queue, status(Status.STATUS_ACTIVE), true);
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

    private static AgroalDataSource pool(int size) throws Exception {
        return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(config -> config
                        .maxSize(size).minSize(size).initialSize(size)
                        .acquisitionTimeout(AGROAL_TIMEOUT)
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(postgres.getJdbcUrl("postgres", "postgres")))));
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
