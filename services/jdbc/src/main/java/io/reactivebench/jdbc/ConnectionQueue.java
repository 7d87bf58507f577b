package io.reactivebench.jdbc;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where the JDBC builds' transactions and reads ({@link Read}) wait for a connection: in order of arrival, in front
 * of Agroal, with as many places as the pool has connections and Agroal's acquisition time-out.
 *
 * <p>Why not inside Agroal: Agroal 3.2.1 hands a returned connection only to a waiter already parked on its hand-off
 * queue, and a caller that sees anyone parked there parks too, for up to a second, without looking for a free
 * connection. A connection returned between a waiter's look and its park stays idle; under overload such connections
 * add up until every caller sleeps beside idle ones, and the service stands still for that second (v3's stall,
 * docs/faults.md; AgroalHandOffTest shows the interleaving). Here a transaction (or a read) holds a place until its
 * connection is back in the pool, so whoever holds a place finds a connection free and never waits in Agroal. The
 * reactive pool of v2 queues its waiters the same way: in order, with a time-out. The readiness check borrows in turn too
 * ({@link QueuedDataSourceHealthCheck}); only Flyway at start-up, before any request, borrows outside the queue.
 */
@Singleton
public class ConnectionQueue {
    private final Semaphore places;
    private final int connections;
    private final Duration timeout;
    private final LongAdder turns = new LongAdder();

    @Inject
    public ConnectionQueue(@ConfigProperty(name = "quarkus.datasource.jdbc.max-size") int connections,
            @ConfigProperty(name = "quarkus.datasource.jdbc.acquisition-timeout", defaultValue = "5S") Duration timeout) {
        this.connections = connections;
        this.timeout = timeout;
        this.places = new Semaphore(connections, true);
    }

    /**
     * Runs a unit of work of a request (a transaction, or a read without one) once a place is free; a wait longer
     * than the time-out is the pool's acquisition time-out (503).
     */
    public <T> T inTurn(Callable<T> work) throws Exception {
        return inTurn(work, true);
    }

    /** Runs work that borrows a connection for itself (the readiness check) in turn, not counted. */
    public <T> T borrowInTurn(Callable<T> work) throws Exception {
        return inTurn(work, false);
    }

    private <T> T inTurn(Callable<T> work, boolean counted) throws Exception {
        if (!places.tryAcquire(timeout.toNanos(), NANOSECONDS)) {
            throw new SQLTransientConnectionException("Acquisition timeout: no connection free within "
                    + timeout.toMillis() + " ms, " + waiting() + " waiting");
        }
        if (counted) {
            turns.increment();
        }
        try {
            return work.call();
        } finally {
            places.release();
        }
    }

    /** Units of work waiting for a place now. */
    public int waiting() {
        return places.getQueueLength();
    }

    /** Places taken now: units of work that hold, or are about to take, a connection. */
    public int taken() {
        return connections - places.availablePermits();
    }

    void gauges(@Observes StartupEvent started, MeterRegistry registry) {
        FunctionCounter.builder("jdbc.connection.queue.turns", turns, LongAdder::sum)
                .description("Transactions and reads that took their turn for a JDBC connection in the queue")
                .register(registry);
        Gauge.builder("jdbc.connection.queue.waiting", this, ConnectionQueue::waiting)
                .description("Transactions and reads waiting in order for a JDBC connection, in front of the pool")
                .register(registry);
        Gauge.builder("jdbc.connection.queue.taken", this, ConnectionQueue::taken)
                .description("Transactions and reads holding one of the pool's connections, or about to take it")
                .register(registry);
    }
}
