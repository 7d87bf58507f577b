package io.reactivebench.vthreadstall;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a real PostgreSQL, then runs {@code --runs} overload runs, each in a fresh JVM on the runtime under test
 * ({@code --java}), and counts the runs with a stall. Results: one directory per run (result.json, and for a stall
 * its thread dumps and JFR recording) and summary.txt.
 */
public final class StallReproducer {
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
                JsonNode result = runOnce(settings, database.url(), run);
                List<Long> stalls = new ArrayList<>();
                for (JsonNode stall : result.path("stalls")) {
                    JsonNode stalled = stall.path("stalled_ms");
                    stalls.add(stalled.isNumber() ? stalled.asLong() : -1);  // -1: still stalled when the run ended
                    queuedIdle += stall.path("runnable_queued_no_carrier_active").asBoolean() ? 1 : 0;
                    kicked += stall.path("kicked").asBoolean() ? 1 : 0;
                }
                java = result.path("java").asText(java);
                String counts = result.has("look_ups") ? result.get("look_ups") + " | " + result.get("per_second") : "run failed | ";
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

    /** One run in a JVM of its own; its result (an empty object if it left none). */
    private static JsonNode runOnce(Settings settings, String url, int run) throws IOException, InterruptedException {
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
                if (line.startsWith(OverloadRun.RESULT)) {
                    result = line.substring(OverloadRun.RESULT.length());
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || result.isEmpty()) {
            System.err.println("run " + run + " exited " + exit + " without a result: see run-" + run + ".log");
            return OverloadRun.JSON.createObjectNode();
        }
        return OverloadRun.JSON.readTree(result);
    }
}
