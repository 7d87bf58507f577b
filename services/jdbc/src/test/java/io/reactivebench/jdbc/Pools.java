package io.reactivebench.jdbc;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceListener;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * Agroal pools on a real PostgreSQL for the tests (one server for all of them, started by the first and stopped when
 * the tests' JVM ends), and a listener that sees each caller about to park in one.
 */
final class Pools {
    private static EmbeddedPostgres postgres;

    private Pools() {
    }

    private static synchronized EmbeddedPostgres postgres() throws IOException {
        if (postgres == null) {
            EmbeddedPostgres started = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }));
            postgres = started;
        }
        return postgres;
    }

    static AgroalDataSource pool(int size, Duration timeout, Parks parks)
            throws IOException, SQLException, InterruptedException {
        String url = postgres().getJdbcUrl("postgres", "postgres");
        AgroalDataSource pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .metricsEnabled(true)
                .connectionPoolConfiguration(config -> config
                        .maxSize(size).minSize(size).initialSize(size)
                        .acquisitionTimeout(timeout)
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(url))), parks);
        parks.pool = pool;
        // Opened up front: a caller that waits for a connection being opened is told to the listener too.
        await(() -> pool.getMetrics().availableCount() == size, "Agroal did not open " + size + " connections");
        parks.availableAtEach.clear();
        return pool;
    }

    /** Waits, 30 s at most, until the condition holds; else fails naming what did not happen. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        for (long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); System.nanoTime() < deadline; Thread.sleep(5)) {
            if (condition.getAsBoolean()) {
                return;
            }
        }
        throw new AssertionError(what + " within 30 s");
    }

    static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each time a caller is about to park in Agroal: how many connections were idle then. */
    static final class Parks implements AgroalDataSourceListener {
        final List<Long> availableAtEach = new CopyOnWriteArrayList<>();
        /** Run by the first caller to park after it is set, and by no other. */
        final AtomicReference<Runnable> onFirst = new AtomicReference<>();
        volatile AgroalDataSource pool;

        @Override
        public void beforePoolBlock(long timeout) {
            Runnable once = onFirst.getAndSet(null);
            if (once != null) {
                once.run();
            }
            availableAtEach.add(pool.getMetrics().availableCount());
        }
    }
}
