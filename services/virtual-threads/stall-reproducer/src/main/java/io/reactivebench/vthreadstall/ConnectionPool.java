package io.reactivebench.vthreadstall;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** The JDBC pool the virtual threads contend for: Agroal as authors v3 has it, or a plain Semaphore pool. */
interface ConnectionPool extends AutoCloseable {

    /** A connection, or null when none came within the acquisition time-out (untimed waits never return null). */
    Connection acquire() throws SQLException, InterruptedException;

    void release(Connection connection) throws SQLException;

    /** Its gauges now: connections in use, idle, and threads waiting for one. */
    Map<String, Long> gauges();

    @Override
    void close() throws SQLException;

    static ConnectionPool create(Settings settings, String url) throws SQLException {
        return switch (settings.pool()) {
            case "agroal" -> new Agroal(settings, url);
            case "semaphore" -> new SemaphorePool(settings, url);
            default -> throw new IllegalArgumentException("--pool is agroal or semaphore, not " + settings.pool());
        };
    }

    /**
     * Agroal 3.2.1, as Quarkus configures it for authors v3: max-size 10, min-size 2, a 5 s acquisition time-out.
     * Its hand-off is a LinkedTransferQueue: a returned connection goes to a waiter already queued.
     */
    final class Agroal implements ConnectionPool {
        private final AgroalDataSource dataSource;

        Agroal(Settings settings, String url) throws SQLException {
            // Agroal reads a zero time-out as "wait as long as it takes".
            Duration timeout = settings.timedWaits() ? Duration.ofSeconds(settings.acquisitionTimeoutSeconds()) : Duration.ZERO;
            dataSource = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                    .metricsEnabled(true)
                    .connectionPoolConfiguration(pool -> pool
                            .maxSize(settings.maxPool())
                            .minSize(2)
                            .initialSize(2)
                            .acquisitionTimeout(timeout)
                            .connectionFactoryConfiguration(factory -> factory
                                    .jdbcUrl(url)
                                    .principal(new NamePrincipal(Database.USER))
                                    .credential(new SimplePassword(Database.PASSWORD)))));
        }

        @Override
        public Connection acquire() throws SQLException {
            try {
                return dataSource.getConnection();
            } catch (SQLException e) {
                if (e.getMessage() != null && e.getMessage().contains("Acquisition timeout")) {
                    return null;
                }
                throw e;
            }
        }

        @Override
        public void release(Connection connection) throws SQLException {
            connection.close();
        }

        @Override
        public Map<String, Long> gauges() {
            var metrics = dataSource.getMetrics();
            return Map.of("active", metrics.activeCount(), "available", metrics.availableCount(),
                    "awaiting", metrics.awaitingCount());
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }

    /** The same number of connections behind a fair Semaphore: waiters park in AbstractQueuedSynchronizer instead. */
    final class SemaphorePool implements ConnectionPool {
        private final Settings settings;
        private final Semaphore permits;
        private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
        private final int size;

        SemaphorePool(Settings settings, String url) throws SQLException {
            this.settings = settings;
            this.size = settings.maxPool();
            this.permits = new Semaphore(size, true);
            for (int i = 0; i < size; i++) {
                idle.add(DriverManager.getConnection(url, Database.USER, Database.PASSWORD));
            }
        }

        @Override
        public Connection acquire() throws InterruptedException {
            if (settings.timedWaits()) {
                if (!permits.tryAcquire(settings.acquisitionTimeoutSeconds(), TimeUnit.SECONDS)) {
                    return null;
                }
            } else {
                permits.acquire();
            }
            return idle.poll();
        }

        @Override
        public void release(Connection connection) {
            idle.add(connection);
            permits.release();
        }

        @Override
        public Map<String, Long> gauges() {
            long available = permits.availablePermits();
            return Map.of("active", size - available, "available", available, "awaiting", (long) permits.getQueueLength());
        }

        @Override
        public void close() throws SQLException {
            for (Connection connection : idle) {
                connection.close();
            }
        }
    }
}
