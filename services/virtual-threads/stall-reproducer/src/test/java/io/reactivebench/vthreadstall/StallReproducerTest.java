package io.reactivebench.vthreadstall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole reproducer, briefly: a real PostgreSQL, a run in its own JVM, its result and the summary. */
class StallReproducerTest {

    @Test
    void aShortRunLooksUpAuthorsOnRealPostgresAndSummarisesItsStalls(@TempDir Path results) throws Exception {
        StallReproducer.main(new String[] {"--runs", "1", "--seconds", "3", "--results", results.toString()});

        String result = Files.readString(results.resolve("run-1").resolve("result.json"));
        Matcher lookUps = Pattern.compile("\"look_ups\":(\\d+)").matcher(result);
        assertTrue(lookUps.find() && Long.parseLong(lookUps.group(1)) > 0, result);
        assertTrue(result.contains("\"failures\":0"), result);
        assertTrue(result.contains("\"drained\":true"), result);
        assertTrue(result.contains("\"java\":\"" + Runtime.version()), result);
        String summary = Files.readString(results.resolve("summary.txt"));
        assertTrue(summary.contains("carriers 8, pool agroal (10 connections, timed waits), 100 in flight"), summary);
        assertEquals(1, Pattern.compile("runs with a stall: [01] of 1").matcher(summary).results().count(), summary);
    }

    @Test
    void anUnknownOptionIsRefusedWithTheUsage() {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Settings.parse(new String[] {"--carrier", "2"}));
        assertTrue(refused.getMessage().contains("unknown options [carrier]") && refused.getMessage().contains("usage:"),
                refused.getMessage());
        assertThrows(() -> Settings.parse(new String[] {"--waits", "sometimes"}), "--waits is timed or untimed");
        assertThrows(() -> Settings.parse(new String[] {"--runs", "0"}), "--runs must be a positive whole number");
    }

    private static void assertThrows(org.junit.jupiter.api.function.Executable parse, String message) {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, parse);
        assertTrue(refused.getMessage().startsWith(message), refused.getMessage());
    }
}
