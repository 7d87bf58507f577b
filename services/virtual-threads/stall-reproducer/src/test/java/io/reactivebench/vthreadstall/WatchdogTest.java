package io.reactivebench.vthreadstall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The watchdog sees a stall only while look-ups are in flight and none finishes, kicks it, and times it. */
class WatchdogTest {

    private static final ConnectionPool NO_POOL = new ConnectionPool() {
        @Override
        public Connection acquire() {
            return null;
        }

        @Override
        public void release(Connection connection) {
        }

        @Override
        public Map<String, Long> gauges() {
            return Map.of("active", 10L, "available", 0L, "awaiting", 90L);
        }

        @Override
        public void close() {
        }
    };

    @Test
    void aStallIsSeenKickedAndTimedUntilTheNextLookUpFinishes() throws Exception {
        Settings settings = Settings.parse(new String[] {"--stall-ms", "200", "--kick-ms", "400"});
        Watchdog watchdog = new Watchdog(settings, NO_POOL, () -> 100, new AtomicLong(), null);
        watchdog.start();
        Thread.sleep(900);  // past the kick: lower bounds only, so a slower machine passes as well
        watchdog.progress();
        Thread.sleep(100);
        List<Map<String, Object>> stalls = watchdog.finish();

        assertEquals(1, stalls.size(), stalls.toString());
        Map<String, Object> stall = stalls.getFirst();
        assertTrue(((Number) stall.get("stalled_ms")).longValue() >= 400, stall.toString());
        assertEquals(true, stall.get("kicked"));
        // A healthy scheduler runs the kick at once; the stall here went on because nothing finished.
        assertNotNull(stall.get("kick_ran_ms_after_kick"), stall.toString());
        assertFalse((Boolean) stall.get("runnable_queued_no_carrier_active"), stall.toString());
        Map<?, ?> seen = (Map<?, ?>) stall.get("seen");
        assertEquals(Map.of("active", 10L, "available", 0L, "awaiting", 90L), seen.get("pool"));
        assertEquals(Runtime.getRuntime().availableProcessors(), ((Map<?, ?>) seen.get("scheduler")).get("parallelism"),
                "the scheduler's own counts, read (its default parallelism)");
    }

    @Test
    void nothingInFlightIsNoStallAndSteadyProgressIsNone() throws Exception {
        Settings settings = Settings.parse(new String[] {"--stall-ms", "200"});
        AtomicInteger inFlight = new AtomicInteger();
        Watchdog idle = new Watchdog(settings, NO_POOL, inFlight::get, new AtomicLong(), null);
        idle.start();
        Thread.sleep(500);
        assertTrue(idle.finish().isEmpty());

        inFlight.set(100);
        Watchdog busy = new Watchdog(settings, NO_POOL, inFlight::get, new AtomicLong(), null);
        busy.start();
        for (int i = 0; i < 50; i++) {
            busy.progress();
            Thread.sleep(10);
        }
        assertTrue(busy.finish().isEmpty());
    }
}
