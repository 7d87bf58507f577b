package io.reactivebench.vthreadstall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole reproducer, briefly: a real PostgreSQL, a run in its own JVM, its result and the summary. */
class StallReproducerTest {

    @Test
    void aShortRunLooksUpAuthorsOnRealPostgresAndSummarisesItsStalls(@TempDir Path results) throws Exception {
        StallReproducer.main(new String[] {"--runs", "1", "--seconds", "3", "--results", results.toString()});

        JsonNode result = OverloadRun.JSON.readTree(results.resolve("run-1").resolve("result.json").toFile());
        assertTrue(result.path("look_ups").asLong() > 0, result.toString());
        assertEquals(0, result.path("failures").asLong(-1), result.toString());
        assertTrue(result.path("drained").asBoolean(), result.toString());
        assertEquals(Runtime.version().toString(), result.path("java").asText(), result.toString());
        String summary = Files.readString(results.resolve("summary.txt"));
        assertTrue(summary.contains("carriers 8, pool agroal (10 connections, timed waits), 100 in flight"), summary);
        assertEquals(1, Pattern.compile("runs with a stall: [01] of 1").matcher(summary).results().count(), summary);
    }

    @Test
    void anUnknownOptionIsRefusedWithTheUsage() {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Settings.parse(new String[] {"--carrier", "2"}));
        assertTrue(Settings.USAGE.contains("[--carriers 8]") && Settings.USAGE.contains("[--java PATH]"), Settings.USAGE);
        assertTrue(refused.getMessage().contains("unknown options [carrier]") && refused.getMessage().contains("usage:"),
                refused.getMessage());
        assertThrows(() -> Settings.parse(new String[] {"--waits", "sometimes"}), "--waits is timed or untimed");
        assertThrows(() -> Settings.parse(new String[] {"--runs", "0"}), "--runs must be a positive whole number");
    }

    @Test
    void aRunsJvmIsToldEverySettingButTheParentsOwn() {
        Settings settings = Settings.parse(new String[] {"--runs", "3", "--carriers", "2", "--pool", "semaphore",
                "--waits", "untimed", "--results", "out", "--java", "/opt/jdk/bin/java", "--jvm-option", "-Xmx64m"});
        assertEquals(List.of("--seconds", "60", "--carriers", "2", "--pool", "semaphore", "--max-pool", "10", "--waits", "untimed",
                "--acquisition-timeout-s", "5", "--in-flight", "100", "--cpu-micros", "100", "--stall-ms", "500",
                "--kick-ms", "3000", "--results", "out"), settings.asArguments());
        Settings run = Settings.parse(settings.asArguments().toArray(String[]::new));
        assertEquals(settings.describe().replace(", -Xmx64m", ""), run.describe());
    }

    private static void assertThrows(org.junit.jupiter.api.function.Executable parse, String message) {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, parse);
        assertTrue(refused.getMessage().startsWith(message), refused.getMessage());
    }
}
