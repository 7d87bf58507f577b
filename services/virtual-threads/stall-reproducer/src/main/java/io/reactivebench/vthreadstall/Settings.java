package io.reactivebench.vthreadstall;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run varies, one thing at a time. Defaults are authors v3's under overload: Agroal with 10 connections and
 * a 5 s acquisition time-out, 100 look-ups in flight (web-api's look-up permits), 8 carriers on the machine's cores.
 */
record Settings(int runs, int seconds, int carriers, String pool, int maxPool, boolean timedWaits,
                int acquisitionTimeoutSeconds, int inFlight, int cpuMicros, int stallMillis, int kickMillis,
                String java, List<String> jvmOptions, Path results) {

    static final String USAGE = """
            usage: StallReproducer [--runs 10] [--seconds 60] [--carriers 8] [--pool agroal|semaphore] [--max-pool 10]
                                   [--waits timed|untimed] [--in-flight 100] [--cpu-micros 100] [--stall-ms 500]
                                   [--kick-ms 3000] [--java PATH] [--jvm-option OPTION]... [--results DIR]""";

    static Settings parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        List<String> jvmOptions = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!name.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value at " + name + "\n" + USAGE);
            }
            String value = args[++i];
            if (name.equals("--jvm-option")) {
                jvmOptions.add(value);
            } else {
                values.put(name.substring(2), value);
            }
        }
        String waits = values.getOrDefault("waits", "timed");
        if (!waits.equals("timed") && !waits.equals("untimed")) {
            throw new IllegalArgumentException("--waits is timed or untimed, not " + waits);
        }
        Settings settings = new Settings(number(values, "runs", 10), number(values, "seconds", 60),
                number(values, "carriers", 8), values.getOrDefault("pool", "agroal"), number(values, "max-pool", 10),
                waits.equals("timed"), number(values, "acquisition-timeout-s", 5), number(values, "in-flight", 100),
                number(values, "cpu-micros", 100), number(values, "stall-ms", 500), number(values, "kick-ms", 3000),
                values.getOrDefault("java", Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                List.copyOf(jvmOptions), Path.of(values.getOrDefault("results", "stall-results")));
        values.keySet().removeAll(List.of("runs", "seconds", "carriers", "pool", "max-pool", "waits",
                "acquisition-timeout-s", "in-flight", "cpu-micros", "stall-ms", "kick-ms", "java", "results", "jdbc-url", "run"));
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + values.keySet() + "\n" + USAGE);
        }
        return settings;
    }

    private static int number(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        try {
            int number = value == null ? fallback : Integer.parseInt(value);
            if (number <= 0) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a positive whole number, not " + value);
        }
    }

    /** The same settings as arguments, for a run's own JVM. */
    List<String> asArguments() {
        return List.of("--seconds", String.valueOf(seconds), "--carriers", String.valueOf(carriers), "--pool", pool,
                "--max-pool", String.valueOf(maxPool), "--waits", timedWaits ? "timed" : "untimed",
                "--acquisition-timeout-s", String.valueOf(acquisitionTimeoutSeconds), "--in-flight", String.valueOf(inFlight),
                "--cpu-micros", String.valueOf(cpuMicros), "--stall-ms", String.valueOf(stallMillis),
                "--kick-ms", String.valueOf(kickMillis), "--results", results.toString());
    }

    String describe() {
        return "carriers " + carriers + ", pool " + pool + " (" + maxPool + " connections, " + (timedWaits ? "timed" : "untimed")
                + " waits), " + inFlight + " in flight, " + seconds + " s per run" + (jvmOptions.isEmpty() ? "" : ", " + String.join(" ", jvmOptions));
    }
}
