package io.reactivebench.vthreadstall;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run in its own JVM: authors v3's look-up under sustained overload. A platform thread (as Vert.x's event loop
 * hands requests to virtual threads) starts a virtual thread per look-up whenever fewer than {@code inFlight} are
 * running, so when every look-up waits nothing new is submitted, as under web-api's permits. Each look-up takes a
 * pooled connection, runs authors' query on PostgreSQL, gives the connection back and spends a little CPU (the JSON).
 */
final class OverloadRun {
    static final ObjectMapper JSON = new ObjectMapper();
    /** What starts the line of a run's result on its standard output, for the parent to find. */
    static final String RESULT = "RESULT ";

    private final Settings settings;
    private final ConnectionPool pool;
    private final Semaphore slots;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Watchdog watchdog;

    private OverloadRun(Settings settings, ConnectionPool pool, Evidence evidence) {
        this.settings = settings;
        this.pool = pool;
        this.slots = new Semaphore(settings.inFlight());
        this.watchdog = new Watchdog(settings, pool, () -> settings.inFlight() - slots.availablePermits(), timeouts, evidence);
    }

    static void main(String[] args) throws Exception {
        int run = Integer.parseInt(value(args, "--run"));
        String url = value(args, "--jdbc-url");
        Settings settings = Settings.parse(args);
        Path directory = settings.results().resolve("run-" + run);
        Files.createDirectories(directory);
        try (ConnectionPool pool = ConnectionPool.create(settings, url); Evidence evidence = new Evidence(directory, url)) {
            Map<String, Object> result = new OverloadRun(settings, pool, evidence).load();
            result.put("run", run);
            String line = JSON.writeValueAsString(result);
            Files.writeString(directory.resolve("result.json"), line);
            System.out.println(RESULT + line);
        }
    }

    private Map<String, Object> load() throws InterruptedException {
        ThreadFactory virtual = Thread.ofVirtual().name("look-up-", 0).factory();
        Thread dispatcher = Thread.ofPlatform().name("dispatcher").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    slots.acquire();
                    virtual.newThread(this::lookUp).start();
                }
            } catch (InterruptedException e) {
                // the run is over
            }
        });
        watchdog.start();
        long started = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds()));
        dispatcher.interrupt();
        dispatcher.join();
        long elapsed = System.nanoTime() - started;
        boolean drained = slots.tryAcquire(settings.inFlight(), 30, TimeUnit.SECONDS);
        List<Map<String, Object>> stalls = watchdog.finish();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("java", Runtime.version().toString());
        result.put("settings", settings.describe());
        result.put("look_ups", completed.get());
        result.put("per_second", Math.round(completed.get() / (elapsed / 1e9)));
        result.put("acquisition_timeouts", timeouts.get());
        result.put("failures", failures.get());
        result.put("drained", drained);
        result.put("stalls", stalls);
        return result;
    }

    private void lookUp() {
        try {
            Connection connection = pool.acquire();
            if (connection == null) {
                timeouts.incrementAndGet();
                return;
            }
            long characters = 0;
            try (PreparedStatement statement = connection.prepareStatement(Database.LOOK_UP)) {
                statement.setString(1, Database.NAMES[ThreadLocalRandom.current().nextInt(Database.NAMES.length)]);
                try (ResultSet row = statement.executeQuery()) {
                    while (row.next()) {
                        characters += row.getString("name").length() + row.getString("bio").length();
                    }
                }
            } finally {
                pool.release(connection);
            }
            spin(settings.cpuMicros(), characters);
            completed.incrementAndGet();
            watchdog.progress();
        } catch (SQLException | RuntimeException e) {
            failures.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            slots.release();
        }
    }

    /** Busy for about this long, as serializing the answer would be. */
    private static long spin(int micros, long seed) {
        long until = System.nanoTime() + micros * 1_000L;
        long x = seed;
        while (System.nanoTime() < until) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    private static String value(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        throw new IllegalArgumentException(name + " is required");
    }
}
