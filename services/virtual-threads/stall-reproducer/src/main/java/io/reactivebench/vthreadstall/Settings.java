package io.reactivebench.vthreadstall;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What a run varies, one thing at a time. Defaults are authors v3's under overload: Agroal with 10 connections and
 * a 5 s acquisition time-out, 100 look-ups in flight (web-api's look-up permits), 8 carriers on the machine's cores.
 */
record Settings(int runs, int seconds, int carriers, String pool, int maxPool, boolean timedWaits,
                int acquisitionTimeoutSeconds, int inFlight, int cpuMicros, int stallMillis, int kickMillis,
                String java, List<String> jvmOptions, Path results, Map<String, String> values) {

    /** Every option and its default (null: worked out below), in the usage's order: the one list of them. */
    private static final Map<String, String> OPTIONS = options("runs", "10", "seconds", "60", "carriers", "8",
            "pool", "agroal", "max-pool", "10", "waits", "timed", "acquisition-timeout-s", "5", "in-flight", "100",
            "cpu-micros", "100", "stall-ms", "500", "kick-ms", "3000", "java", null, "results", "stall-results");
    /** The parent's own: how many runs, and on which runtime; a run's JVM is not told them. */
    private static final Set<String> PARENT_ONLY = Set.of("runs", "java");
    /** What the parent tells each run's JVM beside the settings (OverloadRun reads them). */
    private static final Set<String> RUN_ONLY = Set.of("run", "jdbc-url");

    static final String USAGE = "usage: StallReproducer " + OPTIONS.entrySet().stream()
            .map(option -> "[--" + option.getKey() + " " + (option.getValue() == null ? "PATH" : option.getValue()) + "]")
            .collect(Collectors.joining(" ")) + " [--jvm-option OPTION]...";

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
        Set<String> unknown = values.keySet().stream().filter(name -> !OPTIONS.containsKey(name) && !RUN_ONLY.contains(name))
                .collect(Collectors.toCollection(TreeSet::new));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + unknown + "\n" + USAGE);
        }
        OPTIONS.forEach(values::putIfAbsent);
        values.computeIfAbsent("java", name -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String waits = values.get("waits");
        if (!waits.equals("timed") && !waits.equals("untimed")) {
            throw new IllegalArgumentException("--waits is timed or untimed, not " + waits);
        }
        return new Settings(number(values, "runs"), number(values, "seconds"), number(values, "carriers"),
                values.get("pool"), number(values, "max-pool"), waits.equals("timed"), number(values, "acquisition-timeout-s"),
                number(values, "in-flight"), number(values, "cpu-micros"), number(values, "stall-ms"), number(values, "kick-ms"),
                values.get("java"), List.copyOf(jvmOptions), Path.of(values.get("results")), Map.copyOf(values));
    }

    private static int number(Map<String, String> values, String name) {
        String value = values.get(name);
        try {
            int number = Integer.parseInt(value);
            if (number <= 0) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a positive whole number, not " + value);
        }
    }

    /** The same settings as arguments, for a run's own JVM: every option but the parent's own. */
    List<String> asArguments() {
        List<String> arguments = new ArrayList<>();
        OPTIONS.keySet().stream().filter(name -> !PARENT_ONLY.contains(name))
                .forEach(name -> arguments.addAll(List.of("--" + name, values.get(name))));
        return arguments;
    }

    String describe() {
        return "carriers " + carriers + ", pool " + pool + " (" + maxPool + " connections, " + (timedWaits ? "timed" : "untimed")
                + " waits), " + inFlight + " in flight, " + seconds + " s per run" + (jvmOptions.isEmpty() ? "" : ", " + String.join(" ", jvmOptions));
    }

    private static Map<String, String> options(String... namesAndDefaults) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < namesAndDefaults.length; i += 2) {
            options.put(namesAndDefaults[i], namesAndDefaults[i + 1]);
        }
        return options;
    }
}
