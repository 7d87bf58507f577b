package io.reactivebench.vthreadstall;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What is true at the instant a stall is seen, several times 150 ms apart (one thread dump is not an instant: threads
 * are captured one by one): a JSON thread dump, the scheduler's counts and its own description, the pool's gauges,
 * PostgreSQL's sessions; then the JFR recording's last 30 s. All taken in this JVM by a platform thread, so a
 * scheduler with no carrier awake cannot delay them; jcmd only where the runtime lacks jdk.management or jdk.jfr.
 */
final class Evidence implements AutoCloseable {
    static final String RECORDING = "stall";
    private static final String PG_SESSIONS = "SELECT coalesce(state, '') AS state, coalesce(wait_event_type, '') AS wait_type, "
            + "coalesce(wait_event, '') AS wait_event, count(*) AS sessions FROM pg_stat_activity "
            + "WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1, 2, 3 ORDER BY 1, 2, 3";

    private final Path directory;
    private final Connection observer;

    Evidence(Path directory, String jdbcUrl) throws SQLException {
        this.directory = directory;
        this.observer = DriverManager.getConnection(jdbcUrl, Database.USER, Database.PASSWORD);  // outside the pool
    }

    /** The counts alone, cheap: taken at detection and at every moment of the evidence. */
    static Map<String, Object> moment(ConnectionPool pool, int inFlight) {
        Map<String, Object> moment = new LinkedHashMap<>();
        moment.put("scheduler", Scheduler.counts());
        moment.put("pool", pool.gauges());
        moment.put("in_flight", inFlight);
        return moment;
    }

    /** Everything, {@code times} times 150 ms apart, into files named after the stall; returns the moments' counts. */
    List<Map<String, Object>> take(String name, ConnectionPool pool, java.util.function.IntSupplier inFlight, int times) {
        List<Map<String, Object>> moments = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            Map<String, Object> moment = moment(pool, inFlight.getAsInt());
            moment.put("scheduler_says", Scheduler.describe());
            moment.put("postgres_sessions", sessions());
            moment.put("thread_dump", dumpThreads(directory.resolve(name + "-threads-" + i + ".json")));
            moments.add(moment);
            sleep(150);
        }
        dumpRecording(directory.resolve(name + ".jfr"));
        return moments;
    }

    private List<Map<String, Object>> sessions() {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Statement statement = observer.createStatement(); ResultSet result = statement.executeQuery(PG_SESSIONS)) {
            while (result.next()) {
                rows.add(Map.of("state", result.getString("state"), "wait_type", result.getString("wait_type"),
                        "wait_event", result.getString("wait_event"), "sessions", result.getLong("sessions")));
            }
        } catch (SQLException e) {
            rows.add(Map.of("error", e.getMessage()));
        }
        return rows;
    }

    private static String dumpThreads(Path file) {
        try {
            ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toAbsolutePath().toString(), com.sun.management.HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
        } catch (NoClassDefFoundError e) {
            jcmd("Thread.dump_to_file", "-format=json", file.toAbsolutePath().toString());
        } catch (IOException | RuntimeException e) {
            return "failed: " + e;
        }
        return file.getFileName().toString();
    }

    private static void dumpRecording(Path file) {
        try {
            for (jdk.jfr.Recording recording : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
                if (RECORDING.equals(recording.getName())) {
                    recording.dump(file);
                }
            }
        } catch (NoClassDefFoundError e) {
            jcmd("JFR.dump", "name=" + RECORDING, "filename=" + file.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
            System.err.println("no JFR dump: " + e);
        }
    }

    private static void jcmd(String... command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            System.err.println("neither the in-process API nor jcmd for " + command[0]);
            return;
        }
        List<String> line = new ArrayList<>(List.of(jcmd.toString(), String.valueOf(ProcessHandle.current().pid())));
        line.addAll(List.of(command));
        try {
            new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException e) {
            System.err.println("jcmd failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws SQLException {
        observer.close();
    }
}
