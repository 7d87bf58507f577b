package io.reactivebench.vthreadstall;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts a real PostgreSQL, then runs {@code --runs} overload runs, each in a fresh JVM on the runtime under test
 * ({@code --java}), and counts the runs with a stall. Results: one directory per run (result.json, and for a stall
 * its thread dumps and JFR recording) and summary.txt.
 */
public final class StallReproducer {
    private static final Pattern STALLED = Pattern.compile("\"stalled_ms\":(\\d+|null)");
    private static final Pattern LOOK_UPS = Pattern.compile("\"look_ups\":(\\d+),\"per_second\":(\\d+)");
    private static final Pattern QUEUED_IDLE = Pattern.compile("\"runnable_queued_no_carrier_active\":true");
    private static final Pattern KICKED = Pattern.compile("\"kicked\":true");
    private static final Pattern JAVA = Pattern.compile("\"java\":\"([^\"]+)\"");

    private StallReproducer() {
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--run")) {
            OverloadRun.main(args);
            return;
        }
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Files.createDirectories(settings.results());
        System.out.println("==> " + settings.runs() + " runs: " + settings.describe() + "; results in " + settings.results());
        int runsWithStall = 0;
        List<Long> durations = new ArrayList<>();
        int queuedIdle = 0;
        int kicked = 0;
        String java = "?";
        StringBuilder rows = new StringBuilder("run | look-ups | per s | stalls (ms)\n");
        try (Database database = new Database()) {
            for (int run = 1; run <= settings.runs(); run++) {
                String line = runOnce(settings, database.url(), run);
                List<Long> stalls = new ArrayList<>();
                Matcher stalled = STALLED.matcher(line);
                while (stalled.find()) {
                    stalls.add(stalled.group(1).equals("null") ? -1 : Long.parseLong(stalled.group(1)));
                }
                queuedIdle += (int) QUEUED_IDLE.matcher(line).results().count();
                kicked += (int) KICKED.matcher(line).results().count();
                Matcher javaVersion = JAVA.matcher(line);
                java = javaVersion.find() ? javaVersion.group(1) : java;
                Matcher lookUps = LOOK_UPS.matcher(line);
                String counts = lookUps.find() ? lookUps.group(1) + " | " + lookUps.group(2) : "run failed | ";
                runsWithStall += stalls.isEmpty() ? 0 : 1;
                durations.addAll(stalls);
                rows.append(run).append(" | ").append(counts).append(" | ").append(stalls).append('\n');
                System.out.println("    run " + run + "/" + settings.runs() + ": " + counts.replace(" | ", " look-ups, ")
                        + "/s, stalls " + stalls);
            }
        }
        String summary = "java " + java + "; " + settings.describe() + "\n" + rows
                + "runs with a stall: " + runsWithStall + " of " + settings.runs() + "; stalls: " + durations.size()
                + " (ms: " + durations + "); with runnable work queued and no carrier active when seen: " + queuedIdle
                + "; still stalled at " + settings.kickMillis() + " ms (kicked): " + kicked + "\n";
        Files.writeString(settings.results().resolve("summary.txt"), summary);
        System.out.print(summary);
    }

    private static String runOnce(Settings settings, String url, int run) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(settings.java(),
                "-Djdk.virtualThreadScheduler.parallelism=" + settings.carriers(),
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                // The last 30 s, for the stall's own dump; parks of 10 ms and more, pinning, failed submissions.
                "-XX:StartFlightRecording=name=" + Evidence.RECORDING + ",settings=profile,maxage=30s"));
        command.addAll(settings.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StallReproducer.class.getName(),
                "--run", String.valueOf(run), "--jdbc-url", url));
        command.addAll(settings.asArguments());
        Process process = new ProcessBuilder(command).redirectError(new File(
                settings.results().resolve("run-" + run + ".log").toString())).start();
        String result = "";
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("RESULT ")) {
                    result = line;
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || result.isEmpty()) {
            System.err.println("run " + run + " exited " + exit + " without a result: see run-" + run + ".log");
        }
        return result;
    }
}
